/* net_stream.h — net=HOST:PORT: a session's outputs also streamed, as they
 * are written, to a `jvmprof serve` (src/cli/cli_serve.c), which writes the
 * same files (docs/net-protocol.md). The local files are written as always.
 * The program never waits for the front end: outputs are queued (up to
 * NET_QUEUE_MAX bytes) for a thread of the agent that sends them; what
 * does not fit, or cannot be sent (the front end slow, gone, or never
 * there), is dropped and counted, and each report's COUNTS say so. */
#ifndef NET_STREAM_H
#define NET_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../core/session_ctx.h"

#define NET_QUEUE_MAX (32u << 20)

/* A session begins: with net=, its stream (its part JP_PART_NET) and sender thread start, and the thread
 * connects (in the background); nothing without net=. The calls below act on that session's stream, until
 * net_stream_stop (without one: nothing). */
void net_stream_start(jp_session *session);
/* A whole output file just written (a report, a flame graph): sent whole, replacing the one of its name. */
void net_stream_file(const char *path);
/* A file that grows (the trace, written through the descriptor written): what it has gained since the
 * last call sent (read through a descriptor of its own). */
void net_stream_grow(const char *path, int written);
/* The growing file is complete. */
void net_stream_grow_end(void);
/* The session ends: what is queued sent (waiting up to timeout_ms), then the connection closed and the
 * sender thread joined; the session may then free its part. */
void net_stream_stop(int timeout_ms);
/* The stream's counts into a report (bytes sent, dropped; why, if it broke). */
void net_stream_counts(model *m);

#endif
