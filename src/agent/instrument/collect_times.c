/* collect_times.c — the cpu=times collector: its row for collectors.c and its
 * hooks, which run the engine (times.c: the Tracker natives, the shadow
 * stacks and the tables of call paths) for a session: its tables made at the
 * load and retired at the end, the cost of a call calibrated and the classes
 * instrumented (bci.h) at the start, the waits counted (blocking.h), and
 * before each report the tables and the counted methods' calls
 * (Tracker.count, summed through Tracker.countTotals) into the model. What
 * the session gathered is its part (JP_PART_TIMES). */
#include <jni.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/jp_log.h"
#include "../core/blocking.h"
#include "../core/collector.h"
#include "../core/vthreads.h"
#include "../sampling/sampler_vthreads.h"
#include "bci.h"
#include "times.h"

/* The session's part (JP_PART_TIMES). */
typedef struct times_part {
    times_run *run;               /* the engine's tables for the session (times.c) */
    bool waits_counted;           /* the start asked blocking.c for the monitor events */
    double calls_ns, empty_ns;    /* times_calibrate's, at the start */
    uint64_t counted_calls, counted_methods; /* in the last report */
} times_part;

/* ---- the counted methods: their calls are counted by Tracker.count, in
 * Java arrays; the agent sums them through Tracker.countTotals before a
 * report. Those totals only grow: a report shows them less the base taken
 * at the last reset=y report or session end. */

/* Global, for the JVM's life: the Tracker's Java arrays live as long and their totals only grow, so
 * each session counts from the base the one before it left (its end's totals). Agent thread only. */
static struct {
    uint64_t *last;    /* the last totals collected, by method number */
    uint64_t *base;    /* ... at the last reset or session end */
    uint32_t cap;
} ctm_counted;

static bool ctm_count_room(uint32_t id)
{
    if (id < ctm_counted.cap)
        return true;
    uint32_t cap = ctm_counted.cap ? ctm_counted.cap : 4096;
    while (cap <= id)
        cap *= 2;
    uint64_t *last = realloc(ctm_counted.last, cap * sizeof *last);
    if (last)
        ctm_counted.last = last;
    uint64_t *base = last ? realloc(ctm_counted.base, cap * sizeof *base) : NULL;
    if (!base)
        return false;
    ctm_counted.base = base;
    memset(last + ctm_counted.cap, 0, (cap - ctm_counted.cap) * sizeof *last);
    memset(base + ctm_counted.cap, 0, (cap - ctm_counted.cap) * sizeof *base);
    ctm_counted.cap = cap;
    return true;
}

