/* collect_monitor.c — the monitor=y collector (see collect_monitor.h): the listener of
 * blocking.c, which records each contended monitor enter, Object.wait and
 * park, and its row for collectors.c. A record captures the stack and the
 * class of the monitor or park blocker as a JNI weak global reference; the
 * agent thread names the class, sorts the record into blocked or waiting,
 * and, for a park, drops the frames of the park machinery (Unsafe,
 * LockSupport, AbstractQueuedSynchronizer) from the top of the stack, which
 * is why a park captures MONITOR_PARK_EXTRA frames more than depth=. A
 * class unloaded by then is named like one whose name could not be had:
 * java.lang.Object.
 *
 * Virtual threads (JDK 21+): a wait of a virtual thread that stayed mounted
 * on its carrier from its start to its end (vthread.mounted_at before the
 * wait began) kept the carrier blocked: the virtual thread was pinned (a
 * native frame on its stack, or, before JDK 24, a monitor held). It counts
 * as blocked on the class "<pinned>" (as JFR's jdk.VirtualThreadPinned),
 * with the stack of the virtual thread without the frames of
 * java.lang.VirtualThread's parking code. With thread=y a virtual thread's
 * waits are named by it (sampler_vthreads.h), carrier kept when pinned. */
#include "collect_monitor.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../common/jp_log.h"
#include "../../model/recording.h"
#include "../core/agent_env.h"
#include "../core/blocking.h"
#include "../core/collector.h"
#include "../core/symbols.h"
#include "../core/eventq.h"
#include "../core/jvmti_util.h"
#include "../sampling/sampler_vthreads.h"
#include "../core/thread_registry.h"
#include "../core/ticks.h"
#include "../core/vthreads.h"

#define MONITOR_PARK_EXTRA 8u

/* The session's part (JP_PART_MONITOR). */
typedef struct monitor_state {
    _Atomic uint64_t cost;      /* ns spent in monitor_record, all threads */
    uint64_t started;           /* the session's start, in ticks: a wait begun before is not ours */
    double ns_per_tick;
    uint32_t depth;             /* depth= */
    bool thread;                /* thread=y */
    bool lineno;                /* lineno=y */
} monitor_state;

/* The running session's part, for what no hook hands the session: blocking.c's listener
 * (monitor_record, on the thread that waited), the events' apply on the agent thread and
 * monitor_cost_ns (the report's cost line). Set at start, cleared at end (the listener is
 * off since stop, and the gate has let the last one leave). */
static monitor_state *_Atomic monitor_live;

uint64_t monitor_cost_ns(void)
{
    monitor_state *ms = atomic_load_explicit(&monitor_live, memory_order_acquire);
    return ms ? atomic_load_explicit(&ms->cost, memory_order_relaxed) : 0;
}

/* One contention, wait or park: how long, the class of the monitor or
 * blocker (a weak global reference, NULL when there was none or it could not
 * be had; the event owns it) and where, top first. */
typedef struct monitor_event {
    eventq_event head;
    uint64_t duration_ns;
    uint64_t end_ns;            /* agent_now_ns() when it ended: record=y's time */
    jweak cls;
    blocking_kind kind;
    bool virt, pinned;          /* a virtual thread's wait; it kept its carrier (who.carrier) blocked */
    sampler_vthread who;
    char vname[64];             /* its name */
    uint32_t nframes;
    jvmtiFrameInfo frames[];
} monitor_event;

/* A park on a lock (blocked) or on anything else (waiting): a lock is an
 * AbstractQueuedSynchronizer or AbstractQueuedLongSynchronizer (ReentrantLock,
 * ReentrantReadWriteLock, Semaphore...; not CountDownLatch's, which waits for
 * an event) or a StampedLock. */
