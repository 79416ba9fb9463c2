/* callbacks.c — the JVMTI callbacks of the agent's core: VM init starts the
 * collectors (collector.h) and the agent thread; thread start and end register
 * threads and tell the collectors; SIGQUIT asks for a report; VM death stops
 * the collectors, closes the gate, stops the agent thread and writes the last
 * report (doe=y, or one asked for that was not written yet). Each collector
 * installs the callbacks of its own events (collectors_callbacks). */
#include "callbacks.h"

#include <string.h>

#include "../common/jp_log.h"
#include "agent_env.h"
#include "collectors.h"
#include "gate.h"
#include "jvmti_util.h"
#include "profiler.h"
#include "thread_registry.h"

static void JNICALL cb_ThreadStart(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    if (!gate_enter())
        return;
    thread_registry_start(jni, thread, true);
    gate_leave();
}

static void JNICALL cb_ThreadEnd(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    if (!gate_enter())
        return;
    thread_registry_end(jni, thread);   /* and the collectors' thread_end */
    gate_leave();
}

static void JNICALL cb_DataDumpRequest(jvmtiEnv *jv)
{
    (void)jv;
    if (!gate_enter())
        return;
    profiler_request_dump();
    gate_leave();
}

static void JNICALL cb_VMInit(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv, (void)thread;
    jvmti_event(JVMTI_EVENT_THREAD_START, true);
    jvmti_event(JVMTI_EVENT_THREAD_END, true);
    thread_registry_existing(jni);
    jvmti_event(JVMTI_EVENT_DATA_DUMP_REQUEST, true);
    collectors_vm_init(jni);
    if (profiler_start(jni) != JP_OK)
        jp_log_error("profiling disabled: the agent thread could not start");
}

static void JNICALL cb_VMDeath(jvmtiEnv *jv, JNIEnv *jni)
{
    (void)jv;
    collectors_stop(jni);
    jvmti_event(JVMTI_EVENT_DATA_DUMP_REQUEST, false);
    jvmti_event(JVMTI_EVENT_THREAD_START, false);
    jvmti_event(JVMTI_EVENT_THREAD_END, false);
    if (!gate_close(5000))
        jp_log_error("callbacks still running at VM death after 5 s");
    if (!profiler_stop(jni))
        return;
    /* the final report (doe=y), or one asked for just before exit that the agent thread did not take */
    bool asked = profiler_final_request();
    if (agent_opts->doe || asked)
        profiler_dump(jni);
}

jp_status callbacks_install(void)
{
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.VMInit = cb_VMInit;
    cb.VMDeath = cb_VMDeath;
    cb.ThreadStart = cb_ThreadStart;
    cb.ThreadEnd = cb_ThreadEnd;
    cb.DataDumpRequest = cb_DataDumpRequest;
    collectors_callbacks(&cb);
    jp_status st = jvmti_check((*agent_jvmti)->SetEventCallbacks(agent_jvmti, &cb, (jint)sizeof cb),
                               "SetEventCallbacks");
    if (st == JP_OK)
        st = jvmti_event(JVMTI_EVENT_VM_INIT, true);
    if (st == JP_OK)
        st = jvmti_event(JVMTI_EVENT_VM_DEATH, true);
    return st;
}
