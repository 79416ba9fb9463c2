/* hprof_heap.h — the streaming writer of HPROF binary heap dumps
 * ("JAVA PROFILE 1.0.2", 8-byte ids, as HotSpot writes them): the
 * top-level records a dump needs (UTF8, LOAD CLASS, FRAME, TRACE, START
 * THREAD) and the heap dump sub-records (roots, CLASS DUMP, INSTANCE DUMP,
 * OBJECT/PRIMITIVE ARRAY DUMP) inside HEAP DUMP SEGMENTs, ended by HEAP DUMP
 * END. Nothing is kept in memory: each sub-record goes straight to the sink
 * and a segment's length is patched in when the segment closes. A segment
 * is closed before it would pass `segment_limit` bytes; an array too long
 * for one segment is cut to fit (counted in hprof_heap_stats). Pure C. */
#ifndef HPROF_HEAP_H
#define HPROF_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/jp_error.h"
#include "sink.h"

/* Basic types of fields and array elements. */
enum hprof_type {
    HPROF_OBJECT = 2, HPROF_BOOLEAN = 4, HPROF_CHAR = 5, HPROF_FLOAT = 6, HPROF_DOUBLE = 7,
    HPROF_BYTE = 8, HPROF_SHORT = 9, HPROF_INT = 10, HPROF_LONG = 11,
};
/* Bytes a value of the type takes in a dump (ids are 8 bytes); 0 if not a type. */
unsigned hprof_type_size(unsigned type);
/* The type of a JVM field descriptor's first character ('I', 'L', '[' ...); 0 if none. */
unsigned hprof_type_of_descriptor(char c);

/* Heap dump sub-record tags of the GC roots. */
enum hprof_root {
    HPROF_ROOT_UNKNOWN = 0xFF,
    HPROF_ROOT_JNI_GLOBAL = 0x01,      /* id, JNI global ref id */
    HPROF_ROOT_JNI_LOCAL = 0x02,       /* id, thread serial, frame number */
    HPROF_ROOT_JAVA_FRAME = 0x03,      /* id, thread serial, frame number */
    HPROF_ROOT_NATIVE_STACK = 0x04,    /* id, thread serial */
    HPROF_ROOT_STICKY_CLASS = 0x05,    /* id */
    HPROF_ROOT_THREAD_BLOCK = 0x06,    /* id, thread serial */
    HPROF_ROOT_MONITOR_USED = 0x07,    /* id */
    HPROF_ROOT_THREAD_OBJECT = 0x08,   /* id, thread serial, stack trace serial */
};
enum {
    HPROF_SUB_CLASS_DUMP = 0x20, HPROF_SUB_INSTANCE_DUMP = 0x21,
    HPROF_SUB_OBJ_ARRAY_DUMP = 0x22, HPROF_SUB_PRIM_ARRAY_DUMP = 0x23,
};

/* HotSpot starts a new segment well before the u4 length could overflow. */
#define HPROF_HEAP_SEGMENT_LIMIT (1ull << 30)

typedef struct hprof_heap hprof_heap;

typedef struct hprof_field {
    uint64_t name;        /* UTF8 string id */
    uint8_t type;         /* enum hprof_type */
    uint64_t value;       /* statics: the value's bits (an id for objects); unused for instance fields */
} hprof_field;

typedef struct hprof_class_dump {
    uint64_t id, super, loader, signers, domain;
    uint32_t trace;
    uint32_t instance_size;           /* bytes of an INSTANCE DUMP's values: all fields, superclasses too */
    uint16_t nstatics, nfields;
    const hprof_field *statics;
    const hprof_field *fields;        /* this class's own instance fields, declaration order */
} hprof_class_dump;

typedef struct hprof_heap_stats {
    uint64_t segments, roots, classes, instances, obj_arrays, prim_arrays;
    uint64_t arrays_cut;              /* arrays cut to fit a segment */
} hprof_heap_stats;

/* Writes the file header (time in ms since the epoch). */
hprof_heap *hprof_heap_begin(sink *s, uint64_t time_ms, uint64_t segment_limit);

/* Top-level records; each closes the open segment, if any. */
void hprof_heap_utf8(hprof_heap *h, uint64_t id, const char *str, size_t len);
void hprof_heap_load_class(hprof_heap *h, uint32_t serial, uint64_t class_id, uint32_t trace, uint64_t name);
void hprof_heap_frame(hprof_heap *h, uint64_t frame, uint64_t method_name, uint64_t method_sig, uint64_t source,
                      uint32_t class_serial, int32_t line);
void hprof_heap_trace(hprof_heap *h, uint32_t serial, uint32_t thread_serial, uint32_t nframes,
                      const uint64_t *frames);
void hprof_heap_start_thread(hprof_heap *h, uint32_t serial, uint64_t thread_id, uint32_t trace, uint64_t name,
                             uint64_t group, uint64_t parent_group);

/* Sub-records, in the open segment (one is opened when needed). `a` and `b`
 * are the root's extra fields in the order listed in enum hprof_root
 * (unused ones are ignored). */
void hprof_heap_root(hprof_heap *h, enum hprof_root kind, uint64_t id, uint64_t a, uint32_t b);
void hprof_heap_class(hprof_heap *h, const hprof_class_dump *c);
/* `values`: nbytes already in dump order and big-endian. */
void hprof_heap_instance(hprof_heap *h, uint64_t id, uint32_t trace, uint64_t class_id, const unsigned char *values,
                         uint32_t nbytes);
/* An object array: begin, then elements by increasing index (skipped
 * indices are null), then end, which writes the nulls left. */
void hprof_heap_obj_array_begin(hprof_heap *h, uint64_t id, uint32_t trace, uint32_t length, uint64_t class_id);
void hprof_heap_obj_array_element(hprof_heap *h, uint32_t index, uint64_t id);
void hprof_heap_obj_array_end(hprof_heap *h);
/* Elements in the machine's byte order; written big-endian. */
void hprof_heap_prim_array(hprof_heap *h, uint64_t id, uint32_t trace, uint8_t type, uint32_t length,
                           const void *elements);

/* Closes the open segment and writes HEAP DUMP END; frees h. Returns the
 * sink's status (the caller commits or aborts the sink). */
jp_status hprof_heap_end(hprof_heap *h, hprof_heap_stats *stats);
/* Frees h without finishing the file (the caller aborts the sink). */
void hprof_heap_free(hprof_heap *h);

#endif
