/* profiler.c — the agent thread: every period the collectors' ticks
 * (collector.h: a sampling round) and the drain of what they gathered (the
 * event queue, then each collector's own), each time it wakes the collectors'
 * polls, and reports on request (with the flame graph and collapsed stacks).
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
#include "agent_env.h"
#include "collectors.h"
#include "eventq.h"
#include "../heap/heap_dump.h"
#include "../remote/net_stream.h"
#include "jvmti_util.h"
#include "outputs.h"
#include "../monitors/collect_monitor.h"
#include "symbols.h"

static model *prof_model;
/* prof_lock guards only stop/running (VM death waits on them), never the
 * model. A dump request is a lock-free flag that the agent thread polls at
 * least every PROF_POLL_MS, so callbacks asking for one take no lock. */
#define PROF_POLL_MS 50u
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t prof_wake;
static bool prof_stop_requested, prof_running, prof_started;
static atomic_bool prof_dump_requested;
static atomic_bool prof_closed;      /* VM death took the last request: no more are accepted */
static atomic_bool prof_dumping;     /* the agent thread is writing a report: stopping waits for it */
/* what profiling costs, reported with each dump: the agent thread's own CPU
 * time (read on that thread when it dumps or stops) */
static uint64_t prof_agent_cpu_ns, prof_start_ns;
static unsigned prof_reports;        /* reports written this session: %n in an output's name */
/* the attach commands' requests (attach_commands.c), taken by the agent thread: discard what was
 * collected; describe the collectors into a file; each done counts one more */
static atomic_bool prof_reset_requested;
static _Atomic(FILE *) prof_describe_to;
static atomic_uint prof_done_resets, prof_done_describes, prof_done_reports;
static char prof_dump_to[OPTIONS_PATH_MAX]; /* the next report's file instead of file= (jvmprof dump PID FILE); under prof_lock */


jp_status profiler_init(jp_session *s)
{
    static bool cond_ready;
    if (!cond_ready) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&prof_wake, &attr);
        pthread_condattr_destroy(&attr);
        cond_ready = true;
    }
    prof_stop_requested = prof_running = prof_started = false;
    atomic_store(&prof_dump_requested, false);
    atomic_store(&prof_closed, false);
    atomic_store(&prof_dumping, false);
    prof_agent_cpu_ns = 0;
    prof_reports = 0;
    prof_model = s->model = model_new();
    if (!prof_model)
        return jp_error(JP_ERR_NOMEM, "out of memory at start");
    prof_model->start_time_ms = agent_wall_ms();
    prof_start_ns = agent_now_ns();
    prof_model->depth = agent_opts->depth;
    prof_model->wall = agent_opts->wall_ms > 0;
    prof_model->interval_us = (agent_opts->wall_ms ? agent_opts->wall_ms : agent_opts->interval_ms) * 1000u;
    /* jfr=: the samples' real times, 16 bytes each, at most 8 MiB; later samples are spread evenly */
    prof_model->sample_times_max = agent_opts->jfr[0] ? 1u << 19 : 0;
    if (agent_opts->heap_sites) {
        prof_model->alloc_interval = agent_opts->alloc_interval;
        prof_model->sites_exact = agent_opts->alloc_interval == 0;
        /* exact mode's nursery (the sampler's hook) says which live objects no collection has seen */
        prof_model->sites_young = prof_model->sites_exact && agent_opts->alloc_hook != 'b';
        prof_model->lifetimes = agent_opts->lifetimes;
    }
    return JP_OK;
}

void profiler_end(void)
{
    model_free(prof_model);
    prof_model = NULL;
    eventq_discard();
    symbols_reset();
    prof_started = false;
}

static void prof_drain(JNIEnv *jni)
{
    eventq_apply_all(prof_model, jni);
    collectors_drain(jni);
}

/* Writes one output file with one format: to a temporary name, renamed when
 * complete. With dump_jni (heap=all), the report is made in memory and a heap
 * dump follows it in the file, which is then private (0600) like the dump. */
