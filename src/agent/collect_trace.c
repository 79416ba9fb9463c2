/* collect_trace.c — trace= (issue 18, in progress): events one by one, in
 * time order, to tracefile= (docs/trace-format.md), through a trace_stream
 * (trace_stream.h): each Java thread fills a chunk of its own with no lock,
 * made at its first event and reached through its record; the agent
 * thread's poll writes the chunks handed over. Built so far:
 *   exec, exec:light  every method entry (and exit) of the instrumented
 *                     classes, from the Tracker's natives (tracker.c), with
 *                     the depth; a frame its exit never closed (a constructor
 *                     that threw) is closed as exit-throw by a later exit
 *   thread            thread starts and ends, each thread named once
 *   user              jvmprof.Control.userEvent(message)
 * A method, its class and their names are written once, at the method's
 * first traced call, before any chunk that names it. */
#include "collect_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/arena.h"
#include "../common/intern.h"
#include "../common/jp_log.h"
#include "../common/out_file.h"
#include "../format/trace_stream.h"
#include "agent_env.h"
#include "bci.h"
#include "collector.h"
#include "thread_record.h"
#include "thread_registry.h"
#include "ticks.h"
#include "trace_vm_events.h"

#define TRACE_CHUNK_BYTES (64u * 1024u)
#define TRACE_UNWIND_MAX 64u          /* how far down an exit looks for its frame */
#define TRACE_USER_MAX 4096u          /* a user event's message is cut here */

typedef struct trace_thread {
    trace_producer p;
    uint32_t *stack;                  /* the method ids entered and not yet left */
    uint64_t *starts;                 /* mintime=: when each was entered */
    uint32_t depth, cap;
    uint64_t last_this;               /* the receiver the last enter-this named */
    trace_receivers receivers;        /* ... and those named since the last collection */
    atomic_bool ended;                /* its thread ended: the session's end frees it */
    uint32_t gen;                     /* the session it belongs to (tr_gen) */
    struct trace_thread *next;        /* on tr_threads */
} trace_thread;

static trace_stream *tr_stream;       /* the session's; NULL between sessions */
static int tr_fd = -1;
static char tr_path[OPTIONS_PATH_MAX];
static unsigned tr_what;              /* OPTIONS_TRACE_* of the session */
static uint64_t tr_mintime;           /* mintime= in ns; 0: every entry and exit */
static bool tr_receivers;             /* trace=exec without mintime=: instance methods' entries name the receiver */
static uint32_t tr_gen;               /* the session's number: a thread's producer of an earlier one is replaced */
static atomic_bool tr_on;
static uint64_t tr_t0;                /* ticks when the trace began */
static uint64_t tr_ns_mult;           /* ns per tick << 24: one integer multiply per event */
static _Atomic(trace_thread *) tr_threads;
static pthread_mutex_t tr_write_lock = PTHREAD_MUTEX_INITIALIZER; /* the writer: poll, the end */
/* Events of no Java thread (collections, deaths: trace_vm_events.c), on the
 * chunks of thread 0, under tr_vm_lock; never held across a JVMTI or JNI
 * call, since a collection's callback takes it with the world stopped. */
static pthread_mutex_t tr_vm_lock = PTHREAD_MUTEX_INITIALIZER;
static trace_producer tr_vm;
static bool tr_vm_made;
/* cpu=samples' samples, in time order, on chunks of their own (TRACE_SAMPLES_THREAD), also under tr_vm_lock */
static trace_producer tr_samples;
static bool tr_samples_made;
static trace_stream_stats tr_last;    /* the last session's, for describe */

/* Names written once: strings and classes interned under tr_names_lock (a
 * method's first call only; intern ids are the file's), methods marked in a
 * bitmap by id. */
static pthread_mutex_t tr_names_lock = PTHREAD_MUTEX_INITIALIZER;
static arena tr_keys;
static intern_table tr_strings, tr_classes; /* by text / by bci_class pointer */
static bool tr_names_made;
static _Atomic uint64_t *tr_described;     /* BCI_IDS bits */

static inline uint64_t tr_now(void)
{
    uint64_t t = ticks_now();
    return t > tr_t0 ? (uint64_t)(((unsigned __int128)(t - tr_t0) * tr_ns_mult) >> 24) : 0;
}