static bool monitor_park_is_lock(JNIEnv *jni, jweak cls)
{
    if (!cls || !jni)
        return false;
    jclass k = (*jni)->NewLocalRef(jni, cls);
    bool lock = false;
    for (int depth = 0; k && !lock && depth < 32; depth++) {
        char *sig = NULL;
        if ((*agent_jvmti)->GetClassSignature(agent_jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE && sig) {
            if (depth == 0 && strcmp(sig, "Ljava/util/concurrent/CountDownLatch$Sync;") == 0) {
                jvmti_free(sig);
                break;
            }
            lock = strcmp(sig, "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer;") == 0 ||
                   strcmp(sig, "Ljava/util/concurrent/locks/AbstractQueuedLongSynchronizer;") == 0 ||
                   strcmp(sig, "Ljava/util/concurrent/locks/StampedLock;") == 0;
        }
        jvmti_free(sig);
        jclass super = (*jni)->GetSuperclass(jni, k);
        (*jni)->DeleteLocalRef(jni, k);
        k = super;
    }
    if (k)
        (*jni)->DeleteLocalRef(jni, k);
    return lock;
}

/* A frame of the park machinery, above the code that asked for the lock or
 * wait: Unsafe, LockSupport, the synchronizers' insides (and their
 * ConditionObject, so a queue's take() comes first), and ForkJoinPool's
 * managed blocking, which a Condition's await goes through. */
static bool monitor_park_frame(jmethodID method)
{
    static const char aqs[] = "Ljava/util/concurrent/locks/AbstractQueued";
    jclass k = NULL;
    char *sig = NULL, *name = NULL;
    bool machinery = false;
    if ((*agent_jvmti)->GetMethodDeclaringClass(agent_jvmti, method, &k) == JVMTI_ERROR_NONE &&
        (*agent_jvmti)->GetClassSignature(agent_jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE && sig) {
        machinery = strcmp(sig, "Ljdk/internal/misc/Unsafe;") == 0 ||
                    strcmp(sig, "Ljava/util/concurrent/locks/LockSupport;") == 0 ||
                    strncmp(sig, aqs, sizeof aqs - 1) == 0;
        if (!machinery && strcmp(sig, "Ljava/util/concurrent/ForkJoinPool;") == 0 &&
            (*agent_jvmti)->GetMethodName(agent_jvmti, method, &name, NULL, NULL) == JVMTI_ERROR_NONE && name)
            machinery = strcmp(name, "managedBlock") == 0 || strcmp(name, "unmanagedBlock") == 0;
    }
    jvmti_free(sig);
    jvmti_free(name);
    return machinery;
}

/* A frame of java.lang.VirtualThread (its park on the carrier, when pinned). */
static bool monitor_vthread_frame(jmethodID method)
{
    jclass k = NULL;
    char *sig = NULL;
    bool vt = (*agent_jvmti)->GetMethodDeclaringClass(agent_jvmti, method, &k) == JVMTI_ERROR_NONE &&
              (*agent_jvmti)->GetClassSignature(agent_jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE && sig &&
              strcmp(sig, "Ljava/lang/VirtualThread;") == 0;
    jvmti_free(sig);
    return vt;
}

/* Agent thread: one contention, wait or park, into the model (its class named now). */
static bool monitor_apply(model *m, JNIEnv *jni, eventq_event *e)
{
    monitor_event *me = (monitor_event *)e;
    const monitor_state *ms = atomic_load_explicit(&monitor_live, memory_order_acquire);
    if (!ms) { /* (never: the events are applied before the session's end) */
        if (me->cls && jni)
            (*jni)->DeleteWeakGlobalRef(jni, me->cls);
        return false;
    }
    char *sig = symbols_class_signature(jni, me->cls);
    model_monitor_kind kind = me->kind == BLOCKING_ENTER ? MONITOR_BLOCKED : MONITOR_WAITING;
    const jvmtiFrameInfo *frames = me->frames;
    uint32_t n = me->nframes;
    if (me->kind == BLOCKING_PARK) {
        if (monitor_park_is_lock(jni, me->cls))
            kind = MONITOR_BLOCKED;
        while (n > 1 && (monitor_park_frame(frames[0].method) || (me->pinned && monitor_vthread_frame(frames[0].method))))
            frames++, n--;
        if (n > ms->depth)
            n = ms->depth;
    }
    if (me->pinned)
        kind = MONITOR_BLOCKED; /* its carrier was */
    if (me->cls && jni)
        (*jni)->DeleteWeakGlobalRef(jni, me->cls);
    uint32_t serial = !ms->thread ? 0 : me->virt ? sampler_vthreads_serial(m, &me->who, me->vname) : e->thread;
    trace_id t;
    if (symbols_trace(m, jni, frames, n, serial, ms->lineno, &t)) {
        char cname[1024];
        if (me->pinned)
            snprintf(cname, sizeof cname, "<pinned>");
        else if (sig)
            symbols_class_name(sig, cname, sizeof cname);
        else
            snprintf(cname, sizeof cname, "%s", me->kind == BLOCKING_PARK && !me->cls ? "<no blocker>" : "java.lang.Object");
        monitor_id mon = model_monitor_intern(m, t, model_cstring(m, cname), kind);
        model_monitor_add(m, mon, 1, me->duration_ns);
        if (m->recording) {
            recording_event r = { agent_wall_ns_of(me->end_ns), me->duration_ns, e->thread, t.v, mon.v, 1,
                                  RECORDING_LOCK, (uint8_t)kind };
            recording_add(m->recording, &r);
        }
    }
    jvmti_free(sig);
    return false;
}

/* blocking.c's listener, on the thread that waited: one event queued. */
static void monitor_record(JNIEnv *jni, jthread thread, jobject object, blocking_kind kind, uint64_t begin,
                           uint64_t end)
{
    monitor_state *ms = atomic_load_explicit(&monitor_live, memory_order_acquire);
    if (!ms || begin < ms->started)
        return; /* it began before we were listening */
    jvmtiEnv *jv = agent_jvmti;
    uint64_t now = agent_now_ns();
    /* a virtual thread's wait, pinned when it never left its carrier */
    vthread *v = vthreads_mounted();
    bool pinned = v && v->mounted_at && v->mounted_at <= begin;
    uint32_t depth = ms->depth + (kind == BLOCKING_PARK && ms->depth ? MONITOR_PARK_EXTRA : 0);
    monitor_event *e = (monitor_event *)eventq_new(sizeof(monitor_event) + (size_t)depth * sizeof(jvmtiFrameInfo),
                                                   monitor_apply, thread_registry_serial(thread));
    if (!e)
        return;
    jclass klass = object ? (*jni)->GetObjectClass(jni, object) : NULL;
    if (klass) {
        e->cls = (*jni)->NewWeakGlobalRef(jni, klass);
        if (!e->cls && (*jni)->ExceptionCheck(jni))
            (*jni)->ExceptionClear(jni);   /* out of memory: named as unknown, the program not disturbed */
        (*jni)->DeleteLocalRef(jni, klass);
    }
    jint count = 0;
    if (depth > 0 && (*jv)->GetStackTrace(jv, NULL, 0, (jint)depth, e->frames, &count) != JVMTI_ERROR_NONE)
        count = 0;
    e->nframes = (uint32_t)count;
    e->kind = kind;
    e->virt = v != NULL;
    e->pinned = pinned;
    if (v) {
        e->who = (sampler_vthread){ atomic_load_explicit(&v->serial, memory_order_relaxed), v->index,
                                    pinned ? thread_record_self.serial : 0, v->java_id };
        char buf[64];
        snprintf(e->vname, sizeof e->vname, "%s", vthreads_name(v, buf, sizeof buf));
    }
    e->duration_ns = (uint64_t)((double)(end - begin) * ms->ns_per_tick);
    e->end_ns = now;
    eventq_push(&e->head);
    atomic_fetch_add_explicit(&ms->cost, agent_now_ns() - now, memory_order_relaxed);
}

static bool monitor_wanted(const agent_options *o) { return o->monitor; }

/* Nothing to do: having a hook turns virtual threads on (JDK 21+), so that a wait knows its virtual thread. */
static void monitor_vthread_mount(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)session;
    (void)jni, (void)v;
}

static jp_status monitor_start(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    monitor_state *ms = session_part(session, JP_PART_MONITOR, sizeof *ms);
    if (!ms)
        return JP_ERR_NOMEM;
    ms->depth = session->opts->depth;
    ms->thread = session->opts->thread;
    ms->lineno = session->opts->lineno;
    ms->ns_per_tick = ticks_ns_per_tick();
    ms->started = ticks_now();
    atomic_store_explicit(&monitor_live, ms, memory_order_release);
    blocking_listen(monitor_record);
    blocking_use(true);
    if (!blocking_hooks_ready())
        jp_log_info("monitor=y: parks cannot be seen in this JVM: java.util.concurrent locks are not reported");
    return JP_OK;
}

static void monitor_stop(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    if (!atomic_load(&monitor_live))
        return; /* it did not start */
    blocking_use(false);
    blocking_listen(NULL);
}

static void monitor_end(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    atomic_store(&monitor_live, NULL); /* the session frees its part */
    sampler_vthreads_end(); /* the virtual threads' model threads were this session's model's */
}

/* its part of the cost line: the time spent recording */
static void monitor_cost_line(jp_session *session, char *out, size_t len)
{
    (void)session;
    snprintf(out, len, "monitor callbacks %.1f ms", (double)monitor_cost_ns() / 1e6);
}

const collector monitor_collector = {
    .name = "monitor=y",
    .wanted = monitor_wanted,
    .start = monitor_start,
    .stop = monitor_stop,
    .end = monitor_end,
    .cost = monitor_cost_line,
    .vthread_mount = monitor_vthread_mount,
};
