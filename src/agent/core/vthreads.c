/* vthreads.c — virtual threads' records and their events (see vthreads.h).
 *
 * Records live in chunks of VT_CHUNK that are made on demand and never
 * freed; an index names one. Free records are on a lock-free list whose
 * head is (tag << 32 | index + 1): the tag, bumped at each change, keeps a
 * pop from taking a head that was popped and pushed back meanwhile (ABA). A
 * record is taken at a virtual thread's start (or at the first mount or
 * unmount seen of one that started before the events were on) and given
 * back at its end. */
#include "vthreads.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/jp_log.h"
#include "agent_env.h"
#include "collectors.h"
#include "jvmti_util.h"
#include "thread_registry.h"
#include "ticks.h"

#define VT_CHUNK 4096u
#define VT_CHUNKS 4096u   /* 16M virtual threads alive at once */

/* The JVM's virtual threads: what it offers for them and the records of
 * those alive. Global, for the JVM's life: a record belongs to its virtual
 * thread from the thread's start to its end whatever sessions run meanwhile
 * (the thread's storage word names it), the chunks are never freed, and the
 * events' callbacks run on the carriers with no session to ask. */
static struct {
    bool supported;                    /* can_support_virtual_threads granted */
    bool on;                           /* the four events are on */
    jint mount_index, unmount_index;   /* the extension events' indexes */
    _Atomic(jfieldID) tid_field;       /* java.lang.Thread.tid */
    vthread *_Atomic chunks[VT_CHUNKS];
    /* written at every start and end: after the chunks, away from what every mount reads */
    _Atomic uint32_t bump;             /* records ever taken from the chunks */
    _Atomic uint64_t free;             /* tag << 32 | first free index + 1; low half 0: empty */
    _Atomic uint32_t live;
} vt;

bool vthreads_supported(void) { return vt.supported; }

uint32_t vthreads_live(void) { return atomic_load_explicit(&vt.live, memory_order_relaxed); }

vthread *vthreads_at(uint32_t index)
{
    if (index >= VT_CHUNK * VT_CHUNKS)
        return NULL;
    vthread *c = atomic_load_explicit(&vt.chunks[index / VT_CHUNK], memory_order_acquire);
    return c ? &c[index % VT_CHUNK] : NULL;
}

vthread *vthreads_of(jthread thread)
{
    void *p = NULL;
    if (!vt.supported || !thread ||
        (*agent_jvmti)->GetThreadLocalStorage(agent_jvmti, thread, &p) != JVMTI_ERROR_NONE)
        return NULL;
    uint64_t word = (uint64_t)(uintptr_t)p;
    if (!(word & THREAD_REGISTRY_VTHREAD))
        return NULL;
    vthread *v = vthreads_at((uint32_t)(word >> 32) & 0x7fffffffu);
    return v && atomic_load_explicit(&v->serial, memory_order_relaxed) == (uint32_t)word ? v : NULL;
}

/* In one of the four events (on the carrier, JVMTI's current thread being `thread`, the virtual
 * thread): its record, from the current thread's storage. GetThreadLocalStorage of a jthread
 * would look the thread up under a ThreadsListHandle and hold off other threads' mounts, on every
 * mount and unmount (perf: 2% of a cpu=times program of 10,000 virtual threads). Falls back on
 * that when the current storage is not a virtual thread's record. */
static vthread *vt_current(jthread thread)
{
    void *p = NULL;
    if (vt.supported && (*agent_jvmti)->GetThreadLocalStorage(agent_jvmti, NULL, &p) == JVMTI_ERROR_NONE) {
        uint64_t word = (uint64_t)(uintptr_t)p;
        vthread *v = word & THREAD_REGISTRY_VTHREAD ? vthreads_at((uint32_t)(word >> 32) & 0x7fffffffu) : NULL;
        if (v && atomic_load_explicit(&v->serial, memory_order_relaxed) == (uint32_t)word)
            return v;
    }
    return vthreads_of(thread);
}

const char *vthreads_name(const vthread *v, char *buf, size_t cap)
{
    if (v->name)
        return v->name;
    snprintf(buf, cap, "virtual-%llu", (unsigned long long)v->java_id);
    return buf;
}

