/* collect_trace.c — the trace= collector: the trace file (tracefile=,
 * written in place as the trace goes), the session's life (its events on
 * and off, the verbose line), and the events of trace=exec: each method
 * entry (and exit) of the instrumented classes, from the Tracker's natives
 * (tracker.c), with its depth and, with receivers=y, its receiver; a frame
 * its exit never closed (a constructor that threw) is closed as exit-throw
 * by a later exit; with mintime=, whole calls at least that long. Thread
 * starts and ends, and jvmprof.Control.userEvent. The events go through
 * trace_session.h (the stream, each thread's producer, the names written
 * once); what the JVM reports comes from trace_vm_events.c. */
#include "collect_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/jp_log.h"
#include "../../common/out_file.h"
#include "../../trace/trace_file.h"
#include "../core/agent_env.h"
#include "../instrument/bci.h"
#include "../core/collector.h"
#include "../remote/net_stream.h"
#include "probes.h"
#include "../core/thread_record.h"
#include "../core/triggers.h"
#include "trace_plugin.h"
#include "trace_session.h"
#include "trace_vm_events.h"
#include "../core/vthreads.h"

#define TRACE_UNWIND_MAX 64u          /* how far down an exit looks for its frame */
#define TRACE_USER_MAX 4096u          /* a user event's message is cut here */

/* The collector's part of its session (JP_PART_TRACE): the trace file. What
 * the hot paths read (trace=exec's mintime= and receivers) is the trace
 * session's (trace_state, trace_session.h). */
typedef struct tr_part {
    int fd;                           /* the trace file (-1: closed) */
    bool opened;                      /* fd set (0 is a file descriptor too) */
    char path[OPTIONS_PATH_MAX];
    trace_stream_stats last;          /* the stopped session's, for describe */
} tr_part;

static tr_part *tr_of(jp_session *s) { return session_part(s, JP_PART_TRACE, sizeof(tr_part)); }

/* A virtual thread's part (vthreads.h): its open calls, lent to its carrier's producer while mounted. */
typedef struct trace_vthread {
    trace_calls calls;
    uint32_t gen;          /* the session its calls and its name belong to */
    bool named;            /* its TRACE_EV_VTHREAD written in that session */
    bool starting;         /* its start seen, its thread-start not yet written (at its first mount) */
} trace_vthread;

/* An event of t's thread, now, to the consumer and the file */
static void tr_emit(const trace_state *ts, trace_thread *t, unsigned type, const uint64_t *f)
{
    uint64_t now = trace_session_now(ts);
    trace_session_tap(ts, trace_thread_id(t), type, now, f, NULL, 0);
    trace_emit(&t->p, type, now, f, NULL, 0);
}

/* A method's entry, on the calling thread (self: its receiver, if it names one) */
static void tr_exec_enter(JNIEnv *jni, jint id, jobject self)
{
    trace_state *ts = trace_live();
    if (!ts || !atomic_load_explicit(&ts->on, memory_order_relaxed))
        return;
    trace_thread *t = trace_session_self(ts, jni);
    if (!t)
        return;
    uint32_t k = (uint32_t)id;
    if (k >= BCI_IDS)
        return;
    if (!trace_session_described_already(ts, k))
        trace_session_describe(ts, k, ts->receivers);
    if (t->calls.depth == t->calls.cap) {
        uint32_t cap = t->calls.cap ? t->calls.cap * 2 : 64;
        uint32_t *s = realloc(t->calls.stack, cap * sizeof *s);
        if (s)
            t->calls.stack = s;
        uint64_t *st = s && ts->mintime_ns ? realloc(t->calls.starts, cap * sizeof *st) : NULL;
        if (st)
            t->calls.starts = st;
        bool grown = s && (!ts->mintime_ns || st);
        if (grown)
            t->calls.cap = cap;
        if (t->lent_to) /* a virtual thread's: they follow (so they are never freed twice) */
            t->lent_to->calls = t->calls;
        if (!grown)
            return; /* its exit will find no frame and be ignored */
    }
    if (ts->mintime_ns) { /* the call is written at its exit, if it lasted long enough */
        t->calls.starts[t->calls.depth] = trace_session_now(ts);
        t->calls.stack[t->calls.depth++] = k;
        return;
    }
    t->calls.stack[t->calls.depth++] = k;
    uint64_t rid = self ? trace_receiver_id(ts, self, &t->receivers) : 0, now = trace_session_now(ts);
    if (ts->consumer)
        trace_session_tap(ts, trace_thread_id(t), TRACE_EV_ENTER, now, (uint64_t[]){ k, t->calls.depth, rid }, NULL, 0);
    if (self && rid != t->last_this) { /* a receiver other than the last one named: an enter-this */
        t->last_this = rid;
        trace_emit(&t->p, TRACE_EV_ENTER_THIS, now, (uint64_t[]){ k, rid }, NULL, 0);
    } else if (ts->what & OPTIONS_TRACE_EXIT) {
        trace_emit_call(&t->p, TRACE_EV_ENTER, now, k);
    } else { /* exec:light: no exits to tell the depth from */
        trace_emit(&t->p, TRACE_EV_ENTER_AT, now, (uint64_t[]){ k, t->calls.depth }, NULL, 0);
    }
}

