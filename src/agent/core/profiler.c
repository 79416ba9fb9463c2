/* profiler.c — the agent thread: every period the collectors' ticks
 * (collector.h: a sampling round) and the drain of what they gathered (the
 * event queue, then each collector's own), each time it wakes the collectors'
 * polls, and reports on request. A report goes down one path: the
 * collectors' before_report, file='s output (outputs.h), what the
 * collectors add to it (their report hooks: a heap dump), the other
 * outputs, then the log lines (wrote, the collectors' own, the cost).
 * See profiler.h for who may touch the model when. */
#include "profiler.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/jp_log.h"
#include "../../format/format.h"
#include "../../model/model.h"
#include "../../model/recording.h"
#include "../../model/recording_window.h"
#include "agent_env.h"
#include "collectors.h"
#include "eventq.h"
#include "../remote/net_stream.h"
#include "jvmti_util.h"
#include "outputs.h"
#include "symbols.h"

#define PROF_POLL_MS 50u

/* The agent thread's life, which other threads (a session's stop, VM death, the attach commands) wait on:
 * global because they have no session to reach it by, and the lock and the condition variable serve every
 * session of the JVM's life. lock guards only stop_requested and running (VM death waits on them) and
 * prof_requests.dump_to, never the model. */
struct prof_thread_life {
    pthread_mutex_t lock;
    pthread_cond_t wake;       /* on CLOCK_MONOTONIC: made at the first profiler_init (wake_ready) */
    bool wake_ready;
    bool stop_requested, running, started;
    JNIEnv *jni;               /* the agent thread's own, while it runs */
    atomic_bool dumping;       /* the agent thread is writing a report: stopping waits for it */
};
static struct prof_thread_life prof_thread = { .lock = PTHREAD_MUTEX_INITIALIZER }; /* the JVM's one, see above */

/* What other threads ask of the agent thread, and how many it did: global because the askers (SIGQUIT's
 * callback, Control.dump, VM death, the attach commands) have no session to reach it by. A request is a
 * lock-free flag (or FILE) that the agent thread polls at least every PROF_POLL_MS, so callbacks asking
 * for one take no lock. */
static struct {
    atomic_bool dump;          /* a report */
    atomic_bool closed;        /* VM death took the last request: no more are accepted */
    atomic_bool reset;         /* discard what was collected (jvmprof reset) */
    atomic_bool drain;         /* drain the collectors now (a session's stop) */
    atomic_uint done_drains;
    _Atomic(FILE *) describe_to; /* the collectors' lines into a file (jvmprof status) */
    _Atomic(struct heap_dump_sites *) sites_to; /* the sampled objects for a heap dump (heap_dump_sites.h) */
    atomic_uint done_resets, done_describes, done_reports, done_sites;
    char dump_to[OPTIONS_PATH_MAX]; /* the next report's file instead of file= (jvmprof dump PID FILE); under
                                     * prof_thread.lock */
    profiler_window window;    /* the next report's window of the recording (record=y); under prof_thread.lock */
} prof_requests;

/* The session whose agent thread this is, from profiler_init to profiler_end: global because session.c
 * drives the agent thread (start, stop, the last report) without handing it the session. */
static jp_session *prof_session;

/* The agent thread's own part of its session (JP_PART_PROFILER): what the cost line reports. */
typedef struct prof_state {
    uint64_t agent_cpu_ns;     /* the agent thread's CPU time (read on that thread when it dumps or stops) */
    uint64_t start_ns;         /* the session's start */
    unsigned reports;          /* reports written this session: %n in an output's name */
} prof_state;

static prof_state *prof_part(void) { return session_part_if(prof_session, JP_PART_PROFILER); }

