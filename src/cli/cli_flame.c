/* cli_flame.c — jvmprof flame FILE [-o OUT] [--title T] [--from T] [--to T]
 * (an HTML flame graph), jvmprof diff BEFORE AFTER (a differential one) and
 * jvmprof collapse FILE [-o OUT] [--from T] [--to T] (collapsed stacks): all
 * read an HPROF binary file (its CPU samples' traces become stacks, or
 * without samples its allocation sites, in bytes) or collapsed stacks into a
 * model's stack table, and differ only in the writer. --from/--to keep the
 * samples taken in that window (times after the profile's start), which a
 * file of record=y carries (SAMPLE TIMES); the flame graph of a file with
 * sample times has a timeline. */
#include "cli_commands.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../common/file_map.h"
#include "../format/format.h"
#include "../model/model.h"
#include "cli_common.h"

/* Keeps the samples of m taken from from_ms to to_ms (0: the end) after the profile's start; false after a
 * one-line message when m has no sample times. */
static bool cli_flame_window(model *m, const char *path, const cli_args *a)
{
    if (!m->sample_times_len || m->sample_times_max != UINT32_MAX) {
        cli_error("%s has no sample times to cut --from/--to by: write it with record=y and format=b (an HPROF "
                  "binary file of the agent's with its SAMPLE TIMES)", path);
        return false;
    }
    uint64_t start_ns = m->start_time_ms * 1000000u;
    uint64_t to_ns = (a->given & CLI_OPT_TO) ? start_ns + a->to_ms * 1000000u : UINT64_MAX;
    model_sample_times_keep(m, start_ns + a->from_ms * 1000000u, to_ns);
    return true;
}

/* Reads FILE into a model with a stack table: an HPROF binary file (its CPU
 * samples' traces become stacks) or collapsed stacks, told apart by the
 * header; with a (--from/--to given), only the samples of that window. NULL
 * after a one-line message. */
static model *cli_flame_read_stacks(const char *path, const cli_args *a)
{
    size_t len = 0;
    const void *data = cli_map_file(path, &len);
    if (!data)
        return NULL;
    report_opts ro;
    bool hprof;
    model *m = cli_read_model(path, data, len, &ro, &hprof);
    file_unmap(data, len);
    bool window = a && (a->given & (CLI_OPT_FROM | CLI_OPT_TO));
    if (m && window && !cli_flame_window(m, path, a)) {
        model_free(m);
        return NULL;
    }
    if (m && window) { /* the window's samples only, never the allocation sites in their place */
        if (trace_stacks_build(m) != JP_OK) {
            model_free(m);
            cli_error("%s: out of memory", path);
            return NULL;
        }
        if (m->total_stack_samples == 0 && (a->given & CLI_OPT_TO))
            cli_error("warning: %s has no samples from %.3f s to %.3f s after its start; the output is empty", path,
                      a->from_ms / 1000.0, a->to_ms / 1000.0);
        else if (m->total_stack_samples == 0)
            cli_error("warning: %s has no samples after %.3f s from its start; the output is empty", path,
                      a->from_ms / 1000.0);
        return m;
    }
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
    unsigned window = CLI_OPT_FROM | CLI_OPT_TO;
    int rc = html ? cli_parse(cmd, "FILE [-o OUT] [--title T] [--from T] [--to T]", CLI_OPT_OUT | CLI_OPT_TITLE | window,
                              argc, argv, &a)
                  : cli_parse(cmd, "FILE [-o OUT] [--from T] [--to T]", CLI_OPT_OUT | window, argc, argv, &a);
    if (rc)
        return rc;
    model *m = cli_flame_read_stacks(a.in, &a);
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
    model *before = cli_flame_read_stacks(files[0], NULL);
    model *after = before ? cli_flame_read_stacks(files[1], NULL) : NULL;
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