static void tr_names_init(void)
{
    if (tr_names_made)
        return;
    arena_init(&tr_keys);
    intern_init(&tr_strings, &tr_keys);
    intern_init(&tr_classes, &tr_keys);
    tr_names_made = true;
}

/* The id of a string (n bytes), written as metadata the first time; 0 if out of memory. */
static uint32_t tr_string(const char *s, size_t n)
{
    tr_names_init();
    bool added = false;
    uint32_t id = intern_put(&tr_strings, s, (uint32_t)n, &added);
    if (added)
        trace_stream_meta(tr_stream, TRACE_EV_STRING, (uint64_t[]){ id }, s, n);
    return id;
}

/* The id of a class by its name in internal form (n bytes), written the
 * first time. Call with tr_names_lock held. Two loaders' classes of one name
 * share an id. */
static uint32_t tr_class_locked(const char *internal, size_t n)
{
    tr_names_init();
    uint32_t id = intern_find(&tr_classes, internal, (uint32_t)n);
    if (id)
        return id;
    uint32_t name = tr_string(internal, n);
    bool added = false;
    id = intern_put(&tr_classes, internal, (uint32_t)n, &added);
    if (added)
        trace_stream_meta(tr_stream, TRACE_EV_CLASS, (uint64_t[]){ id, name }, NULL, 0);
    return id;
}

/* ... of a class the rewriter saw (its record's name is dotted) */
static uint32_t tr_class(const bci_class *c)
{
    if (!c)
        return 0;
    char internal[1024];
    size_t n = strlen(c->name) < sizeof internal ? strlen(c->name) : sizeof internal - 1;
    for (size_t i = 0; i < n; i++)
        internal[i] = c->name[i] == '.' ? '/' : c->name[i];
    return tr_class_locked(internal, n);
}

uint32_t trace_class_id(const char *internal, size_t n)
{
    if (!tr_stream)
        return 0;
    pthread_mutex_lock(&tr_names_lock);
    uint32_t id = tr_class_locked(internal, n);
    pthread_mutex_unlock(&tr_names_lock);
    return id;
}

uint32_t trace_string_id(const char *s, size_t n)
{
    if (!tr_stream)
        return 0;
    pthread_mutex_lock(&tr_names_lock);
    uint32_t id = tr_string(s, n);
    pthread_mutex_unlock(&tr_names_lock);
    return id;
}

void trace_meta(unsigned type, const uint64_t *fields)
{
    if (tr_stream)
        trace_stream_meta(tr_stream, type, fields, NULL, 0);
}

/* The method's metadata, once (two threads may race to write it twice; a reader keeps either). */
static void tr_describe(uint32_t id)
{
    const bci_method *m = bci_method_get(id);
    if (!m || !tr_described)
        return;
    pthread_mutex_lock(&tr_names_lock);
    uint64_t flags = (m->access & 0x0008 ? TRACE_METHOD_STATIC : 0) | (m->access & 0x0100 ? TRACE_METHOD_NATIVE : 0) |
                     (m->access & 0x0020 ? TRACE_METHOD_SYNCHRONIZED : 0) |
                     (tr_receivers && !(m->access & 0x0008) && strcmp(m->name, "<init>") != 0 ? TRACE_METHOD_RECEIVER
                                                                                             : 0);
    uint64_t cls = tr_class(m->cls);
    uint64_t name = tr_string(m->name, strlen(m->name)), sig = tr_string(m->sig, strlen(m->sig));
    trace_stream_meta(tr_stream, TRACE_EV_METHOD, (uint64_t[]){ id, cls, name, sig, flags }, NULL, 0);
    pthread_mutex_unlock(&tr_names_lock);
    /* after the metadata: a thread that sees the bit (acquire) hands its chunk over after it */
    atomic_fetch_or_explicit(&tr_described[id / 64], 1ull << (id % 64), memory_order_release);
}

