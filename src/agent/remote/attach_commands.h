/* attach_commands.h — what `jvmprof start|stop|dump|reset|status|heapdump
 * PID` ask of the agent, through HotSpot's attach mechanism
 * (src/cli/hotspot_attach.c): each request is one load of the library,
 * whose Agent_OnAttach hands its options here, on the JVM's attach listener
 * thread. The request names a file the command created, and the agent
 * writes its answer there. */
#ifndef ATTACH_COMMANDS_H
#define ATTACH_COMMANDS_H

#include <jni.h>

#include "../../common/attach_protocol.h" /* the request's and the answer's form */

/* Carries out one request (options not starting with ATTACH_REQUEST_MAGIC:
 * a session to start with them, as `jcmd PID JVMTI.agent_load` gives them;
 * its answer on stderr). Returns JNI_OK: the answer says how it went. */
jint attach_command(JNIEnv *jni, const char *request);

/* The answer to a request that cannot run yet: "error: WHY" in its answer's file (a jcmd request: the line
 * on the JVM's stderr); JNI_OK. */
jint attach_refuse(const char *request, const char *why);

#endif
