/* cli_report.c — jvmprof report FILE [--cutoff X] [-o OUT]: the HPROF ASCII
 * report of an HPROF binary file (format=b), written by the same writer as
 * the agent's format=a; with --methods [--top N] [--prefix P] only its
 * per-method view (method_rows.c), the top N methods by self, of the classes
 * whose name starts with P. */
#include "cli_commands.h"

#include "../common/file_map.h"
#include "../format/format.h"
#include "../model/model.h"
#include "cli_common.h"

typedef struct cli_report_methods_ctx {
    const model *m;
    const cli_args *a;
    bool times;          /* cpu=times' time, not samples */
} cli_report_methods_ctx;

static jp_status cli_report_methods(sink *s, const void *vctx)
{
    const cli_report_methods_ctx *ctx = vctx;
    char when[64];
    hprof_txt_time(ctx->m->dump_time_ms, when);
    return method_rows_write(ctx->m, ctx->times, &(method_filter){ ctx->a->cutoff, ctx->a->top, ctx->a->prefix }, when, s);
}

#define CLI_REPORT_USAGE "FILE [--cutoff X] [-o OUT] [--methods [--top N] [--prefix CLASS-PREFIX]]"

int cli_report(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse("report", CLI_REPORT_USAGE,
                       CLI_OPT_CUTOFF | CLI_OPT_OUT | CLI_OPT_METHODS | CLI_OPT_TOP | CLI_OPT_PREFIX, argc, argv, &a);
    if (rc)
        return rc;
    if (!a.methods && (a.given & (CLI_OPT_TOP | CLI_OPT_PREFIX))) {
        cli_error("report: --top and --prefix choose the rows of --methods; usage: jvmprof report %s", CLI_REPORT_USAGE);
        return 2;
    }
    size_t len = 0;
    const void *data = cli_map_file(a.in, &len);
    if (!data)
        return 1;
    if (cli_refuse_trace(a.in, data, len)) {
        file_unmap(data, len);
        return 1;
    }
    char err[512];
    report_opts ro;
    model *m = hprof_bin_read(data, len, &ro, err, sizeof err);
    file_unmap(data, len);
    if (!m) {
        cli_error("%s: %s", a.in, err);
        return 1;
    }
    ro.cutoff = a.cutoff;
    if (a.methods && !ro.cpu_samples && !ro.cpu_times) {
        cli_error("%s: no CPU or wall samples or CPU times to view by method (--methods needs a cpu=samples, wall= or "
                  "cpu=times profile)", a.in);
        model_free(m);
        return 1;
    }
    if (a.methods)
        rc = cli_output(a.out, "the method view", 0, cli_report_methods, &(cli_report_methods_ctx){ m, &a, !ro.cpu_samples });
    else
        rc = cli_write(m, &hprof_txt_format, &ro, a.out);
    model_free(m);
    return rc;
}
