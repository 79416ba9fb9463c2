/* trace_stream.h — the path trace events take to a trace file
 * (trace_file.h). Each producing thread fills a chunk of its own with no
 * lock; a full chunk goes onto a lock-free list with one CAS. Metadata
 * (strings, classes, methods, thread names), rare, is appended under a
 * mutex. One writer thread, now and then, takes the list whole, writes the
 * metadata given so far and then those chunks with write(2), whole chunks
 * only, so a process killed at any moment leaves a file readable to its last
 * complete chunk. Past the size limit it writes nothing more and counts what
 * it dropped. Pure C and pthreads, no JVMTI: the agent's tracing collector
 * drives it, tests/unit/test_trace_stream.c tests it. */
#ifndef TRACE_STREAM_H
#define TRACE_STREAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_file.h"

typedef struct trace_stream trace_stream;

/* A full (or flushed) chunk on its way to the writer. */
typedef struct trace_block {
    struct trace_block *next;
    size_t len;                 /* bytes of the finished chunk at data */
    uint32_t events;
    uint8_t data[];
} trace_block;

/* One producing thread's state: its chunk being filled. Zero it, then
 * trace_producer_init; only its thread touches it. */
typedef struct trace_producer {
    trace_stream *s;
    trace_block *block;         /* NULL: none yet (made at the first event) */
    trace_chunk chunk;
    uint32_t thread;
    uint32_t mounted;           /* the virtual thread this (carrier) thread runs now, 0: none; its next event
                                 * is preceded by TRACE_EV_UNMOUNT and TRACE_EV_MOUNT when that changed since
                                 * the last one its chunk says (so a chunk always says whose its events are) */
    uint32_t said;              /* ... the one its chunk says now (trace_emit's) */
} trace_producer;

typedef struct trace_stream_stats {
    uint64_t bytes;             /* written to the file, header included */
    uint64_t chunks, events;    /* written */
    uint64_t dropped_events;    /* past the limit, or out of memory */
    bool full;                  /* the limit was reached */
    int write_errno;            /* the first failed write's errno, 0 if none */
} trace_stream_stats;

/* A stream writing to fd (already open; the stream does not close it) with
 * chunks of chunk_bytes (header included; at least 256), stopping before
 * limit bytes (0: no limit). Writes the file header now. NULL if out of
 * memory or the header cannot be written (errno says why). */
trace_stream *trace_stream_open(int fd, uint64_t limit, uint64_t start_wall_ns, size_t chunk_bytes);

void trace_producer_init(trace_producer *p, trace_stream *s, uint32_t thread);
/* On the producer's thread: appends one timed event (trace_chunk_put's
 * arguments); a full chunk is handed to the writer and a new one begun.
 * false if the event was dropped (the limit reached, out of memory). */
bool trace_emit(trace_producer *p, unsigned type, uint64_t time_ns, const uint64_t *fields, const char *text,
                size_t text_len);
/* Whether events are still taken (false past the limit): a producer may test
 * it before the work of making an event. (The stream's first member.) */
static inline bool trace_stream_taking(const trace_stream *s)
{
    return atomic_load_explicit((const atomic_bool *)(const void *)s, memory_order_relaxed);
}

/* enter (with the method) or exit / exit-throw (id ignored): what trace_emit
 * does, written straight into the chunk when it has room and says whose the
 * events are (the hot path of trace=exec: no field loop, no length pass). */
static inline bool trace_emit_call(trace_producer *p, unsigned type, uint64_t time_ns, uint64_t id)
{
    trace_chunk *c = &p->chunk;
    if (p->block && p->said == p->mounted && c->cap - c->len >= 21 && trace_stream_taking(p->s)) {
        uint8_t *q = c->buf + c->len;
        uint64_t dt = time_ns > c->last_ns ? time_ns - c->last_ns : 0;
        *q++ = (uint8_t)type;
        for (uint64_t v = dt;; v >>= 7) {
            if (v < 0x80) {
                *q++ = (uint8_t)v;
                break;
            }
            *q++ = (uint8_t)(v | 0x80);
        }
        if (type == TRACE_EV_ENTER)
            for (uint64_t v = id;; v >>= 7) {
                if (v < 0x80) {
                    *q++ = (uint8_t)v;
                    break;
                }
                *q++ = (uint8_t)(v | 0x80);
            }
        c->len = (size_t)(q - c->buf);
        c->last_ns += dt;
        c->events++;
        return true;
    }
    return trace_emit(p, type, time_ns, type == TRACE_EV_ENTER ? &id : NULL, NULL, 0);
}

/* Hands the producer's partly filled chunk to the writer (a thread's end). */
void trace_producer_flush(trace_producer *p);

/* Any thread: a metadata event (type < TRACE_EV_TIMED), written before
 * every chunk handed over after this call returns. false if dropped. */
bool trace_stream_meta(trace_stream *s, unsigned type, const uint64_t *fields, const char *text, size_t text_len);

/* The writer (one thread at a time): writes the metadata and the chunks
 * handed over so far. Returns the bytes it wrote. */
size_t trace_stream_write(trace_stream *s);


void trace_stream_stats_get(const trace_stream *s, trace_stream_stats *out);

/* Writes what is left (the caller flushed its producers first) and takes
 * nothing more, but stays allocated: a producer that was inside an emit as
 * the stream ended finds it there (its events are dropped, its chunk never
 * written). For a writer that cannot know when the last producer left. */
void trace_stream_retire(trace_stream *s, trace_stream_stats *out);
/* The same, and frees the stream: no producer may use it after. */
void trace_stream_close(trace_stream *s, trace_stream_stats *out);

#endif
