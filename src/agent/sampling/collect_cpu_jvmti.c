/* collect_cpu_jvmti.c — the collector of cpu=samples,sampler=jvmti, HPROF's
 * way: every interval= ms the agent thread picks one running thread and takes
 * its stack with JVMTI's GetStackTrace (at a safepoint: biased towards where
 * threads poll, but needs nothing from the JVM beyond JVMTI). Its state is
 * the session's part (cj_state): nothing of it outlives the session. */
#include <stdlib.h>

#include "../core/agent_env.h"
#include "../../common/jp_log.h"
#include "../core/collector.h"
#include "../core/jvmti_util.h"
#include "../core/symbols.h"
#include "../core/thread_registry.h"

/* The session's part (JP_PART_CPU_JVMTI): what the agent thread keeps
 * between its rounds, made at load and freed with the session. */
typedef struct cj_state {
    const agent_options *opts;  /* the session's */
    jvmtiFrameInfo *capture;    /* scratch for one captured stack, depth= long */
    uint64_t rng;               /* the agent thread's xorshift64 state */
    uint64_t rounds, errors;
    /* the stacks taken, and the wall time waited for them (mostly the target
     * running on to its next safepoint poll, not time the target lost) */
    uint64_t stacks_taken, stack_ns;
    jlong *cpu_seen;            /* [serial]: thread CPU time at the previous sample */
    uint32_t cpu_seen_cap;
} cj_state;

static cj_state *cj_of(jp_session *session) { return session_part_if(session, JP_PART_CPU_JVMTI); }

/* xorshift64: the agent thread's own cheap random numbers */
static uint64_t cj_random(cj_state *cj)
{
    cj->rng ^= cj->rng << 13;
    cj->rng ^= cj->rng >> 7;
    cj->rng ^= cj->rng << 17;
    return cj->rng;
}

/* A thread the JVM calls RUNNABLE may be parked in native code (a socket
 * read, or the VM's own Reference Handler wait): it counts as running only
 * if its CPU clock moved since the previous sample. */
static bool cj_used_cpu(cj_state *cj, jthread thread, uint32_t serial)
{
    jlong now = 0;
    if (serial == 0 || (*agent_jvmti)->GetThreadCpuTime(agent_jvmti, thread, &now) != JVMTI_ERROR_NONE)
        return true;
    if (!model_grow((void **)&cj->cpu_seen, &cj->cpu_seen_cap, serial, sizeof *cj->cpu_seen))
        return true;
    jlong before = cj->cpu_seen[serial - 1];
    cj->cpu_seen[serial - 1] = now;
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
    cj_state *cj = cj_of(session);
    if (!cj || !cj->capture)
        return;
    jvmtiEnv *jv = agent_jvmti;
    jthread *threads = NULL;
    jint nthreads = 0;
    if ((*jni)->PushLocalFrame(jni, 64) != 0)
        return;
    jvmtiError err = (*jv)->GetAllThreads(jv, &nthreads, &threads);
    if (err != JVMTI_ERROR_NONE) {
        if (cj->errors++ == 0)
            jvmti_check(err, "GetAllThreads");
        (*jni)->PopLocalFrame(jni, NULL);
        return;
    }
    cj->rounds++;
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
        if (!cj_used_cpu(cj, threads[i], serial))
            continue;
        /* reservoir sampling: each running thread is picked with probability 1/nrun */
        nrun++;
        if (cj_random(cj) % (uint64_t)nrun == 0) {
            pick = i;
            pick_serial = serial;
        }
    }
    if (pick >= 0) {
        jint count = 0;
        uint64_t t0 = agent_now_ns();
        err = (*jv)->GetStackTrace(jv, threads[pick], 0, (jint)cj->opts->depth, cj->capture, &count);
        cj->stack_ns += agent_now_ns() - t0;
        cj->stacks_taken++;
        trace_id t;
        if (err == JVMTI_ERROR_NONE && count > 0 &&
            symbols_trace(m, jni, cj->capture, (uint32_t)count, cj->opts->thread ? pick_serial : 0, cj->opts->lineno, &t))
        {
            model_trace_add_samples(m, t, (uint64_t)nrun);
            model_sample_time_add(m, t, (stack_id){ 0 }, SAMPLE_RUNNING, (uint32_t)nrun, agent_wall_ms() * 1000000u); /* jfr= */
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
    (void)err, (void)errlen;
    cj_state *cj = session_part(session, JP_PART_CPU_JVMTI, sizeof *cj);
    if (!cj)
        return jp_error(JP_ERR_NOMEM, "out of memory at start");
    cj->opts = session->opts;
    cj->rng = 0x9E3779B97F4A7C15ull;
    cj->capture = calloc(cj->opts->depth + 1, sizeof *cj->capture);
    return cj->capture ? JP_OK : jp_error(JP_ERR_NOMEM, "out of memory at start");
}

static unsigned cj_period(const jp_session *session) { return session->opts->interval_ms; }

/* After the session: its scratch and the CPU times seen go (the session frees the part, and the counts with it). */
static void cj_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    cj_state *cj = cj_of(session);
    if (!cj)
        return;
    free(cj->capture);
    cj->capture = NULL;
    free(cj->cpu_seen);
    cj->cpu_seen = NULL;
    cj->cpu_seen_cap = 0;
}

/* After a report: the rounds, and the stacks they took and how long that took. */
static void cj_describe(jp_session *session)
{
    cj_state *cj = cj_of(session);
    if (!cj)
        return;
    jp_log_info("cpu sampler (sampler=jvmti): %llu sampling rounds, %llu stacks taken in %.1f ms",
                (unsigned long long)cj->rounds, (unsigned long long)cj->stacks_taken, (double)cj->stack_ns / 1e6);
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
