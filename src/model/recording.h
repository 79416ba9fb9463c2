/* recording.h — record=y: the recent events of a session, each with its
 * time and thread, in a bounded ring of fixed-size records held in chunks.
 * The oldest chunk goes when the ring would pass maxsize= bytes, and records
 * older than maxage= go as new ones arrive (recording_expire). A record's
 * trace and stack ids point into the session model's tables, which only
 * grow, so a record stays meaningful for the session's life. Pure C, one
 * writer (the agent thread): no locks. */
#ifndef RECORDING_H
#define RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum recording_kind {
    RECORDING_CPU = 1,    /* a CPU sample: weight samples of trace/stack */
    RECORDING_WALL,       /* a wall= sample: weight samples, in state */
    RECORDING_ALLOC,      /* a sampled allocation: value bytes */
    RECORDING_LOCK,       /* a lock wait or a wait (monitor=y): value ns; state: its model_monitor_kind */
    RECORDING_GC,         /* garbage collections (heap=sites): weight of them, value ns in all */
} recording_kind;

typedef struct recording_event {
    uint64_t time_ns;     /* wall clock, ns since the epoch */
    uint64_t value;       /* ALLOC: bytes; LOCK, GC: ns; samples: 0 */
    uint32_t thread;      /* thread serial (0: none) */
    uint32_t trace;       /* the session model's trace id (0: none) */
    uint32_t ref;         /* CPU, WALL: the session model's stack id (0: none); LOCK: its monitor id;
                           * ALLOC: its site id */
    uint16_t weight;      /* samples (CPU, WALL); ALLOC: the objects it stands for (at most 65535); LOCK: 1 */
    uint8_t kind;         /* recording_kind */
    uint8_t state;        /* sample_state (WALL; RUNNING for CPU) */
} recording_event;

/* Records per chunk: a chunk is the unit of memory taken and given back. */
#define RECORDING_CHUNK_EVENTS 4096u

typedef struct recording recording;

/* A ring of at most maxsize bytes (at least two chunks' worth: smaller is
 * raised to that) keeping events up to maxage_ns old. NULL: out of memory. */
recording *recording_new(uint64_t maxsize, uint64_t maxage_ns);
void recording_free(recording *r);
/* Appends one event (its time at least roughly after the ones before);
 * drops the oldest chunk when full and what is older than maxage. False
 * (the event counted lost) only when out of memory. */
bool recording_add(recording *r, const recording_event *e);
/* Drops the events older than now_ns - maxage (a dump calls it first). */
void recording_expire(recording *r, uint64_t now_ns);
/* Calls fn on each event kept with from_ns <= time_ns < to_ns, oldest first. */
void recording_each(const recording *r, uint64_t from_ns, uint64_t to_ns,
                    void (*fn)(const recording_event *e, void *ctx), void *ctx);

typedef struct recording_stats {
    uint64_t events;      /* kept now */
    uint64_t oldest_ns;   /* the oldest kept event's time (0: none) */
    uint64_t newest_ns;   /* the newest one's */
    uint64_t bytes;       /* memory held by the ring now (chunks and their index) */
    uint64_t max_bytes;   /* the most it may hold (maxsize, or two chunks) */
    uint64_t dropped;     /* events dropped so far: by age or for room */
    uint64_t lost;        /* events not kept for lack of memory */
    uint64_t maxage_ns;
} recording_stats;
void recording_get_stats(const recording *r, recording_stats *out);

#endif
