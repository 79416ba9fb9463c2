/* collect_thread_count.c — a collector that exists to show what adding one
 * takes (docs/ARCHITECTURE.md): this file and one row in collectors.c. It is
 * built only into the test agent (build/test/libjvmprof.so, compiled with
 * JP_TEST_COLLECTORS) and counts the Java threads that start and end while
 * the agent runs; each report's footer (COUNTS in the ASCII report) says how
 * many. tests/it/t9008-test-collector.sh checks the counts against a program
 * that starts a known number of threads. */
#include <stdatomic.h>

#include "agent/core/collector.h"

static _Atomic uint64_t tc_started, tc_ended;

static bool tc_wanted(const agent_options *o)
{
    (void)o;
    return true;
}

static void tc_thread_start(jp_session *session, JNIEnv *jni, uint32_t serial)
{
    (void)session;
    (void)jni, (void)serial;
    atomic_fetch_add_explicit(&tc_started, 1, memory_order_relaxed);
}

static void tc_thread_end(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    atomic_fetch_add_explicit(&tc_ended, 1, memory_order_relaxed);
}

static void tc_drain(jp_session *session, JNIEnv *jni)
{
    model *m = session->model;
    (void)jni;
    model_count_set(m, "test collector: threads started", atomic_load_explicit(&tc_started, memory_order_relaxed));
    model_count_set(m, "test collector: threads ended", atomic_load_explicit(&tc_ended, memory_order_relaxed));
}

/* a session's counts are its own: the next one starts from 0 */
static void tc_end(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    atomic_store(&tc_started, 0);
    atomic_store(&tc_ended, 0);
}

const collector thread_count_collector = {
    .name = "the test collector",
    .wanted = tc_wanted,
    .thread_start = tc_thread_start,
    .thread_end = tc_thread_end,
    .drain = tc_drain,
    .end = tc_end,
};
