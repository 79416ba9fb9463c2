/* callbacks.c — every JVMTI entry point of the agent (cb_<Event>), kept thin:
 * pass the gate, hand off to the module that owns the work, leave. VM init
 * starts the agent thread; VM death closes the gate, stops the agent thread
 * and writes the final report (doe=y). */
#include "callbacks.h"

#include <string.h>

#include "../common/jp_log.h"
#include "agent.h"
#include "alloc_exact.h"
#include "alloc_sites.h"
#include "async_sampler.h"
#include "bci.h"
#include "code_kinds.h"
#include "gate.h"
#include "jvmti_util.h"
#include "monitor.h"
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
    thread_registry_end(jni, thread);
    if (options_alloc_exact(agent_opts))
        alloc_exact_thread_end();
    gate_leave();
}

static void JNICALL cb_MonitorContendedEnter(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv, (void)jni, (void)thread, (void)object;
    if (!gate_enter())
        return;
    monitor_contended_enter();
    gate_leave();
}

static void JNICALL cb_MonitorContendedEntered(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv;
    if (!gate_enter())
        return;
    monitor_contended_entered(jni, thread, object);
    gate_leave();
}

static void JNICALL cb_MonitorWait(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jlong timeout)
{
    (void)jv, (void)jni, (void)thread, (void)object, (void)timeout;
    if (!gate_enter())
        return;
    monitor_wait();
    gate_leave();
}

static void JNICALL cb_MonitorWaited(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jboolean timed_out)
{
    (void)jv, (void)timed_out;
    if (!gate_enter())
        return;
    monitor_waited(jni, thread, object);
    gate_leave();
}

/* AsyncGetCallTrace works only while ClassLoad events are enabled. */
static void JNICALL cb_ClassLoad(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jv, (void)jni, (void)thread, (void)klass;
}

static void JNICALL cb_ClassPrepare(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jv, (void)thread;
    if (!gate_enter())
        return;
    async_sampler_class_prepare(jni, klass);
    gate_leave();
}

static void JNICALL cb_CompiledMethodLoad(jvmtiEnv *jv, jmethodID method, jint code_size, const void *code_addr,
                                          jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info)
{
    if (!gate_enter())
        return;
    code_kinds_compiled_method_load(jv, method, code_size, code_addr, map_length, map, compile_info);
    gate_leave();
}

