/* cli_convert.c — jvmprof convert FILE --TO OUT: a file jvmprof writes, in
 * another format it writes, by the writers the agent uses. FILE: an HPROF
 * binary report (format=b) or collapsed stacks (ours, async-profiler's,
 * flamegraph.pl input), told apart by the header; a trace file (trace=)
 * becomes a JFR file of its timed events. TO: pprof, jfr, txt (the
 * HPROF ASCII report), collapsed, flame. A pair that cannot carry the data
 * (collapsed stacks have no traces for a report or a JFR file) is refused
 * in one line; a conversion that leaves data out says what, in one line per
 * kind of data, on stderr. */
#include "cli_commands.h"

#include <stdbool.h>
#include <string.h>

#include "../common/file_map.h"
#include "../format/format.h"
#include "../trace/trace_file.h"
#include "../model/model.h"
#include "cli_common.h"

#define CLI_CONVERT_USAGE "jvmprof convert FILE --pprof|--jfr|--txt|--collapsed|--flame OUT (FILE: an HPROF binary " \
                          "report, format=b, or collapsed stacks)"

static const struct {
    const char *flag;
    const jp_format_ops *fmt;
    bool stacks;                 /* drawn from the stack table (made from the traces of a report) */
} cli_convert_targets[] = {
    { "--pprof", &pprof_format, false }, { "--jfr", &jfr_format, false }, { "--txt", &hprof_txt_format, false },
    { "--collapsed", &collapsed_format, true }, { "--flame", &flame_html_format, true },
};

/* What the target leaves out of this input, one line each (NULL-ended). */
static void cli_convert_drops(const model *m, const report_opts *ro, bool hprof, const jp_format_ops *fmt,
                              const char *out)
{
    const char *drops[8] = { NULL };
    int n = 0;
    if (hprof && (fmt == &collapsed_format || fmt == &flame_html_format)) {
        drops[n++] = "the frames' line numbers (a flame graph merges a method's lines)";
        if (model_site_count(m) && !m->stacks_alloc)
            drops[n++] = "the allocation sites (only the CPU samples' traces are drawn)";
        if (m->stacks_alloc)
            drops[n++] = "the sites' object counts and live bytes (the stacks are the bytes allocated)";
        if (ro->cpu_times)
            drops[n++] = "the CPU times (cpu=times: only samples are drawn; --pprof and --txt carry them)";
        if (ro->monitor)
            drops[n++] = "the monitor times (monitor=y: only samples are drawn; --pprof and --txt carry them)";
    }
    if (hprof && fmt == &jfr_format) {
        uint64_t timed = 0; /* record=y's SAMPLE TIMES: the samples the recording kept, at their times */
        for (uint32_t i = 0; i < m->sample_times_len; i++)
            timed += m->sample_times[i].weight;
        if (ro->cpu_samples && m->total_samples && !timed)
            drops[n++] = "the samples' times (a report counts them; they are spread evenly over the recording)";
        else if (ro->cpu_samples && m->total_samples > timed)
            drops[n++] = "the times of the samples the recording of record=y no longer held (spread evenly over the "
                         "recording)";
        if (ro->cpu_times)
            drops[n++] = "the CPU times (cpu=times: a JFR file has no event for a method's measured time; --pprof "
                         "and --txt carry them)";
        if (model_site_count(m))
            drops[n++] = "the sites' live objects and object counts (an allocation sample has only its bytes)";
        bool carried = false;
        for (uint32_t i = 0; i < m->threads_cap && !carried; i++)
            carried = m->threads[i].known && m->threads[i].virtual_thread && m->threads[i].carrier;
        if (carried && ro->cpu_samples && m->total_samples)
            drops[n++] = "the virtual threads' carriers in their samples (a JFR sample has no field for one; "
                         "--pprof and --txt carry them)";
    }
    if (hprof && fmt == &pprof_format && m->total_samples && !m->interval_us)
        drops[n++] = "the samples' time (the file does not give the sampling interval: only their counts, "
                     "sample type samples)";
    if (!hprof && fmt == &pprof_format)
        drops[n++] = "the frames' kinds (JIT-compiled, inlined, interpreted, native: pprof has no field for them)";
    for (int i = 0; i < n; i++)
        cli_error("note: %s does not carry %s", out, drops[i]);
}

typedef struct cli_jfr_trace_ctx {
    const void *data;
    size_t len;
    char *why;
    size_t cap;
} cli_jfr_trace_ctx;

static jp_status cli_convert_jfr_trace(sink *s, const void *vctx)
{
    const cli_jfr_trace_ctx *c = vctx;
    jp_status st = jfr_write_trace(c->data, c->len, s, c->why, c->cap);
    if (st != JP_OK)
        cli_error("%s", c->why);
    return st;
}

int cli_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int target = -1;
    for (int i = 0; i < argc; i++) {
        int t = -1;
        for (int k = 0; k < (int)(sizeof cli_convert_targets / sizeof cli_convert_targets[0]); k++)
            if (!strcmp(argv[i], cli_convert_targets[k].flag))
                t = k;
        if (t >= 0 && i + 1 < argc && target < 0) {
            target = t;
            out = argv[++i];
        } else if (argv[i][0] != '-' && !in) {
            in = argv[i];
        } else {
            cli_error("convert: unexpected '%s': expected %s", argv[i], CLI_CONVERT_USAGE);
            return 2;
        }
    }
    if (!in || !out) {
        cli_error("convert: expected %s", CLI_CONVERT_USAGE);
        return 2;
    }
    size_t len = 0;
    const void *data = cli_map_file(in, &len);
    if (!data)
        return 1;
    char err[512];
    report_opts ro;
    if (len >= 16 && memcmp(data, TRACE_FILE_MAGIC, 16) == 0) { /* a trace: its timed events, as a JFR file */
        if (cli_convert_targets[target].fmt != &jfr_format) {
            file_unmap(data, len);
            cli_error("%s: a trace file converts to --jfr (jvmprof trace reads it as text, --chrome, --flame)", in);
            return 1;
        }
        cli_jfr_trace_ctx ctx = { data, len, err, sizeof err };
        int rc = cli_output(out, "the JFR file", 0, cli_convert_jfr_trace, &ctx);
        file_unmap(data, len);
        return rc;
    }
    bool hprof;
    model *m = cli_read_model(in, data, len, &ro, &hprof);
    file_unmap(data, len);
    if (!m)
        return 1;
    const jp_format_ops *fmt = cli_convert_targets[target].fmt;
    if (!hprof && (fmt == &jfr_format || fmt == &hprof_txt_format)) {
        cli_error("%s: collapsed stacks have no traces to make %s of (convert an HPROF binary report)", in,
                  fmt == &jfr_format ? "a JFR file" : "an HPROF report");
        model_free(m);
        return 1;
    }
    if (hprof && cli_convert_targets[target].stacks && cli_report_stacks(m) != JP_OK) {
        cli_error("%s: out of memory", in);
        model_free(m);
        return 1;
    }
    if (fmt == &jfr_format && ro.cpu_samples && m->total_samples > JFR_SAMPLES_MAX) {
        cli_error("%s: %llu CPU samples; a JFR file has an event for each, at most %u (--pprof and --collapsed "
                  "carry counts)", in, (unsigned long long)m->total_samples, JFR_SAMPLES_MAX);
        model_free(m);
        return 1;
    }
    cli_convert_drops(m, &ro, hprof, fmt, out);
    int rc = cli_write(m, fmt, &ro, out);
    model_free(m);
    return rc;
}