jp_status profiler_init(jp_session *s)
{
    if (!prof_thread.wake_ready) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&prof_thread.wake, &attr);
        pthread_condattr_destroy(&attr);
        prof_thread.wake_ready = true;
    }
    const agent_options *o = s->opts;
    prof_thread.stop_requested = prof_thread.running = prof_thread.started = false;
    atomic_store(&prof_requests.dump, false);
    atomic_store(&prof_requests.closed, false);
    atomic_store(&prof_thread.dumping, false);
    prof_state *p = session_part(s, JP_PART_PROFILER, sizeof *p);
    model *m = s->model = p ? model_new() : NULL;
    if (!m)
        return jp_error(JP_ERR_NOMEM, "out of memory at start");
    prof_session = s;
    m->start_time_ms = agent_wall_ms();
    p->start_ns = agent_now_ns();
    m->depth = o->depth; /* every collector's stacks (the allocation collectors set up their own fields) */
    outputs_prepare_model(o, m);
    if (o->record && !(m->recording = recording_new(o->maxsize, o->maxage_ns)))
        return jp_error(JP_ERR_NOMEM, "out of memory for record=y's ring");
    return JP_OK;
}

void profiler_end(void)
{
    model_free(prof_session->model);
    prof_session->model = NULL;
    prof_session = NULL;
    eventq_discard();
    symbols_reset();
    prof_thread.started = false;
}

static void prof_drain(JNIEnv *jni)
{
    eventq_apply_all(prof_session->model, jni);
    collectors_drain(jni);
}

/* The model of a window of the session's recording: --last (back from now) or --from/--to (since the
 * session's start), clipped to now. */
static model *prof_window_model(model *m, const profiler_window *w)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    uint64_t start_ns = m->start_time_ms * 1000000u, from_ns, to_ns;
    if (w->last_ms) {
        to_ns = now_ns;
        from_ns = now_ns > w->last_ms * 1000000u ? now_ns - w->last_ms * 1000000u : 0;
    } else {
        from_ns = start_ns + w->from_ms * 1000000u;
        to_ns = w->to_ms ? start_ns + w->to_ms * 1000000u : now_ns;
    }
    if (to_ns > now_ns)
        to_ns = now_ns;
    if (from_ns > to_ns)
        from_ns = to_ns;
    recording_expire(m->recording, now_ns);
    return recording_window(m, from_ns, to_ns);
}

/* record=y: the recording's line (jvmprof status, and after each report of the whole session). */
static void prof_describe_recording(const model *m)
{
    if (!m->recording)
        return;
    recording_stats st;
    recording_get_stats(m->recording, &st);
    uint64_t now_ms = agent_wall_ms();
    jp_log_info("recording: %llu events kept in %.2f MiB of %.2f MiB (maxsize=), reaching back %.1f s (maxage=%.0f s); "
                "%llu dropped by age or for room, %llu lost (no memory)", (unsigned long long)st.events,
                (double)st.bytes / 1048576, (double)st.max_bytes / 1048576,
                st.oldest_ns && now_ms * 1000000u > st.oldest_ns ? (double)(now_ms * 1000000u - st.oldest_ns) / 1e9
                                                                  : 0.0,
                (double)st.maxage_ns / 1e9, (unsigned long long)st.dropped, (unsigned long long)st.lost);
}

/* A trigger's dump (profiler_dump_trigger): its file, its window of the recording, and what fired it. */
typedef struct prof_trigger {
    const char *path;
    profiler_window window;
    const char *name;          /* "oom", "quit", "cpu", "slow" */
    const char *what;          /* what happened, for the report's header and the log line */
} prof_trigger;

static jp_status prof_report(JNIEnv *jni, const prof_trigger *trig);

jp_status profiler_dump(JNIEnv *jni) { return prof_report(jni, NULL); }

jp_status profiler_dump_trigger(JNIEnv *jni, const char *path, const profiler_window *window, const char *name,
                                const char *what)
{
    prof_trigger t = { path, *window, name, what };
    bool was = atomic_exchange(&prof_thread.dumping, true);
    jp_status st = prof_report(jni, &t);
    atomic_store(&prof_thread.dumping, was);
    return st;
}

/* A report: of the whole session, or of a window of its recording (the request's, or trig's), to file= or
 * to the file asked for. */
