/* monitor.c — the monitor=y collector (see monitor.h): its JVMTI callbacks,
 * which stamp and record, and its row for collectors.c. A record captures
 * the stack and the monitor's class as a JNI weak global reference; the
 * agent thread names the class when it applies the event (a class unloaded
 * by then is named like one whose name could not be had: java.lang.Object). */
#include "monitor.h"

#include <stdatomic.h>
#include <stdint.h>

#include "agent_env.h"
#include "collector.h"
#include "gate.h"
#include "symbols.h"
#include "eventq.h"
#include "jvmti_util.h"
#include "thread_record.h"
#include "thread_registry.h"

static _Atomic uint64_t monitor_cost;   /* ns spent in monitor_record, all threads */
static uint64_t monitor_started_ns;     /* the session's start: a stamp before it is an earlier session's */

uint64_t monitor_cost_ns(void) { return atomic_load_explicit(&monitor_cost, memory_order_relaxed); }

void monitor_contended_enter(void) { thread_record_self.monitor.enter_ns = agent_now_ns(); }
void monitor_wait(void) { thread_record_self.monitor.wait_ns = agent_now_ns(); }

/* One wait or contention: how long, the monitor's class (a weak global
 * reference, NULL when it could not be had; the event owns it) and where,
 * top first. */
typedef struct monitor_event {
    eventq_event head;
    uint64_t duration_ns;
    jweak cls;
    uint32_t nframes;
    jvmtiFrameInfo frames[];
} monitor_event;

/* Agent thread: one wait or contention, into the model (its class named now). */
static bool monitor_apply(model *m, JNIEnv *jni, eventq_event *e)
{
    monitor_event *me = (monitor_event *)e;
    char *sig = symbols_class_signature(jni, me->cls);
    if (me->cls && jni)
        (*jni)->DeleteWeakGlobalRef(jni, me->cls);
    trace_id t;
    if (symbols_trace(m, jni, me->frames, me->nframes, agent_opts->thread ? e->thread : 0, &t)) {
        char cname[1024];
        symbols_class_name(sig ? sig : "Ljava/lang/Object;", cname, sizeof cname);
        monitor_id mon = model_monitor_intern(m, t, model_cstring(m, cname));
        model_monitor_add(m, mon, 1, me->duration_ns);
    }
    jvmti_free(sig);
    return false;
}

static void monitor_record(JNIEnv *jni, jthread thread, jobject object, uint64_t since_ns)
{
    if (since_ns == 0 || since_ns < monitor_started_ns)
        return; /* the begin event came before we were listening */
    jvmtiEnv *jv = agent_jvmti;
    uint64_t now = agent_now_ns(), dt = now - since_ns;
    uint32_t depth = agent_opts->depth;
    monitor_event *e = (monitor_event *)eventq_new(sizeof(monitor_event) + (size_t)depth * sizeof(jvmtiFrameInfo),
                                                   monitor_apply, thread_registry_serial(thread));
    if (!e)
        return;
    jclass klass = (*jni)->GetObjectClass(jni, object);
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
    e->duration_ns = dt;
    eventq_push(&e->head);
    atomic_fetch_add_explicit(&monitor_cost, agent_now_ns() - now, memory_order_relaxed);
}

void monitor_contended_entered(JNIEnv *jni, jthread thread, jobject object)
{
    monitor_record(jni, thread, object, thread_record_self.monitor.enter_ns);
    thread_record_self.monitor.enter_ns = 0;
}

void monitor_waited(JNIEnv *jni, jthread thread, jobject object)
{
    monitor_record(jni, thread, object, thread_record_self.monitor.wait_ns);
    thread_record_self.monitor.wait_ns = 0;
}

static void JNICALL monitor_cb_contended_enter(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv, (void)jni, (void)thread, (void)object;
    if (!gate_enter())
        return;
    monitor_contended_enter();
    gate_leave();
}

static void JNICALL monitor_cb_contended_entered(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv;
    if (!gate_enter())
        return;
    monitor_contended_entered(jni, thread, object);
    gate_leave();
}

static void JNICALL monitor_cb_wait(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jlong timeout)
{
    (void)jv, (void)jni, (void)thread, (void)object, (void)timeout;
    if (!gate_enter())
        return;
    monitor_wait();
    gate_leave();
}

static void JNICALL monitor_cb_waited(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jboolean timed_out)
{
    (void)jv, (void)timed_out;
    if (!gate_enter())
        return;
    monitor_waited(jni, thread, object);
    gate_leave();
}

static bool monitor_wanted(const agent_options *o) { return o->monitor; }

static jp_status monitor_capabilities(jvmtiCapabilities *caps)
{
    caps->can_generate_monitor_events = 1;
    return JP_OK;
}

static void monitor_callbacks(jvmtiEventCallbacks *cb)
{
    cb->MonitorContendedEnter = monitor_cb_contended_enter;
    cb->MonitorContendedEntered = monitor_cb_contended_entered;
    cb->MonitorWait = monitor_cb_wait;
    cb->MonitorWaited = monitor_cb_waited;
}

static const jvmtiEvent monitor_events[] = { JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                             JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED };

static void monitor_events_on(bool on)
{
    for (size_t i = 0; i < sizeof monitor_events / sizeof monitor_events[0]; i++)
        jvmti_event(monitor_events[i], on);
}

static jp_status monitor_vm_init(JNIEnv *jni)
{
    (void)jni;
    monitor_started_ns = agent_now_ns();
    monitor_events_on(true);
    return JP_OK;
}

static void monitor_stop(JNIEnv *jni)
{
    (void)jni;
    monitor_events_on(false);
}

static void monitor_end(JNIEnv *jni)
{
    (void)jni;
    atomic_store(&monitor_cost, 0);
}

const collector monitor_collector = {
    .name = "monitor=y",
    .wanted = monitor_wanted,
    .capabilities = monitor_capabilities,
    .callbacks = monitor_callbacks,
    .start = monitor_vm_init,
    .stop = monitor_stop,
    .end = monitor_end,
};
