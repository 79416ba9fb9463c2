/* heap_dump_sites.h — what a heap dump needs to give heap=sites' sampled
 * objects their allocation trace: the JVMTI tags of the live sampled objects
 * (in the agent's own environment, where the sampler tagged them) with each
 * one's trace serial (the number the report prints for its site's TRACE:
 * HPROF_SERIAL_TRACE + the model's trace id), and those traces' frames by
 * name (method, signature, source file, declaring class as the model names
 * it: dotted, and line: > 0, or FRAME_LINE_*), so that the dump can write
 * FRAME and TRACE records for them. Made by the collector that tags the
 * objects (collector.h's dump_sites hook, on the agent thread, which owns
 * the model), read by heap_dump.c while it prepares its walk, on any thread.
 * Pure data: no JVMTI, no model. */
#ifndef HEAP_DUMP_SITES_H
#define HEAP_DUMP_SITES_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/arena.h"

typedef struct heap_dump_frame {
    const char *method, *sig, *source, *class_name; /* source: NULL when unknown */
    int32_t line;
} heap_dump_frame;

typedef struct heap_dump_trace {
    uint32_t serial;
    uint32_t nframes;
    const heap_dump_frame *frames; /* top of stack first */
} heap_dump_trace;

typedef struct heap_dump_sites {
    bool given;                 /* a collector filled it (heap=sites is running) */
    bool failed;                /* out of memory: some objects or traces are missing */
    uint32_t nobjects, cap_objects;
    int64_t *tags;              /* the sampled objects' tags, sorted after heap_dump_sites_seal */
    uint32_t *serials;          /* ... each one's trace serial */
    uint32_t ntraces, cap_traces;
    heap_dump_trace *traces;    /* sorted by serial after heap_dump_sites_seal */
    arena mem;                  /* strings and frames */
} heap_dump_sites;

void heap_dump_sites_init(heap_dump_sites *s);
void heap_dump_sites_free(heap_dump_sites *s);
/* A live sampled object: its tag and its trace serial. */
void heap_dump_sites_object(heap_dump_sites *s, int64_t tag, uint32_t serial);
/* Trace `serial`, its frames copied (strings too; NULL strings stay NULL). */
void heap_dump_sites_trace(heap_dump_sites *s, uint32_t serial, const heap_dump_frame *frames, uint32_t nframes);
/* Sorts objects by tag and traces by serial (after the last addition). */
void heap_dump_sites_seal(heap_dump_sites *s);
/* After seal: the trace serial of the object tagged `tag`, 0 if it is not one of them. */
uint32_t heap_dump_sites_serial_of(const heap_dump_sites *s, int64_t tag);
/* After seal: trace `serial`, NULL if absent. */
const heap_dump_trace *heap_dump_sites_find_trace(const heap_dump_sites *s, uint32_t serial);

#endif
