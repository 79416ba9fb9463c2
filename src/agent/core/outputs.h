/* outputs.h — where a report goes: one list of (option, format, path) made
 * from the options (file= in format=, then flame=, collapsed=, pprof=, jfr=) that both the
 * start-up check (agent.c) and every report (profiler.c) iterate, so a new
 * output is one more entry here and one format (format.h). A heap dump
 * (heap=dump alone) is file='s entry with no format: heap_dump.c writes it. */
#ifndef OUTPUTS_H
#define OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "../../format/format.h"
#include "../../options/options.h"

typedef struct output {
    const char *option;          /* "file", "flame", "collapsed" */
    const jp_format_ops *format; /* NULL: a heap dump (heap=dump alone) */
    const char *path;            /* %p expanded; a heap dump's %n not yet */
    bool heap_dump_after;        /* heap=all: a heap dump follows the report in the same file */
} output;

#define OUTPUTS_MAX 5

/* The outputs of o, file='s first; returns how many. */
size_t outputs_of(const agent_options *o, output out[OUTPUTS_MAX]);

#endif
