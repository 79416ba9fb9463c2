/* outputs.h — where a report goes: one list of (option, format, path) made
 * from the options (file= in format=, then flame=, collapsed=, pprof=, jfr=) that both the
 * start-up check (session.c) and every report (profiler.c) iterate, so a new
 * output is one more entry here and one format (format.h); and how one
 * report is planned (its number, file='s name, jvmprof dump's file instead)
 * and each of its outputs written. A heap dump (heap=dump alone) is file='s
 * entry with no format: the heap dump collector (collect_heap_dump.c)
 * writes it. */
#ifndef OUTPUTS_H
#define OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/buf.h"
#include "../../common/jp_error.h"
#include "../../format/format.h"
#include "../../model/model.h"
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

/* One report being written (profiler.c), as its outputs and the collectors'
 * report hooks (collector.h) see it. */
typedef struct jp_report {
    output outs[OUTPUTS_MAX];    /* file='s first; its format NULL: nothing profiled, no report proper (and none
                                  * of the outputs made from one) */
    size_t nout;
    unsigned number;             /* the report's number in the session (%n in a name); 0 with no report proper */
    char path[OPTIONS_PATH_MAX + 16]; /* file='s name for this report */
    uint64_t bytes;              /* the report's size, as file='s output wrote it */
    buf kept;                    /* file='s report, made in memory (heap_dump_after): a collector writes the file */
    char line_also[64];          /* what the collectors add to file='s "wrote" line ("; and a heap dump") */
    bool collector_file;         /* a collector wrote (or tried to write) file= itself, with no report proper: that
                                  * file (a heap dump) is the report, with no lines of the report's own */
} jp_report;

/* A report of the options o: its outputs, its number (*reports counted up when there is a report proper),
 * file='s name: `to` (jvmprof dump PID FILE: that report alone, no other output, no heap dump after it) if
 * not "", else named like a heap dump when one goes to file= (heap_dump.h), else with %n its number.
 * Free r->kept after. */
void outputs_plan(const agent_options *o, unsigned *reports, const char *to, jp_report *r);
/* Whether an output of o draws the allocation sites' stacks (site_stacks_build): flame= and collapsed=
 * draw the sampler's stacks; without a sampler, heap=sites' allocation sites. */
bool outputs_want_site_stacks(const agent_options *o);
/* What the HPROF report of o holds (its sections, cutoff=). */
report_opts outputs_report_opts(const agent_options *o);
/* What the outputs of o need the model to say and keep as it is filled (the sampling's interval and
 * kind, as the reports describe them; jfr=: the samples' times). */
void outputs_prepare_model(const agent_options *o, model *m);
/* Writes output out of m with its format to path: to a temporary name, renamed when complete; or, with kept
 * not NULL, into kept (for a collector to write the file). Its size in *bytes. On failure the line is logged. */
jp_status outputs_write(const output *out, const model *m, const report_opts *ro, const char *path,
                        uint64_t *bytes, buf *kept);
/* A report output's name: %n replaced by the report's number n; without %n
 * the name itself (each report replaces the one before). */
void outputs_name(const char *path, unsigned n, char *out, size_t len);

#endif
