/* trace_session.h — a trace= session's events on their way to the trace
 * file (trace_session.c): the stream (trace_stream.h) and its clock, each
 * Java thread's producer (made at its first event, reached through its
 * record), the producers of no Java thread (thread 0: collections, deaths;
 * the CPU samples'), and the names written once (strings, classes, methods,
 * threads). collect_trace.c (the collector: the file, the session's life,
 * method entries and exits) and trace_vm_events.c (what the JVM reports)
 * emit through it; neither knows the other's insides. */
#ifndef TRACE_SESSION_H
#define TRACE_SESSION_H

#include <jni.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../trace/trace_stream.h"
#include "../core/thread_record.h"
#include "../core/ticks.h"

/* A thread's cache of the receivers it named since the last collection:
 * object address -> id, so that most calls on an object name it without
 * JVMTI's tag table (a lookup under the JVM's lock). Only its thread uses
 * it; zero it to begin (trace_vm_events.c fills it). */
#define TRACE_RECEIVER_SLOTS 4096u
typedef struct trace_receivers {
    uintptr_t addr[TRACE_RECEIVER_SLOTS];
    uint64_t id[TRACE_RECEIVER_SLOTS];
    uint64_t epoch;
} trace_receivers;

/* The calls a thread entered and has not left (collect_trace.c's). One
 * assignment lends a virtual thread's to its carrier, one gives it back. */
typedef struct trace_calls {
    uint32_t *stack;                  /* the method ids entered and not yet left */
    uint64_t *starts;                 /* mintime=: when each was entered */
    uint32_t depth, cap;
} trace_calls;

/* A Java thread's part of the session: its producer, and its calls. */
typedef struct trace_thread {
    trace_producer p;
    trace_calls calls;                /* by value: an entry reaches them with no load more than before */
    uint64_t last_this;               /* the receiver the last enter-this named */
    trace_receivers receivers;        /* ... and those named since the last collection */
    atomic_bool ended;                /* its thread ended: the session's end frees it */
    /* a carrier's: while a virtual thread is mounted on it (p.mounted), calls are that thread's
     * (lent_to), its own wait in own (collect_trace.c) */
    struct trace_vthread *lent_to;
    trace_calls own;
    uint32_t gen;                     /* the session it belongs to */
    struct trace_thread *next;        /* on the session's list */
} trace_thread;

/* The thread t's events are of now: the virtual thread mounted on it, or its own. */
static inline uint32_t trace_thread_id(const trace_thread *t) { return t->p.mounted ? t->p.mounted : t->p.thread; }

/* A consumer of the events besides the file (a plugin: trace_plugin.c):
 * each event as it is emitted, on its thread, with its thread's number,
 * time and fields (those of docs/trace-format.md, but: an entry's are
 * method, depth, receiver (0: none); an exit's method, depth; a sample's
 * text is its stack; a probe's fields are its number and its key for
 * probes_info). NULL: none. */
typedef void (*trace_consumer_fn)(uint32_t thread, unsigned type, uint64_t time_ns, const uint64_t *fields,
                                  const char *text, size_t text_len);
extern trace_consumer_fn trace_session_consumer;
static inline void trace_session_tap(uint32_t thread, unsigned type, uint64_t time_ns, const uint64_t *fields,
                                     const char *text, size_t text_len)
{
    trace_consumer_fn fn = trace_session_consumer;
    if (fn)
        fn(thread, type, time_ns, fields, text, text_len);
}
/* A class's name (internal form) by its id, without a lock; a string's, copied (cap bytes at most) under one. */
bool trace_session_class_name(uint32_t id, const char **p, size_t *n);
bool trace_session_string(uint32_t id, char *out, size_t cap, size_t *n);

/* The session's state that the inline paths below read; only
 * trace_session.c writes it. */
extern trace_stream *trace_session_stream; /* NULL between sessions */
extern uint32_t trace_session_gen;         /* the session's number */
extern atomic_bool trace_session_on;       /* events are taken */
extern unsigned trace_session_what;        /* OPTIONS_TRACE_* */
extern uint64_t trace_session_t0;          /* ticks when the trace began */
extern uint64_t trace_session_mult;        /* ns per tick << 24 */
extern _Atomic uint64_t *trace_session_described; /* a bit per method id: its metadata written */

/* The trace's clock: ns since it began, from ticks (ticks.h). */
static inline uint64_t trace_session_ns(uint64_t ticks)
{
    return ticks > trace_session_t0
               ? (uint64_t)(((unsigned __int128)(ticks - trace_session_t0) * trace_session_mult) >> 24)
               : 0;
}

static inline uint64_t trace_session_now(void) { return trace_session_ns(ticks_now()); }

/* The calling thread's producer in this session, made (and the thread
 * named) at its first event; NULL for a thread the trace does not follow. */
trace_thread *trace_session_self_slow(JNIEnv *jni);
static inline trace_thread *trace_session_self(JNIEnv *jni)
{
    trace_thread *t = thread_record_self.trace;
    return t && t->gen == trace_session_gen && trace_session_stream ? t : trace_session_self_slow(jni);
}

/* A method's metadata (receivers: its entries name their receiver, if it
 * has one), written the first time it is asked for. */
void trace_session_describe(uint32_t id, bool receivers);
static inline bool trace_session_described_already(uint32_t id)
{
    return atomic_load_explicit(&trace_session_described[id / 64], memory_order_acquire) & (1ull << (id % 64));
}

/* The session's life: the stream on fd (already open), limit bytes at most
 * (0: none); events taken from start on; the agent thread's writes; the end
 * (every producer flushed, the stream closed, its figures in *out); the
 * figures so far. false/JP_ERR_* if out of memory or the header cannot be
 * written (errno says why). */
jp_status trace_session_open(int fd, uint64_t limit, unsigned what);
void trace_session_start(void);
void trace_session_write(void);
void trace_session_close(trace_stream_stats *out);
void trace_session_stats(trace_stream_stats *out);
/* A Java thread ends: its last chunk handed over (after its thread-end, when thread events are traced). */
void trace_session_thread_end(void);

/* For the events of trace_vm_events.c and the sampler: */
/* Whether a session traces and any of what (OPTIONS_TRACE_*) is on. */
bool trace_wants(unsigned what);
/* The trace's clock: ns since it began. */
uint64_t trace_now_ns(void);
/* Whether the calling thread is one the trace follows (a Java thread of the
 * program: not the agent's, not the JVM's hidden ones). */
bool trace_thread_followed(JNIEnv *jni);
/* A timed event of the calling Java thread, now (false: dropped, or not a
 * thread the trace follows). */
bool trace_thread_event(JNIEnv *jni, unsigned type, const uint64_t *fields);
/* A timed event of no thread (thread 0), now (the time taken under its
 * lock, so that these events' times, from many threads, only grow): any
 * thread, even a collection's callback with the world stopped (a mutex, no
 * JVMTI, no JNI). */
bool trace_vm_event(unsigned type, const uint64_t *fields);
/* The ids of a class (by its name in internal form) and of a string, their
 * metadata written the first time; 0 between sessions. */
uint32_t trace_class_id(const char *internal, size_t n);
uint32_t trace_string_id(const char *s, size_t n);
/* A metadata event (type < TRACE_EV_TIMED, no text). */
void trace_meta(unsigned type, const uint64_t *fields);
/* cpu=samples in the same run: whether a trace takes samples, and one
 * sample (agent thread): the sampled thread, when (ticks.h), its stack as
 * "pkg.Class.method;..." from the root. */
bool trace_samples_wanted(void);
void trace_sample(uint32_t thread, uint64_t ticks, const char *stack, size_t n);

#endif
