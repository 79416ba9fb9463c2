/* agent_env.h — what the agent's modules share for the JVM's life (the JVM,
 * the agent's JVMTI environment, whether a session started late, whether
 * VM death has begun, the agent's own thread, never sampled, registered or
 * counted), the running session's options for the modules not yet handed the
 * session, and the monotonic and wall clocks every collector uses. It
 * depends on nothing else of the agent, so every module may use it. */
#ifndef AGENT_ENV_H
#define AGENT_ENV_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../options/options.h"

/* The agent in this JVM. Global, for the JVM's life: set at load (or at the
 * first attach) and by the sessions, and read by every module, from JVMTI
 * callbacks, hooks and the agent thread that no session is handed to. */
extern struct agent_jvm {
    JavaVM *vm;
    jvmtiEnv *jvmti;       /* the agent's JVMTI environment */
    /* True for a session started in a running JVM (session_start), false for the
     * one given at load, which starts at VM init: a collector that starts late
     * finds classes loaded and threads running that it never saw begin. Once
     * true it stays so: every later session starts late (jp_session.at_load). */
    bool late_start;
    /* True once VM death has begun (HotSpot has already stopped its concurrent
     * collectors' threads by then): set by the session, read with acquire. */
    bool vm_dying;
    jobject own_thread;    /* the agent thread (a global reference), the latest session's */
    bool jar_added;        /* jvmprof.jar is on the boot class path (agent_add_jar) */
} agent_jvm;

/* The names the modules read them by. */
#define agent_vm (agent_jvm.vm)
#define agent_jvmti (agent_jvm.jvmti)
#define agent_late_start (agent_jvm.late_start)
#define agent_vm_dying (agent_jvm.vm_dying)


/* The log level a session's options ask for (verbose=y: its info lines),
 * JVMPROF_DEBUG in the environment adding the debug ones. */
void agent_set_log_level(const agent_options *o);

uint64_t agent_now_ns(void);   /* CLOCK_MONOTONIC */
uint64_t agent_wall_ms(void);  /* CLOCK_REALTIME, ms since the epoch */
uint64_t agent_wall_ns_of(uint64_t mono_ns); /* the wall clock (ns since the epoch) at an agent_now_ns() time */

/* The agent thread (a global reference), set once it is created. */
/* jvmprof.jar (beside libjvmprof.so: the Tracker, jvmprof.Control, GcEvents, the probes' classes) on the
 * boot class path, once. Loaded at start-up, the agent adds it at once; attached to a running JVM, when a
 * session needs it (the JVM warns that class data sharing then covers only the boot loader). */
void agent_add_jar(void);
void agent_set_own_thread(jobject thread);
/* True for the agent's own thread. */
bool agent_is_own_thread(JNIEnv *jni, jthread thread);

#endif
