/* cli_flame.c — jvmprof flame FILE [-o OUT] [--title T] (an HTML flame graph),
 * jvmprof diff BEFORE AFTER (a differential one) and jvmprof collapse FILE
 * [-o OUT] (collapsed stacks): all read an HPROF
 * binary file (its CPU samples' traces become stacks, or without samples its
 * allocation sites, in bytes) or collapsed stacks
 * into a model's stack table, and differ only in the writer. */
#include "cli_commands.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../common/file_map.h"
#include "../format/format.h"
#include "../model/model.h"
#include "cli_common.h"

/* Reads FILE into a model with a stack table: an HPROF binary file (its CPU
 * samples' traces become stacks) or collapsed stacks, told apart by the
 * header. NULL after a one-line message. */
static model *cli_flame_read_stacks(const char *path)
{
    size_t len = 0;
    const void *data = cli_map_file(path, &len);
    if (!data)
        return NULL;
    report_opts ro;
    bool hprof;
    model *m = cli_read_model(path, data, len, &ro, &hprof);
    file_unmap(data, len);
    if (m && hprof && cli_report_stacks(m) != JP_OK) {
        model_free(m);
        cli_error("%s: out of memory", path);
        return NULL;
    }
    if (!m)
        return NULL;
    if (m->total_stack_samples == 0)
        cli_error("warning: %s has no CPU samples nor allocation sites; the output is empty", path);
    return m;
}

static int cli_flame_run(int argc, char **argv, bool html)
{
    cli_args a;
    const char *cmd = html ? "flame" : "collapse";
    int rc = html ? cli_parse(cmd, "FILE [-o OUT] [--title T]", CLI_OPT_OUT | CLI_OPT_TITLE, argc, argv, &a)
                  : cli_parse(cmd, "FILE [-o OUT]", CLI_OPT_OUT, argc, argv, &a);
    if (rc)
        return rc;
    model *m = cli_flame_read_stacks(a.in);
    if (!m)
        return 1;
    report_opts ro = { 0 };
    ro.title = a.title;
    rc = cli_write(m, html ? &flame_html_format : &collapsed_format, &ro, a.out);
    model_free(m);
    return rc;
}

int cli_flame(int argc, char **argv) { return cli_flame_run(argc, argv, true); }

int cli_collapse(int argc, char **argv) { return cli_flame_run(argc, argv, false); }

/* jvmprof diff BEFORE AFTER [-o OUT] [--title T]: AFTER's flame graph, each frame coloured by how its share
 * changed since BEFORE (flame_html_write_diff). */
typedef struct cli_flame_diff_ctx {
    const model *before, *after;
    const char *title;
} cli_flame_diff_ctx;

static jp_status cli_flame_diff_emit(sink *s, const void *vctx)
{
    const cli_flame_diff_ctx *c = vctx;
    return flame_html_write_diff(c->after, c->before, c->title, s);
}

int cli_diff(int argc, char **argv)
{
    const char *files[2] = { NULL, NULL }, *out = NULL, *title = NULL;
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--title") && i + 1 < argc)
            title = argv[++i];
        else if (argv[i][0] != '-' && nfiles < 2)
            files[nfiles++] = argv[i];
        else {
            cli_error("diff: unexpected '%s': expected jvmprof diff BEFORE AFTER [-o OUT] [--title T]", argv[i]);
            return 2;
        }
    }
    if (nfiles != 2) {
        cli_error("diff: expected jvmprof diff BEFORE AFTER [-o OUT] [--title T] (two files jvmprof flame reads)");
        return 2;
    }
    model *before = cli_flame_read_stacks(files[0]);
    model *after = before ? cli_flame_read_stacks(files[1]) : NULL;
    int rc = 1;
    if (before && after)
        rc = cli_output(out, "the differential flame graph", 0, cli_flame_diff_emit,
                        &(cli_flame_diff_ctx){ before, after, title });
    if (before)
        model_free(before);
    if (after)
        model_free(after);
    return rc;
}