static jp_status prof_report(JNIEnv *jni, const prof_trigger *trig)
{
    const agent_options *o = prof_session->opts;
    model *m = prof_session->model;
    prof_state *p = prof_part();
    collectors_before_report(jni);
    net_stream_counts(m);
    prof_drain(jni);
    if (m->sites_counted) /* once the sampled callers are in */
        model_sites_counted_live(m);
    if (outputs_want_site_stacks(o) && site_stacks_build(m) != JP_OK)
        m->oom = true;
    jp_report r;
    pthread_mutex_lock(&prof_thread.lock);
    unsigned trigger_number = 0; /* a trigger's dump is numbered by its trigger (its path says it) */
    outputs_plan(o, trig ? &trigger_number : &p->reports, trig ? trig->path : prof_requests.dump_to, &r);
    const jp_format_ops *report = r.outs[0].format; /* NULL: nothing profiled, no report proper */
    profiler_window win = trig ? trig->window : prof_requests.window;
    if (report && !trig) { /* taken */
        prof_requests.dump_to[0] = '\0';
        prof_requests.window = (profiler_window){ 0 };
    }
    pthread_mutex_unlock(&prof_thread.lock);
    /* a window of the recording: a model of its own, written by the same writers */
    model *full = m;
    if (win.set && m->recording) {
        m = prof_window_model(full, &win);
        if (m && outputs_want_site_stacks(o) && site_stacks_build(m) != JP_OK)
            m->oom = true;
        if (!m) {
            buf_free(&r.kept);
            return jp_error(JP_ERR_NOMEM, "out of memory for the recording's window");
        }
        if (trig)
            snprintf(m->trigger, sizeof m->trigger, "%s: %s", trig->name, trig->what);
    }
    /* file= first (written, or made in memory for a collector to write), then what the collectors add to the
     * report (a heap dump), then the other outputs; file='s line comes last, with the cost lines */
    full->dump_time_ms = agent_wall_ms(); /* a window's is its end */
    report_opts ro = outputs_report_opts(o);
    jp_status st = JP_OK;
    if (report)
        st = outputs_write(&r.outs[0], m, &ro, r.path, &r.bytes, r.outs[0].heap_dump_after ? &r.kept : NULL);
    if (st == JP_OK)
        st = collectors_report(jni, &r);
    buf_free(&r.kept);
    if (st == JP_OK && report)
        net_stream_file(r.path);
    char what[256], extra_path[OPTIONS_PATH_MAX + 16];
    for (size_t i = 1; i < r.nout; i++) {
        uint64_t extra = 0;
        outputs_name(r.outs[i].path, r.number, extra_path, sizeof extra_path);
        if (outputs_write(&r.outs[i], m, &ro, extra_path, &extra, NULL) != JP_OK)
            continue;
        net_stream_file(extra_path);
        r.outs[i].format->summary(m, what, sizeof what);
        jp_log_info("wrote %s (%llu bytes: %s)", extra_path, (unsigned long long)extra, what);
    }
    if (m != full) {
        if (st == JP_OK && report && trig) {
            report->summary(m, what, sizeof what);
            jp_log_info("trigger %s (%s): wrote %s (%llu bytes: %s; the recording's window of %.1f s)", trig->name,
                        trig->what, r.path, (unsigned long long)r.bytes, what,
                        (double)(m->window_to_ms - m->window_from_ms) / 1000);
        } else if (st == JP_OK && report) {
            report->summary(m, what, sizeof what);
            jp_log_info("wrote %s (%llu bytes: %s; the recording's window of %.1f s, from %.1f s after the "
                        "session's start; the recording reaches back %.1f s)", r.path, (unsigned long long)r.bytes,
                        what, (double)(m->window_to_ms - m->window_from_ms) / 1000,
                        (double)((int64_t)m->window_from_ms - (int64_t)full->start_time_ms) / 1000,
                        (double)(m->window_to_ms - m->recorded_from_ms) / 1000);
        }
        model_free(m);
        return st;
    }
    if (st != JP_OK)
        return st;
    if (!report) { /* nothing profiled: no lines of a report's own */
        if (!r.collector_file) /* trace= alone (its file is written as it goes): the collectors' lines */
            collectors_describe();
        return JP_OK;
    }
    if (o->reset) { /* the next report holds what comes from now on */
        model_interval_reset(m);
        collectors_interval_reset();
    }
    uint64_t resolved, unloaded;
    symbols_stats(&resolved, &unloaded);
    report->summary(m, what, sizeof what);
    jp_log_info("wrote %s (%llu bytes: %s%s%s)", r.path, (unsigned long long)r.bytes, what, r.line_also,
                m->oom ? "; OUT OF MEMORY: data incomplete" : "");
    collectors_describe();
    prof_describe_recording(m);
    double wall_ms = (double)(agent_now_ns() - p->start_ns) / 1e6;
    double agent_ms = (double)p->agent_cpu_ns / 1e6;
    char cost[256];
    collectors_cost(cost, sizeof cost);
    jp_log_info("cost: agent thread %.1f ms CPU in %.1f s (%.2f%% of one core)%s", agent_ms, wall_ms / 1000,
                wall_ms > 0 ? 100.0 * agent_ms / wall_ms : 0.0, cost);
    if (unloaded)
        jp_log_info("%llu of %llu methods were unloaded before they could be named", (unsigned long long)unloaded,
                    (unsigned long long)resolved);
    return JP_OK;
}