/* The calling thread's producer in this session, made (and the thread named) at its first event. */
static trace_thread *tr_self(JNIEnv *jni)
{
    trace_thread *t = thread_record_self.trace;
    if (t && t->gen == tr_gen && tr_stream)
        return t;
    uint32_t serial = thread_registry_serial(NULL);
    if (!serial || !tr_stream)
        return NULL;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    trace_producer_init(&t->p, tr_stream, serial);
    t->gen = tr_gen;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*agent_jvmti)->GetThreadInfo(agent_jvmti, NULL, &info) == JVMTI_ERROR_NONE) {
        jvmtiThreadGroupInfo group;
        memset(&group, 0, sizeof group);
        if (info.thread_group &&
            (*agent_jvmti)->GetThreadGroupInfo(agent_jvmti, info.thread_group, &group) != JVMTI_ERROR_NONE)
            memset(&group, 0, sizeof group);
        pthread_mutex_lock(&tr_names_lock);
        uint32_t name = info.name ? tr_string(info.name, strlen(info.name)) : 0;
        uint32_t gname = group.name ? tr_string(group.name, strlen(group.name)) : 0;
        trace_stream_meta(tr_stream, TRACE_EV_THREAD,
                          (uint64_t[]){ serial, name, gname, (uint64_t)(info.priority > 0 ? info.priority : 0),
                                        info.is_daemon ? TRACE_THREAD_DAEMON : 0 }, NULL, 0);
        pthread_mutex_unlock(&tr_names_lock);
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)info.name);
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)group.name);
        if (jni && group.parent)
            (*jni)->DeleteLocalRef(jni, group.parent);
        if (jni && info.thread_group)
            (*jni)->DeleteLocalRef(jni, info.thread_group);
        if (jni && info.context_class_loader)
            (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    }
    trace_thread *head = atomic_load(&tr_threads);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&tr_threads, &head, t));
    thread_record_self.trace = t;
    return t;
}

static void tr_emit(trace_thread *t, unsigned type, const uint64_t *f)
{
    trace_emit(&t->p, type, tr_now(), f, NULL, 0);
}

/* A method's entry, on the calling thread (self: its receiver, if it names one) */
static void tr_exec_enter(JNIEnv *jni, jint id, jobject self)
{
    if (!atomic_load_explicit(&tr_on, memory_order_relaxed))
        return;
    trace_thread *t = tr_self(jni);
    if (!t)
        return;
    uint32_t k = (uint32_t)id;
    if (k >= BCI_IDS)
        return;
    if (!(atomic_load_explicit(&tr_described[k / 64], memory_order_acquire) & (1ull << (k % 64))))
        tr_describe(k);
    if (t->depth == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        uint32_t *s = realloc(t->stack, cap * sizeof *s);
        if (s)
            t->stack = s;
        uint64_t *st = s && tr_mintime ? realloc(t->starts, cap * sizeof *st) : NULL;
        if (st)
            t->starts = st;
        if (!s || (tr_mintime && !st))
            return; /* its exit will find no frame and be ignored */
        t->cap = cap;
    }
    if (tr_mintime) { /* the call is written at its exit, if it lasted long enough */
        t->starts[t->depth] = tr_now();
        t->stack[t->depth++] = k;
        return;
    }
    t->stack[t->depth++] = k;
    if (self) { /* a receiver other than the last one named: an enter-this */
        uint64_t rid = trace_receiver_id(self, &t->receivers);
        if (rid != t->last_this) {
            t->last_this = rid;
            tr_emit(t, TRACE_EV_ENTER_THIS, (uint64_t[]){ k, rid });
            return;
        }
    }
    if (tr_what & OPTIONS_TRACE_EXIT)
        trace_emit_call(&t->p, TRACE_EV_ENTER, tr_now(), k);
    else /* exec:light: no exits to tell the depth from */
        tr_emit(t, TRACE_EV_ENTER_AT, (uint64_t[]){ k, t->depth });
}

/* ... and its exit (thrown: by an exception) */
static void tr_exec_exit(JNIEnv *jni, jint id, bool thrown)
{
    if (!atomic_load_explicit(&tr_on, memory_order_relaxed))
        return;
    trace_thread *t = tr_self(jni);
    if (!t || t->depth == 0)
        return;
    uint32_t k = (uint32_t)id;
    uint32_t at = t->depth;
    while (at > 0 && t->depth - at < TRACE_UNWIND_MAX && t->stack[at - 1] != k)
        at--;
    if (at == 0 || t->stack[at - 1] != k)
        return; /* entered before tracing began */
    bool exits = tr_what & OPTIONS_TRACE_EXIT;
    if (tr_mintime) { /* each frame closed: a whole call, if it lasted mintime= */
        uint64_t now = tr_now();
        for (; t->depth >= at; t->depth--) {
            uint64_t took = now > t->starts[t->depth - 1] ? now - t->starts[t->depth - 1] : 0;
            if (took >= tr_mintime)
                tr_emit(t, TRACE_EV_CALL, (uint64_t[]){ t->stack[t->depth - 1], t->depth, took,
                                                        thrown || t->depth > at });
        }
        return;
    }
    while (t->depth > at) { /* frames whose exit never came: left by an exception */
        if (exits)
            trace_emit_call(&t->p, TRACE_EV_EXIT_THROW, tr_now(), 0);
        t->depth--;
    }
    if (exits)
        trace_emit_call(&t->p, thrown ? TRACE_EV_EXIT_THROW : TRACE_EV_EXIT, tr_now(), 0);
    t->depth--;
}

