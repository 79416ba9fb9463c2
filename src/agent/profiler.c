/* profiler.c — the agent thread: the JVMTI stack sampler (sampler=jvmti:
 * every interval, one running thread's stack at a safepoint), the wall=
 * ticks and the draining of the async sampler's ring (async_sampler.c),
 * draining the event queue, and dumps on request (with the flame graph and
 * collapsed stacks). See profiler.h for who may touch the model when. */
#include "profiler.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common/jp_log.h"
#include "../format/format.h"
#include "../model/model.h"
#include "agent.h"
#include "alloc_exact.h"
#include "alloc_sites.h"
#include "async_sampler.h"
#include "bci.h"
#include "code_kinds.h"
#include "eventq.h"
#include "heap_dump.h"
#include "jvmti_util.h"
#include "monitor.h"
#include "symbols.h"
#include "thread_registry.h"
#include "times.h"

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
static frame_id *prof_frames;        /* scratch for one trace */
static jvmtiFrameInfo *prof_capture; /* scratch for one captured stack */
static uint64_t prof_rng = 0x9E3779B97F4A7C15ull;

/* xorshift64: the agent thread's own cheap random numbers */
static uint64_t prof_random(void)
{
    prof_rng ^= prof_rng << 13;
    prof_rng ^= prof_rng >> 7;
    prof_rng ^= prof_rng << 17;
    return prof_rng;
}
static uint64_t prof_sample_rounds, prof_sample_errors;
/* what profiling costs, reported with each dump: the agent thread's own CPU
 * time (read on that thread when it dumps or stops), and the stacks it took
 * with the wall time it waited for them (mostly the target running on to its
 * next safepoint poll, not time the target lost). */
static uint64_t prof_stacks_taken, prof_stack_ns, prof_agent_cpu_ns, prof_start_ns;
static jlong *prof_cpu_seen;       /* [serial]: thread CPU time at the previous sample */
static uint32_t prof_cpu_seen_cap;
static jobject prof_thread_ref;    /* the agent thread, never sampled or registered */

bool profiler_is_agent_thread(JNIEnv *jni, jthread thread)
{
    return prof_thread_ref && (*jni)->IsSameObject(jni, thread, prof_thread_ref);
}

/* A thread the JVM calls RUNNABLE may be parked in native code (a socket
 * read, or the VM's own Reference Handler wait): it counts as running only
 * if its CPU clock moved since the previous sample. */
static bool prof_used_cpu(jthread thread, uint32_t serial)
{
    jlong now = 0;
    if (serial == 0 || (*agent_jvmti)->GetThreadCpuTime(agent_jvmti, thread, &now) != JVMTI_ERROR_NONE)
        return true;
    if (!model_grow((void **)&prof_cpu_seen, &prof_cpu_seen_cap, serial, sizeof *prof_cpu_seen))
        return true;
    jlong before = prof_cpu_seen[serial - 1];
    prof_cpu_seen[serial - 1] = now;
    return before != 0 && now > before; /* the first look only sets the baseline */
}

jp_status profiler_init(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&prof_wake, &attr);
    pthread_condattr_destroy(&attr);
    prof_model = model_new();
    prof_frames = calloc(agent_opts->depth + 1, sizeof *prof_frames);
    prof_capture = calloc(agent_opts->depth + 1, sizeof *prof_capture);
    if (!prof_model || !prof_frames || !prof_capture)
        return jp_error(JP_ERR_NOMEM, "out of memory at start");
    prof_model->start_time_ms = agent_wall_ms();
    prof_start_ns = agent_now_ns();
    prof_model->depth = agent_opts->depth;
    prof_model->wall = agent_opts->wall_ms > 0;
    prof_model->interval_us = (agent_opts->wall_ms ? agent_opts->wall_ms : agent_opts->interval_ms) * 1000u;
    if (agent_opts->heap_sites) {
        prof_model->alloc_interval = agent_opts->alloc_interval;
        prof_model->lifetimes = agent_opts->lifetimes;
    }
    return JP_OK;
}

