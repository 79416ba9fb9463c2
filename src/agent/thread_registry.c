/* thread_registry.c — thread serials and thread start/end events (see
 * thread_registry.h). Runs on the starting/ending thread itself; the only
 * shared state is an atomic serial counter and the lock-free event queue. */
#include "thread_registry.h"

#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_env.h"
#include "collectors.h"
#include "eventq.h"
#include "jvmti_util.h"

static atomic_uint_fast32_t thread_next_serial = 1;

/* The storage word: serial in the low 32 bits, OS thread id in the high. */
static uint64_t thread_word(jthread thread)
{
    void *p = NULL;
    if ((*agent_jvmti)->GetThreadLocalStorage(agent_jvmti, thread, &p) != JVMTI_ERROR_NONE)
        return 0;
    return (uint64_t)(uintptr_t)p;
}

/* Agent thread: a thread's start and end, into the model. */
static bool thread_registry_apply_start(model *m, JNIEnv *jni, eventq_event *e)
{
    (void)jni;
    model_thread_start(m, e->thread, e->thread, model_cstring(m, e->str[0]), model_cstring(m, e->str[1]),
                       model_cstring(m, e->str[2]));
    return false;
}

static bool thread_registry_apply_end(model *m, JNIEnv *jni, eventq_event *e)
{
    (void)jni;
    model_thread_end(m, e->thread);
    return false;
}

uint32_t thread_registry_serial(jthread thread) { return (uint32_t)thread_word(thread); }

uint32_t thread_registry_tid(jthread thread) { return (uint32_t)(thread_word(thread) >> 32); }

/* Registers thread (on_thread: the caller is that thread) and queues its
 * START event; a thread registered before (a later session's start) only
 * has its START event queued again when announce is true, for the new model. */
static void thread_registry_add(JNIEnv *jni, jthread thread, bool on_thread, bool announce)
{
    jvmtiEnv *jv = agent_jvmti;
    if (jni && agent_is_own_thread(jni, thread))
        return;
    uint32_t serial = thread_registry_serial(thread);
    if (serial != 0 && !announce)
        return;
    if (serial == 0) {
        serial = (uint32_t)atomic_fetch_add(&thread_next_serial, 1);
        uint64_t tid = on_thread ? (uint64_t)syscall(SYS_gettid) : 0;
        if (jvmti_check((*jv)->SetThreadLocalStorage(jv, thread, (void *)(uintptr_t)(serial | tid << 32)),
                        "SetThreadLocalStorage") != JP_OK)
            return;
        if (on_thread)
            collectors_thread_start(jni, serial);
    }
    jvmtiThreadInfo info = { 0 };
    jvmtiThreadGroupInfo group = { 0 }, parent = { 0 };
    if ((*jv)->GetThreadInfo(jv, thread, &info) == JVMTI_ERROR_NONE && info.thread_group) {
        if ((*jv)->GetThreadGroupInfo(jv, info.thread_group, &group) == JVMTI_ERROR_NONE && group.parent)
            (*jv)->GetThreadGroupInfo(jv, group.parent, &parent);
    }
    eventq_event *e = eventq_new(EVENTQ_THREAD_START, thread_registry_apply_start, serial, 0, info.name ? info.name : "",
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

void thread_registry_start(JNIEnv *jni, jthread thread, bool on_thread)
{
    thread_registry_add(jni, thread, on_thread, false);
}

void thread_registry_end(JNIEnv *jni, jthread thread)
{
    (void)jni;
    uint32_t serial = thread_registry_serial(thread);
    if (serial == 0)
        return;
    eventq_event *e = eventq_new(EVENTQ_THREAD_END, thread_registry_apply_end, serial, 0, NULL, NULL, NULL);
    if (e)
        eventq_push(e);
}

void thread_registry_existing(JNIEnv *jni)
{
    jint n = 0;
    jthread *threads = NULL;
    if (jvmti_check((*agent_jvmti)->GetAllThreads(agent_jvmti, &n, &threads), "GetAllThreads") != JP_OK)
        return;
    jthread self = NULL;
    (*agent_jvmti)->GetCurrentThread(agent_jvmti, &self);
    for (jint i = 0; i < n; i++) {
        thread_registry_add(jni, threads[i], self && (*jni)->IsSameObject(jni, threads[i], self), true);
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    jvmti_free(threads);
    if (self)
        (*jni)->DeleteLocalRef(jni, self);
}
