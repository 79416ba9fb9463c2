/* thread_registry.c — thread serials and thread start/end events (see
 * thread_registry.h). Runs on the starting/ending thread itself; the only
 * shared state is an atomic serial counter and the lock-free event queue,
 * which carries a start as a thread_start_event (its names copied after the
 * struct) and an end as a bare eventq_event.
 *
 * A thread's serial is in two places. Its own record (thread_record.h) is
 * what the thread itself reads: no JVMTI call. Its JVMTI thread-local storage
 * holds a copy for the other threads that have only its jthread (the agent
 * thread's sampling rounds, callbacks given a jthread): one word, serial |
 * OS tid << 32, set once at start and never changed, so a reader races with
 * nothing, not even the thread's end. A pointer to the record would not do:
 * the record lives in the thread's TLS block, which goes when it exits. */
#include "thread_registry.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent_env.h"
#include "collectors.h"
#include "eventq.h"
#include "jvmti_util.h"
#include "thread_record.h"
#include "../hotspot/vmstructs.h"

/* Global, for the JVM's life: a serial names a thread in every session
 * (its JVMTI storage word is set once at its start and never changed), so
 * serials are never reused; and the VM structures are read once. */
static struct {
    atomic_uint_fast32_t serials;   /* serials given (the last one given) */
    bool vmstructs_read;
} thread_registry;

/* The storage word: serial in the low 32 bits, OS thread id in the high. */
static uint64_t thread_word(jthread thread)
{
    void *p = NULL;
    if ((*agent_jvmti)->GetThreadLocalStorage(agent_jvmti, thread, &p) != JVMTI_ERROR_NONE)
        return 0;
    return (uint64_t)(uintptr_t)p;
}

/* A thread's start: its name, its group's and the group's parent's, each
 * copied into the event after the struct. */
typedef struct thread_start_event {
    eventq_event head;
    const char *name, *group, *parent;
} thread_start_event;

/* Agent thread: a thread's start and end, into the model. */
static bool thread_registry_apply_start(model *m, JNIEnv *jni, eventq_event *e)
{
    (void)jni;
    const thread_start_event *s = (const thread_start_event *)e;
    model_thread_start(m, e->thread, e->thread, model_cstring(m, s->name), model_cstring(m, s->group),
                       model_cstring(m, s->parent));
    return false;
}

/* The start event of thread serial with these names (NULL: ""), or NULL when
 * out of memory. */
static eventq_event *thread_start_event_new(uint32_t serial, const char *name, const char *group, const char *parent)
{
    const char *in[3] = { name ? name : "", group ? group : "", parent ? parent : "" };
    size_t lens[3], total = sizeof(thread_start_event);
    for (int i = 0; i < 3; i++) {
        lens[i] = strlen(in[i]) + 1;
        total += lens[i];
    }
    thread_start_event *s = (thread_start_event *)eventq_new(total, thread_registry_apply_start, serial);
    if (!s)
        return NULL;
    char *p = (char *)(s + 1);
    const char **out[3] = { &s->name, &s->group, &s->parent };
    for (int i = 0; i < 3; i++) {
        memcpy(p, in[i], lens[i]);
        *out[i] = p;
        p += lens[i];
    }
    return &s->head;
}

static bool thread_registry_apply_end(model *m, JNIEnv *jni, eventq_event *e)
{
    (void)jni;
    model_thread_end(m, e->thread);
    return false;
}

uint32_t thread_registry_serial(jthread thread)
{
    if (thread)
        return (uint32_t)thread_word(thread);
    uint32_t serial = thread_record_self.serial;
    uint64_t word;
    /* (the current thread may be a virtual thread mounted on this one: its word is not this thread's) */
    if (serial == 0 && !((word = thread_word(NULL)) & THREAD_REGISTRY_VTHREAD) && (serial = (uint32_t)word) != 0)
        thread_record_self.serial = serial;   /* registered from the VMInit thread: kept for next time */
    return serial;
}

uint32_t thread_registry_tid(jthread thread)
{
    uint64_t word = thread_word(thread);
    return word & THREAD_REGISTRY_VTHREAD ? 0 : (uint32_t)(word >> 32);
}

uint32_t thread_registry_new_serial(void) { return (uint32_t)atomic_fetch_add(&thread_registry.serials, 1) + 1; }

void thread_registry_announce(uint32_t serial, const char *name, const char *group)
{
    eventq_event *e = thread_start_event_new(serial, name, group, NULL);
    if (e)
        eventq_push(e);
}

void thread_registry_announce_end(uint32_t serial)
{
    eventq_event *e = eventq_new(sizeof(eventq_event), thread_registry_apply_end, serial);
    if (e)
        eventq_push(e);
}

/* Registers thread (on_thread: the caller is that thread) and queues its
 * START event; a thread registered before (a later session's start) only
 * has its START event queued again when announce is true, for the new model. */
static void thread_registry_add(JNIEnv *jni, jthread thread, bool on_thread, bool announce)
{
    jvmtiEnv *jv = agent_jvmti;
    if (jni && agent_is_own_thread(jni, thread))
        return;
    uint32_t serial = thread_registry_serial(thread);
    bool fresh = serial == 0;
    /* on the thread itself, not begun yet: a new thread, or one the VMInit thread registered (it
     * listed the threads while this one was starting) before its own ThreadStart came */
    bool begin = on_thread && (thread_record_self.serial == 0 || thread_record_self.adopted);
    if (!fresh && !announce && !begin)
        return;
    if (fresh)
        serial = (uint32_t)atomic_fetch_add(&thread_registry.serials, 1) + 1;
    if (fresh || begin) {
        uint64_t tid = on_thread ? (uint64_t)syscall(SYS_gettid) : 0;
        uint32_t their_tid = 0;
        JNIEnv *their_jni = NULL;
        /* registered from outside: its OS thread id and JNIEnv from HotSpot's own structures */
        if (!on_thread && jni && vmstructs_thread(jni, thread, &their_tid, &their_jni) &&
            thread_record_foreign(their_tid, serial, their_jni))
            tid = their_tid;
        if (jvmti_check((*jv)->SetThreadLocalStorage(jv, thread, (void *)(uintptr_t)(serial | tid << 32)),
                        "SetThreadLocalStorage") != JP_OK)
            return;
        if (begin) {
            thread_record_begin(serial, (uint32_t)tid, jni);
            collectors_thread_start(jni, serial);
        }
    }
    if (!fresh && !announce)
        return; /* its START event went with its registration */
    jvmtiThreadInfo info = { 0 };
    jvmtiThreadGroupInfo group = { 0 }, parent = { 0 };
    if ((*jv)->GetThreadInfo(jv, thread, &info) == JVMTI_ERROR_NONE && info.thread_group) {
        if ((*jv)->GetThreadGroupInfo(jv, info.thread_group, &group) == JVMTI_ERROR_NONE && group.parent)
            (*jv)->GetThreadGroupInfo(jv, group.parent, &parent);
    }
    eventq_event *e = thread_start_event_new(serial, info.name, group.name, parent.name);
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
    (void)thread;
    uint32_t serial = thread_registry_serial(NULL);
    if (serial != 0) {
        eventq_event *e = eventq_new(sizeof(eventq_event), thread_registry_apply_end, serial);
        if (e)
            eventq_push(e);
    }
    collectors_thread_end(jni);
    thread_record_foreign_forget(thread_record_self.tid);
    thread_record_end();
}

void thread_registry_existing(JNIEnv *jni)
{
    if (!thread_registry.vmstructs_read)
        vmstructs_init(jni);
    thread_registry.vmstructs_read = true;
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