/* Resolves captured frames into prof_frames; false (and the model marked out
 * of memory) when a frame could not be interned, so no trace refers to a
 * frame that does not exist. */
static bool prof_frames_of(JNIEnv *jni, const jvmtiFrameInfo *frames, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        prof_frames[k] = symbols_frame(prof_model, jni, frames[k].method, frames[k].location, agent_opts->lineno);
        if (prof_frames[k].v == 0) {
            prof_model->oom = true;
            return false;
        }
    }
    return true;
}

/* One sampling round: find the threads that are running (state and CPU
 * clock, which stops no thread), pick one of them at random and take its
 * stack with the handshake GetStackTrace does since JDK 15, which holds that
 * one thread only. The sample counts as many as there were running threads,
 * so each thread's expected count is what sampling them all would give,
 * while a round costs one handshake whatever the number of threads: taking
 * every running thread's stack each round stalled a 4-thread server
 * measurably (bench/RESULTS.md). */
static void prof_sample(JNIEnv *jni)
{
    jvmtiEnv *jv = agent_jvmti;
    jthread *threads = NULL;
    jint nthreads = 0;
    if ((*jni)->PushLocalFrame(jni, 64) != 0)
        return;
    jvmtiError err = (*jv)->GetAllThreads(jv, &nthreads, &threads);
    if (err != JVMTI_ERROR_NONE) {
        if (prof_sample_errors++ == 0)
            jvmti_check(err, "GetAllThreads");
        (*jni)->PopLocalFrame(jni, NULL);
        return;
    }
    prof_sample_rounds++;
    jint nrun = 0, pick = -1;
    uint32_t pick_serial = 0;
    for (jint i = 0; i < nthreads; i++) {
        jint state = 0;
        if ((*jv)->GetThreadState(jv, threads[i], &state) != JVMTI_ERROR_NONE ||
            !(state & JVMTI_THREAD_STATE_RUNNABLE) || (state & JVMTI_THREAD_STATE_SUSPENDED))
            continue;
        uint32_t serial = thread_registry_serial(threads[i]);
        if (serial == 0 && profiler_is_agent_thread(jni, threads[i]))
            continue;
        if (!prof_used_cpu(threads[i], serial))
            continue;
        /* reservoir sampling: each running thread is picked with probability 1/nrun */
        nrun++;
        if (prof_random() % (uint64_t)nrun == 0) {
            pick = i;
            pick_serial = serial;
        }
    }
    if (pick >= 0) {
        jint count = 0;
        uint64_t t0 = agent_now_ns();
        err = (*jv)->GetStackTrace(jv, threads[pick], 0, (jint)agent_opts->depth, prof_capture, &count);
        prof_stack_ns += agent_now_ns() - t0;
        prof_stacks_taken++;
        if (err == JVMTI_ERROR_NONE && count > 0 && prof_frames_of(jni, prof_capture, (uint32_t)count)) {
            trace_id t = model_trace_intern(prof_model, agent_opts->thread ? pick_serial : 0, prof_frames,
                                            (uint32_t)count);
            model_trace_add_samples(prof_model, t, (uint64_t)nrun);
        }
    }
    jvmti_free(threads);
    (*jni)->PopLocalFrame(jni, NULL);
}

