/* trace_file.h — the jvmprof trace file (trace=): a 32-byte header, then
 * chunks, each the events of one thread (or of none: metadata and events of
 * the VM) in time order, with its length and a CRC-32, so a file cut short
 * (a process killed with -9, a full disk) is read up to its last complete
 * chunk. Events are a type byte and unsigned LEB128 fields; times are
 * nanoseconds since the trace began, each event's the difference from the
 * one before it in its chunk. Strings, classes and methods are written once
 * and named by number after. Pure C: the agent encodes with it, `jvmprof
 * trace` decodes. The format, byte by byte: docs/trace-format.md. */
#ifndef TRACE_FILE_H
#define TRACE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/jp_error.h"

#define TRACE_FILE_MAGIC "JVMPROF TRACE\0\0" /* 16 bytes with its NUL */
#define TRACE_FILE_VERSION 1u
#define TRACE_HEADER_SIZE 32u
#define TRACE_CHUNK_MAGIC 0x4b484354u /* "TCHK" little-endian */
#define TRACE_CHUNK_HEADER_SIZE 24u
#define TRACE_CHUNK_MAX (1u << 24)    /* payload bytes; a reader refuses more */
#define TRACE_FIELDS_MAX 6u
#define TRACE_SAMPLES_THREAD 0xffffffffu /* the chunks of the CPU samples, each naming its thread */

/* The event types and their fields, in order. Metadata (< TRACE_EV_TIMED)
 * has no time; every other event starts with its time difference. */
typedef enum trace_event_type {
    TRACE_EV_STRING = 1,       /* id, then the bytes (length, bytes) */
    TRACE_EV_CLASS = 2,        /* id, name (string id) */
    TRACE_EV_METHOD = 3,       /* id, class id, name, signature (string ids), flags (TRACE_METHOD_*) */
    TRACE_EV_THREAD = 4,       /* thread id, name, group (string ids; 0: none), priority, flags (TRACE_THREAD_*) */
    TRACE_EV_GC = 5,           /* gc number, kind (TRACE_GC_*), collector, cause (string ids), heap used
                                * before, heap used after (bytes): what the gc-start and gc-end of that
                                * number were; may come after them (it is known only once the collection
                                * is reported). What was not known when the trace ended: kind
                                * TRACE_GC_UNKNOWN, string id 0, heap TRACE_GC_USED_UNKNOWN */
    TRACE_EV_PROVIDER = 6,     /* provider id, name, module, attributes (string ids; module "" when the program
                                * gave none): a com.sun.tracing provider made by the program */
    TRACE_EV_PROBE_INFO = 7,   /* probe id, provider id, name, function, kinds (string ids): one of its probes;
                                * kinds has a letter per parameter (src/trace/probe_args.h) */
    TRACE_EV_VTHREAD = 8,      /* thread id, name (string id; 0: unnamed), the Java thread id (Thread.threadId()):
                                * a virtual thread (JDK 21 and later) */
    TRACE_EV_TIMED = 16,
    TRACE_EV_ENTER = 16,       /* method id (its depth and its exit's method follow from the thread's entries) */
    TRACE_EV_EXIT = 17,        /* (none): the thread's innermost open entry returns */
    TRACE_EV_EXIT_THROW = 18,  /* (none): ... is left by an exception */
    TRACE_EV_ALLOC = 19,       /* object id, class id, size in bytes, array length + 1 (0: not an array) */
    TRACE_EV_FREE = 20,        /* object id */
    TRACE_EV_GC_START = 21,    /* gc number (a TRACE_EV_GC of that number tells its kind and heap) */
    TRACE_EV_GC_END = 22,      /* gc number */
    TRACE_EV_THREAD_START = 23, /* thread id */
    TRACE_EV_THREAD_END = 24,  /* thread id */
    TRACE_EV_CLASS_LOAD = 25,  /* class id */
    TRACE_EV_CLASS_UNLOAD = 26, /* class id */
    TRACE_EV_MONITOR = 27,     /* kind (TRACE_MONITOR_*), object id, class id */
    TRACE_EV_USER = 28,        /* the message (length, bytes) */
    TRACE_EV_ENTER_AT = 29,    /* method id, depth: an entry whose exit is not traced (exec:light) */
    TRACE_EV_CALL = 30,        /* method id, depth, duration (ns), 1 if left by an exception else 0: a whole
                                * call, at its end (mintime=: only calls at least that long are kept) */
    TRACE_EV_REFERENCES = 31,  /* objects, references: an object-reference report (jvmprof.Control
                                * .objectReferences) follows, each object an `object`, its references,
                                * an `object-end` */
    TRACE_EV_OBJECT = 32,      /* object id, kind (TRACE_OBJECT_*), class id, size in bytes, array length + 1 */
    TRACE_EV_REFERENCE = 33,   /* object id referred to, kind (JVMTI's jvmtiHeapReferenceKind), index (a
                                * field's, an array element's, a constant pool entry's; else 0) */
    TRACE_EV_OBJECT_END = 34,  /* (none): the object's references are over */
    TRACE_EV_ENTER_THIS = 35,  /* method id, object id: an entry of a method with a receiver (method flag
                                * TRACE_METHOD_RECEIVER) on another object than the last one named on its
                                * thread; a plain enter of such a method is on that last one */
    TRACE_EV_SAMPLE = 36,      /* thread id, stack (string id: "pkg.Class.method;..." from the root): a CPU
                                * sample (cpu=samples in the same run), on the chunks of TRACE_SAMPLES_THREAD */
    TRACE_EV_PROBE = 37,       /* probe id, then the argument values (length, bytes: src/trace/probe_args.h):
                                * a firing of a com.sun.tracing probe */
    TRACE_EV_MOUNT = 38,       /* virtual thread id: from here on, in this chunk, the chunk's thread (a carrier)
                                * runs that virtual thread, and the events are its (each chunk begun while one
                                * is mounted starts with its mount) */
    TRACE_EV_UNMOUNT = 39,     /* virtual thread id: ... no more; the events are the carrier's again */
    TRACE_EV_LAST = 39
} trace_event_type;