/* A frame closed (thrown: by an exception), to the consumer and the file */
static void tr_exec_close(const trace_state *ts, trace_thread *t, bool thrown)
{
    uint64_t now = trace_session_now(ts);
    if (ts->consumer)
        trace_session_tap(ts, trace_thread_id(t), thrown ? TRACE_EV_EXIT_THROW : TRACE_EV_EXIT, now,
                          (uint64_t[]){ t->calls.stack[t->calls.depth - 1], t->calls.depth }, NULL, 0);
    trace_emit_call(&t->p, thrown ? TRACE_EV_EXIT_THROW : TRACE_EV_EXIT, now, 0);
}

/* ... and its exit (thrown: by an exception) */
static void tr_exec_exit(JNIEnv *jni, jint id, bool thrown)
{
    trace_state *ts = trace_live();
    if (!ts || !atomic_load_explicit(&ts->on, memory_order_relaxed))
        return;
    trace_thread *t = trace_session_self(ts, jni);
    if (!t || t->calls.depth == 0)
        return;
    uint32_t k = (uint32_t)id;
    uint32_t at = t->calls.depth;
    while (at > 0 && t->calls.depth - at < TRACE_UNWIND_MAX && t->calls.stack[at - 1] != k)
        at--;
    if (at == 0 || t->calls.stack[at - 1] != k)
        return; /* entered before tracing began */
    bool exits = ts->what & OPTIONS_TRACE_EXIT;
    uint64_t mintime = ts->mintime_ns;
    if (mintime) { /* each frame closed: a whole call, if it lasted mintime= */
        uint64_t now = trace_session_now(ts);
        for (; t->calls.depth >= at; t->calls.depth--) {
            uint64_t took = now > t->calls.starts[t->calls.depth - 1] ? now - t->calls.starts[t->calls.depth - 1] : 0;
            if (took < mintime)
                continue;
            tr_emit(ts, t, TRACE_EV_CALL, (uint64_t[]){ t->calls.stack[t->calls.depth - 1], t->calls.depth, took,
                                                    thrown || t->calls.depth > at });
            /* trigger=slow: a dump of the recording around it */
            triggers_slow_call(t->calls.stack[t->calls.depth - 1], thread_record_self.serial, agent_now_ns() - took,
                               took);
        }
        return;
    }
    while (t->calls.depth > at) { /* frames whose exit never came: left by an exception */
        if (exits)
            tr_exec_close(ts, t, true);
        t->calls.depth--;
    }
    if (exits)
        tr_exec_close(ts, t, thrown);
    t->calls.depth--;
}