bool trace_wants(unsigned what)
{
    return atomic_load_explicit(&tr_on, memory_order_acquire) && (tr_what & what);
}

uint64_t trace_now_ns(void) { return tr_now(); }

bool trace_thread_followed(JNIEnv *jni)
{
    return atomic_load_explicit(&tr_on, memory_order_relaxed) && tr_self(jni);
}

bool trace_thread_event(JNIEnv *jni, unsigned type, const uint64_t *fields)
{
    trace_thread *t = atomic_load_explicit(&tr_on, memory_order_relaxed) ? tr_self(jni) : NULL;
    return t && trace_emit(&t->p, type, tr_now(), fields, NULL, 0);
}

bool trace_vm_event(unsigned type, uint64_t time_ns, const uint64_t *fields)
{
    bool ok = false;
    pthread_mutex_lock(&tr_vm_lock);
    if (atomic_load_explicit(&tr_on, memory_order_acquire) && tr_stream) {
        if (!tr_vm_made) {
            memset(&tr_vm, 0, sizeof tr_vm);
            trace_producer_init(&tr_vm, tr_stream, 0);
            tr_vm_made = true;
        }
        ok = trace_emit(&tr_vm, type, time_ns, fields, NULL, 0);
    }
    pthread_mutex_unlock(&tr_vm_lock);
    return ok;
}

bool trace_samples_wanted(void) { return atomic_load_explicit(&tr_on, memory_order_acquire) && tr_stream; }

void trace_sample(uint32_t thread, uint64_t ticks, const char *stack, size_t n)
{
    uint64_t stack_str = trace_string_id(stack, n);
    uint64_t at = ticks > tr_t0 ? (uint64_t)(((unsigned __int128)(ticks - tr_t0) * tr_ns_mult) >> 24) : 0;
    pthread_mutex_lock(&tr_vm_lock);
    if (stack_str && atomic_load_explicit(&tr_on, memory_order_acquire) && tr_stream) {
        if (!tr_samples_made) {
            memset(&tr_samples, 0, sizeof tr_samples);
            trace_producer_init(&tr_samples, tr_stream, TRACE_SAMPLES_THREAD);
            tr_samples_made = true;
        }
        trace_emit(&tr_samples, TRACE_EV_SAMPLE, at, (uint64_t[]){ thread, stack_str }, NULL, 0);
    }
    pthread_mutex_unlock(&tr_vm_lock);
}

bool trace_user_event(JNIEnv *jni, jstring message)
{
    if (!atomic_load_explicit(&tr_on, memory_order_relaxed) || !(tr_what & OPTIONS_TRACE_USER) || !message)
        return false;
    trace_thread *t = tr_self(jni);
    const char *s = t ? (*jni)->GetStringUTFChars(jni, message, NULL) : NULL;
    if (!s)
        return false;
    size_t n = strlen(s);
    bool ok = trace_emit(&t->p, TRACE_EV_USER, tr_now(), NULL, s, n < TRACE_USER_MAX ? n : TRACE_USER_MAX);
    (*jni)->ReleaseStringUTFChars(jni, message, s);
    return ok;
}

/* The Tracker's natives while trace=exec runs (bci_use_calls) */
static void JNICALL tr_native_enter(JNIEnv *jni, jclass cls, jint id)
{
    (void)cls;
    tr_exec_enter(jni, id, NULL);
}

static void JNICALL tr_native_enter_this(JNIEnv *jni, jclass cls, jobject self, jint id)
{
    (void)cls;
    tr_exec_enter(jni, id, self);
}

