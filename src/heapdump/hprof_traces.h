/* hprof_traces.h — the stack traces of an HPROF binary heap dump: its TRACE
 * records (serial, thread serial, frame ids), their FRAME records (method
 * name, signature, source file, class serial, line) and the names those
 * refer to (UTF8 strings; the LOAD CLASS record of each class serial), read
 * from the mapped file in one walk over the top-level records (ids of 4 or 8
 * bytes, every length checked). Nothing is copied: names point into the
 * file, which must stay mapped while the traces are used.
 *
 * What the serials mean: an object's INSTANCE, OBJECT ARRAY or PRIMITIVE
 * ARRAY DUMP names a trace (heap_graph_trace_serial). HotSpot's dumper, and
 * ours for an object heap=sites did not sample, write 1, an empty trace; a
 * dump taken by jvmprof with heap=sites gives each live sampled object the
 * serial its site's TRACE has in the report (300001 ...), whose frames are
 * the allocating stack, top first (docs/heap-dumps.md). Thread stacks
 * (ROOT THREAD OBJECT, START THREAD) are traces too. For `jvmprof heap
 * --site TRACE`: hprof_traces_find(serial), then each frame, printed with
 * hprof_traces_frame_text as the report prints it.
 *
 * Pure C, no allocation per object: memory per UTF8 string, frame and trace. */
#ifndef HPROF_TRACES_H
#define HPROF_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/id_map.h"

/* A frame's line: > 0 a line number; else one of these (HPROF's FRAME record). */
enum { HPROF_LINE_NONE = 0, HPROF_LINE_UNKNOWN = -1, HPROF_LINE_COMPILED = -2, HPROF_LINE_NATIVE = -3 };

/* A name in the file: len bytes of modified UTF-8 at p, not NUL-terminated; p NULL when the record names no
 * string (or one the file does not hold). */
typedef struct hprof_name {
    const char *p;
    uint32_t len;
} hprof_name;

typedef struct hprof_trace_frame {
    hprof_name method, sig, source;
    hprof_name class_name;   /* as LOAD CLASS spells it: java/lang/String */
    uint32_t class_serial;
    int32_t line;            /* > 0, or HPROF_LINE_* */
} hprof_trace_frame;

typedef struct hprof_traces {
    const uint8_t *d;
    size_t len;
    unsigned idsize;
    id_map strings;          /* UTF8 id -> file offset of the record's body */
    id_map classes;          /* class serial -> UTF8 id of its name */
    id_map frames;           /* frame id -> file offset of the FRAME record's body */
    id_map traces;           /* trace serial -> file offset of the TRACE record's body */
    uint64_t ntraces, nframes;
} hprof_traces;

/* Reads the dump data[0..len). False with a one-line reason in err (not an HPROF file, a record cut
 * short, out of memory); t is then empty. */
bool hprof_traces_read(hprof_traces *t, const void *data, size_t len, char *err, size_t errlen);
void hprof_traces_free(hprof_traces *t);
/* The trace with this serial: its frame count and thread serial (0: none). False if the dump has no
 * TRACE record of that serial. */
bool hprof_traces_find(const hprof_traces *t, uint32_t serial, uint32_t *nframes, uint32_t *thread_serial);
/* Frame k (0 = top) of trace serial. False if there is no such trace or frame, or the trace names a
 * frame id without a FRAME record (out then says nothing). */
bool hprof_traces_frame(const hprof_traces *t, uint32_t serial, uint32_t k, hprof_trace_frame *out);
/* The frame as the report prints it, in buf (cut to len, NUL-terminated): "java.util.ArrayList.add(
 * ArrayList.java:467)", with "Unknown line", "Compiled method", "Native method" or "Unknown Source"
 * where the frame has no line or source; "<unknown class>" for a class serial without LOAD CLASS. */
void hprof_traces_frame_text(const hprof_trace_frame *f, char *buf, size_t len);

#endif