bool trace_user_event(JNIEnv *jni, jstring message)
{
    trace_state *ts = trace_live();
    if (!ts || !atomic_load_explicit(&ts->on, memory_order_relaxed) || !(ts->what & OPTIONS_TRACE_USER) || !message)
        return false;
    trace_thread *t = trace_session_self(ts, jni);
    const char *s = t ? (*jni)->GetStringUTFChars(jni, message, NULL) : NULL;
    if (!s)
        return false;
    size_t n = strlen(s) < TRACE_USER_MAX ? strlen(s) : TRACE_USER_MAX;
    uint64_t now = trace_session_now(ts);
    trace_session_tap(ts, trace_thread_id(t), TRACE_EV_USER, now, NULL, s, n);
    bool ok = trace_emit(&t->p, TRACE_EV_USER, now, NULL, s, n);
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

/* trace=exec: the classes pass through the rewriter (as for cpu=times). The
 * hook is set whatever trace= is (this hook is given no session): it runs
 * only once the rewriter enables its event (bci_vm_init), which trace= does
 * for trace=exec alone. */
static void tr_callbacks(jvmtiEventCallbacks *cb) { cb->ClassFileLoadHook = bci_class_file_load_hook; }

/* Started late, the classes loaded before are retransformed to be instrumented; at the end
 * of a session in a running JVM, the classes are retransformed back to their own code. */
static jp_status tr_capabilities(jp_session *session, jvmtiCapabilities *caps)
{
    if (session->opts->trace & OPTIONS_TRACE_ENTRY) {
        caps->can_retransform_classes = 1;
        caps->can_retransform_any_class = 1;
    }
    return JP_OK;
}

/* The trace file, opened now so that a bad path is refused at once (the
 * line in err: force=n stops the VM, force=y runs the program unprofiled).
 * It is written in place as the trace goes (not renamed when complete), so a
 * process killed leaves it readable to its last complete chunk; a regular
 * file there is replaced, never followed through a link. */
static jp_status tr_load(jp_session *session, char *err, size_t errlen)
{
    const agent_options *o = session->opts;
    tr_part *tr = tr_of(session);
    if (!tr) {
        snprintf(err, errlen, "out of memory");
        return JP_ERR_NOMEM;
    }
    char perr[OPTIONS_PATH_MAX + 256];
    bool refused = o->plugin[0] && trace_plugin_load(o->plugin, perr, sizeof perr) != JP_OK;
    if (refused)
        jp_log_error("%s", perr);
    if (refused && !o->force)
        return JP_ERR_ARG; /* force=n: the VM stops */
    /* with plugin= and no tracefile=, the events go to the plugin only (none if it was refused) */
    bool file = !o->plugin[0] || options_given(o, OPTIONS_ID_TRACEFILE);
    unsigned what = refused && !file ? 0u : o->trace;
    snprintf(tr->path, sizeof tr->path, "%s", file ? o->tracefile : "/dev/null");
    out_target target;
    char why[512];
    int fd = -1;
    if (!file) {
        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        snprintf(why, sizeof why, "%s", strerror(errno));
    } else {
        if (out_file_check(tr->path, &target, why, sizeof why) != JP_OK) {
            snprintf(err, errlen, "tracefile=%s: %s", tr->path, out_file_reason(why, tr->path));
            return JP_ERR_ARG;
        }
        if (target.kind == OUT_DIRECT) {
            fd = out_file_open_direct(tr->path, &target, why, sizeof why);
        } else {
            if (target.kind == OUT_REPLACE)
                unlink(tr->path);
            fd = open(tr->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      target.kind == OUT_REPLACE ? target.mode : OUT_MODE_PUBLIC);
            if (fd < 0)
                snprintf(why, sizeof why, "%s", strerror(errno));
        }
    }
    if (fd < 0) {
        snprintf(err, errlen, "tracefile=%s: %s", tr->path, why);
        return JP_ERR_ARG;
    }
    uint64_t mintime = o->mintime_ns;
    bool receivers = (what & OPTIONS_TRACE_EXIT) && !mintime && o->receivers;
    jp_status st = trace_session_open(session, fd, o->tracelimit, what, mintime, receivers);
    if (st != JP_OK) { /* the header could not be written (a full disk), or out of memory */
        int e = errno;
        close(fd);
        snprintf(err, errlen, "tracefile=%s: %s", tr->path, st == JP_ERR_NOMEM ? "out of memory"
                                                          : e == EFBIG ? "tracelimit= is below the header's 32 bytes"
                                                                       : strerror(e));
        return st == JP_ERR_NOMEM ? st : JP_ERR_ARG;
    }
    tr->fd = fd;
    tr->opened = true;
    return trace_vm_events_load(what, receivers) == JP_OK ? JP_OK : JP_ERR_JVMTI;
}

static jp_status tr_start(jp_session *session, JNIEnv *jni)
{
    char err[OPTIONS_PATH_MAX + 256] = "";
    /* load ran in session_start, normally */
    if (!trace_session_is_open(session) && tr_load(session, err, sizeof err) != JP_OK) {
        if (err[0])
            jp_log_error("%s", err);
        return JP_ERR_IO;
    }
    trace_session_start(session);
    trace_state *ts = trace_live();
    unsigned what = ts ? ts->what : 0u;
    trace_plugin_begin(what);
    if (what & OPTIONS_TRACE_PROBE)
        probes_trace_listen(true);
    if (trace_vm_events_start(jni, what) != JP_OK)
        return JP_ERR_JVMTI;
    if (!(what & OPTIONS_TRACE_ENTRY))
        return JP_OK;
    bci_use_calls(session, tr_native_enter, tr_native_exit, tr_native_exit_throw, tr_native_enter_this, ts->receivers);
    return bci_vm_init(session, jni);
}

static void tr_thread_start(jp_session *session, JNIEnv *jni, uint32_t serial)
{
    (void)session;
    /* a carrier's producer is named at its start: its first event may be a virtual thread's, when the
     * current thread is that one (trace_session_self_slow names it then without a name) */
    trace_state *ts = trace_live();
    if (!ts)
        return;
    if (!trace_wants(OPTIONS_TRACE_THREAD)) {
        if (vthreads_supported() && atomic_load_explicit(&ts->on, memory_order_relaxed))
            trace_session_self(ts, jni);
        return;
    }
    trace_thread *t = trace_session_self(ts, jni);
    if (t)
        tr_emit(ts, t, TRACE_EV_THREAD_START, (uint64_t[]){ serial });
}

static void tr_thread_end(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    trace_state *ts = trace_live();
    trace_thread *t = thread_record_self.trace;
    if (trace_session_owns(ts, t) && trace_wants(OPTIONS_TRACE_THREAD))
        tr_emit(ts, t, TRACE_EV_THREAD_END, (uint64_t[]){ t->p.thread });
    trace_session_thread_end();
}

/* ---- virtual threads: their open calls lent to the carrier's producer while mounted; the events
 * between a mount and an unmount are theirs (TRACE_EV_MOUNT, trace_producer.mounted) ---- */

/* The carrier's own calls back in place, the virtual thread's kept in tv. */
static void tr_unlend(trace_thread *t)
{
    trace_vthread *tv = t->lent_to;
    tv->calls = t->calls;
    t->calls = t->own;
    t->lent_to = NULL;
    t->p.mounted = 0;
    t->last_this = 0;
}

/* The virtual thread's part for the session ts (begun again if an earlier session's), or NULL. */
static trace_vthread *tr_vthread_part(const trace_state *ts, vthread *v)
{
    trace_vthread *tv = v->trace;
    if (!tv && !(tv = v->trace = calloc(1, sizeof *tv)))
        return NULL;
    if (tv->gen != ts->gen) {
        tv->calls.depth = 0;
        tv->gen = ts->gen;
        tv->named = tv->starting = false;
    }
    return tv;
}

static void tr_vthread_start(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)jni;
    trace_state *ts = trace_live();
    trace_vthread *tv = ts && atomic_load_explicit(&ts->on, memory_order_relaxed) ? tr_vthread_part(ts, v) : NULL;
    if (tv)
        tv->starting = session->opts->vthreads && trace_wants(OPTIONS_TRACE_THREAD);
}

