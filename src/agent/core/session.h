/* session.h — a profiling session: options → start → running → stop →
 * report. One runs at a time. The session given at load (-agentpath and
 * JVMPROF_OPTIONS) starts at VM init and, unless stopped before, ends at VM
 * death with the last report; once a session is stopped, another may start
 * in the same JVM with other options (jvmprof.Control.start and stop). The
 * session owns its options (session_ctx.h: handed to every collector hook), the
 * collectors they turn on (collectors.h), its model and its agent thread
 * (profiler.h). */
#ifndef SESSION_H
#define SESSION_H

#include <jni.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../options/options.h"

/* Agent_OnLoad: the first session's options, already parsed into o (kept: the
 * session points at it). Checks its outputs can be written (with force=y a
 * flame= or collapsed= that cannot be is left out of o, after a line on
 * stderr), adds the JVMTI capabilities and callbacks its collectors need and
 * runs their load. On failure, a line in err and the status; JP_ERR_ARG for
 * an output that cannot be written (force=y lets the program run on without
 * profiling). */
jp_status session_load(agent_options *o, const char *text, char *err, size_t errlen);
/* VMInit: starts the session given at load (collectors, agent thread). */
void session_begin(JNIEnv *jni);
/* A new session with these options (HPROF's syntax) while none runs: the
 * same checks as at load, then started at once. On failure nothing runs and
 * err holds one line. JP_ERR_ARG: the options are refused (a bad option, an
 * output that cannot be written, a collector that can run only from load);
 * any other status: not now (a session already running, the agent inactive,
 * the JVM shutting down, a JVMTI capability this JVM does not grant now). */
jp_status session_start(JNIEnv *jni, const char *text, char *err, size_t errlen);
/* The same, and the started session's number (session_number) in *number. */
jp_status session_start_numbered(JNIEnv *jni, const char *text, uint64_t *number, char *err, size_t errlen);
/* Stops the running session: its events off, its report written (always:
 * stopping is asking for it), its state freed. False (and a line in err) when
 * none runs or its report failed; the session is stopped either way. */
bool session_stop(JNIEnv *jni, char *err, size_t errlen);
/* The same, only if the running session is number `number` (0: whichever
 * runs): a caller that started a session stops that one, never another
 * started since it was stopped otherwise. */
bool session_stop_numbered(JNIEnv *jni, uint64_t number, char *err, size_t errlen);
/* VM death: stops the running session, if any, and writes its last report
 * (doe=y, or one asked for that was not written yet). */
void session_vm_death(JNIEnv *jni);
/* True while a session runs (between its start and its stop). */
bool session_running(void);
/* The running session's number: 1, 2, ... in the order sessions started in
 * this JVM; 0 when none runs. */
uint64_t session_number(void);
/* The options of the running session, or of the last one that ran; NULL
 * while none has (the agent is not active: it could not start, or it was
 * attached and no session started yet). */
const agent_options *session_options(void);
/* A heap dump to path now, on the calling thread (Control.dumpHeap, jvmprof heapdump), taken as the
 * session's options say (heap_dump.h); while a session with heap=sites runs, its live sampled objects carry
 * their allocation traces (the agent thread lists them first). On failure err holds one line. */
jp_status session_heap_dump(JNIEnv *jni, const char *path, char *err, size_t errlen);
/* Agent_OnAttach, the first time (the agent loaded into a running JVM): the
 * core's callbacks and events, and the capability to re-instrument loaded
 * classes if the JVM grants it; then sessions start with session_start.
 * false (and a line in err) if JVMTI refuses. */
bool session_attach(char *err, size_t errlen);
/* The running session's options as given ("" for the defaults) and its
 * seconds since it started; false when none runs. */
bool session_describe(char *options, size_t cap, double *seconds);

#endif
