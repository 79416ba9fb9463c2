/* interval_upload.h — upload=: the agent thread's part. At each interval's
 * end (upload_interval=, on whole multiples of it since the epoch) it cuts
 * the recording's window since the previous end (recording_window.h), writes
 * it as a gzipped pprof profile in memory and hands the request built from
 * it (ingest_request.h) to the uploader's own thread (uploader.h), which
 * alone touches the network. Owned by the agent thread: called only there,
 * so the model is its to read. */
#ifndef INTERVAL_UPLOAD_H
#define INTERVAL_UPLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../../options/options.h"

typedef struct interval_upload interval_upload;

/* Starts upload= for a session whose recording began at start_ns (wall
 * clock, ns since the epoch). NULL when o asks for no upload, or when it
 * cannot start (logged). */
interval_upload *interval_upload_start(const agent_options *o, uint64_t start_ns);
/* True when an interval's end has passed (with a margin for the samples of
 * its last moments to be drained): the caller drains, then cuts. */
bool interval_upload_due(const interval_upload *iu, uint64_t now_ns);
/* Cuts every interval whose end has passed and hands each over. */
void interval_upload_cut(interval_upload *iu, model *m, uint64_t now_ns);
/* The status line (jvmprof status, and the log at the end). */
void interval_upload_describe(interval_upload *iu);
/* The end: the last interval (to now) handed over, a bounded wait for what
 * waits to be sent, the final counts logged; frees iu. */
void interval_upload_end(interval_upload *iu, model *m, uint64_t now_ns);

#endif