static void tr_vthread_mount(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)session;
    trace_state *ts = trace_live();
    if (!ts || !atomic_load_explicit(&ts->on, memory_order_relaxed))
        return;
    trace_thread *t = trace_session_self(ts, jni);
    trace_vthread *tv = t ? tr_vthread_part(ts, v) : NULL;
    if (!tv)
        return;
    if (t->lent_to)
        tr_unlend(t); /* (vthreads.c unmounts before it mounts another: never, but kept safe) */
    uint32_t serial = atomic_load_explicit(&v->serial, memory_order_relaxed);
    if (!tv->named) { /* its name, once a session: the first mount of each virtual thread takes the names' lock */
        uint32_t name = v->name ? trace_string_id(v->name, strlen(v->name)) : 0;
        trace_meta(TRACE_EV_VTHREAD, (uint64_t[]){ serial, name, v->java_id });
        tv->named = true;
    }
    t->own = t->calls;
    t->calls = tv->calls;
    t->lent_to = tv;
    t->last_this = 0;
    t->p.mounted = serial; /* its events say so (trace_emit): one mounted without any writes nothing */
    if (tv->starting) {
        tv->starting = false;
        tr_emit(ts, t, TRACE_EV_THREAD_START, (uint64_t[]){ serial });
    }
}