static void JNICALL tr_native_exit(JNIEnv *jni, jclass cls, jint id)
{
    (void)cls;
    tr_exec_exit(jni, id, false);
}

static void JNICALL tr_native_exit_throw(JNIEnv *jni, jclass cls, jint id)
{
    (void)cls;
    tr_exec_exit(jni, id, true);
}

/* ---- the collector ---- */

static bool tr_wanted(const agent_options *o) { return o->trace != 0; }

/* trace=exec: the classes pass through the rewriter (as for cpu=times) */
static void tr_callbacks(jvmtiEventCallbacks *cb)
{
    if (agent_opts->trace & OPTIONS_TRACE_ENTRY)
        cb->ClassFileLoadHook = bci_class_file_load_hook;
}

/* Started late, the classes loaded before are retransformed to be instrumented. */
static jp_status tr_capabilities(jvmtiCapabilities *caps)
{
    if (agent_late_start && (agent_opts->trace & OPTIONS_TRACE_ENTRY)) {
        caps->can_retransform_classes = 1;
        caps->can_retransform_any_class = 1;
    }
    return JP_OK;
}

/* The trace file, opened now so that a bad path stops the VM at once. It is
 * written in place as the trace goes (not renamed when complete), so a
 * process killed leaves it readable to its last complete chunk; a regular
 * file there is replaced, never followed through a link. */
static jp_status tr_load(void)
{
    snprintf(tr_path, sizeof tr_path, "%s", agent_opts->tracefile);
    out_target target;
    char why[512];
    if (out_file_check(tr_path, &target, why, sizeof why) != JP_OK)
        return jp_error(JP_ERR_ARG, "tracefile=%s: %s", tr_path, out_file_reason(why, tr_path));
    if (target.kind == OUT_DIRECT) {
        tr_fd = out_file_open_direct(tr_path, &target, why, sizeof why);
    } else {
        if (target.kind == OUT_REPLACE)
            unlink(tr_path);
        tr_fd = open(tr_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     target.kind == OUT_REPLACE ? target.mode : OUT_MODE_PUBLIC);
        if (tr_fd < 0)
            snprintf(why, sizeof why, "%s", strerror(errno));
    }
    if (tr_fd < 0)
        return jp_error(JP_ERR_ARG, "tracefile=%s: %s", tr_path, why);
    tr_stream = trace_stream_open(tr_fd, agent_opts->tracelimit, agent_wall_ms() * 1000000ull, TRACE_CHUNK_BYTES);
    if (!tr_stream) {
        int e = errno;
        close(tr_fd);
        tr_fd = -1;
        return jp_error(JP_ERR_IO, "tracefile=%s: %s", tr_path, e == EFBIG ? "tracelimit= is below the header's 32 bytes"
                                                                          : strerror(e));
    }
    if (!tr_described)
        tr_described = calloc(BCI_IDS / 64, sizeof *tr_described);
    if (!tr_described)
        return jp_error(JP_ERR_NOMEM, "trace=: out of memory");
    if (trace_vm_events_load(agent_opts->trace) != JP_OK)
        return JP_ERR_JVMTI;
    tr_what = agent_opts->trace;
    tr_mintime = agent_opts->mintime_ns;
    tr_receivers = (tr_what & OPTIONS_TRACE_EXIT) && !tr_mintime && agent_opts->receivers;
    tr_gen++;
    tr_t0 = ticks_now();
    return JP_OK;
}

static jp_status tr_start(JNIEnv *jni)
{
    if (!tr_stream && tr_load() != JP_OK) /* a later session's start: load ran in session_start */
        return JP_ERR_IO;
    /* the clock's rate, measured from the agent's load to now (VM init, for the session given at load) */
    tr_ns_mult = (uint64_t)(ticks_ns_per_tick_settled(10000000u) * (double)(1u << 24) + 0.5);
    atomic_store(&tr_on, true);
    if (trace_vm_events_start(jni, tr_what) != JP_OK)
        return JP_ERR_JVMTI;
    if (!(tr_what & OPTIONS_TRACE_ENTRY))
        return JP_OK;
    bci_use_calls(tr_native_enter, tr_native_exit, tr_native_exit_throw, tr_native_enter_this, tr_receivers);
    return bci_vm_init(jni);
}

