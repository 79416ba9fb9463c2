/* trace_vm_events.c — what the JVM tells trace= through a JVMTI environment
 * of the trace's own, so that its callbacks, its object tags and its events
 * never meet those of the profile's collectors (one callback per event per
 * environment):
 *   mem, mem:light  each collection: gc-start and gc-end from JVMTI's
 *                   callbacks (exact times), and its kind, collector, cause
 *                   and heap used before and after as gc metadata, from the
 *                   JVM's GarbageCollectorMXBean notifications
 *                   (jvmprof.GcEvents), joined to its pause by time
 *   mem             the deaths of the objects the trace named (ObjectFree)
 *   alloc           every allocation (JVMTI's allocation sampler at interval
 *                   0), the object given its id there
 *   class           class loads (ClassPrepare) and unloads (the death of
 *                   the class's Class object)
 *   monitor         contended enter and entered, wait and waited
 * It also writes the object-reference report a program asks for
 * (jvmprof.Control.objectReferences): every object reachable from the
 * roots, with its class and size, then the references it holds.
 * Object ids are JVMTI tags of this environment: a counter from 1, so an
 * object keeps its id for its whole life, moved or not. A Class object's tag
 * is TV_CLASS_TAG + the session (bits 32..47) + its class id, so the class of
 * an allocation costs one tag lookup, and a class unloaded is a tag freed. */
#include "trace_vm_events.h"

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/jp_log.h"
#include "../format/trace_file.h"
#include "../options/options.h"
#include "agent_env.h"
#include "gate.h"
#include "jvmti_util.h"
#include "vmstructs.h"

#define TV_CLASS_TAG (1ull << 62)
#define TV_PAUSES 1024u                 /* pauses remembered for the notifications to find */
#define TV_MATCH_NS 2500000u            /* a report's start and length (ms) are this close to its pause's */

static jvmtiEnv *tv_env;
static unsigned tv_what;                /* OPTIONS_TRACE_* of the session */
static uint64_t tv_session;             /* 1, 2, ...: in a Class object's tag, so a later session names it again */
static _Atomic uint64_t tv_next_object = 1;
static bool tv_listening;               /* jvmprof.GcEvents registered (agent thread) */
static _Thread_local bool tv_priming;   /* tv_prime runs on this thread */

/* The pauses JVMTI reported, by number, for the notifications to find. */
typedef struct tv_pause {
    _Atomic uint64_t number, start_ns, end_ns;
} tv_pause;
static tv_pause tv_pauses[TV_PAUSES];
static _Atomic uint64_t tv_gcs;         /* pauses begun */
static _Atomic uint64_t tv_epoch;       /* pause starts and ends: odd while one runs (receivers' caches) */
static bool tv_receivers;               /* trace=exec names receivers (GC events on for tv_epoch) */
static bool tv_cache_ok;                /* objects move only in the pauses JVMTI reports (not ZGC, Shenandoah) */
static pthread_mutex_t tv_match_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t tv_matched;             /* the last pause a notification was joined to */

static const jvmtiEvent tv_events[] = {
    JVMTI_EVENT_GARBAGE_COLLECTION_START, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, JVMTI_EVENT_OBJECT_FREE,
    JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,     JVMTI_EVENT_CLASS_PREPARE,             JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
    JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, JVMTI_EVENT_MONITOR_WAIT,             JVMTI_EVENT_MONITOR_WAITED,
};

/* Whether event tv_events[i] serves what */
static bool tv_event_wanted(size_t i, unsigned what)
{
    switch (tv_events[i]) {
    case JVMTI_EVENT_GARBAGE_COLLECTION_START:
    case JVMTI_EVENT_GARBAGE_COLLECTION_FINISH:
        return (what & OPTIONS_TRACE_GC) || tv_receivers;
    case JVMTI_EVENT_OBJECT_FREE:
        return what & (OPTIONS_TRACE_FREE | OPTIONS_TRACE_CLASS);
    case JVMTI_EVENT_SAMPLED_OBJECT_ALLOC:
        return what & OPTIONS_TRACE_ALLOC;
    case JVMTI_EVENT_CLASS_PREPARE:
        return what & OPTIONS_TRACE_CLASS;
    default:
        return what & OPTIONS_TRACE_MONITOR;
    }
}

/* ---- ids ---- */