static jp_status prof_write(const jp_format_ops *fmt, const report_opts *ro, const char *path, uint64_t *bytes,
                            JNIEnv *dump_jni)
{
    char err[1024];
    buf report;
    buf_init(&report);
    sink *s = dump_jni ? sink_open_memory(&report) : sink_open_file(path, 0, err, sizeof err);
    if (!s)
        return jp_error(JP_ERR_IO, "%s", dump_jni ? "out of memory" : err);
    jp_status st = fmt->write(prof_model, ro, s);
    if (st != JP_OK) {
        sink_abort(s);
        buf_free(&report);
        return jp_error(st, "cannot write %s: %s", path, jp_status_name(st));
    }
    *bytes = sink_bytes(s);
    st = sink_commit(s, err, sizeof err);
    if (st == JP_OK && dump_jni) {
        st = heap_dump_write_after(dump_jni, agent_opts, path, report.data, report.len, err, sizeof err);
        if (st != JP_OK) {
            buf_free(&report);
            return jp_error(st, "heap dump failed: %s", err[0] ? err : jp_status_name(st));
        }
    }
    buf_free(&report);
    if (st != JP_OK)
        return jp_error(st, "%s", err);
    net_stream_file(path);
    return JP_OK;
}

/* A report output's name: %n replaced by the report's number n; without %n
 * the name itself (each report replaces the one before). */
static void prof_report_name(const char *path, unsigned n, char *out, size_t len)
{
    heap_dump_name(path, strstr(path, "%n") ? n : 1, out, len);
}

