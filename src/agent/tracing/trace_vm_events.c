/* trace_vm_events.c — what the JVM tells trace= through a JVMTI environment
 * of the trace's own, so that its callbacks, its object tags and its events
 * never meet those of the profile's collectors (one callback per event per
 * environment):
 *   mem, mem:light  each collection: gc-start and gc-end from JVMTI's
 *                   callbacks (exact times), and its kind, collector, cause
 *                   and heap used before and after as gc metadata, from the
 *                   JVM's GarbageCollectorMXBean notifications
 *                   (jvmprof.GcEvents), joined to its pause by the
 *                   collector's count (see tv_cb_gc_finish); ZGC's pause
 *                   notifications carry no heap sizes: its heap used is
 *                   read at each pause's end from its jstat counters (see
 *                   tv_zgc_find)
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
#include <time.h>

#include "../../common/jp_log.h"
#include "../../trace/trace_file.h"
#include "../../options/options.h"
#include "../core/agent_env.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../hotspot/vm_perf.h"
#include "../hotspot/vmstructs.h"

#define TV_CLASS_TAG (1ull << 62)
#define TV_PAUSES 1024u                 /* pauses remembered for the notifications to find */
#define TV_MATCH_NS 2500000u            /* a report's start and length (ms) are this close to its pause's */

/* The trace's own JVMTI environment and its object ids, for the JVM's life:
 * the environment is made once (its capabilities only grow), an object
 * keeps its tag (its id) across sessions, and jvmprof.GcEvents, registered
 * by the first session that traces collections, goes on notifying. */
typedef struct tv_jvm_state {
    jvmtiEnv *env;
    _Atomic uint64_t next_object;       /* the next object id */
    bool listening;                     /* jvmprof.GcEvents registered (agent thread) */
} tv_jvm_state;
static tv_jvm_state tv_jvm = { .next_object = 1 }; /* for the JVM's life: see above */
static _Thread_local bool tv_priming;   /* tv_prime runs on this thread: a thread's own, outside any part */

/* The collectors of Serial, Parallel and G1 as jstat counts them: counter
 * K of sun.gc.collector.K.invocations (0 young, 1 full) counts the
 * collections of the GarbageCollectorMXBean whose notifications say "end
 * of minor GC" (K 0) or "end of major GC" (K 1), in the same scope inside
 * the pause, so a notification's GcInfo.getId() is K's count; G1's remark
 * and cleanup count in collector 2 and have no bean. */
#define TV_KINDS 2u
#define TV_CAUSE 64u
/* ZGC's heap used, as its jstat counters give it (sun.gc.generation.G.space.0.used: the young (G 0,
 * generational ZGC only) and the old generation): ZGC sets them at the end of each of its pauses, before
 * JVMTI's GarbageCollectionFinish, and its pause notifications say nothing of the heap (ZGC records no
 * usage for its pauses' beans, only for its cycles'). NULL: not ZGC, or no counters.
 * These, the counters above and the beans' names are facts about the JVM, found by the first session
 * that traces collections (tv_listen) and kept for the JVM's life. */
static struct {
    const volatile int64_t *perf_count[TV_KINDS];
    const volatile char *perf_cause;      /* sun.gc.cause: the running collection's */
    const volatile char *perf_last_cause; /* sun.gc.lastCause: the last one's (its setter has ended) */
    size_t perf_cause_cap, perf_last_cause_cap;
    bool perf;                            /* the counters are there and are the beans' */
    char *kind_names[TV_KINDS];           /* the young and the full collector's bean name (tv_gc.match_lock) */
    const volatile int64_t *zgc_used_counter[2];
    bool zgc;
} tv_vm;

/* The pauses JVMTI reported, by number, for the notifications to find:
 * with tv_vm.perf, each holds the collections counted in it (from, to] by
 * collector and the cause the JVM gave, written before end_ns (release). */
typedef struct tv_pause {
    _Atomic uint64_t number, start_ns, end_ns;
    int64_t from[TV_KINDS], to[TV_KINDS];
    char cause[TV_CAUSE];
    uint64_t used;                              /* ZGC: its heap used at the pause's end (tv_zgc_used) */
    _Atomic uint32_t told;                      /* its collections a notification told (under tv_gc.match_lock) */
} tv_pause;
/* The collections, numbered for the JVM's life, and the join of GcEvents' notifications to them: the
 * listener outlives the sessions (a notification may come after the session of its pause ended), and the
 * pause numbers go on across sessions. */
typedef struct tv_gc_state {
    tv_pause pauses[TV_PAUSES];
    _Atomic uint64_t gcs;               /* pauses begun */
    _Atomic uint64_t epoch;             /* pause starts and ends: odd while one runs (receivers' caches) */
    pthread_mutex_t match_lock;
    uint64_t matched;                   /* the last pause a notification was joined to */
    bool offset_known;
    int64_t offset_ns;                  /* trace clock - the JVM's ms clock, from the last pause joined */
} tv_gc_state;
static tv_gc_state tv_gc = { .match_lock = PTHREAD_MUTEX_INITIALIZER }; /* for the JVM's life: see above */