/* The class id a Class object's tag holds, if this session gave it; else 0. */
static uint64_t tv_tag_class_id(jlong tag)
{
    uint64_t t = (uint64_t)tag;
    return (t & TV_CLASS_TAG) && ((t >> 32) & 0xffffu) == (tv_session & 0xffffu) ? t & 0xffffffffu : 0;
}

/* The trace's id of a class, from its Class object's tag, or named and tagged now. */
static uint64_t tv_class_of(jclass klass)
{
    jlong tag = 0;
    if (!klass || (*tv_env)->GetTag(tv_env, klass, &tag) != JVMTI_ERROR_NONE)
        return 0;
    uint64_t known = tv_tag_class_id(tag);
    if (known)
        return known;
    char *sig = NULL;
    if ((*tv_env)->GetClassSignature(tv_env, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
        return 0;
    size_t n = strlen(sig);
    const char *name = sig;
    if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';') { /* Ljava/lang/String; -> java/lang/String */
        name++;
        n -= 2;
    }
    uint64_t id = trace_class_id(name, n);
    (*tv_env)->Deallocate(tv_env, (unsigned char *)sig);
    if (id && id <= 0xffffffffu)
        (*tv_env)->SetTag(tv_env, klass, (jlong)(TV_CLASS_TAG | (tv_session & 0xffffu) << 32 | id));
    return id;
}

/* An object's id: its tag, or a new one. */
static uint64_t tv_object_id(jobject object)
{
    jlong tag = 0;
    if (!object || (*tv_env)->GetTag(tv_env, object, &tag) != JVMTI_ERROR_NONE)
        return 0;
    if (tag)
        return (uint64_t)tag;
    uint64_t id = atomic_fetch_add_explicit(&tv_next_object, 1, memory_order_relaxed);
    return (*tv_env)->SetTag(tv_env, object, (jlong)id) == JVMTI_ERROR_NONE ? id : 0;
}

/* ---- callbacks ---- */

/* Collections: JVMTI's restricted mode, the world stopped: atomics and trace_vm_event only. */
static void JNICALL tv_cb_gc_start(jvmtiEnv *jv)
{
    (void)jv;
    atomic_fetch_add_explicit(&tv_epoch, 1, memory_order_acq_rel); /* first: the objects may move from now on */
    if (!trace_wants(OPTIONS_TRACE_GC))
        return;
    uint64_t n = atomic_fetch_add_explicit(&tv_gcs, 1, memory_order_relaxed) + 1;
    uint64_t now = trace_now_ns();
    tv_pause *p = &tv_pauses[n % TV_PAUSES];
    atomic_store_explicit(&p->end_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&p->start_ns, now, memory_order_relaxed);
    atomic_store_explicit(&p->number, n, memory_order_release);
    trace_vm_event(TRACE_EV_GC_START, now, (uint64_t[]){ n });
}

static void JNICALL tv_cb_gc_finish(jvmtiEnv *jv)
{
    (void)jv;
    atomic_fetch_add_explicit(&tv_epoch, 1, memory_order_acq_rel);
    if (!trace_wants(OPTIONS_TRACE_GC))
        return;
    uint64_t n = atomic_load_explicit(&tv_gcs, memory_order_relaxed);
    uint64_t now = trace_now_ns();
    atomic_store_explicit(&tv_pauses[n % TV_PAUSES].end_ns, now, memory_order_release);
    trace_vm_event(TRACE_EV_GC_END, now, (uint64_t[]){ n });
}

/* A tagged object died: an object the trace named, or a class's Class object (its class unloaded). */
static void JNICALL tv_cb_free(jvmtiEnv *jv, jlong tag)
{
    (void)jv;
    if (!gate_enter())
        return;
    uint64_t t = (uint64_t)tag, cls = tv_tag_class_id(tag);
    if (t & TV_CLASS_TAG) { /* a Class object: its class unloaded (one of an earlier session's: ignored) */
        if (cls && trace_wants(OPTIONS_TRACE_CLASS))
            trace_vm_event(TRACE_EV_CLASS_UNLOAD, trace_now_ns(), (uint64_t[]){ cls });
    } else if (trace_wants(OPTIONS_TRACE_FREE)) {
        trace_vm_event(TRACE_EV_FREE, trace_now_ns(), (uint64_t[]){ t });
    }
    gate_leave();
}

static void JNICALL tv_cb_alloc(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size)
{
    (void)jv, (void)thread;
    if (tv_priming) { /* tv_prime's own array: the buffer is reported from now on */
        tv_priming = false;
        return;
    }
    if (!trace_wants(OPTIONS_TRACE_ALLOC) || !trace_thread_followed(jni) || !gate_enter())
        return;
    uint64_t cls = tv_class_of(klass);
    uint64_t id = atomic_fetch_add_explicit(&tv_next_object, 1, memory_order_relaxed);
    if ((*tv_env)->SetTag(tv_env, object, (jlong)id) != JVMTI_ERROR_NONE)
        id = 0;
    jboolean array = JNI_FALSE;
    uint64_t length = 0;
    if ((*tv_env)->IsArrayClass(tv_env, klass, &array) == JVMTI_ERROR_NONE && array)
        length = (uint64_t)(*jni)->GetArrayLength(jni, (jarray)object) + 1;
    trace_thread_event(jni, TRACE_EV_ALLOC, (uint64_t[]){ id, cls, (uint64_t)size, length });
    gate_leave();
}

static void JNICALL tv_cb_class_prepare(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jv, (void)thread;
    if (!trace_wants(OPTIONS_TRACE_CLASS) || !gate_enter())
        return;
    uint64_t id = tv_class_of(klass);
    if (id)
        trace_thread_event(jni, TRACE_EV_CLASS_LOAD, (uint64_t[]){ id });
    gate_leave();
}

static void tv_monitor(JNIEnv *jni, jobject object, unsigned kind)
{
    if (!trace_wants(OPTIONS_TRACE_MONITOR) || !trace_thread_followed(jni) || !gate_enter())
        return;
    jclass k = (*jni)->GetObjectClass(jni, object);
    uint64_t cls = tv_class_of(k);
    if (k)
        (*jni)->DeleteLocalRef(jni, k);
    trace_thread_event(jni, TRACE_EV_MONITOR, (uint64_t[]){ kind, tv_object_id(object), cls });
    gate_leave();
}

static void JNICALL tv_cb_contended(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv, (void)thread;
    tv_monitor(jni, object, TRACE_MONITOR_CONTENDED);
}

static void JNICALL tv_cb_entered(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv, (void)thread;
    tv_monitor(jni, object, TRACE_MONITOR_ENTERED);
}

static void JNICALL tv_cb_wait(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jlong timeout)
{
    (void)jv, (void)thread, (void)timeout;
    tv_monitor(jni, object, TRACE_MONITOR_WAIT);
}

static void JNICALL tv_cb_waited(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jboolean timed_out)
{
    (void)jv, (void)thread, (void)timed_out;
    tv_monitor(jni, object, TRACE_MONITOR_WAITED);
}

/* ---- the session ---- */

/* The trace's own JVMTI environment, made (with its callbacks) the first time */
static jp_status tv_env_get(void)
{
    if (tv_env)
        return JP_OK;
    if ((*agent_vm)->GetEnv(agent_vm, (void **)&tv_env, JVMTI_VERSION_11) != JNI_OK) {
        tv_env = NULL;
        return jp_error(JP_ERR_JVMTI, "trace=: no JVMTI environment for the JVM's events");
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.GarbageCollectionStart = tv_cb_gc_start;
    cb.GarbageCollectionFinish = tv_cb_gc_finish;
    cb.ObjectFree = tv_cb_free;
    cb.SampledObjectAlloc = tv_cb_alloc;
    cb.ClassPrepare = tv_cb_class_prepare;
    cb.MonitorContendedEnter = tv_cb_contended;
    cb.MonitorContendedEntered = tv_cb_entered;
    cb.MonitorWait = tv_cb_wait;
    cb.MonitorWaited = tv_cb_waited;
    return jvmti_check((*tv_env)->SetEventCallbacks(tv_env, &cb, (jint)sizeof cb), "SetEventCallbacks(trace)");
}

jp_status trace_vm_events_sampler_check(char *why, size_t len)
{
    if (tv_env_get() != JP_OK) {
        snprintf(why, len, "trace=: no JVMTI environment for the JVM's events");
        return JP_ERR_JVMTI;
    }
    return jvmti_sampler_check(tv_env, "trace=alloc", why, len);
}

jp_status trace_vm_events_load(unsigned what)
{
    jvmtiPhase phase = JVMTI_PHASE_LIVE;
    (*agent_jvmti)->GetPhase(agent_jvmti, &phase);
    if (tv_env_get() != JP_OK)
        return JP_ERR_JVMTI;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    tv_receivers = (what & OPTIONS_TRACE_EXIT) && !agent_opts->mintime_ns && agent_opts->receivers;
    caps.can_generate_garbage_collection_events = (what & OPTIONS_TRACE_GC) || tv_receivers;
    caps.can_generate_object_free_events = (what & (OPTIONS_TRACE_FREE | OPTIONS_TRACE_CLASS)) != 0;
    caps.can_generate_sampled_object_alloc_events = (what & OPTIONS_TRACE_ALLOC) != 0;
    caps.can_generate_monitor_events = (what & OPTIONS_TRACE_MONITOR) != 0;
    jvmtiError e = (*tv_env)->AddCapabilities(tv_env, &caps);
    if (e == JVMTI_ERROR_NONE && caps.can_generate_sampled_object_alloc_events)
        jvmti_sampler_taken(tv_env, "trace=alloc");
    if (e != JVMTI_ERROR_NONE)
        return jp_error(JP_ERR_JVMTI, "trace=: the JVM refused the JVMTI capabilities of these event classes%s",
                        phase == JVMTI_PHASE_ONLOAD ? "" : " (some are granted only at start-up: give trace= in "
                                                           "-agentpath)");
    /* allocations: the sampler at 0 and its event on now, before any thread has its first TLAB (a TLAB
     * made before is reported only once it is used up); the callback takes nothing until the trace starts */
    if ((what & OPTIONS_TRACE_ALLOC) &&
        (jvmti_check((*tv_env)->SetHeapSamplingInterval(tv_env, 0), "SetHeapSamplingInterval(trace)") != JP_OK ||
         jvmti_check((*tv_env)->SetEventNotificationMode(tv_env, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
                     "SetEventNotificationMode(trace allocations)") != JP_OK))
        return JP_ERR_JVMTI;
    return JP_OK;
}

/* JVMTI's sampler sees the allocations inside a thread's allocation buffer
 * (TLAB) only from the buffer after the one in use when reporting began. The
 * starting thread (main, for the session given at load) fills its buffer
 * with small arrays until the sampler reports one (at most TV_PRIME_MAX
 * bytes), so that its next allocation is reported; its event for the thread
 * makes the JVM report at all (the JVM counts an event on only once a thread
 * has it). Threads started later begin with a reported buffer; others
 * running already are reported from their next buffer on. */
#define TV_PRIME_MAX (64u << 20)

static void tv_prime(JNIEnv *jni)
{
    jthread self = NULL;
    if ((*tv_env)->GetCurrentThread(tv_env, &self) != JVMTI_ERROR_NONE ||
        (*tv_env)->SetEventNotificationMode(tv_env, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, self) !=
            JVMTI_ERROR_NONE)
        return;
    if (self)
        (*jni)->DeleteLocalRef(jni, self);
    tv_priming = true;
    for (unsigned bytes = 0; tv_priming && bytes < TV_PRIME_MAX; bytes += 512) {
        jbyteArray a = (*jni)->NewByteArray(jni, 512 - 16);
        if (!a)
            break;
        (*jni)->DeleteLocalRef(jni, a);
    }
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    if (tv_priming)
        jp_log_debug("trace=alloc: the starting thread's allocations are reported from its next buffer on");
    tv_priming = false;
}

/* Classes loaded before the trace began are tagged, so their unloads are
 * seen (they get no class-load); all: array and primitive classes too (the
 * reference report names every object's class). */
static void tv_tag_loaded(JNIEnv *jni, bool all)
{
    jint n = 0;
    jclass *classes = NULL;
    if ((*tv_env)->GetLoadedClasses(tv_env, &n, &classes) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        jint status = 0;
        if ((*tv_env)->GetClassStatus(tv_env, classes[i], &status) == JVMTI_ERROR_NONE &&
            (all || ((status & JVMTI_CLASS_STATUS_PREPARED) &&
                     !(status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)))))
            tv_class_of(classes[i]);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*tv_env)->Deallocate(tv_env, (unsigned char *)classes);
}

/* The listener of jvmprof.GcEvents, registered once per JVM (it stays, and
 * reports to whichever session traces collections), at the start of the
 * first session that does: before the program's collections, which it
 * reports from then on. */
static void tv_listen(JNIEnv *jni)
{
    if (tv_listening || !jni)
        return;
    tv_listening = true;
    pthread_mutex_lock(&tv_match_lock);
    tv_matched = atomic_load(&tv_gcs);
    pthread_mutex_unlock(&tv_match_lock);
    jclass c = (*jni)->FindClass(jni, "jvmprof/GcEvents");
    jmethodID m = c ? (*jni)->GetStaticMethodID(jni, c, "start", "()Z") : NULL;
    jboolean ok = m ? (*jni)->CallStaticBooleanMethod(jni, c, m) : JNI_FALSE;
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    if (c)
        (*jni)->DeleteLocalRef(jni, c);
    if (!ok)
        jp_log_info("trace=mem: the JVM's collection notifications are not available (module jdk.management?): "
                    "gc-start and gc-end come without their kind and heap sizes");
}

jp_status trace_vm_events_start(JNIEnv *jni, unsigned what)
{
    tv_what = what;
    if (!tv_env)
        return JP_OK;
    tv_session++;
    /* a cached address holds until the next pause; ZGC and Shenandoah move objects while threads run */
    tv_cache_ok = tv_receivers && vmstructs_flag_bool("UseZGC") == 0 && vmstructs_flag_bool("UseShenandoahGC") != 1 &&
                  !getenv("JVMPROF_TRACE_NO_RECEIVER_CACHE"); /* the test's knob: every receiver from its tag */
    if (what & OPTIONS_TRACE_GC)
        tv_listen(jni);
    if (what & OPTIONS_TRACE_CLASS)
        tv_tag_loaded(jni, false);
    if (what & OPTIONS_TRACE_ALLOC)
        tv_prime(jni);
    for (size_t i = 0; i < sizeof tv_events / sizeof tv_events[0]; i++)
        if (tv_event_wanted(i, what) &&
            jvmti_check((*tv_env)->SetEventNotificationMode(tv_env, JVMTI_ENABLE, tv_events[i], NULL),
                        "SetEventNotificationMode(trace)") != JP_OK)
            return JP_ERR_JVMTI;
    return JP_OK;
}

void trace_vm_events_stop(JNIEnv *jni)
{
    (void)jni;
    if (!tv_env)
        return;
    for (size_t i = 0; i < sizeof tv_events / sizeof tv_events[0]; i++)
        (*tv_env)->SetEventNotificationMode(tv_env, JVMTI_DISABLE, tv_events[i], NULL);
    tv_what = 0;
}

void trace_vm_events_end(void)
{
    if (tv_env)
        jvmti_sampler_give_back(tv_env);
}

/* jvmprof.GcEvents: one collection, as the JVM's GarbageCollectorMXBean
 * reports it (start and end in ms since a time of the JVM's own), joined to
 * a JVMTI pause. Reports come in the order of the collections, from the
 * first after the listener began (tv_matched then), so the next report is
 * the next pause; a pause whose length or start (the JVM's ms moved to the
 * trace's clock by the last pause joined) differs by more than TV_MATCH_NS
 * had no report (a G1 remark or cleanup) and is passed over, up to
 * TV_SKIP_MAX of them. */
#define TV_SKIP_MAX 4u
static bool tv_offset_known;
static int64_t tv_offset_ns;            /* trace clock - the JVM's ms clock, from the last pause joined */

static uint64_t tv_gap(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

JNIEXPORT void JNICALL Java_jvmprof_GcEvents_collected0(JNIEnv *jni, jclass cls, jstring collector, jboolean major,
                                                         jstring cause, jlong start_ms, jlong end_ms, jlong before,
                                                         jlong after)
{
    (void)cls;
    if (!trace_wants(OPTIONS_TRACE_GC) || end_ms < start_ms)
        return;
    uint64_t length = (uint64_t)(end_ms - start_ms) * 1000000u;
    pthread_mutex_lock(&tv_match_lock);
    uint64_t last = atomic_load_explicit(&tv_gcs, memory_order_acquire), best = 0;
    for (uint64_t n = tv_matched + 1; n <= last && n <= tv_matched + 1 + TV_SKIP_MAX; n++) {
        tv_pause *p = &tv_pauses[n % TV_PAUSES];
        uint64_t s = atomic_load_explicit(&p->start_ns, memory_order_relaxed);
        uint64_t e = atomic_load_explicit(&p->end_ns, memory_order_acquire);
        if (atomic_load_explicit(&p->number, memory_order_acquire) != n || !e)
            break;
        /* ms truncated: a length or a start may be off by up to 1 ms each way */
        if (tv_gap(e - s, length) > TV_MATCH_NS ||
            (tv_offset_known && tv_gap(s, (uint64_t)(start_ms * 1000000 + tv_offset_ns)) > TV_MATCH_NS))
            continue;
        best = n;
        tv_offset_ns = (int64_t)s - start_ms * 1000000;
        tv_offset_known = true;
        break;
    }
    if (best)
        tv_matched = best;
    pthread_mutex_unlock(&tv_match_lock);
    if (!best)
        return; /* not a pause JVMTI reported to this trace */
    uint64_t ids[2] = { 0, 0 };
    jstring texts[2] = { collector, cause };
    for (int i = 0; i < 2; i++) {
        const char *s = texts[i] ? (*jni)->GetStringUTFChars(jni, texts[i], NULL) : NULL;
        if (!s)
            continue;
        ids[i] = trace_string_id(s, strlen(s));
        (*jni)->ReleaseStringUTFChars(jni, texts[i], s);
    }
    trace_meta(TRACE_EV_GC, (uint64_t[]){ best, major ? TRACE_GC_FULL : TRACE_GC_YOUNG, ids[0], ids[1],
                                          (uint64_t)(before > 0 ? before : 0), (uint64_t)(after > 0 ? after : 0) });
}

/* ---- receivers ---- */

uint64_t trace_receiver_id(jobject self, trace_receivers *c)
{
    if (!self || !tv_env)
        return 0;
    uint64_t e1 = atomic_load_explicit(&tv_epoch, memory_order_acquire);
    if (!tv_cache_ok || (e1 & 1))
        return tv_object_id(self);
    if (c->epoch != e1) { /* a collection since: the addresses may name other objects now */
        memset(c->addr, 0, sizeof c->addr);
        c->epoch = e1;
    }
    /* HotSpot: a local JNI reference points at the slot that holds the object's address */
    uintptr_t a = *(const volatile uintptr_t *)((uintptr_t)self & ~(uintptr_t)3);
    uint32_t h = (uint32_t)(((uint64_t)a >> 3) * 0x9e3779b97f4a7c15ull >> 52) % TRACE_RECEIVER_SLOTS; /* 12 bits */
    if (a && c->addr[h] == a) {
        uint64_t id = c->id[h];
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&tv_epoch, memory_order_relaxed) == e1)
            return id; /* no pause began since the address was read */
        return tv_object_id(self);
    }
    uint64_t id = tv_object_id(self);
    atomic_thread_fence(memory_order_acquire);
    if (id && a && atomic_load_explicit(&tv_epoch, memory_order_relaxed) == e1) {
        c->addr[h] = a;
        c->id[h] = id;
    }
    return id;
}

/* ---- the object-reference report ---- */

typedef struct tv_obj { uint64_t id, cls, size, length1, kind; } tv_obj;
typedef struct tv_ref { uint64_t from, to; uint32_t kind, index; } tv_ref;

typedef struct tv_walk {
    tv_obj *objs;
    size_t nobjs, objs_cap;
    tv_ref *refs;
    size_t nrefs, refs_cap;
    uint64_t *seen;             /* object ids listed: open addressing, 0 = empty */
    size_t seen_cap;            /* a power of two */
    bool oom;
} tv_walk;

static bool tv_grow(void **p, size_t *cap, size_t elem)
{
    size_t n = *cap ? *cap * 2 : 4096;
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

/* true the first time id is seen */
static bool tv_seen_add(tv_walk *w, uint64_t id)
{
    if ((w->nobjs + 1) * 2 > w->seen_cap) {
        size_t cap = w->seen_cap ? w->seen_cap * 2 : 8192;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t) {
            w->oom = true;
            return false;
        }
        for (size_t i = 0; i < w->seen_cap; i++) {
            if (!w->seen[i])
                continue;
            size_t h = (size_t)(w->seen[i] * 0x9e3779b97f4a7c15ull) & (cap - 1);
            while (t[h])
                h = (h + 1) & (cap - 1);
            t[h] = w->seen[i];
        }
        free(w->seen);
        w->seen = t;
        w->seen_cap = cap;
    }
    size_t h = (size_t)(id * 0x9e3779b97f4a7c15ull) & (w->seen_cap - 1);
    for (; w->seen[h]; h = (h + 1) & (w->seen_cap - 1))
        if (w->seen[h] == id)
            return false;
    w->seen[h] = id;
    return true;
}

/* FollowReferences' callback, on the VM's thread with the world stopped: each
 * object reached is listed once (named by a new tag if it had none), and
 * each reference an object holds is kept. No JNI, no JVMTI. */
static jint JNICALL tv_walk_ref(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                                jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                jint length, void *user)
{
    (void)referrer_class_tag;
    tv_walk *w = user;
    if (w->oom)
        return JVMTI_VISIT_ABORT;
    if (!*tag_ptr)
        *tag_ptr = (jlong)atomic_fetch_add_explicit(&tv_next_object, 1, memory_order_relaxed);
    uint64_t id = (uint64_t)*tag_ptr;
    if (tv_seen_add(w, id)) {
        if (w->nobjs == w->objs_cap && !tv_grow((void **)&w->objs, &w->objs_cap, sizeof *w->objs)) {
            w->oom = true;
            return JVMTI_VISIT_ABORT;
        }
        w->objs[w->nobjs++] = (tv_obj){ id, tv_tag_class_id(class_tag), (uint64_t)size,
                                         length >= 0 ? (uint64_t)length + 1 : 0,
                                         (id & TV_CLASS_TAG) ? TRACE_OBJECT_CLASS
                                         : length >= 0       ? TRACE_OBJECT_ARRAY
                                                             : TRACE_OBJECT_PLAIN };
    }
    if (!referrer_tag_ptr || kind > JVMTI_HEAP_REFERENCE_SUPERCLASS)
        return w->oom ? JVMTI_VISIT_ABORT : JVMTI_VISIT_OBJECTS; /* a root */
    if (!*referrer_tag_ptr) /* not reached yet as a referee: the callback names it when it is */
        *referrer_tag_ptr = (jlong)atomic_fetch_add_explicit(&tv_next_object, 1, memory_order_relaxed);
    uint32_t index = kind == JVMTI_HEAP_REFERENCE_FIELD || kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD
                         ? (uint32_t)info->field.index
                     : kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT ? (uint32_t)info->array.index
                     : kind == JVMTI_HEAP_REFERENCE_CONSTANT_POOL ? (uint32_t)info->constant_pool.index
                                                                  : 0;
    if (w->nrefs == w->refs_cap && !tv_grow((void **)&w->refs, &w->refs_cap, sizeof *w->refs)) {
        w->oom = true;
        return JVMTI_VISIT_ABORT;
    }
    w->refs[w->nrefs++] = (tv_ref){ (uint64_t)*referrer_tag_ptr, id, (uint32_t)kind, index };
    return JVMTI_VISIT_OBJECTS;
}

static int tv_ref_cmp(const void *a, const void *b)
{
    const tv_ref *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

bool trace_object_references(JNIEnv *jni)
{
    if (!tv_env || !trace_thread_followed(jni))
        return false;
    tv_tag_loaded(jni, true); /* every object's class named */
    tv_walk w;
    memset(&w, 0, sizeof w);
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = tv_walk_ref;
    bool ok = jvmti_check((*tv_env)->FollowReferences(tv_env, 0, NULL, NULL, &cb, &w), "FollowReferences(trace)") ==
                  JP_OK && !w.oom;
    if (ok) {
        qsort(w.refs, w.nrefs, sizeof *w.refs, tv_ref_cmp);
        ok = trace_thread_event(jni, TRACE_EV_REFERENCES, (uint64_t[]){ w.nobjs, w.nrefs });
        for (size_t i = 0; ok && i < w.nobjs; i++) {
            const tv_obj *o = &w.objs[i];
            ok = trace_thread_event(jni, TRACE_EV_OBJECT, (uint64_t[]){ o->id, o->kind, o->cls, o->size, o->length1 });
            size_t lo = 0, hi = w.nrefs; /* the first reference from o */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (w.refs[mid].from < o->id)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; ok && lo < w.nrefs && w.refs[lo].from == o->id; lo++)
                ok = trace_thread_event(jni, TRACE_EV_REFERENCE, (uint64_t[]){ w.refs[lo].to, w.refs[lo].kind,
                                                                               w.refs[lo].index });
            if (ok)
                ok = trace_thread_event(jni, TRACE_EV_OBJECT_END, NULL);
        }
    } else if (w.oom) {
        jp_log_error("trace: the object-reference report ran out of memory; none written");
    }
    free(w.objs);
    free(w.refs);
    free(w.seen);
    return ok;
}
