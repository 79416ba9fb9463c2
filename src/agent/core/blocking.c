/* blocking.c — the waits of Java threads (see blocking.h): the hook
 * environment, the park and sleep wrappers, the monitor event callbacks, and
 * whom each wait is told to. */
#include "blocking.h"

#include <jvmti.h>
#include <stdatomic.h>
#include <string.h>

#include "../../common/jp_log.h"
#include "gate.h"
#include "jvmti_util.h"
#include "thread_record.h"
#include "ticks.h"

typedef void(JNICALL *blocking_park_fn)(JNIEnv *jni, jobject unsafe, jboolean absolute, jlong time);
typedef void(JNICALL *blocking_sleep_fn)(JNIEnv *jni, jclass cls, jlong time);

typedef void (*blocking_wait_fn)(uint64_t ticks);

/* The hook environment and what it found in the JVM. Global, for the JVM's
 * life: made once in Agent_OnLoad (or the first attach), a native is bound to
 * its wrapper once, and the wrappers and monitor callbacks run on the
 * program's threads with no session. */
static struct {
    jvmtiEnv *env;
    /* The JVM's functions behind the natives, set once each, before the native is bound to its wrapper. */
    blocking_park_fn park;
    blocking_sleep_fn sleep;
    _Atomic(jfieldID) blocker_field;   /* java.lang.Thread.parkBlocker, found on first use */
    _Atomic bool no_blocker_field;
} blocking_jvm;

/* Whom the waits are told to: set by the running session's collectors at
 * their start and cleared at their stop. Global because the hooks that read
 * them run on the program's threads with no session to ask. */
static struct {
    _Atomic int users;                    /* collectors that want the monitor events on */
    _Atomic(blocking_listener) listener;  /* monitor=y */
    _Atomic(blocking_wait_fn) on_wait;    /* cpu=times */
} blocking_told;

bool blocking_hooks_ready(void) { return blocking_jvm.park && blocking_jvm.sleep; }

void blocking_listen(blocking_listener l) { atomic_store_explicit(&blocking_told.listener, l, memory_order_release); }

void blocking_on_wait(void (*fn)(uint64_t ticks))
{
    atomic_store_explicit(&blocking_told.on_wait, fn, memory_order_release);
}

/* The calling thread waited `ticks`: told to cpu=times. */
static void blocking_count(uint64_t ticks)
{
    blocking_wait_fn fn = atomic_load_explicit(&blocking_told.on_wait, memory_order_acquire);
    if (fn)
        fn(ticks);
}

/* A wait of the calling thread is over: counted, and told to the listener.
 * A contended re-entry at the end of Object.wait is inside the wait, whose
 * own end counts it: it is told, not counted twice. */
static void blocking_done(JNIEnv *jni, jthread thread, jobject object, blocking_kind kind, uint64_t begin,
                          uint64_t end)
{
    if (!(kind == BLOCKING_ENTER && thread_record_self.blocking.wait_at))
        blocking_count(end - begin);
    blocking_listener l = atomic_load_explicit(&blocking_told.listener, memory_order_acquire);
    if (!l || !gate_enter())
        return;
    l = atomic_load_explicit(&blocking_told.listener, memory_order_acquire); /* a stop may have cleared it meanwhile */
    if (l)
        l(jni, thread, object, kind, begin, end);
    gate_leave();
}

/* The calling thread's park blocker (a local reference), or NULL. */
static jobject blocking_park_blocker(JNIEnv *jni)
{
    jthread self = NULL;
    if (atomic_load_explicit(&blocking_jvm.no_blocker_field, memory_order_relaxed) ||
        (*blocking_jvm.env)->GetCurrentThread(blocking_jvm.env, &self) != JVMTI_ERROR_NONE || !self)
        return NULL;
    jfieldID f = atomic_load_explicit(&blocking_jvm.blocker_field, memory_order_relaxed);
    if (!f) {
        jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
        f = tc ? (*jni)->GetFieldID(jni, tc, "parkBlocker", "Ljava/lang/Object;") : NULL;
        if (tc)
            (*jni)->DeleteLocalRef(jni, tc);
        if (!f) {
            (*jni)->ExceptionClear(jni);
            atomic_store(&blocking_jvm.no_blocker_field, true);
            jp_log_debug("java.lang.Thread has no parkBlocker field: parks are reported without their lock");
        } else {
            atomic_store_explicit(&blocking_jvm.blocker_field, f, memory_order_relaxed);
        }
    }
    jobject blocker = f ? (*jni)->GetObjectField(jni, self, f) : NULL;
    (*jni)->DeleteLocalRef(jni, self);
    return blocker;
}