enum { TRACE_METHOD_STATIC = 1, TRACE_METHOD_NATIVE = 2, TRACE_METHOD_SYNCHRONIZED = 4, TRACE_METHOD_RECEIVER = 8 };
enum { TRACE_GC_UNKNOWN = 0, TRACE_GC_YOUNG = 1, TRACE_GC_FULL = 2 };
#define TRACE_GC_USED_UNKNOWN UINT64_MAX
enum { TRACE_THREAD_DAEMON = 1, TRACE_THREAD_VIRTUAL = 2 /* (readers': a TRACE_EV_VTHREAD's) */ };
enum { TRACE_OBJECT_PLAIN = 1, TRACE_OBJECT_ARRAY = 2, TRACE_OBJECT_CLASS = 3 };
enum { TRACE_MONITOR_CONTENDED = 1, TRACE_MONITOR_ENTERED = 2, TRACE_MONITOR_WAIT = 3, TRACE_MONITOR_WAITED = 4 };

/* The name of an event type ("enter", "gc-end"), or NULL if there is none. */
const char *trace_event_name(unsigned type);
/* How many number fields a type has (the text of STRING, USER and PROBE comes after them). */
unsigned trace_event_fields(unsigned type);

/* Writes the file header: magic, version, and the wall-clock time the trace
 * began (ns since the epoch), to which every event's time is added. */
void trace_file_header(uint8_t out[TRACE_HEADER_SIZE], uint64_t start_wall_ns);

/* A chunk being filled in a buffer of the caller's (the header's room
 * first). No allocation, no lock: a thread fills its own. */
typedef struct trace_chunk {
    uint8_t *buf;
    size_t cap, len;      /* len counts the header */
    uint64_t last_ns;     /* the time of the last timed event (or the chunk's base) */
    uint32_t thread;
    uint32_t events;
} trace_chunk;

void trace_chunk_begin(trace_chunk *c, uint8_t *buf, size_t cap, uint32_t thread, uint64_t base_ns);
/* Appends an event: its fields (trace_event_fields of them) and, for STRING,
 * USER and PROBE, the text. time_ns is ignored for metadata, and a time before the
 * last event's counts as equal to it. false (nothing written) when it does
 * not fit: finish the chunk and begin another. */
bool trace_chunk_put(trace_chunk *c, unsigned type, uint64_t time_ns, const uint64_t *fields, const char *text,
                     size_t text_len);
/* Fills in the chunk's header (length, checksum); returns its whole size in bytes. */
size_t trace_chunk_finish(trace_chunk *c);
/* The same in two steps, for a producer that leaves the checksum to its
 * writer: the header but the checksum, then the checksum of a closed chunk. */
size_t trace_chunk_close(trace_chunk *c);
void trace_chunk_checksum(uint8_t *chunk);

/* ---- reading ---- */

typedef struct trace_event {
    unsigned type;
    uint32_t thread;            /* the chunk's thread (0: none), or the virtual thread mounted on it */
    uint32_t carrier;           /* ... then the chunk's thread, its carrier; 0: no virtual thread */
    uint64_t time_ns;           /* since the trace began; 0 for metadata */
    uint64_t f[TRACE_FIELDS_MAX];
    const char *text;           /* STRING, USER, PROBE: not NUL-terminated, points into the file */
    size_t text_len;
    size_t offset;              /* where the event starts in the file */
} trace_event;

typedef struct trace_reader {
    const uint8_t *data;
    size_t len, off;
    size_t chunk_end;           /* end of the current chunk's payload; 0: between chunks */
    uint32_t thread;
    uint32_t mounted;           /* the virtual thread the chunk's thread runs now (TRACE_EV_MOUNT); 0: none */
    uint64_t now;
    uint64_t start_wall_ns;
    uint64_t chunks, events;
    bool stopped;               /* the file ended early or is damaged: why says where */
    bool one_chunk;             /* set by trace_reader_chunk: next stops at the chunk's end */
    size_t chunk_start;         /* the current chunk's offset */
    char why[200];
} trace_reader;

/* Checks the header. JP_ERR_FORMAT (why says what was wrong) if the data is
 * no jvmprof trace or a version this reader does not know. */
jp_status trace_reader_open(trace_reader *r, const void *data, size_t len);
/* The next event in file order: true, or false at the end of the data. At a
 * chunk cut short, damaged or malformed, stopped is set, why names the
 * offset, and the events before that chunk are all there is. */
bool trace_reader_next(trace_reader *r, trace_event *ev);
/* Goes to the chunk at offset (as chunk_start gave it) and reads only that
 * chunk from then on; false (stopped, why) if it is not sound. */
bool trace_reader_chunk(trace_reader *r, size_t offset);

#endif