static void tr_thread_start(JNIEnv *jni, uint32_t serial)
{
    if (!(tr_what & OPTIONS_TRACE_THREAD) || !atomic_load(&tr_on))
        return;
    trace_thread *t = tr_self(jni);
    if (t)
        tr_emit(t, TRACE_EV_THREAD_START, (uint64_t[]){ serial });
}

static void tr_thread_end(JNIEnv *jni)
{
    trace_thread *t = thread_record_self.trace;
    if (!t || t->gen != tr_gen || !tr_stream)
        return;
    (void)jni;
    if ((tr_what & OPTIONS_TRACE_THREAD) && atomic_load(&tr_on))
        tr_emit(t, TRACE_EV_THREAD_END, (uint64_t[]){ t->p.thread });
    trace_producer_flush(&t->p);
    atomic_store(&t->ended, true);
}

static void tr_poll(JNIEnv *jni)
{
    (void)jni;
    pthread_mutex_lock(&tr_write_lock);
    if (tr_stream)
        trace_stream_write(tr_stream);
    pthread_mutex_unlock(&tr_write_lock);
}

/* The session's end: no more events; each thread's last chunk handed over
 * (a thread still inside an emit as tracing stops may leave its last chunk
 * damaged: the reader stops there), the rest written, the file closed. */
static void tr_stop(JNIEnv *jni)
{
    atomic_store(&tr_on, false);
    if (tr_what & OPTIONS_TRACE_ENTRY)
        bci_vm_death(jni);
    trace_vm_events_stop(jni);
    pthread_mutex_lock(&tr_write_lock);
    pthread_mutex_lock(&tr_vm_lock);
    if (tr_vm_made)
        trace_producer_flush(&tr_vm);
    if (tr_samples_made)
        trace_producer_flush(&tr_samples);
    tr_vm_made = tr_samples_made = false;
    pthread_mutex_unlock(&tr_vm_lock);
    if (tr_stream) {
        for (trace_thread *t = atomic_exchange(&tr_threads, NULL), *next; t; t = next) {
            next = t->next;
            if (!atomic_load(&t->ended))
                trace_producer_flush(&t->p);
            /* a live thread's record still points at it: kept (its session no longer matches) */
            if (atomic_load(&t->ended)) {
                free(t->stack);
                free(t->starts);
                free(t);
            }
        }
        trace_stream_close(tr_stream, &tr_last);
        tr_stream = NULL;
        if (fsync(tr_fd) != 0 && errno != EINVAL && errno != EROFS && !tr_last.write_errno)
            tr_last.write_errno = errno;
        close(tr_fd);
        tr_fd = -1;
    }
    pthread_mutex_unlock(&tr_write_lock);
    pthread_mutex_lock(&tr_names_lock); /* a later session names everything afresh */
    if (tr_names_made) {
        intern_free(&tr_strings);
        intern_free(&tr_classes);
        arena_free(&tr_keys);
        tr_names_made = false;
    }
    if (tr_described)
        memset((void *)tr_described, 0, BCI_IDS / 64 * sizeof *tr_described);
    pthread_mutex_unlock(&tr_names_lock);
}

static void tr_describe_stats(void)
{
    trace_stream_stats st;
    if (tr_stream) {
        pthread_mutex_lock(&tr_write_lock);
        trace_stream_stats_get(tr_stream, &st);
        pthread_mutex_unlock(&tr_write_lock);
    } else {
        st = tr_last;
    }
    jp_log_info("trace: %llu events in %llu chunks to %s (%llu bytes, %.1f bytes per event)%s%s%s%llu events "
                "dropped", (unsigned long long)st.events, (unsigned long long)st.chunks, tr_path,
                (unsigned long long)st.bytes, st.events ? (double)st.bytes / (double)st.events : 0.0,
                st.full && !st.write_errno ? "; tracelimit= reached" : "", st.write_errno ? "; writing failed: " : "",
                st.write_errno ? strerror(st.write_errno) : "; ", (unsigned long long)st.dropped_events);
}

const collector trace_collector = {
    .name = "trace=",
    .engine = "tracing",
    .wanted = tr_wanted,
    .capabilities = tr_capabilities,
    .callbacks = tr_callbacks,
    .load = tr_load,
    .start = tr_start,
    .thread_start = tr_thread_start,
    .thread_end = tr_thread_end,
    .poll = tr_poll,
    .describe = tr_describe_stats,
    .stop = tr_stop,
};