jp_status profiler_dump(JNIEnv *jni)
{
    model *m = prof_model;
    collectors_before_report(jni);
    net_stream_counts(m);
    prof_drain(jni);
    if (m->sites_counted) /* once the sampled callers are in */
        model_sites_counted_live(m);
    /* flame= and collapsed= draw the sampler's stacks; without a sampler, heap=sites' allocation sites */
    if ((agent_opts->flame[0] || agent_opts->collapsed[0]) && agent_opts->heap_sites &&
        !options_async_sampling(agent_opts) && site_stacks_build(m) != JP_OK)
        m->oom = true;
    output outs[OUTPUTS_MAX];
    size_t nout = outputs_of(agent_opts, outs);
    if (!outs[0].format && !agent_opts->heap_dump) { /* trace= alone: its file is written as it goes */
        collectors_describe();
        return JP_OK;
    }
    if (!outs[0].format) { /* heap=dump alone */
        char err[1024];
        jp_status st = heap_dump_write(jni, agent_opts, NULL, err, sizeof err);
        if (st != JP_OK)
            jp_log_error("heap dump failed: %s", err);
        return st;
    }
    m->dump_time_ms = agent_wall_ms();
    report_opts ro = { agent_opts->cutoff, agent_opts->cpu == OPTIONS_CPU_SAMPLES || agent_opts->wall_ms > 0,
                       agent_opts->monitor, agent_opts->cpu == OPTIONS_CPU_TIMES, agent_opts->heap_sites, NULL };
    /* file= first; its line comes last, with the cost lines */
    char path[OPTIONS_PATH_MAX + 16], what[256], extra_path[OPTIONS_PATH_MAX + 16];
    /* %n in a name: the report's number in this session (1, 2, ...); without it each report replaces the last */
    unsigned n = ++prof_reports;
    pthread_mutex_lock(&prof_lock);
    bool elsewhere = prof_dump_to[0] != '\0';
    if (elsewhere) { /* this report only, to that file, and nothing else */
        snprintf(path, sizeof path, "%s", prof_dump_to);
        prof_dump_to[0] = '\0';
        nout = 1;
        outs[0].heap_dump_after = false;
    }
    pthread_mutex_unlock(&prof_lock);
    if (elsewhere)
        ;
    else if (outs[0].heap_dump_after) /* heap=all: the report and a heap dump in one file, named like heap=dump's */
        heap_dump_next_path(agent_opts->file, path, sizeof path);
    else
        prof_report_name(outs[0].path, n, path, sizeof path);
    uint64_t bytes = 0;
    jp_status st = prof_write(outs[0].format, &ro, path, &bytes, outs[0].heap_dump_after ? jni : NULL);
    for (size_t i = 1; i < nout; i++) {
        uint64_t extra = 0;
        prof_report_name(outs[i].path, n, extra_path, sizeof extra_path);
        if (prof_write(outs[i].format, &ro, extra_path, &extra, NULL) != JP_OK)
            continue;
        outs[i].format->summary(m, what, sizeof what);
        jp_log_info("wrote %s (%llu bytes: %s)", extra_path, (unsigned long long)extra, what);
    }
    if (st != JP_OK)
        return st;
    if (agent_opts->reset) { /* the next report holds what comes from now on */
        model_interval_reset(m);
        collectors_interval_reset();
    }
    uint64_t resolved, unloaded;
    symbols_stats(&resolved, &unloaded);
    outs[0].format->summary(m, what, sizeof what);
    jp_log_info("wrote %s (%llu bytes: %s%s%s)", path, (unsigned long long)bytes, what,
                agent_opts->heap_dump ? "; and a heap dump" : "", m->oom ? "; OUT OF MEMORY: data incomplete" : "");
    collectors_describe();
    double wall_ms = (double)(agent_now_ns() - prof_start_ns) / 1e6;
    double agent_ms = (double)prof_agent_cpu_ns / 1e6;
    char monitor_cost[64] = "";
    if (agent_opts->monitor)
        snprintf(monitor_cost, sizeof monitor_cost, "; monitor callbacks %.1f ms", (double)monitor_cost_ns() / 1e6);
    jp_log_info("cost: agent thread %.1f ms CPU in %.1f s (%.2f%% of one core)%s", agent_ms, wall_ms / 1000,
                wall_ms > 0 ? 100.0 * agent_ms / wall_ms : 0.0, monitor_cost);
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
        prof_agent_cpu_ns = (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec;
}

static void JNICALL prof_thread_main(jvmtiEnv *jv, JNIEnv *jni, void *arg)
{
    (void)jv;
    (void)arg;
    /* a period: the collectors' ticks (a sampling round), then everything they gathered drained */
    unsigned period = collectors_period_ms();
    struct timespec next;
    prof_deadline(&next, period);
    for (;;) {
        struct timespec wake;
        prof_deadline(&wake, PROF_POLL_MS);
        if (!prof_reached(&next, &wake))
            wake = next;
        pthread_mutex_lock(&prof_lock);
        if (!prof_stop_requested)
            pthread_cond_timedwait(&prof_wake, &prof_lock, &wake);
        bool stop = prof_stop_requested;
        pthread_mutex_unlock(&prof_lock);
        if (stop)
            break; /* a request not taken yet stays for VM death (profiler_final_request) */
        bool dump = atomic_exchange(&prof_dump_requested, false);
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
            atomic_store(&prof_dumping, true);
            prof_note_agent_cpu();
            profiler_dump(jni);
            atomic_store(&prof_dumping, false);
            atomic_fetch_add(&prof_done_reports, 1);
        }
        if (atomic_exchange(&prof_reset_requested, false)) {
            prof_drain(jni);
            model_interval_reset(prof_model);
            collectors_interval_reset();
            atomic_fetch_add(&prof_done_resets, 1);
        }
        FILE *to = atomic_exchange(&prof_describe_to, NULL);
        if (to) {
            prof_drain(jni);
            jp_log_tee(to);
            collectors_describe();
            jp_log_tee(NULL);
            atomic_fetch_add(&prof_done_describes, 1);
        }
    }
    prof_note_agent_cpu();
    pthread_mutex_lock(&prof_lock);
    prof_running = false;
    pthread_cond_broadcast(&prof_wake);
    pthread_mutex_unlock(&prof_lock);
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
    prof_running = true;
    prof_started = true;
    jvmtiError err = (*agent_jvmti)->RunAgentThread(agent_jvmti, thr, prof_thread_main, NULL,
                                                     JVMTI_THREAD_MAX_PRIORITY);
    if (err != JVMTI_ERROR_NONE) {
        prof_running = prof_started = false;
        return jvmti_check(err, "RunAgentThread");
    }
    return JP_OK;
}