static void JNICALL cb_CompiledMethodUnload(jvmtiEnv *jv, jmethodID method, const void *code_addr)
{
    if (!gate_enter())
        return;
    code_kinds_compiled_method_unload(jv, method, code_addr);
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

static void JNICALL cb_SampledObjectAlloc(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object,
                                          jclass klass, jlong size)
{
    (void)jv;
    if (!gate_enter())
        return;
    alloc_sites_sampled(jni, thread, object, klass, size);
    gate_leave();
}

static void JNICALL cb_VMObjectAlloc(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                                     jlong size)
{
    (void)jv;
    if (!gate_enter())
        return;
    alloc_exact_vm_object(jni, thread, object, klass, size);
    gate_leave();
}

/* ObjectFree and the GC events run in restricted modes: atomics only. */
static void JNICALL cb_ObjectFree(jvmtiEnv *jv, jlong tag)
{
    (void)jv;
    if (!gate_enter())
        return;
    alloc_sites_object_free(tag);
    gate_leave();
}

static void JNICALL cb_GarbageCollectionStart(jvmtiEnv *jv)
{
    (void)jv;
    alloc_sites_gc_start();
}

static void JNICALL cb_GarbageCollectionFinish(jvmtiEnv *jv)
{
    (void)jv;
    alloc_sites_gc_finish();
}

static jp_status cb_enable(jvmtiEvent ev, jboolean on)
{
    return jvmti_check((*agent_jvmti)->SetEventNotificationMode(agent_jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, ev,
                                                                NULL),
                       "SetEventNotificationMode");
}

static void cb_enable_monitor_events(jboolean on)
{
    if (!agent_opts->monitor)
        return;
    cb_enable(JVMTI_EVENT_MONITOR_CONTENDED_ENTER, on);
    cb_enable(JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, on);
    cb_enable(JVMTI_EVENT_MONITOR_WAIT, on);
    cb_enable(JVMTI_EVENT_MONITOR_WAITED, on);
}

static void JNICALL cb_VMInit(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv, (void)thread;
    if (options_async_sampling(agent_opts)) {
        cb_enable(JVMTI_EVENT_CLASS_LOAD, JNI_TRUE);
        cb_enable(JVMTI_EVENT_CLASS_PREPARE, JNI_TRUE);
        async_sampler_vm_init(jni);
    }
    cb_enable(JVMTI_EVENT_THREAD_START, JNI_TRUE);
    cb_enable(JVMTI_EVENT_THREAD_END, JNI_TRUE);
    thread_registry_existing(jni);
    cb_enable_monitor_events(JNI_TRUE);
    cb_enable(JVMTI_EVENT_DATA_DUMP_REQUEST, JNI_TRUE);
    if (agent_opts->heap_sites && alloc_sites_vm_init(jni) != JP_OK)
        jp_log_error("heap=sites disabled: allocation sampling could not start");
    if (agent_opts->cpu == OPTIONS_CPU_TIMES && bci_vm_init(jni) != JP_OK)
        jp_log_error("cpu=times disabled: bytecode instrumentation could not start");
    if (profiler_start(jni) != JP_OK)
        jp_log_error("profiling disabled: the agent thread could not start");
}

static void JNICALL cb_VMDeath(jvmtiEnv *jv, JNIEnv *jni)
{
    (void)jv;
    if (agent_opts->cpu == OPTIONS_CPU_TIMES || options_alloc_bci(agent_opts))
        bci_vm_death(jni);
    if (options_async_sampling(agent_opts))
        async_sampler_stop();
    if (agent_opts->heap_sites)
        alloc_sites_stop();
    cb_enable_monitor_events(JNI_FALSE);
    cb_enable(JVMTI_EVENT_DATA_DUMP_REQUEST, JNI_FALSE);
    cb_enable(JVMTI_EVENT_THREAD_START, JNI_FALSE);
    cb_enable(JVMTI_EVENT_THREAD_END, JNI_FALSE);
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
    cb.VMObjectAlloc = cb_VMObjectAlloc;
    cb.VMDeath = cb_VMDeath;
    cb.ThreadStart = cb_ThreadStart;
    cb.ThreadEnd = cb_ThreadEnd;
    cb.DataDumpRequest = cb_DataDumpRequest;
    cb.MonitorContendedEnter = cb_MonitorContendedEnter;
    cb.MonitorContendedEntered = cb_MonitorContendedEntered;
    cb.MonitorWait = cb_MonitorWait;
    cb.MonitorWaited = cb_MonitorWaited;
    cb.ClassFileLoadHook = bci_class_file_load_hook;
    cb.ClassLoad = cb_ClassLoad;
    cb.ClassPrepare = cb_ClassPrepare;
    cb.CompiledMethodLoad = cb_CompiledMethodLoad;
    cb.CompiledMethodUnload = cb_CompiledMethodUnload;
    cb.SampledObjectAlloc = cb_SampledObjectAlloc;
    cb.ObjectFree = cb_ObjectFree;
    cb.GarbageCollectionStart = cb_GarbageCollectionStart;
    cb.GarbageCollectionFinish = cb_GarbageCollectionFinish;
    jp_status st = jvmti_check((*agent_jvmti)->SetEventCallbacks(agent_jvmti, &cb, (jint)sizeof cb),
                               "SetEventCallbacks");
    if (st != JP_OK)
        return st;
    st = cb_enable(JVMTI_EVENT_VM_INIT, JNI_TRUE);
    if (st == JP_OK)
        st = cb_enable(JVMTI_EVENT_VM_DEATH, JNI_TRUE);
    return st;
}
