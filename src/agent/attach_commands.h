/* attach_commands.h — what `jvmprof start|stop|dump|reset|status|heapdump
 * PID` ask of the agent, through HotSpot's attach mechanism
 * (src/cli/hotspot_attach.c): each request is one load of the library,
 * whose Agent_OnAttach hands its options here, on the JVM's attach listener
 * thread. The request names a file the command created, and the agent
 * writes its answer there. */
#ifndef ATTACH_COMMANDS_H
#define ATTACH_COMMANDS_H

#include <jni.h>

/* The first line of a request; what follows: the command, the answer's
 * file, the command's argument (options, a file name), a line each. */
#define ATTACH_REQUEST_MAGIC "jvmprof-attach 1"

/* Carries out one request (options not starting with ATTACH_REQUEST_MAGIC:
 * a session to start with them, as `jcmd PID JVMTI.agent_load` gives them;
 * its answer on stderr). Returns JNI_OK: the answer says how it went. */
jint attach_command(JNIEnv *jni, const char *request);

/* The answer to a request that cannot run yet: "error: WHY" in its answer's file (a jcmd request: the line
 * on the JVM's stderr); JNI_OK. */
jint attach_refuse(const char *request, const char *why);

/* Why, while the JVM is starting: the jvmprof command tries again on this answer. */
#define ATTACH_STARTING "the JVM is still starting up; try again in a moment"

#endif