/* jdk.internal.misc.Unsafe.park(boolean, long), wrapped. */
static void JNICALL blocking_park(JNIEnv *jni, jobject unsafe, jboolean absolute, jlong time)
{
    uint64_t begin = ticks_now();
    blocking_jvm.park(jni, unsafe, absolute, time);
    uint64_t end = ticks_now();
    if ((*jni)->ExceptionCheck(jni)) {   /* never, today; then it is the program's, untouched */
        blocking_count(end - begin);
        return;
    }
    jobject blocker =
        atomic_load_explicit(&blocking_told.listener, memory_order_relaxed) ? blocking_park_blocker(jni) : NULL;
    blocking_done(jni, NULL, blocker, BLOCKING_PARK, begin, end);
    if (blocker)
        (*jni)->DeleteLocalRef(jni, blocker);
}

/* java.lang.Thread.sleep(long) (sleep0 on JDK 19 to 21, sleepNanos0 from JDK 22), wrapped: counted only,
 * whether or not it was interrupted (the InterruptedException stays pending). */
static void JNICALL blocking_sleep(JNIEnv *jni, jclass cls, jlong time)
{
    uint64_t begin = ticks_now();
    blocking_jvm.sleep(jni, cls, time);
    blocking_count(ticks_now() - begin);
}

/* A native to hook: class, name, signature, where the JVM's function goes, the wrapper. */
typedef struct blocking_native {
    const char *cls, *name, *sig;
    void **jvm;
    void *wrapper;
} blocking_native;

static const blocking_native blocking_natives[] = {
    { "Ljdk/internal/misc/Unsafe;", "park", "(ZJ)V", (void **)&blocking_jvm.park, (void *)blocking_park },
    { "Ljava/lang/Thread;", "sleep", "(J)V", (void **)&blocking_jvm.sleep, (void *)blocking_sleep },
    { "Ljava/lang/Thread;", "sleep0", "(J)V", (void **)&blocking_jvm.sleep, (void *)blocking_sleep },
    { "Ljava/lang/Thread;", "sleepNanos0", "(J)V", (void **)&blocking_jvm.sleep, (void *)blocking_sleep },
};
#define BLOCKING_NATIVES (sizeof blocking_natives / sizeof blocking_natives[0])

static void JNICALL blocking_cb_bind(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jmethodID method, void *address,
                                     void **new_address)
{
    (void)jni, (void)thread;
    char *name = NULL, *sig = NULL, *csig = NULL;
    if ((*jv)->GetMethodName(jv, method, &name, &sig, NULL) != JVMTI_ERROR_NONE)
        return; /* the primordial phase: nothing we hook is bound then */
    for (size_t i = 0; i < BLOCKING_NATIVES; i++) {
        if (strcmp(name, blocking_natives[i].name) != 0 || strcmp(sig, blocking_natives[i].sig) != 0 ||
            address == blocking_natives[i].wrapper || *blocking_natives[i].jvm)
            continue;
        jclass k = NULL;
        if (!csig && ((*jv)->GetMethodDeclaringClass(jv, method, &k) != JVMTI_ERROR_NONE ||
                      (*jv)->GetClassSignature(jv, k, &csig, NULL) != JVMTI_ERROR_NONE))
            break;
        if (strcmp(csig, blocking_natives[i].cls) != 0)
            continue;
        *blocking_natives[i].jvm = address;
        *new_address = blocking_natives[i].wrapper;
        jp_log_debug("hooked %s.%s%s", blocking_natives[i].cls, name, sig);
        break;
    }
    jvmti_free(name);
    jvmti_free(sig);
    jvmti_free(csig);
    if (blocking_hooks_ready())
        (*jv)->SetEventNotificationMode(jv, JVMTI_DISABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, NULL);
}

