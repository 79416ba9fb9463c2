/* cli_common.h — what the jvmprof command's subcommands share (cli_common.c):
 * the one-line error message, the argument parser, the input file's map, and
 * the output (stdout, or a file written atomically, never over the input).
 * Each subcommand is one file, cli_<name>.c, declared in cli_commands.h. */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/jp_error.h"
#include "../format/format.h"
#include "../format/sink.h"

/* Prints "jvmprof: <message>" to stderr on one line. A message may quote
 * input (a line of a collapsed file, a file name): bytes that are not valid
 * UTF-8, and control characters, are shown as \xNN instead of being sent raw
 * to the terminal. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A time of a window (jvmprof dump, jvmprof flame): a number with ms, s, m or h (a bare number is
 * seconds), in ms; false if not one. */
bool cli_duration_ms(const char *text, unsigned long long *ms);

/* Maps FILE read-only; NULL after a one-line message. */
const void *cli_map_file(const char *path, size_t *len);

/* The arguments of a subcommand: FILE and the options in `allowed`
 * (CLI_OPT_*: -o, --cutoff with the agent's cutoff= default, --title, --top
 * with 30 by default, --text, --fix, --methods, --prefix, --from T and --to T: times as
 * cli_duration_ms reads them, --to after --from). Returns 0, or the exit code 2 after a
 * one-line message. */
enum {
    CLI_OPT_OUT = 1, CLI_OPT_CUTOFF = 2, CLI_OPT_TITLE = 4, CLI_OPT_TOP = 8, CLI_OPT_TEXT = 16, CLI_OPT_FIX = 32,
    CLI_OPT_METHODS = 64, CLI_OPT_PREFIX = 128, CLI_OPT_FROM = 256, CLI_OPT_TO = 512
};
typedef struct cli_args {
    const char *in, *out, *title, *prefix;
    double cutoff;
    unsigned long top;
    bool text, fix, methods;
    unsigned long long from_ms, to_ms; /* --from, --to (given: CLI_OPT_FROM, CLI_OPT_TO) */
    unsigned given;    /* the CLI_OPT_* that were on the command line */
} cli_args;

/* The model of an HPROF binary report or of collapsed stacks (data, the file at path, mapped), told apart
 * by the header (*hprof); NULL after a one-line message naming path. */
model *cli_read_model(const char *path, const void *data, size_t len, report_opts *ro, bool *hprof);

/* true, after a line saying `jvmprof trace FILE` reads it, if DATA is a trace file (trace=), which
 * the commands of reports and flame graphs do not read */
bool cli_refuse_trace(const char *path, const void *data, size_t len);
/* The stack table that flame graphs and collapsed stacks draw, of a report
 * read back: its samples' traces, or, in a report of allocation sites
 * without samples, the bytes allocated by site (as the agent's flame=
 * draws them; alloc_count=site's exact bytes at the leaves). */
jp_status cli_report_stacks(model *m);

int cli_parse(const char *cmd, const char *usage, unsigned allowed, int argc, char **argv, cli_args *a);

/* Writes what emit() puts in a sink to path (atomically), or to stdout when
 * path is NULL. `what` names the output in error messages; `flags` are
 * sink_open_file's (SINK_PRIVATE for a heap dump's contents). */
int cli_output(const char *path, const char *what, unsigned flags, jp_status (*emit)(sink *s, const void *ctx),
               const void *ctx);

/* Writes m in format f to path (atomically), or to stdout when path is NULL. */
int cli_write(const model *m, const jp_format_ops *f, const report_opts *ro, const char *path);

#endif