/* A zeroed record (its index set), or NULL when all are taken or out of memory. */
static vthread *vt_take(void)
{
    uint64_t head = atomic_load_explicit(&vt.free, memory_order_acquire);
    while ((uint32_t)head) {
        vthread *v = vthreads_at((uint32_t)head - 1);
        uint64_t next = ((head >> 32) + 1) << 32 | atomic_load_explicit(&v->free_next, memory_order_relaxed);
        if (atomic_compare_exchange_weak_explicit(&vt.free, &head, next, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            atomic_store_explicit(&v->free_next, 0, memory_order_relaxed);
            atomic_fetch_add_explicit(&vt.live, 1, memory_order_relaxed);
            return v;
        }
    }
    uint32_t i = atomic_fetch_add_explicit(&vt.bump, 1, memory_order_relaxed);
    if (i >= VT_CHUNK * VT_CHUNKS)
        return NULL;
    vthread *c = atomic_load_explicit(&vt.chunks[i / VT_CHUNK], memory_order_acquire);
    if (!c) {
        vthread *mine = calloc(VT_CHUNK, sizeof *mine), *none = NULL;
        if (!mine)
            return NULL;   /* that index is lost; so is the thread's record */
        for (uint32_t k = 0; k < VT_CHUNK; k++)
            mine[k].index = (i / VT_CHUNK) * VT_CHUNK + k;
        if (atomic_compare_exchange_strong_explicit(&vt.chunks[i / VT_CHUNK], &none, mine, memory_order_acq_rel,
                                                    memory_order_acquire))
            c = mine;
        else {
            free(mine);
            c = none;
        }
    }
    atomic_fetch_add_explicit(&vt.live, 1, memory_order_relaxed);
    return &c[i % VT_CHUNK];
}

/* The record back on the free list, zeroed but for its index. */
static void vt_give_back(vthread *v)
{
    uint32_t index = v->index;
    free(v->name);
    atomic_store_explicit(&v->serial, 0, memory_order_relaxed);
    v->name = NULL;
    v->java_id = 0;
    v->carrier = 0;
    v->started = false;
    v->ending = false;
    v->mounted_at = v->unmounted_at = 0;
    v->times = NULL;
    v->trace = NULL;
    v->sampler = NULL;
    uint64_t head = atomic_load_explicit(&vt.free, memory_order_acquire), next;
    do {
        atomic_store_explicit(&v->free_next, (uint32_t)head, memory_order_relaxed);
        next = ((head >> 32) + 1) << 32 | (index + 1);
    } while (!atomic_compare_exchange_weak_explicit(&vt.free, &head, next, memory_order_acq_rel,
                                                    memory_order_acquire));
    atomic_fetch_sub_explicit(&vt.live, 1, memory_order_relaxed);
}

/* The virtual thread's record: found in its storage, or made (serial, id, name, storage). NULL: none to be had. */
static vthread *vt_record(JNIEnv *jni, jthread thread)
{
    vthread *v = vt_current(thread);
    if (v)
        return v;
    if (!(v = vt_take()))
        return NULL;
    uint32_t serial = thread_registry_new_serial();
    uint64_t word = THREAD_REGISTRY_VTHREAD | (uint64_t)v->index << 32 | serial;
    if ((*agent_jvmti)->SetThreadLocalStorage(agent_jvmti, thread, (void *)(uintptr_t)word) != JVMTI_ERROR_NONE) {
        vt_give_back(v);
        return NULL;
    }
    atomic_store_explicit(&v->serial, serial, memory_order_relaxed);
    jfieldID f = atomic_load_explicit(&vt.tid_field, memory_order_relaxed);
    if (!f && jni) {
        jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
        f = tc ? (*jni)->GetFieldID(jni, tc, "tid", "J") : NULL;
        if (tc)
            (*jni)->DeleteLocalRef(jni, tc);
        if (!f)
            (*jni)->ExceptionClear(jni);
        atomic_store_explicit(&vt.tid_field, f, memory_order_relaxed);
    }
    v->java_id = f ? (uint64_t)(*jni)->GetLongField(jni, thread, f) : 0;
    jvmtiThreadInfo info = { 0 };
    if ((*agent_jvmti)->GetThreadInfo(agent_jvmti, thread, &info) == JVMTI_ERROR_NONE) {
        if (info.name && info.name[0])
            v->name = strdup(info.name);
        jvmti_free(info.name);
        if (jni && info.thread_group)
            (*jni)->DeleteLocalRef(jni, info.thread_group);
        if (jni && info.context_class_loader)
            (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    }
    return v;
}

static void vt_unmount(JNIEnv *jni, vthread *v)
{
    v->unmounted_at = ticks_now();
    collectors_vthread_unmount(jni, v);
    v->carrier = 0;
    thread_record_self.vthread = NULL;
}

static void vt_mount(JNIEnv *jni, vthread *v)
{
    vthread *was = thread_record_self.vthread;
    if (was && was != v)
        vt_unmount(jni, was); /* its unmount was not seen (the events came on between) */
    if (was == v)
        return;
    v->carrier = thread_record_self.serial;
    v->mounted_at = ticks_now();
    thread_record_self.vthread = v;
    collectors_vthread_mount(jni, v);
}

static void JNICALL vt_cb_start(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    vthread *v = vt_record(jni, thread);
    if (!v)
        return;
    v->started = true;
    collectors_vthread_start(jni, v);
    vt_mount(jni, v);
}

static void JNICALL vt_cb_end(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    vthread *v = vt_current(thread);
    if (!v)
        return;
    if (thread_record_self.vthread != v)
        vt_mount(jni, v); /* it runs here (its last unmount may have come already): its end is its own */
    v->ending = true;
    vt_unmount(jni, v);
    collectors_vthread_end(jni, v);
    (*agent_jvmti)->SetThreadLocalStorage(agent_jvmti, thread, NULL);
    vt_give_back(v);
}

static void JNICALL vt_cb_mount(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    vthread *v = vt_record(jni, thread);
    if (v)
        vt_mount(jni, v);
}

static void JNICALL vt_cb_unmount(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    vthread *v = vt_record(jni, thread);
    if (!v)
        return;
    if (thread_record_self.vthread != v)
        vt_mount(jni, v); /* mounted before the events came on: its stacks begin here */
    vt_unmount(jni, v);
}

void vthreads_capabilities(jvmtiCapabilities *caps)
{
    jvmtiCapabilities could;
    memset(&could, 0, sizeof could);
    if ((*agent_jvmti)->GetPotentialCapabilities(agent_jvmti, &could) == JVMTI_ERROR_NONE &&
        jvmti_vthreads_cap(&could))
        jvmti_vthreads_cap_set(caps, true);
}

void vthreads_granted(void)
{
    jvmtiCapabilities has;
    memset(&has, 0, sizeof has);
    if ((*agent_jvmti)->GetCapabilities(agent_jvmti, &has) != JVMTI_ERROR_NONE || !jvmti_vthreads_cap(&has))
        return;
    if (vt.supported)
        return;
    vt.mount_index = vt.unmount_index = -1;
    jint n = 0;
    jvmtiExtensionEventInfo *ev = NULL;
    if ((*agent_jvmti)->GetExtensionEvents(agent_jvmti, &n, &ev) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        if (strcmp(ev[i].id, JVMTI_VTHREADS_MOUNT_ID) == 0)
            vt.mount_index = ev[i].extension_event_index;
        else if (strcmp(ev[i].id, JVMTI_VTHREADS_UNMOUNT_ID) == 0)
            vt.unmount_index = ev[i].extension_event_index;
        jvmti_free(ev[i].id);
        jvmti_free(ev[i].short_description);
        for (jint p = 0; p < ev[i].param_count; p++)
            jvmti_free(ev[i].params[p].name);
        jvmti_free(ev[i].params);
    }
    jvmti_free(ev);
    vt.supported = vt.mount_index >= 0 && vt.unmount_index >= 0;
    if (!vt.supported)
        jp_log_info("this JVM has virtual threads but no mount and unmount events: they are seen as their carriers");
}

void vthreads_callbacks(jvmti_vthreads_callbacks *cb)
{
    if (!vt.supported)
        return;
    cb->VirtualThreadStart = vt_cb_start;
    cb->VirtualThreadEnd = vt_cb_end;
}

void vthreads_events(JNIEnv *jni, bool on)
{
    (void)jni;
    if (!vt.supported || on == vt.on)
        return;
    jvmtiEnv *jv = agent_jvmti;
    jvmtiEventMode mode = on ? JVMTI_ENABLE : JVMTI_DISABLE;
    jvmti_check((*jv)->SetEventNotificationMode(jv, mode, JVMTI_VTHREADS_EVENT_START, NULL), "VirtualThreadStart");
    jvmti_check((*jv)->SetEventNotificationMode(jv, mode, JVMTI_VTHREADS_EVENT_END, NULL), "VirtualThreadEnd");
    /* an extension event takes its callback, and then its enabling like any other */
    if (on) {
        jvmti_check((*jv)->SetExtensionEventCallback(jv, vt.mount_index,
                                                     (jvmtiExtensionEvent)(void (*)(void))vt_cb_mount),
                    "SetExtensionEventCallback(VirtualThreadMount)");
        jvmti_check((*jv)->SetExtensionEventCallback(jv, vt.unmount_index,
                                                     (jvmtiExtensionEvent)(void (*)(void))vt_cb_unmount),
                    "SetExtensionEventCallback(VirtualThreadUnmount)");
    }
    jvmti_check((*jv)->SetEventNotificationMode(jv, mode, (jvmtiEvent)vt.mount_index, NULL), "VirtualThreadMount");
    jvmti_check((*jv)->SetEventNotificationMode(jv, mode, (jvmtiEvent)vt.unmount_index, NULL), "VirtualThreadUnmount");
    vt.on = on;
}
