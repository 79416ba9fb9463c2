/* attach_protocol.h — what the `jvmprof` command and the agent agree on
 * for a request sent through HotSpot's attach mechanism (the command's
 * src/cli/cli_attach.c, the agent's src/agent/remote/attach_commands.c).
 * A request is the agent's options string: ATTACH_REQUEST_MAGIC, then the
 * command, the answer's file (as the JVM sees it) and the command's
 * argument, one line each. The answer, in that file: the lines to print,
 * then "ok" or "error: WHY". */
#ifndef ATTACH_PROTOCOL_H
#define ATTACH_PROTOCOL_H

/* The first line of a request. */
#define ATTACH_REQUEST_MAGIC "jvmprof-attach 1"

/* Why, while the JVM is starting: the jvmprof command tries again on this answer ("error: " before it). */
#define ATTACH_STARTING "the JVM is still starting up; try again in a moment"

#endif
