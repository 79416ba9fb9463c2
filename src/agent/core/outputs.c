/* outputs.c — see outputs.h. */
#include "outputs.h"

#include "../../native/perf_spec.h"

#include <stdio.h>
#include <string.h>

#include "../../common/jp_log.h"
#include "../heap/heap_dump.h"

size_t outputs_of(const agent_options *o, output out[OUTPUTS_MAX])
{
    size_t n = 0;
    bool profile = o->cpu != OPTIONS_CPU_OFF || o->monitor || o->wall_ms || o->heap_sites;
    bool dump_alone = (o->heap_dump && !o->heap_sites) || !profile; /* or trace= alone: no report either */
    const jp_format_ops *report = o->format == 'b' ? &hprof_bin_format : &hprof_txt_format;
    out[n++] = (output){ "file", dump_alone ? NULL : report, o->file, o->heap_dump && !dump_alone };
    if (o->flame[0])
        out[n++] = (output){ "flame", &flame_html_format, o->flame, false };
    if (o->collapsed[0])
        out[n++] = (output){ "collapsed", &collapsed_format, o->collapsed, false };
    if (o->pprof[0] && !dump_alone)
        out[n++] = (output){ "pprof", &pprof_format, o->pprof, false };
    if (o->jfr[0] && !dump_alone)
        out[n++] = (output){ "jfr", &jfr_format, o->jfr, false };
    return n;
}

void outputs_name(const char *path, unsigned n, char *out, size_t len)
{
    heap_dump_name(path, strstr(path, "%n") ? n : 1, out, len);
}

void outputs_plan(const agent_options *o, unsigned *reports, const char *to, jp_report *r)
{
    memset(r, 0, sizeof *r);
    buf_init(&r->kept);
    r->nout = outputs_of(o, r->outs);
    if (!r->outs[0].format) /* nothing profiled: the outputs made from a report are not written either */
        r->nout = 1;
    else /* %n in a name: the report's number in this session (1, 2, ...); without it each report replaces the last */
        r->number = ++*reports;
    if (r->outs[0].format && to[0]) { /* this report only, to that file, and nothing else */
        snprintf(r->path, sizeof r->path, "%s", to);
        r->nout = 1;
        r->outs[0].heap_dump_after = false;
    } else if (o->heap_dump) { /* a heap dump in file= (heap=all: the report and the dump in one file) */
        heap_dump_next_path(o->file, r->path, sizeof r->path);
    } else {
        outputs_name(r->outs[0].path, r->number, r->path, sizeof r->path);
    }
}

bool outputs_want_site_stacks(const agent_options *o)
{
    return (o->flame[0] || o->collapsed[0]) && o->heap_sites && !options_async_sampling(o);
}

report_opts outputs_report_opts(const agent_options *o)
{
    return (report_opts){ o->cutoff, o->cpu == OPTIONS_CPU_SAMPLES || o->wall_ms > 0, o->monitor,
                          o->cpu == OPTIONS_CPU_TIMES, o->heap_sites, NULL };
}

void outputs_prepare_model(const agent_options *o, model *m)
{
    /* how the reports describe the sampling the options ask for (the binary report's header records the
     * interval whatever collected; the text and flame graph say wall-clock or CPU) */
    m->wall = o->wall_ms > 0;
    m->interval_us = (o->wall_ms ? o->wall_ms : o->interval_ms) * 1000u;
    if (!o->wall_ms && !options_event_is_cpu(o)) {
        /* event=: samples stand for events, not time */
        perf_spec spec;
        char err[160];
        int rc = perf_spec_parse(o->event, &spec, err, sizeof err);
        if (rc > 0)
            perf_spec_breakpoint(&spec, o->event, 0);
        m->interval_us = 0;
        snprintf(m->sample_event, sizeof m->sample_event, "%s", o->event);
        m->event_period = options_given(o, OPTIONS_ID_INTERVAL) ? o->interval_ms
                          : rc >= 0                              ? perf_spec_default_period(&spec)
                                                                 : 1;
    }
    /* jfr=: the samples' real times, 16 bytes each, at most 8 MiB; later samples are spread evenly */
    m->sample_times_max = o->jfr[0] ? 1u << 19 : 0;
}

jp_status outputs_write(const output *out, const model *m, const report_opts *ro, const char *path,
                        uint64_t *bytes, buf *kept)
{
    char err[1024];
    sink *s = kept ? sink_open_memory(kept) : sink_open_file(path, 0, err, sizeof err);
    if (!s)
        return jp_error(JP_ERR_IO, "%s", kept ? "out of memory" : err);
    jp_status st = out->format->write(m, ro, s);
    if (st != JP_OK) {
        sink_abort(s);
        return jp_error(st, "cannot write %s: %s", path, jp_status_name(st));
    }
    *bytes = sink_bytes(s);
    st = sink_commit(s, err, sizeof err);
    if (st != JP_OK)
        return jp_error(st, "%s", err);
    return JP_OK;
}
