/* trace_text.h — a jvmprof trace file as text (`jvmprof trace FILE`): one
 * event per line, all threads merged in time order, with the names of
 * methods, classes and threads the file's metadata gives; or as Chrome's
 * Trace Event Format (`--chrome`). Pure C over the file's bytes and a sink. */
#ifndef TRACE_TEXT_H
#define TRACE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/jp_error.h"
#include "../format/sink.h"
#include "trace_file.h"

typedef struct trace_text_filter {
    uint32_t thread;        /* 0: every thread */
    uint64_t types;         /* bit 1 << type; 0: every type */
    const char *method;     /* method events whose "pkg.Class.method" holds this; NULL: all events */
    uint64_t from_ns, to_ns; /* time window since the trace began; to_ns 0: no end */
} trace_text_filter;

typedef struct trace_text_summary {
    uint64_t events, printed, chunks;
    bool stopped;           /* the file was cut short or damaged: why says where */
    char why[200];
} trace_text_summary;

/* JP_ERR_FORMAT (why) if data is no trace; otherwise the events up to where
 * the file can be read, and sum says whether that was its end. */
jp_status trace_text_write(const void *data, size_t len, const trace_text_filter *f, sink *s,
                           trace_text_summary *sum, char *why, size_t whylen);
/* The same events in Chrome's Trace Event Format (JSON: Perfetto, chrome://tracing,
 * speedscope): each call a B/E pair on its thread's track, named
 * pkg.Class.method, with its signature and depth (an exception's exit says
 * so); user and other events as instants; thread names as metadata. */
jp_status trace_chrome_write(const void *data, size_t len, const trace_text_filter *f, sink *s,
                             trace_text_summary *sum, char *why, size_t whylen);
/* The n slowest calls (those the filter keeps, by their method, thread and
 * time), slowest first: duration, start, thread, the method and up to 15 of
 * its callers. */
jp_status trace_slowest_write(const void *data, size_t len, const trace_text_filter *f, size_t n, sink *s,
                              trace_text_summary *sum, char *why, size_t whylen);

/* The exact call tree of the calls (the filter's thread and time window
 * apply) as collapsed stacks: "[thread];pkg.Class.method;... ns" per path
 * of calls, ns its time less its callees' (flamegraph.pl's input; jvmprof
 * trace --flame draws it). Whole calls (mintime=) nest by their times. */
jp_status trace_collapsed_write(const void *data, size_t len, const trace_text_filter *f, sink *s,
                                trace_text_summary *sum, char *why, size_t whylen);

#endif
