/* agent_env.h — what the agent's modules share after load: the JVMTI
 * environment and the options, both fixed once Agent_OnLoad has returned,
 * the agent's own thread (never sampled, registered or counted), and the
 * monotonic and wall clocks every collector uses. It depends on nothing else
 * of the agent, so every module may use it. */
#ifndef AGENT_ENV_H
#define AGENT_ENV_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../options/options.h"

extern JavaVM *agent_vm;
extern jvmtiEnv *agent_jvmti;
extern const agent_options *agent_opts;

/* True for a session started in a running JVM (session_start), false for the
 * one given at load, which starts at VM init: a collector that starts late
 * finds classes loaded and threads running that it never saw begin. */
extern bool agent_late_start;

/* True once VM death has begun (HotSpot has already stopped its concurrent
 * collectors' threads by then): set by the session, read with acquire. */
extern bool agent_vm_dying;

/* The log level a session's options ask for (verbose=y: its info lines),
 * JVMPROF_DEBUG in the environment adding the debug ones. */
void agent_set_log_level(const agent_options *o);

uint64_t agent_now_ns(void);   /* CLOCK_MONOTONIC */
uint64_t agent_wall_ms(void);  /* CLOCK_REALTIME, ms since the epoch */

/* The agent thread (a global reference), set once it is created. */
/* jvmprof.jar (beside libjvmprof.so: the Tracker, jvmprof.Control, GcEvents, the probes' classes) on the
 * boot class path, once. Loaded at start-up, the agent adds it at once; attached to a running JVM, when a
 * session needs it (the JVM warns that class data sharing then covers only the boot loader). */
void agent_add_jar(void);
void agent_set_own_thread(jobject thread);
/* True for the agent's own thread. */
bool agent_is_own_thread(JNIEnv *jni, jthread thread);

#endif
