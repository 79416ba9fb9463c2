/* heap_graph.h — the object graph of an HPROF binary heap dump (ours,
 * jcmd GC.heap_dump, -XX:+HeapDumpOnOutOfMemoryError; 4- or 8-byte ids; HEAP
 * DUMP and HEAP DUMP SEGMENT records), read from the mapped file for the
 * retained sizes of `jvmprof heap --retained` (heap_dominators.h).
 *
 * Objects: every INSTANCE DUMP, OBJECT ARRAY DUMP, PRIMITIVE ARRAY DUMP and
 * CLASS DUMP (a class is an object: its statics hold references) gets a
 * dense index 0..n-1, in the order of their ids. An id finds its index
 * through the sorted ids and a bucket table over their range (4 bytes per 4
 * objects), never a per-object allocation. When the dump defines an id twice,
 * the first definition in the file is the object; later ones are counted
 * (`duplicates`) and left out.
 *
 * References (edges), in CSR form: object i's targets are
 * edges[edge_at[i] .. edge_at[i + 1]), uint32 indexes, built in two passes
 * over the file (count, then fill), so the graph costs ~ 4 bytes per edge and
 * ~ 29 per object (id, file offset, class, shallow size, edge offset, the id
 * buckets):
 *   instance      the reference fields of its class and of its superclasses,
 *                 in the dump's order (the class's own fields, then its
 *                 super's, ...), then its class (an instance keeps its class
 *                 loaded, as MAT counts it)
 *   object array  its elements, in order
 *   class         its super class, its class loader, its static reference
 *                 fields, in that order
 * An array's class is not an edge (VisualVM's heap library has none either;
 * array classes are reached through their loader or a root). Null references are no edges; a
 * reference to an id the dump does not define (HotSpot leaves out the
 * objects class data sharing archived) is dropped and counted (`unresolved`).
 * With HEAP_GRAPH_IGNORE_WEAK, the field `referent` declared in
 * java.lang.ref.Reference (weak, soft, phantom and final references) is no
 * edge either; each such non-null, resolved referent is kept apart in
 * referent_from/referent_to. heap_graph_edge_name tells, for a later "path to
 * GC roots", which field or element an edge is, by reading the object's
 * record again (each object's file offset is kept).
 *
 * GC roots: every ROOT sub-record (JNI global and local, Java frame, native
 * stack, sticky class, thread block, monitor used, thread object, unknown),
 * its kind (the sub-record's tag) and, where the record gives one, its
 * thread serial number. Roots naming an undefined id are dropped and counted.
 *
 * Shallow size, VisualVM's heap library's rule: a dump does not say how the
 * JVM laid its objects out, but HotSpot sets the system property
 * java.vm.compressedOopsMode when it compresses references, and the dumped
 * System.props holds it. Without it (or with 4-byte ids), heap_graph_shallow
 * (the rule of the class histogram, hprof_read.h's heap_shallow): an
 * instance is a 16-byte header + its field values as dumped; an array 20
 * bytes (header and length) + length x element size (references at the
 * file's id size); a class its 16-byte header + its static values; each
 * rounded up to 8. With it (compressed_oops): an instance is a 12-byte
 * header + its fields, references 4 bytes each; an array 16 bytes + its
 * elements, references 4 bytes each; rounded up to 8. A class object keeps
 * the first rule (VisualVM counts java.lang.Class's fields instead).
 *
 * Class indexes (cls[i]) name the class of each object: HEAP_CLASS_PRIM + t
 * - 4 for a primitive array of basic type t (4..11: boolean[] .. long[]),
 * HEAP_CLASS_CLASS for a class object when the dump has no CLASS DUMP of
 * java.lang.Class (else that class's index), and HEAP_CLASS_FIRST + k for
 * the reader's k-th class (hprof_heap_scan.h). */
#ifndef HEAP_GRAPH_H
#define HEAP_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEAP_GRAPH_NONE UINT32_MAX
#define HEAP_GRAPH_MAX_OBJECTS (UINT32_MAX - 16u)
enum { HEAP_CLASS_PRIM = 0, HEAP_CLASS_CLASS = 8, HEAP_CLASS_FIRST = 9 };
enum { HEAP_GRAPH_IGNORE_WEAK = 1 };

/* A progress report of a long phase: done of total units (bytes of the file
 * while reading it, objects after). */
typedef void (*heap_progress_fn)(void *ctx, const char *phase, uint64_t done, uint64_t total);

typedef struct heap_root {
    uint32_t obj;    /* index of the object */
    uint8_t kind;    /* the ROOT sub-record's tag: 0xFF unknown, 0x01 JNI global, 0x02 JNI local, 0x03 Java frame,
                      * 0x04 native stack, 0x05 sticky class, 0x06 thread block, 0x07 monitor used, 0x08 thread */
    uint32_t thread; /* thread serial number (JNI local, Java frame, native stack, thread block, thread); else 0 */
} heap_root;

