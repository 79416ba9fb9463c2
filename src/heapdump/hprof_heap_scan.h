/* hprof_heap_scan.h — the first pass of the heap dump readers that need the
 * file's structure (hprof_heap_text.c, the ASCII converter; hprof_heap_fixup.c,
 * which nulls references to objects a dump left out): every record and
 * sub-record walked with all lengths checked; UTF8 strings kept by position,
 * LOAD CLASS names, each CLASS DUMP's super and field list, the first
 * INSTANCE DUMP of each class, the range of the ids the dump defines; then
 * (ht_finish) Java names and each class's reference fields and instance
 * layout, every instantiated class checked against it. Memory for strings
 * and classes only, never per object. Traps: ids are 4 or 8 bytes; a class's
 * CLASS DUMP may come after its instances (our agent writes classes last);
 * HotSpot names classes java/lang/String, [I, [Ljava/lang/Object; and dumps
 * array classes. Internal to src/heapdump (heap_histogram.c counts through
 * ht_walk_once), and the agent's dump progress line (ht_count_body). */
#ifndef HPROF_HEAP_SCAN_H
#define HPROF_HEAP_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/arena.h"
#include "../common/id_map.h"
#include "../common/jp_error.h"

#define HT_NONE SIZE_MAX
#define HT_VERSION_AT 17 /* the offset of the '1' or '2' of "JAVA PROFILE 1.0.2" */

typedef struct ht_string {
    uint64_t off; /* file offset of the UTF-8 bytes */
    uint32_t len;
} ht_string;

/* A reference instance field of a class (own fields only). */
typedef struct ht_ref {
    uint32_t off; /* byte offset in the class's own part of the values */
    uint32_t name_len;
    const char *name;
} ht_ref;

typedef struct ht_class {
    uint64_t id;
    uint64_t name_sid; /* UTF8 id of the LOAD CLASS name */
    bool named, dumped;
    /* CLASS DUMP */
    uint64_t super;
    uint64_t fields_at; /* file offset of the instance field list (after its u2 count) */
    uint16_t nfields;
    uint64_t own_bytes;
    /* the first INSTANCE DUMP of the class */
    bool instantiated;
    uint32_t inst_bytes;
    uint64_t inst_id, inst_at;
    /* ht_finish */
    const char *name;      /* Java style: java.lang.String, int[] */
    const char *elem_name; /* object arrays: the element type's name */
    uint64_t elem_id;      /* ... and its class id (the array class's if not dumped) */
    size_t super_idx;      /* HT_NONE when none */
    size_t ref_first, nrefs;
    uint8_t layout; /* 0 not yet, 1 in progress, 2 done */
    uint64_t layout_bytes;
    bool bad;         /* a class in the chain has no CLASS DUMP, or the chain loops (cycle) */
    bool cycle;
    uint64_t missing; /* ... that class's id */
    uint64_t count, count_bytes; /* heap_histogram.c: its objects and their shallow bytes */
} ht_class;

/* A sub-record function (ht_each_sub): tag, and p the offset just past the
 * tag. False stops the walk (the caller says why). */
struct ht_reader;
typedef bool (*ht_sub_fn)(struct ht_reader *r, uint8_t tag, size_t p, void *ctx);

typedef struct ht_reader {
    const uint8_t *d;
    size_t len;
    unsigned idsize;
    uint64_t time_ms;
    id_map strings; /* UTF8 id -> index in str[] */
    ht_string *str;
    size_t nstr, capstr;
    id_map classes; /* class object id -> index in cls[] */
    ht_class *cls;
    size_t ncls, capcls;
    uint64_t last_id; /* one-entry cache for runs of the same class */
    size_t last_idx;
    ht_ref *refs;
    size_t nrefs, caprefs;
    arena names;
    uint64_t objects, bytes;
    jp_status st;
    char *err;
    size_t errlen;
    uint64_t id_min, id_max, id_or; /* over the objects and classes the dump defines (pass 1) */
    uint64_t defined;               /* ... how many: INSTANCE, ARRAY and CLASS DUMPs (pass 1) */
    struct ht_out *out;   /* hprof_heap_text.c's buffer */
    ht_sub_fn sub_fn;     /* ht_walk_subs' function and its argument */
    void *sub_ctx;
} ht_reader;

/* A reader over data[0..len) (read, or written in place by the fix-up);
 * failures are one line in err. ht_reader_free frees what the passes kept. */
void ht_reader_init(ht_reader *r, const uint8_t *data, size_t len, char *err, size_t errlen);
void ht_reader_free(ht_reader *r);
bool ht_fail(ht_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool ht_nomem(ht_reader *r);
/* the index of class object id, created if new; HT_NONE when out of memory */
size_t ht_class_of(ht_reader *r, uint64_t id);
/* class ci's Java-style name (made once, in the names arena: "<unknown class
 * 0x...>" without a LOAD CLASS name); NULL when out of memory */
const char *ht_name_of(ht_reader *r, size_t ci);
/* the index of a class seen in pass 1, HT_NONE if unknown */
size_t ht_find_class(const ht_reader *r, uint64_t id);
/* the same through a one-entry cache (runs of instances of one class); use
 * after pass 1 with last_idx reset to HT_NONE */
size_t ht_known_class(ht_reader *r, uint64_t id);
/* the bytes of UTF8 string sid, or NULL */
const char *ht_string_of(const ht_reader *r, uint64_t sid, uint32_t *len);
/* Checks the sub-record at q (its tag at q - 1) of a heap body ending at
 * `end`; returns its end, 0 on error. `collect`: pass 1. */
size_t ht_sub_scan(ht_reader *r, uint8_t tag, size_t q, size_t end, size_t at, bool collect);
/* pass 1's record function, for ht_walk */
bool ht_record_scan(ht_reader *r, uint8_t tag, size_t body, uint32_t rlen, size_t at);
/* The header and the top-level record walk: fn for each record. `first`
 * checks that the file holds a heap dump, closed. */
bool ht_walk(ht_reader *r, bool (*fn)(ht_reader *, uint8_t, size_t, uint32_t, size_t), bool first);
/* After pass 1: names, reference fields, layouts (see above). */
bool ht_finish(ht_reader *r);

/* Each sub-record of the heap record body [body, body + len), checked by
 * ht_sub_scan (`collect`: pass 1), then given to fn (NULL: none). False at
 * the first that fails. */
bool ht_each_sub(ht_reader *r, size_t body, size_t len, bool collect, ht_sub_fn fn, void *ctx);
/* After pass 1: ht_each_sub over every HEAP DUMP and HEAP DUMP SEGMENT. */
bool ht_walk_subs(ht_reader *r, ht_sub_fn fn, void *ctx);
/* Instead of pass 1, for a reader that needs one pass (heap_histogram.c):
 * the walk with its checks, the strings and LOAD CLASS names kept, and fn
 * given every heap sub-record as ht_walk_subs does. */
bool ht_walk_once(ht_reader *r, ht_sub_fn fn, void *ctx);

/* The objects (instances and arrays) in one HEAP DUMP or HEAP DUMP SEGMENT
 * body of a dump with ids of idsize bytes, added to *objects; false if the
 * body is malformed. For progress lines while a dump is being written. */
bool ht_count_body(const uint8_t *body, size_t len, unsigned idsize, uint64_t *objects);

#endif
