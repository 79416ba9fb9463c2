/* monitor.c — contended-monitor and wait collectors (see monitor.h). */
#include "monitor.h"

#include <stdatomic.h>
#include <stdint.h>

#include "agent.h"
#include "eventq.h"
#include "jvmti_util.h"
#include "thread_registry.h"

static _Thread_local uint64_t monitor_enter_ns, monitor_wait_ns;
static _Atomic uint64_t monitor_cost;   /* ns spent in monitor_record, all threads */

uint64_t monitor_cost_ns(void) { return atomic_load_explicit(&monitor_cost, memory_order_relaxed); }

void monitor_contended_enter(void) { monitor_enter_ns = agent_now_ns(); }
void monitor_wait(void) { monitor_wait_ns = agent_now_ns(); }

static void monitor_record(JNIEnv *jni, jthread thread, jobject object, uint64_t since_ns)
{
    if (since_ns == 0)
        return; /* the begin event came before we were listening */
    jvmtiEnv *jv = agent_jvmti;
    uint64_t now = agent_now_ns(), dt = now - since_ns;
    jclass klass = (*jni)->GetObjectClass(jni, object);
    char *sig = NULL;
    if (!klass || (*jv)->GetClassSignature(jv, klass, &sig, NULL) != JVMTI_ERROR_NONE)
        sig = NULL;
    uint32_t depth = agent_opts->depth;
    eventq_event *e = eventq_new(EVENTQ_MONITOR, thread_registry_serial(thread), depth,
                                 sig ? sig : "Ljava/lang/Object;", NULL, NULL);
    jvmti_free(sig);
    if (klass)
        (*jni)->DeleteLocalRef(jni, klass);
    if (!e)
        return;
    jint count = 0;
    if (depth > 0 && (*jv)->GetStackTrace(jv, NULL, 0, (jint)depth, e->frames, &count) != JVMTI_ERROR_NONE)
        count = 0;
    e->nframes = (uint32_t)count;
    e->duration_ns = dt;
    eventq_push(e);
    atomic_fetch_add_explicit(&monitor_cost, agent_now_ns() - now, memory_order_relaxed);
}

void monitor_contended_entered(JNIEnv *jni, jthread thread, jobject object)
{
    monitor_record(jni, thread, object, monitor_enter_ns);
    monitor_enter_ns = 0;
}

void monitor_waited(JNIEnv *jni, jthread thread, jobject object)
{
    monitor_record(jni, thread, object, monitor_wait_ns);
    monitor_wait_ns = 0;
}