struct ht_reader;

typedef struct heap_graph {
    const uint8_t *d; /* the dump, which must stay mapped while the graph is used */
    size_t len;
    unsigned idsize;
    char version[8]; /* "1.0.1" or "1.0.2" */
    unsigned flags;  /* HEAP_GRAPH_* */
    uint32_t n;      /* objects (and classes) */
    uint64_t *ids;   /* sorted */
    uint64_t *at;    /* each object's sub-record (its tag's offset) */
    uint32_t *cls;   /* class index (above) */
    uint32_t *size8; /* shallow bytes / 8 (heap_graph_shallow) */
    uint32_t *edge_at; /* n + 1 */
    uint32_t *edges;
    uint64_t nedges;
    heap_root *roots;
    size_t nroots;
    uint32_t *referent_from, *referent_to; /* HEAP_GRAPH_IGNORE_WEAK: the referents left out */
    size_t nreferents;
    uint64_t unresolved;       /* references (fields, elements, statics, super, loader) to undefined ids */
    uint64_t unresolved_roots; /* GC roots naming undefined ids */
    uint64_t duplicates;       /* definitions of an id already defined */
    uint64_t shallow_total;    /* of every object */
    bool compressed_oops;      /* the JVM compressed its references: the shallow sizes say so (above) */
    uint32_t nclasses;         /* class indexes are below this */
    struct ht_reader *r;       /* names and class layouts */
    uint32_t *bucket;          /* id -> index: the first index of each bucket of ids */
    uint64_t bucket_n;
    unsigned bucket_shift;
    size_t weak_cls;           /* the reader's index of java.lang.ref.Reference (HT_NONE: none) ... */
    uint32_t weak_off;         /* ... and the offset of its field referent in its own values */
} heap_graph;

/* Builds the graph of the dump data[0..len) (flags: HEAP_GRAPH_*). False
 * with a one-line reason in err (a malformed dump names the record and its
 * offset); g is then empty. progress may be NULL. */
bool heap_graph_build(heap_graph *g, const void *data, size_t len, unsigned flags, heap_progress_fn progress,
                      void *pctx, char *err, size_t errlen);
void heap_graph_free(heap_graph *g);

/* The index of the object with this id, HEAP_GRAPH_NONE if the dump does not define it. */
uint32_t heap_graph_find(const heap_graph *g, uint64_t id);
/* The shallow-size rule (see above), from a record's values: an instance's
 * field bytes, an array's element bytes, a class's static value bytes. */
uint64_t heap_graph_shallow(uint8_t tag, uint64_t value_bytes);
static inline uint64_t heap_graph_shallow_of(const heap_graph *g, uint32_t i) { return (uint64_t)g->size8[i] * 8u; }
/* Class index ci's Java-style name (java.lang.String, int[]). */
const char *heap_graph_class_name(const heap_graph *g, uint32_t ci);
/* True when object i is a class (a CLASS DUMP); its name then in *name. */
bool heap_graph_is_class(const heap_graph *g, uint32_t i, const char **name);
/* Which reference edge k of object i is (0 <= k < its edge count), in
 * buf: "name" for an instance field, "<class>" for an instance's class,
 * "[7]" for an element, "static name", "<super>" or "<loader>" for a class. False if k is out of range. */
bool heap_graph_edge_name(const heap_graph *g, uint32_t i, uint32_t k, char *buf, size_t len);
/* Instance i's field called name (its class's own fields first, then its
 * superclasses'): its basic type in *type (2 object, 4 boolean, 5 char, 6
 * float, 7 double, 8 byte, 9 short, 10 int, 11 long) and its value in
 * *value (an object's id, 0 for null; a number's bits). False when i is no
 * instance or has no such field. */
bool heap_graph_field(const heap_graph *g, uint32_t i, const char *name, uint8_t *type, uint64_t *value);
/* The text of object i, a java.lang.String (its value: a byte[] in LATIN1 or
 * UTF-16 by its field coder, from JDK 9; a char[] before) or a char[] itself
 * (JDK 8's Thread.name), as UTF-8 in buf, control characters as '?', cut
 * to fit. False when i is neither, or its value is missing. */
bool heap_graph_string(const heap_graph *g, uint32_t i, char *buf, size_t len);
/* The stack-trace serial object i's record carries (read from the file at
 * at[i]; nothing kept per object): 1, an empty trace, for most objects and
 * in HotSpot's dumps; with heap=sites, a live sampled object's allocation
 * trace (the report's TRACE number), whose frames hprof_traces.h reads. */
uint32_t heap_graph_trace_serial(const heap_graph *g, uint32_t i);
/* A GC root kind's name ("JNI global", "Java frame", ...). */
const char *heap_graph_root_kind(uint8_t kind);

#endif
