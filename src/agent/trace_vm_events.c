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
#include <string.h>

#include "../common/jp_log.h"
#include "../format/trace_file.h"
#include "../options/options.h"
#include "agent_env.h"
#include "collect_trace.h"
#include "gate.h"
#include "jvmti_util.h"

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
        return what & OPTIONS_TRACE_GC;
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

/* The trace's id of a class, from its Class object's tag, or named and tagged now. */
static uint64_t tv_class_of(jclass klass)
{
    jlong tag = 0;
    if (!klass || (*tv_env)->GetTag(tv_env, klass, &tag) != JVMTI_ERROR_NONE)
        return 0;
    uint64_t t = (uint64_t)tag;
    if ((t & TV_CLASS_TAG) && ((t >> 32) & 0xffffu) == (tv_session & 0xffffu))
        return t & 0xffffffffu;
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
    uint64_t t = (uint64_t)tag;
    if (t & TV_CLASS_TAG) {
        if (((t >> 32) & 0xffffu) == (tv_session & 0xffffu) && trace_wants(OPTIONS_TRACE_CLASS))
            trace_vm_event(TRACE_EV_CLASS_UNLOAD, trace_now_ns(), (uint64_t[]){ t & 0xffffffffu });
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

jp_status trace_vm_events_load(unsigned what)
{
    if (!(what & (OPTIONS_TRACE_GC | OPTIONS_TRACE_FREE | OPTIONS_TRACE_ALLOC | OPTIONS_TRACE_CLASS |
                  OPTIONS_TRACE_MONITOR)))
        return JP_OK;
    jvmtiPhase phase = JVMTI_PHASE_LIVE;
    (*agent_jvmti)->GetPhase(agent_jvmti, &phase);
    if (!tv_env) {
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
        if (jvmti_check((*tv_env)->SetEventCallbacks(tv_env, &cb, (jint)sizeof cb), "SetEventCallbacks(trace)") !=
            JP_OK)
            return JP_ERR_JVMTI;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    caps.can_generate_garbage_collection_events = (what & OPTIONS_TRACE_GC) != 0;
    caps.can_generate_object_free_events = (what & (OPTIONS_TRACE_FREE | OPTIONS_TRACE_CLASS)) != 0;
    caps.can_generate_sampled_object_alloc_events = (what & OPTIONS_TRACE_ALLOC) != 0;
    caps.can_generate_monitor_events = (what & OPTIONS_TRACE_MONITOR) != 0;
    jvmtiError e = (*tv_env)->AddCapabilities(tv_env, &caps);
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

/* Classes loaded before the trace began are tagged, so their unloads are seen (they get no class-load). */
static void tv_tag_loaded(JNIEnv *jni)
{
    jint n = 0;
    jclass *classes = NULL;
    if ((*tv_env)->GetLoadedClasses(tv_env, &n, &classes) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        jint status = 0;
        if ((*tv_env)->GetClassStatus(tv_env, classes[i], &status) == JVMTI_ERROR_NONE &&
            (status & JVMTI_CLASS_STATUS_PREPARED) && !(status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)))
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
    if (what & OPTIONS_TRACE_GC)
        tv_listen(jni);
    if (what & OPTIONS_TRACE_CLASS)
        tv_tag_loaded(jni);
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