static const jvmtiEvent tv_events[] = {
    JVMTI_EVENT_GARBAGE_COLLECTION_START, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, JVMTI_EVENT_OBJECT_FREE,
    JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,     JVMTI_EVENT_CLASS_PREPARE,             JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
    JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, JVMTI_EVENT_MONITOR_WAIT,             JVMTI_EVENT_MONITOR_WAITED,
};

/* Whether event tv_events[i] serves what */
static bool tv_event_wanted(size_t i, unsigned what, bool receivers)
{
    switch (tv_events[i]) {
    case JVMTI_EVENT_GARBAGE_COLLECTION_START:
    case JVMTI_EVENT_GARBAGE_COLLECTION_FINISH:
        return (what & OPTIONS_TRACE_GC) || receivers;
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

/* The running trace session's number in a Class object's tag (so a later session names the class again). */
static uint64_t tv_session_bits(void)
{
    const trace_state *ts = trace_live();
    return ts ? ts->gen & 0xffffu : 0;
}

/* The tag this session gives the Class object of class id. */
static uint64_t tv_class_tag(uint64_t id)
{
    return TV_CLASS_TAG | tv_session_bits() << 32 | id;
}

/* The class id a Class object's tag holds, if this session gave it; else 0. */
static uint64_t tv_tag_class_id(jlong tag)
{
    uint64_t t = (uint64_t)tag;
    return (t & TV_CLASS_TAG) && ((t >> 32) & 0xffffu) == tv_session_bits() ? t & 0xffffffffu : 0;
}

#define TV_RETAGGED 1024u
/* Class objects that had an object's tag (the reference walk's, or an
 * event's naming a Class object) when they were given their class's: the old
 * tag and the class, for the walk to name those it met (tv_walk_name_late_classes).
 * A slot is written old = 0, class, old; read old, class, old. Global: written
 * by any thread's tv_class_of, read by the thread that asked for the report. */
static struct {
    _Atomic uint64_t old, cls;
} tv_retagged[TV_RETAGGED];
static _Atomic uint32_t tv_retagged_next; /* the next slot of tv_retagged, modulo its size */

static void tv_retag_note(uint64_t old, uint64_t cls)
{
    uint32_t i = atomic_fetch_add_explicit(&tv_retagged_next, 1, memory_order_relaxed) % TV_RETAGGED;
    atomic_store_explicit(&tv_retagged[i].old, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&tv_retagged[i].cls, cls, memory_order_relaxed);
    atomic_store_explicit(&tv_retagged[i].old, old, memory_order_release);
}

/* The class a Class object once tagged old was given, or 0. */
static uint64_t tv_retag_find(uint64_t old)
{
    for (uint32_t i = 0; i < TV_RETAGGED; i++) {
        if (atomic_load_explicit(&tv_retagged[i].old, memory_order_acquire) != old)
            continue;
        uint64_t cls = atomic_load_explicit(&tv_retagged[i].cls, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&tv_retagged[i].old, memory_order_relaxed) == old)
            return cls;
    }
    return 0;
}

/* The trace's id of a class, from its Class object's tag, or named and tagged now. */
static uint64_t tv_class_of(jclass klass)
{
    jlong tag = 0;
    if (!klass || (*tv_jvm.env)->GetTag(tv_jvm.env, klass, &tag) != JVMTI_ERROR_NONE)
        return 0;
    uint64_t known = tv_tag_class_id(tag);
    if (known)
        return known;
    char *sig = NULL;
    if ((*tv_jvm.env)->GetClassSignature(tv_jvm.env, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
        return 0;
    size_t n = strlen(sig);
    const char *name = sig;
    if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';') { /* Ljava/lang/String; -> java/lang/String */
        name++;
        n -= 2;
    }
    uint64_t id = trace_class_id(name, n);
    (*tv_jvm.env)->Deallocate(tv_jvm.env, (unsigned char *)sig);
    if (id && id <= 0xffffffffu) {
        if (tag && !((uint64_t)tag & TV_CLASS_TAG))
            tv_retag_note((uint64_t)tag, id);
        (*tv_jvm.env)->SetTag(tv_jvm.env, klass, (jlong)tv_class_tag(id));
    }
    return id;
}

/* An object's id: its tag, or a new one. */
static uint64_t tv_object_id(jobject object)
{
    jlong tag = 0;
    if (!object || (*tv_jvm.env)->GetTag(tv_jvm.env, object, &tag) != JVMTI_ERROR_NONE)
        return 0;
    if (tag)
        return (uint64_t)tag;
    uint64_t id = atomic_fetch_add_explicit(&tv_jvm.next_object, 1, memory_order_relaxed);
    return (*tv_jvm.env)->SetTag(tv_jvm.env, object, (jlong)id) == JVMTI_ERROR_NONE ? id : 0;
}

/* ---- callbacks ---- */

/* Collections: JVMTI's restricted mode, the world stopped: atomics, loads and trace_vm_event only. */
static void JNICALL tv_cb_gc_start(jvmtiEnv *jv)
{
    (void)jv;
    atomic_fetch_add_explicit(&tv_gc.epoch, 1, memory_order_acq_rel); /* first: the objects may move from now on */
    if (!trace_wants(OPTIONS_TRACE_GC))
        return;
    uint64_t n = atomic_fetch_add_explicit(&tv_gc.gcs, 1, memory_order_relaxed) + 1;
    uint64_t now = trace_now_ns();
    tv_pause *p = &tv_gc.pauses[n % TV_PAUSES];
    atomic_store_explicit(&p->end_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&p->told, 0, memory_order_relaxed);
    p->used = TRACE_GC_USED_UNKNOWN;
    atomic_store_explicit(&p->start_ns, now, memory_order_relaxed);
    atomic_store_explicit(&p->number, n, memory_order_release);
    trace_vm_event(TRACE_EV_GC_START, (uint64_t[]){ n });
}

/* The pause's end: with tv_vm.perf, which collections the JVM counted in it
 * (each collector's count since the last pause's end) and their cause, so
 * that a notification names its pause exactly (collector K's collection
 * number id is in the pause where K's count went past id), and a pause
 * whose notification never comes is still told young or full. */
static void JNICALL tv_cb_gc_finish(jvmtiEnv *jv)
{
    (void)jv;
    atomic_fetch_add_explicit(&tv_gc.epoch, 1, memory_order_acq_rel);
    trace_state *ts = trace_live();
    if (!ts || !trace_wants(OPTIONS_TRACE_GC))
        return;
    int64_t *seen = ts->vm.perf_seen;
    uint64_t n = atomic_load_explicit(&tv_gc.gcs, memory_order_relaxed);
    uint64_t now = trace_now_ns();
    tv_pause *p = &tv_gc.pauses[n % TV_PAUSES];
    if (tv_vm.zgc) {
        int64_t used = 0;
        for (unsigned g = 0; g < 2; g++)
            used += tv_vm.zgc_used_counter[g] && *tv_vm.zgc_used_counter[g] > 0 ? *tv_vm.zgc_used_counter[g] : 0;
        p->used = (uint64_t)used;
    }
    if (tv_vm.perf) {
        for (unsigned k = 0; k < TV_KINDS; k++) {
            int64_t c = *tv_vm.perf_count[k];
            p->from[k] = seen[k];
            p->to[k] = c > seen[k] ? c : seen[k];
            seen[k] = p->to[k];
        }
        /* the cause is set around the pause (G1) or inside it (Parallel, Serial: over by now) */
        const volatile char *cause = tv_vm.perf_cause;
        size_t cap = tv_vm.perf_cause_cap, i = 0;
        if (strncmp((const char *)cause, "No GC", cap) == 0) {
            cause = tv_vm.perf_last_cause;
            cap = tv_vm.perf_last_cause_cap;
        }
        for (; i + 1 < TV_CAUSE && i + 1 < cap && cause[i]; i++)
            p->cause[i] = cause[i];
        p->cause[i] = 0;
    }
    atomic_store_explicit(&p->end_ns, now, memory_order_release);
    trace_vm_event(TRACE_EV_GC_END, (uint64_t[]){ n });
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
            trace_vm_event(TRACE_EV_CLASS_UNLOAD, (uint64_t[]){ cls });
    } else if (trace_wants(OPTIONS_TRACE_FREE)) {
        trace_vm_event(TRACE_EV_FREE, (uint64_t[]){ t });
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
    uint64_t id = atomic_fetch_add_explicit(&tv_jvm.next_object, 1, memory_order_relaxed);
    if ((*tv_jvm.env)->SetTag(tv_jvm.env, object, (jlong)id) != JVMTI_ERROR_NONE)
        id = 0;
    jboolean array = JNI_FALSE;
    uint64_t length = 0;
    if ((*tv_jvm.env)->IsArrayClass(tv_jvm.env, klass, &array) == JVMTI_ERROR_NONE && array)
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
    if (tv_jvm.env)
        return JP_OK;
    if ((*agent_vm)->GetEnv(agent_vm, (void **)&tv_jvm.env, JVMTI_VERSION_11) != JNI_OK) {
        tv_jvm.env = NULL;
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
    return jvmti_check((*tv_jvm.env)->SetEventCallbacks(tv_jvm.env, &cb, (jint)sizeof cb), "SetEventCallbacks(trace)");
}

jp_status trace_vm_events_sampler_check(char *why, size_t len)
{
    if (tv_env_get() != JP_OK) {
        snprintf(why, len, "trace=: no JVMTI environment for the JVM's events");
        return JP_ERR_JVMTI;
    }
    return jvmti_sampler_check(tv_jvm.env, "trace=alloc", why, len);
}

jp_status trace_vm_events_load(unsigned what, bool receivers)
{
    jvmtiPhase phase = JVMTI_PHASE_LIVE;
    (*agent_jvmti)->GetPhase(agent_jvmti, &phase);
    if (tv_env_get() != JP_OK)
        return JP_ERR_JVMTI;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    caps.can_generate_garbage_collection_events = (what & OPTIONS_TRACE_GC) || receivers;
    caps.can_generate_object_free_events = (what & (OPTIONS_TRACE_FREE | OPTIONS_TRACE_CLASS)) != 0;
    caps.can_generate_sampled_object_alloc_events = (what & OPTIONS_TRACE_ALLOC) != 0;
    caps.can_generate_monitor_events = (what & OPTIONS_TRACE_MONITOR) != 0;
    jvmtiError e = (*tv_jvm.env)->AddCapabilities(tv_jvm.env, &caps);
    if (e == JVMTI_ERROR_NONE && caps.can_generate_sampled_object_alloc_events)
        jvmti_sampler_taken(tv_jvm.env, "trace=alloc");
    if (e != JVMTI_ERROR_NONE)
        return jp_error(JP_ERR_JVMTI, "trace=: the JVM refused the JVMTI capabilities of these event classes%s",
                        phase == JVMTI_PHASE_ONLOAD ? "" : " (some are granted only at start-up: give trace= in "
                                                           "-agentpath)");
    /* allocations: the sampler at 0 and its event on now, before any thread has its first TLAB (a TLAB
     * made before is reported only once it is used up); the callback takes nothing until the trace starts */
    jvmtiEnv *env = tv_jvm.env;
    if ((what & OPTIONS_TRACE_ALLOC) &&
        (jvmti_check((*env)->SetHeapSamplingInterval(env, 0), "SetHeapSamplingInterval(trace)") != JP_OK ||
         jvmti_check((*env)->SetEventNotificationMode(env, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
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
    if ((*tv_jvm.env)->GetCurrentThread(tv_jvm.env, &self) != JVMTI_ERROR_NONE ||
        (*tv_jvm.env)->SetEventNotificationMode(tv_jvm.env, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, self) !=
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
    if ((*tv_jvm.env)->GetLoadedClasses(tv_jvm.env, &n, &classes) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        jint status = 0;
        if ((*tv_jvm.env)->GetClassStatus(tv_jvm.env, classes[i], &status) == JVMTI_ERROR_NONE &&
            (all || ((status & JVMTI_CLASS_STATUS_PREPARED) &&
                     !(status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)))))
            tv_class_of(classes[i]);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*tv_jvm.env)->Deallocate(tv_jvm.env, (unsigned char *)classes);
}

/* jstat's collector counters, if they are the beans' young (0) and full (1) collector. */
static void tv_perf_find(void)
{
    size_t cap = 0;
    tv_vm.perf_cause = vm_perf_string("sun.gc.cause", &tv_vm.perf_cause_cap);
    tv_vm.perf_last_cause = vm_perf_string("sun.gc.lastCause", &tv_vm.perf_last_cause_cap);
    bool ok = tv_vm.perf_cause && tv_vm.perf_last_cause;
    for (unsigned k = 0; ok && k < TV_KINDS; k++) {
        char name[64];
        snprintf(name, sizeof name, "sun.gc.collector.%u.invocations", k);
        tv_vm.perf_count[k] = vm_perf_long(name);
        snprintf(name, sizeof name, "sun.gc.collector.%u.name", k);
        const volatile char *what = vm_perf_string(name, &cap);
        char text[128] = "";
        for (size_t i = 0; what && i + 1 < sizeof text && i < cap && what[i]; i++)
            text[i] = what[i];
        ok = tv_vm.perf_count[k] && strstr(text, k == 0 ? " young collection" : " full collection");
    }
    tv_vm.perf = ok;
    if (!ok)
        jp_log_debug("trace=mem: no jstat collector counters (-XX:-UsePerfData, or a collector other than Serial, "
                     "Parallel and G1): collections are joined to their notifications by time");
}

/* ZGC's heap counters (tv_vm.zgc_used_counter), when the JVM runs ZGC. */
static void tv_zgc_find(void)
{
    tv_vm.zgc = false;
    if (vmstructs_flag_bool("UseZGC") != 1)
        return;
    tv_vm.zgc_used_counter[0] = vm_perf_long("sun.gc.generation.0.space.0.used");
    tv_vm.zgc_used_counter[1] = vm_perf_long("sun.gc.generation.1.space.0.used");
    tv_vm.zgc = tv_vm.zgc_used_counter[0] || tv_vm.zgc_used_counter[1];
    if (!tv_vm.zgc)
        jp_log_debug("trace=mem: no ZGC heap counters (-XX:-UsePerfData?): its pauses come without heap sizes");
}

/* The beans' names of the collectors of tv_vm.perf (HotSpot's), until a notification tells them */
static const char *const tv_young_names[] = { "G1 Young Generation", "PS Scavenge", "Copy", NULL };
static const char *const tv_full_names[] = { "G1 Old Generation", "PS MarkSweep", "MarkSweepCompact", NULL };

static void tv_name_kind(const char *name)
{
    for (unsigned k = 0; k < TV_KINDS; k++)
        for (const char *const *n = k ? tv_full_names : tv_young_names; *n; n++)
            if (strcmp(name, *n) == 0 && !tv_vm.kind_names[k])
                tv_vm.kind_names[k] = strdup(name);
}

/* The listener of jvmprof.GcEvents, registered once per JVM (it stays, and
 * reports to whichever session traces collections), at the start of the
 * first session that does: before the program's collections, which it
 * reports from then on. It gives the beans' names. */
static void tv_listen(JNIEnv *jni)
{
    if (tv_jvm.listening || !jni)
        return;
    tv_jvm.listening = true;
    pthread_mutex_lock(&tv_gc.match_lock);
    tv_gc.matched = atomic_load(&tv_gc.gcs);
    pthread_mutex_unlock(&tv_gc.match_lock);
    jclass c = (*jni)->FindClass(jni, "jvmprof/GcEvents");
    jmethodID m = c ? (*jni)->GetStaticMethodID(jni, c, "start", "()[Ljava/lang/String;") : NULL;
    jobjectArray names = m ? (jobjectArray)(*jni)->CallStaticObjectMethod(jni, c, m) : NULL;
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    jsize count = names ? (*jni)->GetArrayLength(jni, names) : 0;
    for (jsize i = 0; i < count; i++) {
        jstring name = (jstring)(*jni)->GetObjectArrayElement(jni, names, i);
        const char *u = name ? (*jni)->GetStringUTFChars(jni, name, NULL) : NULL;
        if (u) {
            pthread_mutex_lock(&tv_gc.match_lock);
            tv_name_kind(u);
            pthread_mutex_unlock(&tv_gc.match_lock);
            (*jni)->ReleaseStringUTFChars(jni, name, u);
        }
        if (name)
            (*jni)->DeleteLocalRef(jni, name);
    }
    if (names)
        (*jni)->DeleteLocalRef(jni, names);
    if (c)
        (*jni)->DeleteLocalRef(jni, c);
    if (!names)
        jp_log_info("trace=mem: the JVM's collection notifications are not available (module jdk.management?): "
                    "gc-start and gc-end come without their kind and heap sizes");
    tv_perf_find();
    tv_zgc_find();
}

jp_status trace_vm_events_start(JNIEnv *jni, unsigned what)
{
    trace_state *ts = trace_live();
    if (!tv_jvm.env || !ts)
        return JP_OK;
    bool receivers = ts->receivers;
    /* a cached address holds until the next pause; ZGC and Shenandoah move objects while threads run */
    ts->vm.cache_ok = receivers && vmstructs_flag_bool("UseZGC") == 0 && vmstructs_flag_bool("UseShenandoahGC") != 1 &&
                  !getenv("JVMPROF_TRACE_NO_RECEIVER_CACHE"); /* the test's knob: every receiver from its tag */
    if (what & OPTIONS_TRACE_GC) {
        tv_listen(jni);
        ts->vm.first = atomic_load(&tv_gc.gcs) + 1;
        for (unsigned k = 0; tv_vm.perf && k < TV_KINDS; k++)
            ts->vm.perf_seen[k] = *tv_vm.perf_count[k];
    }
    if (what & OPTIONS_TRACE_CLASS)
        tv_tag_loaded(jni, false);
    if (what & OPTIONS_TRACE_ALLOC)
        tv_prime(jni);
    for (size_t i = 0; i < sizeof tv_events / sizeof tv_events[0]; i++)
        if (tv_event_wanted(i, what, receivers) &&
            jvmti_check((*tv_jvm.env)->SetEventNotificationMode(tv_jvm.env, JVMTI_ENABLE, tv_events[i], NULL),
                        "SetEventNotificationMode(trace)") != JP_OK)
            return JP_ERR_JVMTI;
    return JP_OK;
}

void trace_vm_events_stop(JNIEnv *jni)
{
    (void)jni;
    if (!tv_jvm.env)
        return;
    for (size_t i = 0; i < sizeof tv_events / sizeof tv_events[0]; i++)
        (*tv_jvm.env)->SetEventNotificationMode(tv_jvm.env, JVMTI_DISABLE, tv_events[i], NULL);
}

void trace_vm_events_end(void)
{
    if (tv_jvm.env)
        jvmti_sampler_give_back(tv_jvm.env);
}

/* jvmprof.GcEvents: one collection, as the JVM's GarbageCollectorMXBean
 * reports it, some time after its pause (on the JVM's notification thread).
 * With tv_vm.perf it names its pause exactly: the one in which the count of
 * its kind of collection (young or full) went past its number (id).
 * Without, by time (tv_join_by_time). */
#define TV_SKIP_MAX 4u

static uint64_t tv_gap(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* The pause of the young (0) or full (1) collection number id, or 0 (under tv_gc.match_lock). */
static uint64_t tv_join_by_count(uint64_t first, unsigned index, jlong id)
{
    uint64_t last = atomic_load_explicit(&tv_gc.gcs, memory_order_acquire);
    for (uint64_t n = last; n && n >= first && n + TV_PAUSES > last; n--) {
        tv_pause *p = &tv_gc.pauses[n % TV_PAUSES];
        if (atomic_load_explicit(&p->number, memory_order_acquire) != n ||
            !atomic_load_explicit(&p->end_ns, memory_order_acquire))
            continue;
        if (p->to[index] < id)
            return 0; /* older pauses counted fewer: not a pause of this trace */
        if (p->from[index] < id)
            return n;
    }
    return 0;
}

/* By time, without the counters: reports come in the order of the
 * collections, from the first after the listener began (tv_gc.matched then),
 * so the next report is the next pause; a pause whose length or start (the
 * JVM's ms moved to the trace's clock by the last pause joined) differs by
 * more than TV_MATCH_NS had no report (a G1 remark or cleanup) and is
 * passed over, up to TV_SKIP_MAX of them (a busy machine can defeat it). */
static uint64_t tv_join_by_time(jlong start_ms, jlong end_ms)
{
    uint64_t length = (uint64_t)(end_ms - start_ms) * 1000000u;
    uint64_t last = atomic_load_explicit(&tv_gc.gcs, memory_order_acquire);
    for (uint64_t n = tv_gc.matched + 1; n <= last && n <= tv_gc.matched + 1 + TV_SKIP_MAX; n++) {
        tv_pause *p = &tv_gc.pauses[n % TV_PAUSES];
        uint64_t s = atomic_load_explicit(&p->start_ns, memory_order_relaxed);
        uint64_t e = atomic_load_explicit(&p->end_ns, memory_order_acquire);
        if (atomic_load_explicit(&p->number, memory_order_acquire) != n || !e)
            break;
        /* ms truncated: a length or a start may be off by up to 1 ms each way */
        if (tv_gap(e - s, length) > TV_MATCH_NS ||
            (tv_gc.offset_known && tv_gap(s, (uint64_t)(start_ms * 1000000 + tv_gc.offset_ns)) > TV_MATCH_NS))
            continue;
        tv_gc.offset_ns = (int64_t)s - start_ms * 1000000;
        tv_gc.offset_known = true;
        tv_gc.matched = n;
        return n;
    }
    return 0;
}

JNIEXPORT void JNICALL Java_jvmprof_GcEvents_collected0(JNIEnv *jni, jclass cls, jstring collector, jboolean major,
                                                         jstring cause, jlong start_ms, jlong end_ms, jlong before,
                                                         jlong after, jlong id)
{
    (void)cls;
    const trace_state *ts = trace_live();
    if (!ts || !trace_wants(OPTIONS_TRACE_GC) || end_ms < start_ms)
        return;
    uint64_t first = ts->vm.first;
    uint64_t ids[2] = { 0, 0 };
    jstring texts[2] = { collector, cause };
    for (int i = 0; i < 2; i++) {
        const char *s = texts[i] ? (*jni)->GetStringUTFChars(jni, texts[i], NULL) : NULL;
        if (!s)
            continue;
        ids[i] = trace_string_id(s, strlen(s));
        if (i == 0 && !tv_vm.kind_names[major != 0]) {
            pthread_mutex_lock(&tv_gc.match_lock);
            if (!tv_vm.kind_names[major != 0])
                tv_vm.kind_names[major != 0] = strdup(s);
            pthread_mutex_unlock(&tv_gc.match_lock);
        }
        (*jni)->ReleaseStringUTFChars(jni, texts[i], s);
    }
    pthread_mutex_lock(&tv_gc.match_lock);
    uint64_t best = tv_vm.perf ? tv_join_by_count(first, major != 0, id) : tv_join_by_time(start_ms, end_ms);
    uint64_t used = TRACE_GC_USED_UNKNOWN;
    if (best) {
        atomic_fetch_add_explicit(&tv_gc.pauses[best % TV_PAUSES].told, 1, memory_order_release);
        used = tv_gc.pauses[best % TV_PAUSES].used; /* written before its end_ns, which the join saw (acquire) */
    }
    pthread_mutex_unlock(&tv_gc.match_lock);
    if (!best)
        return; /* not a pause JVMTI reported to this trace */
    /* a notification without heap sizes (GcEvents: -1; ZGC's pauses): ZGC's counters at the pause's end, for
     * both (a ZGC pause frees nothing: ZGC reclaims memory between its pauses); else unknown */
    uint64_t b = before >= 0 ? (uint64_t)before : used, a = after >= 0 ? (uint64_t)after : used;
    trace_meta(TRACE_EV_GC, (uint64_t[]){ best, major ? TRACE_GC_FULL : TRACE_GC_YOUNG, ids[0], ids[1], b, a });
}

/* How many collections pause p holds that a notification should tell: with
 * tv_vm.perf, those the counters saw (0 for a G1 remark or cleanup); without,
 * one unless a notification told it. */
static uint64_t tv_expected(const tv_pause *p)
{
    if (!tv_vm.perf)
        return 1;
    uint64_t n = 0;
    for (unsigned k = 0; k < TV_KINDS; k++)
        n += (uint64_t)(p->to[k] - p->from[k]);
    return n;
}

/* The pauses of the session still untold (up to TV_PAUSES back); 0 when all are. */
static uint64_t tv_untold(uint64_t first, uint64_t last, bool write)
{
    uint64_t untold = 0;
    for (uint64_t n = last; n && n >= first && n + TV_PAUSES > last; n--) {
        tv_pause *p = &tv_gc.pauses[n % TV_PAUSES];
        if (atomic_load_explicit(&p->number, memory_order_acquire) != n ||
            !atomic_load_explicit(&p->end_ns, memory_order_acquire) ||
            atomic_load_explicit(&p->told, memory_order_acquire) > 0 || !tv_expected(p))
            continue;
        untold++;
        if (!write)
            continue;
        /* what the counters knew of it; the heap used is the notification's only (ZGC's: its counters') */
        unsigned kind = !tv_vm.perf ? TRACE_GC_UNKNOWN : p->to[1] > p->from[1] ? TRACE_GC_FULL : TRACE_GC_YOUNG;
        const char *name = kind == TRACE_GC_UNKNOWN ? NULL : tv_vm.kind_names[kind == TRACE_GC_FULL];
        uint64_t collector = name ? trace_string_id(name, strlen(name)) : 0;
        uint64_t cause = tv_vm.perf && p->cause[0] ? trace_string_id(p->cause, strlen(p->cause)) : 0;
        atomic_store_explicit(&p->told, (uint32_t)tv_expected(p), memory_order_release);
        trace_meta(TRACE_EV_GC, (uint64_t[]){ n, kind, collector, cause, p->used, p->used });
    }
    return untold;
}

/* The session ends: the notifications of its last collections, which the
 * JVM sends some time after each, are waited for (up to TV_SETTLE_MS; the
 * program may have just collected and exited); what is still untold is
 * written with what the counters knew of it, its heap used unknown. */
#define TV_SETTLE_MS 2000
void trace_vm_events_settle(void)
{
    const trace_state *ts = trace_live();
    if (!tv_jvm.env || !ts || !trace_wants(OPTIONS_TRACE_GC))
        return;
    uint64_t first = ts->vm.first, last = atomic_load_explicit(&tv_gc.gcs, memory_order_acquire);
    for (int ms = 0; ms < TV_SETTLE_MS && tv_jvm.listening && tv_untold(first, last, false); ms += 2)
        nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
    pthread_mutex_lock(&tv_gc.match_lock);
    tv_untold(first, last, true);
    pthread_mutex_unlock(&tv_gc.match_lock);
}

/* ---- receivers ---- */

uint64_t trace_receiver_id(const trace_state *ts, jobject self, trace_receivers *c)
{
    if (!self || !tv_jvm.env)
        return 0;
    uint64_t e1 = atomic_load_explicit(&tv_gc.epoch, memory_order_acquire);
    if (!ts->vm.cache_ok || (e1 & 1))
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
        if (atomic_load_explicit(&tv_gc.epoch, memory_order_relaxed) == e1)
            return id; /* no pause began since the address was read */
        return tv_object_id(self);
    }
    uint64_t id = tv_object_id(self);
    atomic_thread_fence(memory_order_acquire);
    if (id && a && atomic_load_explicit(&tv_gc.epoch, memory_order_relaxed) == e1) {
        c->addr[h] = a;
        c->id[h] = id;
    }
    return id;
}

/* ---- the object-reference report ---- */

#define TV_WALKS 3 /* the reference walk, made again while an object's class cannot be named */

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
        *tag_ptr = (jlong)atomic_fetch_add_explicit(&tv_jvm.next_object, 1, memory_order_relaxed);
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
        *referrer_tag_ptr = (jlong)atomic_fetch_add_explicit(&tv_jvm.next_object, 1, memory_order_relaxed);
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

static int tv_u64_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* The index of the first reference from id (refs sorted by from), or of the next object's. */
static size_t tv_walk_first_ref(const tv_walk *w, uint64_t id)
{
    size_t lo = 0, hi = w->nrefs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->refs[mid].from < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The Class object an object's class reference names (refs sorted by from), or 0. */
static uint64_t tv_walk_class_ref(const tv_walk *w, uint64_t id)
{
    for (size_t lo = tv_walk_first_ref(w, id); lo < w->nrefs && w->refs[lo].from == id; lo++)
        if (w->refs[lo].kind == JVMTI_HEAP_REFERENCE_CLASS)
            return w->refs[lo].to;
    return 0;
}

/* id as the entry of map (triples: old tag, class id, new tag; sorted) holds it */
static uint64_t tv_walk_renamed(const uint64_t *map, size_t n, uint64_t id)
{
    const uint64_t *at = n ? bsearch(&id, map, n, 3 * sizeof *map, tv_u64_cmp) : NULL;
    return at ? at[2] : id;
}

/* A renaming added to map (triples, see tv_walk_renamed): the Class object tagged old is class cls's. */
static void tv_walk_rename(uint64_t *map, size_t *n, uint64_t old, uint64_t cls)
{
    map[3 * *n] = old;
    map[3 * *n + 1] = cls;
    map[3 * *n + 2] = tv_class_tag(cls);
    ++*n;
}

/* How many objects have no class named, or are Class objects listed as plain objects. */
static size_t tv_walk_unnamed(const tv_walk *w, uint64_t class_class)
{
    size_t n = 0;
    for (size_t i = 0; i < w->nobjs; i++)
        n += w->objs[i].cls == 0 || (w->objs[i].kind != TRACE_OBJECT_CLASS && w->objs[i].cls == class_class);
    return n;
}

/* Some Class objects have no class tag when the walk meets them: those of
 * classes made after tv_tag_loaded (by another thread; an array class has
 * no class-load event) and those the JDK's archive holds for classes not
 * loaded yet. The walk (or an allocation event) gave them a plain object's
 * tag, so they were listed as objects and their objects got no class. They
 * are named now, given their class tag, and every mention of them in the
 * walk renamed: each object's class is known and each Class object listed
 * as one. Refs sorted by from, before and after. */
static void tv_walk_name_late_classes(JNIEnv *jni, tv_walk *w, uint64_t class_class)
{
    size_t n = tv_walk_unnamed(w, class_class);
    if (!n)
        return;
    uint64_t *mirror = malloc(n * sizeof *mirror), *map = malloc(n * 3 * sizeof *map);
    jlong *tags_in = malloc(n * sizeof *tags_in);
    bool *found = calloc(n, sizeof *found);
    size_t m = 0, got_n = 0;
    for (size_t i = 0; mirror && map && tags_in && found && i < w->nobjs; i++) {
        const tv_obj *o = &w->objs[i];
        uint64_t c = o->cls == 0 ? tv_walk_class_ref(w, o->id)
                     : o->kind != TRACE_OBJECT_CLASS && o->cls == class_class ? o->id
                                                                              : 0;
        if (c)
            mirror[m++] = c;
    }
    if (m) {
        qsort(mirror, m, sizeof *mirror, tv_u64_cmp);
        size_t u = 0;
        for (size_t i = 0; i < m; i++)
            if (!u || mirror[u - 1] != mirror[i])
                mirror[u++] = mirror[i];
        for (size_t i = 0; i < u; i++)
            tags_in[i] = (jlong)mirror[i];
        jint got = 0;
        jobject *objs = NULL;
        jlong *tags = NULL;
        jvmtiEnv *env = tv_jvm.env;
        if (u <= INT32_MAX &&
            (*env)->GetObjectsWithTags(env, (jint)u, tags_in, &got, &objs, &tags) == JVMTI_ERROR_NONE) {
            for (jint k = 0; k < got; k++) {
                uint64_t cls = tv_class_of((jclass)objs[k]), old = (uint64_t)tags[k];
                uint64_t *at = bsearch(&old, mirror, u, sizeof *mirror, tv_u64_cmp);
                if (at && cls) {
                    tv_walk_rename(map, &got_n, old, cls);
                    found[at - mirror] = true;
                }
                (*jni)->DeleteLocalRef(jni, objs[k]);
            }
            (*env)->Deallocate(env, (unsigned char *)objs);
            (*env)->Deallocate(env, (unsigned char *)tags);
        }
        for (size_t i = 0; i < u; i++) { /* those not found had been named by an event since the walk */
            uint64_t cls = found[i] ? 0 : tv_retag_find(mirror[i]);
            if (cls)
                tv_walk_rename(map, &got_n, mirror[i], cls);
        }
        jp_log_debug("trace: %zu Class objects the reference walk found untagged; %zu named after it", u, got_n);
    }
    if (got_n) {
        qsort(map, got_n, 3 * sizeof *map, tv_u64_cmp);
        for (size_t i = 0; i < w->nobjs; i++) { /* first each object's class, by the refs as they are */
            tv_obj *o = &w->objs[i];
            if (o->cls == 0) {
                uint64_t c = tv_walk_class_ref(w, o->id);
                const uint64_t *at = c ? bsearch(&c, map, got_n, 3 * sizeof *map, tv_u64_cmp) : NULL;
                if (at)
                    o->cls = at[1];
            }
        }
        for (size_t i = 0; i < w->nobjs; i++) {
            tv_obj *o = &w->objs[i];
            uint64_t id = tv_walk_renamed(map, got_n, o->id);
            if (id != o->id) {
                o->id = id;
                o->kind = TRACE_OBJECT_CLASS;
            }
        }
        for (size_t i = 0; i < w->nrefs; i++) {
            w->refs[i].from = tv_walk_renamed(map, got_n, w->refs[i].from);
            w->refs[i].to = tv_walk_renamed(map, got_n, w->refs[i].to);
        }
        qsort(w->refs, w->nrefs, sizeof *w->refs, tv_ref_cmp);
    }
    free(mirror);
    free(map);
    free(tags_in);
    free(found);
}

bool trace_object_references(JNIEnv *jni)
{
    if (!tv_jvm.env || !trace_thread_followed(jni))
        return false;
    /* Every loaded class is named before the walk, and the Class objects it
     * finds untagged after it (an archived class not loaded yet, a class made
     * meanwhile). One the VM held only while making it, gone since, cannot
     * be named: the walk is made again (object ids are tags: they stay). */
    uint64_t class_class = trace_class_id("java/lang/Class", 15);
    tv_walk w;
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = tv_walk_ref;
    jvmtiEnv *env = tv_jvm.env;
    bool ok = false;
    for (int attempt = 1;; attempt++) {
        tv_tag_loaded(jni, true);
        memset(&w, 0, sizeof w);
        ok = jvmti_check((*env)->FollowReferences(env, 0, NULL, NULL, &cb, &w), "FollowReferences(trace)") ==
                 JP_OK && !w.oom;
        if (!ok)
            break;
        qsort(w.refs, w.nrefs, sizeof *w.refs, tv_ref_cmp);
        tv_walk_name_late_classes(jni, &w, class_class);
        size_t left = tv_walk_unnamed(&w, class_class);
        if (!left || attempt == TV_WALKS)
            break;
        jp_log_debug("trace: %zu objects of the reference walk have no class named; walking again", left);
        free(w.objs);
        free(w.refs);
        free(w.seen);
    }
    if (ok) {
        ok = trace_thread_event(jni, TRACE_EV_REFERENCES, (uint64_t[]){ w.nobjs, w.nrefs });
        for (size_t i = 0; ok && i < w.nobjs; i++) {
            const tv_obj *o = &w.objs[i];
            ok = trace_thread_event(jni, TRACE_EV_OBJECT, (uint64_t[]){ o->id, o->kind, o->cls, o->size, o->length1 });
            for (size_t lo = tv_walk_first_ref(&w, o->id); ok && lo < w.nrefs && w.refs[lo].from == o->id; lo++)
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
