/* blocking.h — when a Java thread is off the CPU because it waits: blocked
 * entering a contended monitor, in Object.wait, parked (LockSupport, so every
 * java.util.concurrent lock, condition, queue and pool) or in Thread.sleep.
 *
 * It tells cpu=times, on the waiting thread, how many ticks (ticks.h) each
 * wait took, so that it can take them out of the methods the wait happened
 * in; and it tells one listener (monitor=y) of each monitor contention, wait
 * and park, with the object waited on.
 *
 * How it sees them: the JVMTI monitor events for monitors, and for park and
 * sleep, whose JVMTI events do not exist, it binds the natives
 * jdk.internal.misc.Unsafe.park and java.lang.Thread.sleep (sleep0 on JDK 19
 * to 21, sleepNanos0 from JDK 22) to wrappers that call the JVM's own functions between two
 * stamps. That takes its own JVMTI environment, made in Agent_OnLoad with the
 * early start phase (those natives are bound before VM init; the agent's
 * main environment keeps the normal phases, so class loading hooks see
 * nothing earlier than before). A JVM that refuses it (or an agent not
 * loaded at start-up) has no park or sleep hooks: those waits then count as
 * running time, and the log says so. */
#ifndef BLOCKING_H
#define BLOCKING_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/jp_error.h"

typedef enum blocking_kind {
    BLOCKING_ENTER,   /* blocked entering a contended monitor; object: the monitor */
    BLOCKING_WAIT,    /* in Object.wait; object: the monitor */
    BLOCKING_PARK,    /* parked; object: the park blocker (LockSupport.getBlocker), or NULL */
} blocking_kind;

/* Called on the waiting thread once its wait is over, inside the gate (gate.h),
 * begin and end in ticks. thread may be NULL (the current thread); object may
 * be NULL; both are local references valid for the call only. */
typedef void (*blocking_listener)(JNIEnv *jni, jthread thread, jobject object, blocking_kind kind,
                                  uint64_t begin, uint64_t end);

/* Agent_OnLoad: the hook environment and the park and sleep hooks. Never fails
 * the load: what cannot be had is only missing (blocking_hooks_ready). */
void blocking_load(JavaVM *vm);
/* Whether the park and sleep natives are hooked (false before they are bound). */
bool blocking_hooks_ready(void);
/* A collector's start (true) and stop (false): the monitor events are on
 * while at least one collector uses them. */
void blocking_use(bool on);
/* The listener (NULL: none), set by monitor=y at its start and cleared at its stop. */
void blocking_listen(blocking_listener l);
/* Called on the waiting thread with each wait's ticks once it is over, set by
 * cpu=times at its start and cleared at its stop (NULL). A contended re-entry
 * at the end of Object.wait is inside the wait and not told apart. */
void blocking_on_wait(void (*fn)(uint64_t ticks));

#endif
