/* collect_cpu_jvmti.c — the collector of cpu=samples,sampler=jvmti, HPROF's
 * way: every interval= ms the agent thread picks one running thread and takes
 * its stack with JVMTI's GetStackTrace (at a safepoint: biased towards where
 * threads poll, but needs nothing from the JVM beyond JVMTI). */
#include <stdlib.h>

#include "../core/agent_env.h"
#include "../../common/jp_log.h"
#include "../core/collector.h"
#include "../core/jvmti_util.h"
#include "../core/symbols.h"
#include "../core/thread_registry.h"

static jvmtiFrameInfo *cj_capture;   /* scratch for one captured stack */
static uint64_t cj_rng = 0x9E3779B97F4A7C15ull;
static uint64_t cj_rounds, cj_errors;
/* the stacks taken, and the wall time waited for them (mostly the target
 * running on to its next safepoint poll, not time the target lost) */
static uint64_t cj_stacks_taken, cj_stack_ns;
static jlong *cj_cpu_seen;           /* [serial]: thread CPU time at the previous sample */
static uint32_t cj_cpu_seen_cap;

/* xorshift64: the agent thread's own cheap random numbers */
static uint64_t cj_random(void)
{
    cj_rng ^= cj_rng << 13;
    cj_rng ^= cj_rng >> 7;
    cj_rng ^= cj_rng << 17;
    return cj_rng;
}

/* A thread the JVM calls RUNNABLE may be parked in native code (a socket
 * read, or the VM's own Reference Handler wait): it counts as running only
 * if its CPU clock moved since the previous sample. */
static bool cj_used_cpu(jthread thread, uint32_t serial)
{
    jlong now = 0;
    if (serial == 0 || (*agent_jvmti)->GetThreadCpuTime(agent_jvmti, thread, &now) != JVMTI_ERROR_NONE)
        return true;
    if (!model_grow((void **)&cj_cpu_seen, &cj_cpu_seen_cap, serial, sizeof *cj_cpu_seen))
        return true;
    jlong before = cj_cpu_seen[serial - 1];
    cj_cpu_seen[serial - 1] = now;
    return before != 0 && now > before; /* the first look only sets the baseline */
}

/* One sampling round: find the threads that are running (state and CPU
 * clock, which stops no thread), pick one of them at random and take its
 * stack with the handshake GetStackTrace does since JDK 15, which holds that
 * one thread only. The sample counts as many as there were running threads,
 * so each thread's expected count is what sampling them all would give,
 * while a round costs one handshake whatever the number of threads: taking
 * every running thread's stack each round stalled a 4-thread server
 * measurably (bench/RESULTS.md). */
static void cj_sample(jp_session *session, JNIEnv *jni)
{
    model *m = session->model;
    jvmtiEnv *jv = agent_jvmti;
    jthread *threads = NULL;
    jint nthreads = 0;
    if ((*jni)->PushLocalFrame(jni, 64) != 0)
        return;
    jvmtiError err = (*jv)->GetAllThreads(jv, &nthreads, &threads);
    if (err != JVMTI_ERROR_NONE) {
        if (cj_errors++ == 0)
            jvmti_check(err, "GetAllThreads");
        (*jni)->PopLocalFrame(jni, NULL);
        return;
    }
    cj_rounds++;
    jint nrun = 0, pick = -1;
    uint32_t pick_serial = 0;
    for (jint i = 0; i < nthreads; i++) {
        jint state = 0;
        if ((*jv)->GetThreadState(jv, threads[i], &state) != JVMTI_ERROR_NONE ||
            !(state & JVMTI_THREAD_STATE_RUNNABLE) || (state & JVMTI_THREAD_STATE_SUSPENDED))
            continue;
        uint32_t serial = thread_registry_serial(threads[i]);
        if (serial == 0 && agent_is_own_thread(jni, threads[i]))
            continue;
        if (!cj_used_cpu(threads[i], serial))
            continue;
        /* reservoir sampling: each running thread is picked with probability 1/nrun */
        nrun++;
        if (cj_random() % (uint64_t)nrun == 0) {
            pick = i;
            pick_serial = serial;
        }
    }
    if (pick >= 0) {
        jint count = 0;
        uint64_t t0 = agent_now_ns();
        err = (*jv)->GetStackTrace(jv, threads[pick], 0, (jint)agent_opts->depth, cj_capture, &count);
        cj_stack_ns += agent_now_ns() - t0;
        cj_stacks_taken++;
        trace_id t;
        if (err == JVMTI_ERROR_NONE && count > 0 &&
            symbols_trace(m, jni, cj_capture, (uint32_t)count, agent_opts->thread ? pick_serial : 0, agent_opts->lineno, &t))
        {
            model_trace_add_samples(m, t, (uint64_t)nrun);
            model_sample_time_add(m, t, SAMPLE_RUNNING, (uint32_t)nrun, agent_wall_ms() * 1000000u); /* jfr= */
        }
    }
    jvmti_free(threads);
    (*jni)->PopLocalFrame(jni, NULL);
}

static bool cj_wanted(const agent_options *o)
{
    return o->cpu == OPTIONS_CPU_SAMPLES && o->sampler == OPTIONS_SAMPLER_JVMTI;
}

static jp_status cj_capabilities(jp_session *session, jvmtiCapabilities *caps)
{
    (void)session;
    caps->can_get_thread_cpu_time = 1;
    return JP_OK;
}

static jp_status cj_load(jp_session *session, char *err, size_t errlen)
{
    (void)session;
    (void)err, (void)errlen;
    cj_capture = calloc(agent_opts->depth + 1, sizeof *cj_capture);
    return cj_capture ? JP_OK : jp_error(JP_ERR_NOMEM, "out of memory at start");
}

static unsigned cj_period(const jp_session *session) { return session->opts->interval_ms; }

/* After the session: its scratch, CPU times seen and counts go. */
static void cj_end(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    free(cj_capture);
    cj_capture = NULL;
    free(cj_cpu_seen);
    cj_cpu_seen = NULL;
    cj_cpu_seen_cap = 0;
    cj_rounds = cj_errors = cj_stacks_taken = cj_stack_ns = 0;
}

/* After a report: the rounds, and the stacks they took and how long that took. */
static void cj_describe(jp_session *session)
{
    (void)session;
    jp_log_info("cpu sampler (sampler=jvmti): %llu sampling rounds, %llu stacks taken in %.1f ms",
                (unsigned long long)cj_rounds, (unsigned long long)cj_stacks_taken, (double)cj_stack_ns / 1e6);
}

const collector cpu_jvmti_collector = {
    .name = "cpu=samples,sampler=jvmti",
    .wanted = cj_wanted,
    .capabilities = cj_capabilities,
    .load = cj_load,
    .period_ms = cj_period,
    .tick = cj_sample,
    .describe = cj_describe,
    .end = cj_end,
};