static void JNICALL blocking_cb_contended_enter(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv, (void)jni, (void)thread, (void)object;
    thread_record_self.blocking.enter_at = ticks_now();
}

static void JNICALL blocking_cb_contended_entered(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jv;
    uint64_t end = ticks_now(), begin = thread_record_self.blocking.enter_at;
    thread_record_self.blocking.enter_at = 0;
    if (begin) /* else it began before the events were on */
        blocking_done(jni, thread, object, BLOCKING_ENTER, begin, end);
}

static void JNICALL blocking_cb_wait(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jlong timeout)
{
    (void)jv, (void)jni, (void)thread, (void)object, (void)timeout;
    thread_record_self.blocking.wait_at = ticks_now();
}

static void JNICALL blocking_cb_waited(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jboolean timed_out)
{
    (void)jv, (void)timed_out;
    uint64_t end = ticks_now(), begin = thread_record_self.blocking.wait_at;
    thread_record_self.blocking.wait_at = 0;
    if (begin)
        blocking_done(jni, thread, object, BLOCKING_WAIT, begin, end);
}

static const jvmtiEvent blocking_monitor_events[] = {
    JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, JVMTI_EVENT_MONITOR_WAIT,
    JVMTI_EVENT_MONITOR_WAITED
};

void blocking_use(bool on)
{
    if (!blocking_jvm.env)
        return;
    int before = atomic_fetch_add(&blocking_told.users, on ? 1 : -1);
    if (on ? before != 0 : before != 1)
        return;
    for (size_t i = 0; i < sizeof blocking_monitor_events / sizeof blocking_monitor_events[0]; i++)
        jvmti_check((*blocking_jvm.env)->SetEventNotificationMode(blocking_jvm.env, on ? JVMTI_ENABLE : JVMTI_DISABLE,
                                                                  blocking_monitor_events[i], NULL),
                    "SetEventNotificationMode(monitor events)");
}

void blocking_load(JavaVM *vm)
{
    if ((*vm)->GetEnv(vm, (void **)&blocking_jvm.env, JVMTI_VERSION_11) != JNI_OK) {
        blocking_jvm.env = NULL;
        return;
    }
    jvmtiEnv *jv = blocking_jvm.env;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_monitor_events = 1;
    if ((*jv)->AddCapabilities(jv, &caps) != JVMTI_ERROR_NONE) {
        jp_log_debug("the JVM refused monitor events: monitor=y and the waits of cpu=times are off");
        (*jv)->DisposeEnvironment(jv);
        blocking_jvm.env = NULL;
        return;
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.MonitorContendedEnter = blocking_cb_contended_enter;
    cb.MonitorContendedEntered = blocking_cb_contended_entered;
    cb.MonitorWait = blocking_cb_wait;
    cb.MonitorWaited = blocking_cb_waited;
    cb.NativeMethodBind = blocking_cb_bind;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_native_method_bind_events = 1;
    caps.can_generate_early_vmstart = 1;
    jvmtiPhase phase = JVMTI_PHASE_LIVE;
    (*jv)->GetPhase(jv, &phase);
    bool hooks = phase == JVMTI_PHASE_ONLOAD && (*jv)->AddCapabilities(jv, &caps) == JVMTI_ERROR_NONE;
    if (jvmti_check((*jv)->SetEventCallbacks(jv, &cb, (jint)sizeof cb), "SetEventCallbacks(blocking)") != JP_OK)
        return;
    if (hooks)
        hooks = (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, NULL) ==
                JVMTI_ERROR_NONE;
    if (!hooks)
        jp_log_debug("no park or sleep hooks: time parked or sleeping counts as running in cpu=times, and "
                     "monitor=y sees no java.util.concurrent locks");
}