/* Tracker.countTotals(), or NULL (no Tracker yet; an exception, out of memory, cleared). */
static jlongArray ctm_count_totals(JNIEnv *jni)
{
    jclass tc = bci_tracker_class_ref();
    jmethodID mid = jni && tc ? (*jni)->GetStaticMethodID(jni, tc, "countTotals", "()[J") : NULL;
    jlongArray r = mid ? (*jni)->CallStaticObjectMethod(jni, tc, mid) : NULL;
    if (jni && (*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        jp_log_debug("cpu=times: Tracker.countTotals failed");
    }
    return r;
}

/* Into the model: each counted method's calls since the base. */
static void ctm_collect_counts(times_part *tp, model *m, JNIEnv *jni)
{
    jlongArray pairs = ctm_count_totals(jni);
    jsize n = pairs ? (*jni)->GetArrayLength(jni, pairs) : 0;
    jlong *p = n ? (*jni)->GetLongArrayElements(jni, pairs, NULL) : NULL;
    tp->counted_calls = tp->counted_methods = 0;
    for (jsize i = 0; p && i + 1 < n; i += 2) {
        uint32_t id = (uint32_t)p[i];
        if (!ctm_count_room(id)) {
            m->oom = true;
            break;
        }
        ctm_counted.last[id] = (uint64_t)p[i + 1];
        uint64_t calls = ctm_counted.last[id] - ctm_counted.base[id];
        if (!calls)
            continue;
        model_method_add_counted(m, times_method_of(m, id), calls);
        tp->counted_calls += calls;
        tp->counted_methods++;
    }
    if (p)
        (*jni)->ReleaseLongArrayElements(jni, pairs, p, JNI_ABORT);
    if (pairs)
        (*jni)->DeleteLocalRef(jni, pairs);
}

static void ctm_count_rebase(void)
{
    if (ctm_counted.cap)
        memcpy(ctm_counted.base, ctm_counted.last, ctm_counted.cap * sizeof *ctm_counted.base);
}

/* ---- the collector ---- */

/* The session's part; NULL only when the load ran out of memory (then no other hook runs but end). */
static times_part *ctm_part_of(jp_session *session) { return session_part_if(session, JP_PART_TIMES); }

static bool ctm_wanted(const agent_options *o) { return o->cpu == OPTIONS_CPU_TIMES; }

static void ctm_callbacks(jvmtiEventCallbacks *cb) { cb->ClassFileLoadHook = bci_class_file_load_hook; }

/* Started late, the classes loaded before are retransformed to be instrumented; at the end
 * of a session in a running JVM, the classes are retransformed back to their own code. */
static jp_status ctm_capabilities(jp_session *session, jvmtiCapabilities *caps)
{
    (void)session;
    caps->can_retransform_classes = 1;
    caps->can_retransform_any_class = 1;
    return JP_OK;
}

/* The session's tables (depth=, thread=y), which the natives record into from now on. */
static jp_status ctm_load(jp_session *session, char *err, size_t errlen)
{
    times_part *tp = session_part(session, JP_PART_TIMES, sizeof *tp);
    if (!tp || !(tp->run = times_run_new(session->opts->depth, session->opts->thread))) {
        snprintf(err, errlen, "cpu=times: out of memory");
        return JP_ERR_NOMEM;
    }
    times_run_begin(tp->run);
    return JP_OK;
}

/* The session's start: the cost of a call calibrated, the classes
 * instrumented, and the waits counted (blocking.h). */
static jp_status ctm_start(jp_session *session, JNIEnv *jni)
{
    times_part *tp = ctm_part_of(session);
    if (!tp)
        return JP_ERR_NOMEM;
    times_calibrate(tp->run, &tp->calls_ns, &tp->empty_ns);
    /* an earlier session may have bound trace=exec's */
    bci_use_calls(session, times_enter, times_exit, times_exit, times_enter_this, false);
    jp_status st = bci_vm_init(session, jni);
    /* the Tracker's Unsafe (initialized here, after bci_vm_init opened jdk.internal.misc to it) */
    jclass fast = st == JP_OK ? (*jni)->FindClass(jni, "jvmprof/Tracker$Fast") : NULL;
    jfieldID uf = fast ? (*jni)->GetStaticFieldID(jni, fast, "U", "Ljdk/internal/misc/Unsafe;") : NULL;
    if (st == JP_OK && (!uf || !(*jni)->GetStaticObjectField(jni, fast, uf))) {
        (*jni)->ExceptionClear(jni);
        jp_log_info("cpu=times: the Tracker has no Unsafe: counted calls take a lock");
    }
    if (fast)
        (*jni)->DeleteLocalRef(jni, fast);
    if (st == JP_OK) {
        blocking_on_wait(times_waited);
        blocking_use(true);
        tp->waits_counted = true;
        if (!blocking_hooks_ready())
            jp_log_info("cpu=times: parks and sleeps cannot be seen in this JVM: their time counts as running");
    }
    return st;
}

static void ctm_stop(jp_session *session, JNIEnv *jni)
{
    times_part *tp = ctm_part_of(session);
    if (tp && tp->waits_counted) {
        blocking_use(false);
        blocking_on_wait(NULL);
        tp->waits_counted = false;
    }
    bci_vm_death(jni);
}

static void ctm_before_report(jp_session *session, JNIEnv *jni)
{
    times_part *tp = ctm_part_of(session);
    if (!tp)
        return;
    model *m = session->model;
    times_collect(tp->run, m);
    ctm_collect_counts(tp, m, jni);
    times_stats ts;
    times_get_stats(tp->run, &ts);
    model_count_set(m, "cpu=times: calls not recorded (out of memory)", ts.dropped);
    model_count_set(m, "cpu=times: exits without their entry", ts.unmatched_exits);
    model_count_set(m, "cpu=times: frames closed by a later exit", ts.unwound);
}

static void ctm_describe(jp_session *session)
{
    times_part *tp = ctm_part_of(session);
    if (!tp)
        return;
    bci_stats b;
    times_stats ts;
    bci_get_stats(session, &b);
    times_get_stats(tp->run, &ts);
    jp_log_info("cpu=times: %llu of %llu classes loaded after VM init instrumented (%llu methods timed, %llu "
                "counted, %llu left unchanged, %llu classes failed), rewriting took %.1f ms (%.1f us per class); %llu "
                "timed calls in %llu call paths on %llu threads, %llu counted calls of %llu methods, clock: %s; %llu exits without their entry, %llu frames closed by a "
                "later exit, %llu calls not recorded; bookkeeping %.1f ns per call (calibrated at the start, without "
                "the two JNI calls to it), about %.1f s of CPU in all; an empty method records %.1f ns per call",
                (unsigned long long)b.classes_rewritten, (unsigned long long)b.classes_seen,
                (unsigned long long)b.methods_instrumented, (unsigned long long)b.methods_counted,
                (unsigned long long)b.methods_unchanged,
                (unsigned long long)b.classes_failed, (double)b.rewrite_ns / 1e6,
                b.classes_seen ? (double)b.rewrite_ns / 1e3 / (double)b.classes_seen : 0.0,
                (unsigned long long)ts.calls, (unsigned long long)ts.paths, (unsigned long long)ts.threads,
                (unsigned long long)tp->counted_calls, (unsigned long long)tp->counted_methods, ts.clock,
                (unsigned long long)ts.unmatched_exits, (unsigned long long)ts.unwound,
                (unsigned long long)ts.dropped, tp->calls_ns, tp->calls_ns * (double)ts.calls / 1e9, tp->empty_ns);
}

/* reset=y, after a report: the counts so far become the base the next report subtracts. */
static void ctm_interval_reset(jp_session *session)
{
    times_part *tp = ctm_part_of(session);
    if (tp)
        times_run_rebase(tp->run);
    ctm_count_rebase();
}

static void ctm_vthread_mount(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)jni;
    times_part *tp = ctm_part_of(session);
    if (tp)
        times_run_mount(tp->run, v);
}

static void ctm_vthread_unmount(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)session;
    (void)jni;
    times_run_unmount(v);
}

static void ctm_vthread_end(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)session;
    (void)jni;
    times_vthread_free(v);
}

/* After the session: its tables retired (freed at the next session's end), the threads make new ones
 * at their next call in a later session. */
static void ctm_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    times_part *tp = ctm_part_of(session);
    times_run_retire(tp ? tp->run : NULL);
    sampler_vthreads_end(); /* the virtual threads' model threads were this session's model's */
    ctm_count_rebase(); /* the next session counts from here */
}

const collector times_collector = {
    .name = "cpu=times",
    .engine = "bytecode instrumentation",
    .wanted = ctm_wanted,
    .capabilities = ctm_capabilities,
    .callbacks = ctm_callbacks,
    .load = ctm_load,
    .start = ctm_start,
    .before_report = ctm_before_report,
    .describe = ctm_describe,
    .interval_reset = ctm_interval_reset,
    .vthread_mount = ctm_vthread_mount,
    .vthread_unmount = ctm_vthread_unmount,
    .vthread_end = ctm_vthread_end,
    .stop = ctm_stop,
    .end = ctm_end,
};