/* Sets *ts to now + ms (now=true) or advances it by ms (a fixed-rate tick). */
static void prof_deadline_from(struct timespec *ts, unsigned ms, bool now)
{
    if (now)
        clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void prof_deadline(struct timespec *ts, unsigned ms) { prof_deadline_from(ts, ms, true); }

static bool prof_reached(const struct timespec *now, const struct timespec *t)
{
    return now->tv_sec > t->tv_sec || (now->tv_sec == t->tv_sec && now->tv_nsec >= t->tv_nsec);
}

/* Records the calling (agent) thread's CPU time for the cost line. */
static void prof_note_agent_cpu(void)
{
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        prof_part()->agent_cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
}

static void JNICALL prof_thread_main(jvmtiEnv *jv, JNIEnv *jni, void *arg)
{
    (void)jv;
    (void)arg;
    /* a period: the collectors' ticks (a sampling round), then everything they gathered drained */
    unsigned period = collectors_period_ms();
    pthread_mutex_lock(&prof_thread.lock);
    prof_thread.jni = jni;
    pthread_mutex_unlock(&prof_thread.lock);
    struct timespec next;
    prof_deadline(&next, period);
    for (;;) {
        struct timespec wake;
        prof_deadline(&wake, PROF_POLL_MS);
        if (!prof_reached(&next, &wake))
            wake = next;
        pthread_mutex_lock(&prof_thread.lock);
        if (!prof_thread.stop_requested)
            pthread_cond_timedwait(&prof_thread.wake, &prof_thread.lock, &wake);
        bool stop = prof_thread.stop_requested;
        pthread_mutex_unlock(&prof_thread.lock);
        if (stop)
            break; /* a request not taken yet stays for VM death (profiler_final_request) */
        bool dump = atomic_exchange(&prof_requests.dump, false);
        collectors_poll(jni);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (prof_reached(&now, &next)) {
            collectors_tick(jni);
            prof_drain(jni);
            /* fixed rate: one tick per interval; if a round overran, skip the missed ticks */
            prof_deadline_from(&next, period, false);
            if (prof_reached(&now, &next))
                prof_deadline(&next, period);
        }
        if (dump) {
            atomic_store(&prof_thread.dumping, true);
            prof_note_agent_cpu();
            profiler_dump(jni);
            atomic_store(&prof_thread.dumping, false);
            atomic_fetch_add(&prof_requests.done_reports, 1);
        }
        if (atomic_exchange(&prof_requests.drain, false)) {
            prof_drain(jni);
            atomic_fetch_add(&prof_requests.done_drains, 1);
        }
        if (atomic_exchange(&prof_requests.reset, false)) {
            prof_drain(jni);
            model_interval_reset(prof_session->model);
            collectors_interval_reset();
            atomic_fetch_add(&prof_requests.done_resets, 1);
        }
        struct heap_dump_sites *sites = atomic_exchange(&prof_requests.sites_to, NULL);
        if (sites) {
            prof_drain(jni);
            collectors_dump_sites(jni, sites);
            atomic_fetch_add(&prof_requests.done_sites, 1);
        }
        FILE *to = atomic_exchange(&prof_requests.describe_to, NULL);
        if (to) {
            prof_drain(jni);
            jp_log_tee(to);
            collectors_describe();
            prof_describe_recording(prof_session->model);
            jp_log_tee(NULL);
            atomic_fetch_add(&prof_requests.done_describes, 1);
        }
    }
    prof_note_agent_cpu();
    pthread_mutex_lock(&prof_thread.lock);
    prof_thread.running = false;
    prof_thread.jni = NULL;
    pthread_cond_broadcast(&prof_thread.wake);
    pthread_mutex_unlock(&prof_thread.lock);
}

jp_status profiler_start(JNIEnv *jni)
{
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID ctor = tc ? (*jni)->GetMethodID(jni, tc, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring name = (*jni)->NewStringUTF(jni, "jvmprof");
    jthread thr = ctor && name ? (*jni)->NewObject(jni, tc, ctor, name) : NULL;
    if (!thr) {
        (*jni)->ExceptionClear(jni);
        return jp_error(JP_ERR_JVMTI, "cannot create the agent thread");
    }
    agent_set_own_thread((*jni)->NewGlobalRef(jni, thr));
    prof_thread.running = true;
    prof_thread.started = true;
    jvmtiError err = (*agent_jvmti)->RunAgentThread(agent_jvmti, thr, prof_thread_main, NULL,
                                                     JVMTI_THREAD_MAX_PRIORITY);
    if (err != JVMTI_ERROR_NONE) {
        prof_thread.running = prof_thread.started = false;
        return jvmti_check(err, "RunAgentThread");
    }
    return JP_OK;
}

bool profiler_request_dump(void)
{
    if (!prof_thread.started)
        return false;
    atomic_store(&prof_requests.dump, true);
    /* if VM death has closed the door, either it took this request (it writes it) or it is
     * still here, and is withdrawn: sequentially consistent, so one of the two sees the other */
    if (atomic_load(&prof_requests.closed) && atomic_exchange(&prof_requests.dump, false))
        return false;
    return true;
}

bool profiler_final_request(void)
{
    atomic_store(&prof_requests.closed, true);
    return atomic_exchange(&prof_requests.dump, false);
}

void profiler_wake(void) { pthread_cond_broadcast(&prof_thread.wake); }

/* Waits (polling) until *done passes before, the agent thread gone, or timeout_ms. */
static bool prof_wait_done(atomic_uint *done, unsigned before, int timeout_ms)
{
    for (int waited = 0; atomic_load(done) == before; waited += 10) {
        pthread_mutex_lock(&prof_thread.lock);
        bool running = prof_thread.running;
        pthread_mutex_unlock(&prof_thread.lock);
        if (!running || waited >= timeout_ms)
            return false;
        profiler_wake();
        struct timespec ts = { 0, 10000000L };
        nanosleep(&ts, NULL);
    }
    return true;
}

bool profiler_dump_and_wait(const char *path, const profiler_window *window, int timeout_ms)
{
    unsigned before = atomic_load(&prof_requests.done_reports);
    pthread_mutex_lock(&prof_thread.lock);
    snprintf(prof_requests.dump_to, sizeof prof_requests.dump_to, "%s", path ? path : "");
    prof_requests.window = window ? *window : (profiler_window){ 0 };
    pthread_mutex_unlock(&prof_thread.lock);
    bool ok = profiler_request_dump() && prof_wait_done(&prof_requests.done_reports, before, timeout_ms);
    pthread_mutex_lock(&prof_thread.lock);
    prof_requests.dump_to[0] = '\0';
    prof_requests.window = (profiler_window){ 0 };
    pthread_mutex_unlock(&prof_thread.lock);
    return ok;
}

bool profiler_reset_and_wait(int timeout_ms)
{
    if (!prof_thread.started)
        return false;
    unsigned before = atomic_load(&prof_requests.done_resets);
    atomic_store(&prof_requests.reset, true);
    return prof_wait_done(&prof_requests.done_resets, before, timeout_ms);
}

bool profiler_drain_and_wait(JNIEnv *jni, int timeout_ms)
{
    pthread_mutex_lock(&prof_thread.lock);
    bool self = prof_thread.running && jni && prof_thread.jni == jni;
    pthread_mutex_unlock(&prof_thread.lock);
    if (self) {
        prof_drain(jni);
        return true;
    }
    unsigned before = atomic_load(&prof_requests.done_drains);
    atomic_store(&prof_requests.drain, true);
    return prof_wait_done(&prof_requests.done_drains, before, timeout_ms);
}

bool profiler_describe_and_wait(FILE *to, int timeout_ms)
{
    if (!prof_thread.started)
        return false;
    unsigned before = atomic_load(&prof_requests.done_describes);
    atomic_store(&prof_requests.describe_to, to);
    bool ok = prof_wait_done(&prof_requests.done_describes, before, timeout_ms);
    FILE *expected = to;
    atomic_compare_exchange_strong(&prof_requests.describe_to, &expected, NULL); /* not taken: withdrawn */
    return ok;
}

bool profiler_dump_sites_and_wait(JNIEnv *jni, struct heap_dump_sites *out, int timeout_ms)
{
    pthread_mutex_lock(&prof_thread.lock);
    bool running = prof_thread.running, self = running && jni && prof_thread.jni == jni;
    pthread_mutex_unlock(&prof_thread.lock);
    if (self) {
        prof_drain(jni);
        collectors_dump_sites(jni, out);
        return true;
    }
    if (!running)
        return false;
    unsigned before = atomic_load(&prof_requests.done_sites);
    atomic_store(&prof_requests.sites_to, out);
    if (prof_wait_done(&prof_requests.done_sites, before, timeout_ms))
        return true;
    struct heap_dump_sites *expected = out;
    if (atomic_compare_exchange_strong(&prof_requests.sites_to, &expected, NULL))
        return false; /* not taken: withdrawn */
    /* taken: the agent thread is filling out; it must be done before out goes */
    while (atomic_load(&prof_requests.done_sites) == before) {
        pthread_mutex_lock(&prof_thread.lock);
        running = prof_thread.running;
        pthread_mutex_unlock(&prof_thread.lock);
        if (!running)
            break;
        struct timespec ts = { 0, 10000000L };
        nanosleep(&ts, NULL);
    }
    return atomic_load(&prof_requests.done_sites) != before;
}

bool profiler_stop(JNIEnv *jni)
{
    pthread_mutex_lock(&prof_thread.lock);
    prof_thread.stop_requested = true;
    pthread_cond_broadcast(&prof_thread.wake);
    struct timespec limit;
    prof_deadline(&limit, 10000);
    while (prof_thread.started && prof_thread.running) {
        if (pthread_cond_timedwait(&prof_thread.wake, &prof_thread.lock, &limit) == ETIMEDOUT) {
            if (!atomic_load(&prof_thread.dumping))
                break;
            prof_deadline(&limit, 1000); /* a report or a heap dump being written: it is not lost */
        }
    }
    bool stuck = prof_thread.running;
    pthread_mutex_unlock(&prof_thread.lock);
    if (stuck) {
        jp_log_error("the agent thread did not stop within 10 s; no final report");
        return false;
    }
    prof_drain(jni);
    return true;
}