static void tr_vthread_unmount(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)jni;
    trace_state *ts = trace_live();
    trace_thread *t = thread_record_self.trace;
    if (!trace_session_owns(ts, t) || !v->trace || t->lent_to != v->trace)
        return;
    uint32_t serial = t->p.mounted;
    if (v->ending && session->opts->vthreads && trace_wants(OPTIONS_TRACE_THREAD))
        tr_emit(ts, t, TRACE_EV_THREAD_END, (uint64_t[]){ serial });
    tr_unlend(t); /* (the carrier's next event says the unmount) */
}

static void tr_vthread_end(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)session;
    (void)jni;
    trace_vthread *tv = v->trace;
    if (!tv)
        return;
    /* its last unmount gave its calls back; or they are lent to a producer of an earlier session that no
     * thread uses any more, whose end frees only that producer's own */
    free(tv->calls.stack);
    free(tv->calls.starts);
    free(tv);
    v->trace = NULL;
}

static void tr_poll(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    tr_part *tr = session_part_if(session, JP_PART_TRACE);
    if (!tr || !tr->opened)
        return;
    trace_session_write(session);
    net_stream_grow(tr->path, tr->fd);
}

/* The trace file closed. */
static void tr_close_file(tr_part *tr)
{
    close(tr->fd);
    tr->fd = -1;
    tr->opened = false;
}

/* The session's end: no more events; the JVM's turned off, the stream
 * closed (trace_session_close), the file synced and closed. */
static void tr_stop(jp_session *session, JNIEnv *jni)
{
    trace_vm_events_settle(); /* the last collections' notifications, while the session still takes them */
    trace_state *ts = trace_live();
    unsigned what = ts ? ts->what : 0u;
    trace_session_pause(session);
    probes_trace_listen(false);
    if (what & OPTIONS_TRACE_ENTRY)
        bci_vm_death(jni);
    trace_vm_events_stop(jni);
    trace_plugin_end();
    if (__atomic_load_n(&agent_vm_dying, __ATOMIC_ACQUIRE))
        trace_plugin_shutdown();
    tr_part *tr = session_part_if(session, JP_PART_TRACE);
    if (!tr || !trace_session_is_open(session))
        return;
    trace_session_close(session, &tr->last);
    if (fsync(tr->fd) != 0 && errno != EINVAL && errno != EROFS && !tr->last.write_errno)
        tr->last.write_errno = errno;
    net_stream_grow(tr->path, tr->fd);
    net_stream_grow_end();
    tr_close_file(tr);
}

/* After the stopped session's last report: what it held that a later
 * session may need given back (JVMTI's allocation sampler); and the trace
 * file of a session whose start failed after its load, closed. */
static void tr_end(jp_session *session, JNIEnv *jni)
{
    tr_part *tr = session_part_if(session, JP_PART_TRACE);
    if (tr && trace_session_is_open(session)) { /* loaded, never started */
        trace_vm_events_stop(jni);
        trace_session_close(session, &tr->last);
        tr_close_file(tr);
    }
    trace_vm_events_end();
}

static void tr_describe_stats(jp_session *session)
{
    tr_part *tr = session_part_if(session, JP_PART_TRACE);
    if (!tr)
        return;
    trace_stream_stats st = tr->last;
    if (trace_session_is_open(session))
        trace_session_stats(session, &st);
    jp_log_info("trace: %llu events in %llu chunks to %s (%llu bytes, %.1f bytes per event)%s%s%s; %llu events "
                "dropped", (unsigned long long)st.events, (unsigned long long)st.chunks, tr->path,
                (unsigned long long)st.bytes, st.events ? (double)st.bytes / (double)st.events : 0.0,
                st.full && !st.write_errno ? "; tracelimit= reached" : "", st.write_errno ? "; writing failed: " : "",
                st.write_errno ? strerror(st.write_errno) : "", (unsigned long long)st.dropped_events);
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
    .vthread_start = tr_vthread_start,
    .vthread_mount = tr_vthread_mount,
    .vthread_unmount = tr_vthread_unmount,
    .vthread_end = tr_vthread_end,
    .poll = tr_poll,
    .describe = tr_describe_stats,
    .stop = tr_stop,
    .end = tr_end,
};