static void prof_drain(JNIEnv *jni)
{
    model *m = prof_model;
    eventq_event *e = eventq_take_all();
    while (e) {
        eventq_event *next = e->next;
        switch (e->kind) {
        case EVENTQ_THREAD_START:
            model_thread_start(m, e->thread, e->thread, model_cstring(m, e->str[0]), model_cstring(m, e->str[1]),
                               model_cstring(m, e->str[2]));
            break;
        case EVENTQ_THREAD_END:
            model_thread_end(m, e->thread);
            break;
        case EVENTQ_CODE_LOAD:
        case EVENTQ_CODE_UNLOAD:
            if (code_kinds_event(e))
                e = NULL; /* kept by code_kinds until the code unloads */
            break;
        case EVENTQ_ALLOC:
        case EVENTQ_ALLOC_SITE: {
            if (!prof_frames_of(jni, e->frames, e->nframes))
                break;
            trace_id t = model_trace_intern(m, agent_opts->thread ? e->thread : 0, prof_frames, e->nframes);
            if (e->kind == EVENTQ_ALLOC)
                alloc_sites_record(m, t, e);
            else
                alloc_exact_register(m, t, e);
            break;
        }
        case EVENTQ_MONITOR: {
            if (!prof_frames_of(jni, e->frames, e->nframes))
                break;
            trace_id t = model_trace_intern(m, agent_opts->thread ? e->thread : 0, prof_frames, e->nframes);
            char cname[1024];
            symbols_class_name(e->str[0], cname, sizeof cname);
            monitor_id mon = model_monitor_intern(m, t, model_cstring(m, cname));
            model_monitor_add(m, mon, 1, e->duration_ns);
            break;
        }
        }
        free(e);
        e = next;
    }
    if (options_async_sampling(agent_opts))
        async_sampler_drain(m, jni);
    if (agent_opts->heap_sites)
        alloc_sites_drain(m);
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
        st = heap_dump_write_text_after(dump_jni, path, report.data, report.len, err, sizeof err);
        if (st != JP_OK) {
            buf_free(&report);
            return jp_error(st, "heap dump failed: %s", err[0] ? err : jp_status_name(st));
        }
    }
    buf_free(&report);
    if (st != JP_OK)
        return jp_error(st, "%s", err);
    return JP_OK;
}

