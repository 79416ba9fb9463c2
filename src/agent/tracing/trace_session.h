/* trace_session.h — a trace= session's events on their way to the trace
 * file (trace_session.c): the stream (trace_stream.h) and its clock, each
 * Java thread's producer (made at its first event, reached through its
 * record), the producers of no Java thread (thread 0: collections, deaths;
 * the CPU samples'), and the names written once (strings, classes, methods,
 * threads). All of it is the session's part JP_PART_TRACE_SESSION
 * (trace_state, and trace_session.c's own after it), which the hot paths
 * reach through one pointer (trace_session_live, read by trace_live).
 * collect_trace.c (the collector: the file, the session's life, method
 * entries and exits) and trace_vm_events.c (what the JVM reports) emit
 * through it; neither knows the other's insides. */
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

struct jp_session; /* session_ctx.h */

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

/* trace_vm_events.c's part of a trace session (what the JVM reports). */
typedef struct trace_vm_run {
    bool cache_ok;                    /* objects move only in the pauses JVMTI reports (not ZGC, Shenandoah) */
    uint64_t first;                   /* its first collection's pause number (trace_vm_events.c's tv_gc) */
    int64_t perf_seen[2];             /* the collectors' counts at the last pause's end (the VM's thread) */
} trace_vm_run;

/* A trace session's state that the hot paths read (trace_emit's callers:
 * the Tracker's natives for trace=exec, JVMTI's callbacks, probes,
 * plugins). It lives in the session's part JP_PART_TRACE_SESSION (with
 * trace_session.c's own state after it), from trace_session_open (the
 * collector's load) to the session's end; only trace_session.c writes it,
 * but for vm (trace_vm_events.c's). */
typedef struct trace_state {
    atomic_bool on;                   /* events are taken (start to stop) */
    unsigned what;                    /* OPTIONS_TRACE_* */
    uint32_t gen;                     /* the trace session's number in this JVM: a thread's producer names its own */
    trace_stream *stream;             /* NULL once closed (retired, not freed: a late emit may still use it) */
    uint64_t t0;                      /* ticks when the trace began */
    uint64_t mult;                    /* ns per tick << 24 */
    _Atomic uint64_t *described;      /* a bit per method id: its metadata written */
    trace_consumer_fn consumer;       /* NULL: none */
    uint64_t mintime_ns;              /* trace=exec's mintime= (0: every entry and exit) ... */
    bool receivers;                   /* ... and whether instance methods' entries name the receiver */
    trace_vm_run vm;
} trace_state;

/* THE pointer the hot paths reach the running trace session through: its
 * part, set when the trace file is opened (the collector's load), cleared
 * when it is closed (its stop, or its end if it never started); NULL
 * between sessions. Read it once per event (trace_live) and hand the
 * result on. Only trace_session.c names it outside these inline functions. */
extern trace_state *_Atomic trace_session_live;
static inline trace_state *trace_live(void) { return atomic_load_explicit(&trace_session_live, memory_order_acquire); }

static inline void trace_session_tap(const trace_state *ts, uint32_t thread, unsigned type, uint64_t time_ns,
                                     const uint64_t *fields, const char *text, size_t text_len)
{
    trace_consumer_fn fn = ts->consumer;
    if (fn)
        fn(thread, type, time_ns, fields, text, text_len);
}
/* The running trace's consumer set (NULL: none), between its start and its stop. */
void trace_session_set_consumer(trace_consumer_fn fn);
/* A class's name (internal form) by its id, without a lock; a string's, copied (cap bytes at most) under one. */
bool trace_session_class_name(uint32_t id, const char **p, size_t *n);
bool trace_session_string(uint32_t id, char *out, size_t cap, size_t *n);

/* The trace's clock: ns since it began, from ticks (ticks.h). */
static inline uint64_t trace_session_ns(const trace_state *ts, uint64_t ticks)
{
    return ticks > ts->t0 ? (uint64_t)(((unsigned __int128)(ticks - ts->t0) * ts->mult) >> 24) : 0;
}

static inline uint64_t trace_session_now(const trace_state *ts) { return trace_session_ns(ts, ticks_now()); }

/* The calling thread's producer in this session, made (and the thread
 * named) at its first event; NULL for a thread the trace does not follow. */
trace_thread *trace_session_self_slow(trace_state *ts, JNIEnv *jni);
static inline trace_thread *trace_session_self(trace_state *ts, JNIEnv *jni)
{
    trace_thread *t = thread_record_self.trace;
    return t && t->gen == ts->gen && ts->stream ? t : trace_session_self_slow(ts, jni);
}
/* Whether thread t's producer is of the trace session ts (still open). */
static inline bool trace_session_owns(const trace_state *ts, const trace_thread *t)
{
    return ts && t && t->gen == ts->gen && ts->stream;
}

/* A method's metadata (receivers: its entries name their receiver, if it
 * has one), written the first time it is asked for. */
void trace_session_describe(trace_state *ts, uint32_t id, bool receivers);
static inline bool trace_session_described_already(const trace_state *ts, uint32_t id)
{
    return atomic_load_explicit(&ts->described[id / 64], memory_order_acquire) & (1ull << (id % 64));
}

/* The session's life, in its part JP_PART_TRACE_SESSION: the stream on fd
 * (already open), limit bytes at most (0: none), with what (OPTIONS_TRACE_*)
 * and trace=exec's mintime= and receivers; events taken from start on; the
 * agent thread's writes; the end (every producer flushed, the stream
 * closed, its figures in *out); the figures so far. JP_ERR_* if out of
 * memory or the header cannot be written (errno says why). */
jp_status trace_session_open(struct jp_session *s, int fd, uint64_t limit, unsigned what, uint64_t mintime_ns,
                             bool receivers);
void trace_session_start(struct jp_session *s);
void trace_session_write(struct jp_session *s);
void trace_session_close(struct jp_session *s, trace_stream_stats *out);
void trace_session_stats(struct jp_session *s, trace_stream_stats *out);
/* Whether s's trace is open (opened and not yet closed). */
bool trace_session_is_open(struct jp_session *s);
/* Its events off (the stop's first step; the close follows). */
void trace_session_pause(struct jp_session *s);
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