bool profiler_request_dump(void)
{
    if (!prof_started)
        return false;
    atomic_store(&prof_dump_requested, true);
    /* if VM death has closed the door, either it took this request (it writes it) or it is
     * still here, and is withdrawn: sequentially consistent, so one of the two sees the other */
    if (atomic_load(&prof_closed) && atomic_exchange(&prof_dump_requested, false))
        return false;
    return true;
}

bool profiler_final_request(void)
{
    atomic_store(&prof_closed, true);
    return atomic_exchange(&prof_dump_requested, false);
}

void profiler_wake(void) { pthread_cond_broadcast(&prof_wake); }

/* Waits (polling) until *done passes before, the agent thread gone, or timeout_ms. */
static bool prof_wait_done(atomic_uint *done, unsigned before, int timeout_ms)
{
    for (int waited = 0; atomic_load(done) == before; waited += 10) {
        pthread_mutex_lock(&prof_lock);
        bool running = prof_running;
        pthread_mutex_unlock(&prof_lock);
        if (!running || waited >= timeout_ms)
            return false;
        profiler_wake();
        struct timespec ts = { 0, 10000000L };
        nanosleep(&ts, NULL);
    }
    return true;
}

bool profiler_dump_and_wait(const char *path, int timeout_ms)
{
    unsigned before = atomic_load(&prof_done_reports);
    pthread_mutex_lock(&prof_lock);
    snprintf(prof_dump_to, sizeof prof_dump_to, "%s", path ? path : "");
    pthread_mutex_unlock(&prof_lock);
    bool ok = profiler_request_dump() && prof_wait_done(&prof_done_reports, before, timeout_ms);
    pthread_mutex_lock(&prof_lock);
    prof_dump_to[0] = '\0';
    pthread_mutex_unlock(&prof_lock);
    return ok;
}

bool profiler_reset_and_wait(int timeout_ms)
{
    if (!prof_started)
        return false;
    unsigned before = atomic_load(&prof_done_resets);
    atomic_store(&prof_reset_requested, true);
    return prof_wait_done(&prof_done_resets, before, timeout_ms);
}

bool profiler_describe_and_wait(FILE *to, int timeout_ms)
{
    if (!prof_started)
        return false;
    unsigned before = atomic_load(&prof_done_describes);
    atomic_store(&prof_describe_to, to);
    bool ok = prof_wait_done(&prof_done_describes, before, timeout_ms);
    FILE *expected = to;
    atomic_compare_exchange_strong(&prof_describe_to, &expected, NULL); /* not taken: withdrawn */
    return ok;
}

bool profiler_stop(JNIEnv *jni)
{
    pthread_mutex_lock(&prof_lock);
    prof_stop_requested = true;
    pthread_cond_broadcast(&prof_wake);
    struct timespec limit;
    prof_deadline(&limit, 10000);
    while (prof_started && prof_running) {
        if (pthread_cond_timedwait(&prof_wake, &prof_lock, &limit) == ETIMEDOUT) {
            if (!atomic_load(&prof_dumping))
                break;
            prof_deadline(&limit, 1000); /* a report or a heap dump being written: it is not lost */
        }
    }
    bool stuck = prof_running;
    pthread_mutex_unlock(&prof_lock);
    if (stuck) {
        jp_log_error("the agent thread did not stop within 10 s; no final report");
        return false;
    }
    prof_drain(jni);
    return true;
}