jp_status profiler_dump(JNIEnv *jni)
{
    if (options_alloc_exact(agent_opts))
        alloc_exact_sweep(jni, true);
    prof_drain(jni);
    if (agent_opts->heap_dump && !agent_opts->heap_sites) {
        char err[1024];
        jp_status st = heap_dump_write(jni, NULL, err, sizeof err);
        if (st != JP_OK)
            jp_log_error("heap dump failed: %s", err);
        return st;
    }
    model *m = prof_model;
    m->dump_time_ms = agent_wall_ms();
    const jp_format_ops *fmt = agent_opts->format == 'b' ? &hprof_bin_format : &hprof_txt_format;
    bool cpu_times = agent_opts->cpu == OPTIONS_CPU_TIMES;
    if (cpu_times)
        times_collect(m);
    report_opts ro = { agent_opts->cutoff, agent_opts->cpu == OPTIONS_CPU_SAMPLES || agent_opts->wall_ms > 0,
                       agent_opts->monitor, cpu_times, agent_opts->heap_sites, NULL };
    uint64_t bytes = 0, extra = 0;
    /* heap=all: the report and a heap dump in one file, named like heap=dump's */
    char path[OPTIONS_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s", agent_opts->file);
    if (agent_opts->heap_dump)
        heap_dump_next_path(path, sizeof path);
    jp_status st = prof_write(fmt, &ro, path, &bytes, agent_opts->heap_dump ? jni : NULL);
    if (agent_opts->flame[0] && prof_write(&flame_html_format, &ro, agent_opts->flame, &extra, NULL) == JP_OK)
        jp_log_info("wrote %s (%llu bytes: flame graph of %llu samples in %u stacks)", agent_opts->flame,
                    (unsigned long long)extra, (unsigned long long)m->total_stack_samples, model_stack_count(m));
    if (agent_opts->collapsed[0] && prof_write(&collapsed_format, &ro, agent_opts->collapsed, &extra, NULL) == JP_OK)
        jp_log_info("wrote %s (%llu bytes: %u collapsed stacks)", agent_opts->collapsed, (unsigned long long)extra,
                    model_stack_count(m));
    if (st != JP_OK)
        return st;
    uint64_t resolved, unloaded;
    symbols_stats(&resolved, &unloaded);
    jp_log_info("wrote %s (%llu bytes: %llu CPU samples in %llu traces, %u monitor entries; %llu sampling rounds%s%s)",
                path, (unsigned long long)bytes, (unsigned long long)m->total_samples,
                (unsigned long long)model_trace_count(m), model_monitor_count(m),
                (unsigned long long)prof_sample_rounds, agent_opts->heap_dump ? "; and a heap dump" : "",
                m->oom ? "; OUT OF MEMORY: data incomplete" : "");
    double wall_ms = (double)(agent_now_ns() - prof_start_ns) / 1e6;
    double agent_ms = (double)prof_agent_cpu_ns / 1e6, stack_ms = (double)prof_stack_ns / 1e6;
    double cb_ms = (double)monitor_cost_ns() / 1e6;
    if (agent_opts->heap_sites) {
        char line[512];
        alloc_sites_describe(line, sizeof line);
        jp_log_info("%s", line);
    }
    if (options_async_sampling(agent_opts)) {
        char line[1024];
        async_sampler_describe(line, sizeof line);
        jp_log_info("%s", line);
        async_sampler_cost(line, sizeof line);
        jp_log_info("%s", line);
    }
    jp_log_info("cost: agent thread %.1f ms CPU in %.1f s (%.2f%% of one core); %llu stacks taken in %.1f ms; "
                "monitor callbacks %.1f ms",
                agent_ms, wall_ms / 1000, wall_ms > 0 ? 100.0 * agent_ms / wall_ms : 0.0,
                (unsigned long long)prof_stacks_taken, stack_ms, cb_ms);
    if (cpu_times) {
        bci_stats b;
        times_stats ts;
        bci_get_stats(&b);
        times_get_stats(&ts);
        jp_log_info("cpu=times: %llu of %llu classes loaded after VM init instrumented (%llu methods, %llu left "
                    "unchanged, %llu classes failed), rewriting took %.1f ms (%.1f us per class); %llu calls in %llu "
                    "call paths on %llu threads, clock: %s; %llu exits without their entry, %llu frames closed by a "
                    "later exit, %llu calls not recorded",
                    (unsigned long long)b.classes_rewritten, (unsigned long long)b.classes_seen,
                    (unsigned long long)b.methods_instrumented, (unsigned long long)b.methods_unchanged,
                    (unsigned long long)b.classes_failed, (double)b.rewrite_ns / 1e6,
                    b.classes_seen ? (double)b.rewrite_ns / 1e3 / (double)b.classes_seen : 0.0,
                    (unsigned long long)ts.calls, (unsigned long long)ts.paths, (unsigned long long)ts.threads,
                    ts.clock, (unsigned long long)ts.unmatched_exits, (unsigned long long)ts.unwound,
                    (unsigned long long)ts.dropped);
    }
    if (options_alloc_bci(agent_opts)) {
        bci_stats b;
        bci_get_stats(&b);
        jp_log_info("alloc_hook=bci: %llu classes rewritten (%llu failed) in %.1f ms; %llu classes loaded before VM "
                    "init retransformed (%llu could not be) in %.1f ms", (unsigned long long)b.classes_rewritten,
                    (unsigned long long)b.classes_failed, (double)b.rewrite_ns / 1e6,
                    (unsigned long long)b.retransformed, (unsigned long long)b.retransform_failed,
                    (double)b.retransform_ns / 1e6);
    }
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
    /* the JVMTI sampler and wall= act every period; otherwise the thread
     * drains the async sampler's ring and the queued events */
    bool jvmti_sampler = agent_opts->cpu == OPTIONS_CPU_SAMPLES && agent_opts->sampler == OPTIONS_SAMPLER_JVMTI;
    unsigned period = jvmti_sampler ? agent_opts->interval_ms
                      : agent_opts->wall_ms ? agent_opts->wall_ms
                      : options_async_sampling(agent_opts) ? 20 : 100;
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
        if (options_alloc_exact(agent_opts))
            alloc_exact_sweep(jni, false);   /* after a collection: the idle threads' young objects */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (prof_reached(&now, &next)) {
            if (jvmti_sampler)
                prof_sample(jni);
            else if (agent_opts->wall_ms)
                async_sampler_wall_tick(jni);
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
    prof_thread_ref = (*jni)->NewGlobalRef(jni, thr);
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
