/* thread_registry.c — thread serials and thread start/end events (see
 * thread_registry.h). Runs on the starting/ending thread itself; the only
 * shared state is an atomic serial counter and the lock-free event queue. */
#include "thread_registry.h"

#include <stdatomic.h>

#include "agent.h"
#include "eventq.h"
#include "jvmti_util.h"
#include "profiler.h"

static atomic_uint_fast32_t thread_next_serial = 1;

uint32_t thread_registry_serial(jthread thread)
{
    void *p = NULL;
    if ((*agent_jvmti)->GetThreadLocalStorage(agent_jvmti, thread, &p) != JVMTI_ERROR_NONE)
        return 0;
    return (uint32_t)(uintptr_t)p;
}

void thread_registry_start(JNIEnv *jni, jthread thread)
{
    jvmtiEnv *jv = agent_jvmti;
    if (thread_registry_serial(thread) != 0 || (jni && profiler_is_agent_thread(jni, thread)))
        return;
    uint32_t serial = (uint32_t)atomic_fetch_add(&thread_next_serial, 1);
    if (jvmti_check((*jv)->SetThreadLocalStorage(jv, thread, (void *)(uintptr_t)serial),
                    "SetThreadLocalStorage") != JP_OK)
        return;
    jvmtiThreadInfo info = { 0 };
    jvmtiThreadGroupInfo group = { 0 }, parent = { 0 };
    if ((*jv)->GetThreadInfo(jv, thread, &info) == JVMTI_ERROR_NONE && info.thread_group) {
        if ((*jv)->GetThreadGroupInfo(jv, info.thread_group, &group) == JVMTI_ERROR_NONE && group.parent)
            (*jv)->GetThreadGroupInfo(jv, group.parent, &parent);
    }
    eventq_event *e = eventq_new(EVENTQ_THREAD_START, serial, 0, info.name ? info.name : "",
                                 group.name ? group.name : "", parent.name ? parent.name : "");
    if (e)
        eventq_push(e);
    jvmti_free(info.name);
    jvmti_free(group.name);
    jvmti_free(parent.name);
    if (jni) {
        if (info.thread_group)
            (*jni)->DeleteLocalRef(jni, info.thread_group);
        if (info.context_class_loader)
            (*jni)->DeleteLocalRef(jni, info.context_class_loader);
        if (group.parent)
            (*jni)->DeleteLocalRef(jni, group.parent);
        if (parent.parent)
            (*jni)->DeleteLocalRef(jni, parent.parent);
    }
}

void thread_registry_end(JNIEnv *jni, jthread thread)
{
    (void)jni;
    uint32_t serial = thread_registry_serial(thread);
    if (serial == 0)
        return;
    eventq_event *e = eventq_new(EVENTQ_THREAD_END, serial, 0, NULL, NULL, NULL);
    if (e)
        eventq_push(e);
}

void thread_registry_existing(JNIEnv *jni)
{
    jint n = 0;
    jthread *threads = NULL;
    if (jvmti_check((*agent_jvmti)->GetAllThreads(agent_jvmti, &n, &threads), "GetAllThreads") != JP_OK)
        return;
    for (jint i = 0; i < n; i++) {
        thread_registry_start(jni, threads[i]);
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    jvmti_free(threads);
}
