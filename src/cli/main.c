/* main.c — the jvmprof command: reads the files the agent writes and prints
 * reports. It reuses the model and the writers, so a format is produced by one
 * piece of code whether the agent or this command writes it.
 *   jvmprof report FILE [--cutoff X] [-o OUT]   HPROF binary -> HPROF ASCII report
 *   jvmprof flame FILE [-o OUT] [--title T]     HPROF binary or collapsed stacks -> HTML flame graph
 *   jvmprof collapse FILE [-o OUT]              HPROF binary (or collapsed stacks) -> collapsed stacks
 *   jvmprof heap FILE [--top N] [--text] [-o OUT]  HPROF heap dump -> class histogram (or ASCII dump)
 *   jvmprof heap FILE --fix                      null the references to objects the dump left out
 *   jvmprof options                             the agent's options (its help)
 *   jvmprof version | --help */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../options/options.h"
#include "../common/file_map.h"
#include "../common/out_file.h"
#include "../format/format.h"
#include "../heapdump/heap_histogram.h"
#include "../heapdump/hprof_heap_fixup.h"
#include "../heapdump/hprof_heap_text.h"

/* Prints "jvmprof: <message>" to stderr on one line. A message may quote
 * input (a line of a collapsed file, a file name): bytes that are not valid
 * UTF-8, and control characters, are shown as \xNN instead of being sent raw
 * to the terminal. */
static void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cli_error(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char out[sizeof msg * 4 + 16];
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)msg;
    while (*p) {
        size_t n = 0; /* length of a valid UTF-8 sequence at p, 0 if not one */
        if (*p >= 0x20 && *p < 0x7f)
            n = 1;
        else if (*p >= 0xc2 && *p <= 0xdf)
            n = 2;
        else if (*p >= 0xe0 && *p <= 0xef)
            n = 3;
        else if (*p >= 0xf0 && *p <= 0xf4)
            n = 4;
        for (size_t k = 1; k < n; k++)
            if ((p[k] & 0xc0) != 0x80)
                n = 0;
        if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
            n = 0; /* overlong, or a UTF-16 surrogate */
        if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
            n = 0;
        if (n) {
            memcpy(out + o, p, n);
            o += n;
            p += n;
        } else {
            o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02x", *p);
            p++;
        }
    }
    out[o] = '\0';
    fprintf(stderr, "jvmprof: %s\n", out);
}

static void cli_usage(FILE *out)
{
    fprintf(out,
            "usage: jvmprof <command> [arguments]\n"
            "\n"
            "commands:\n"
            "  report FILE [--cutoff X] [-o OUT]   print the HPROF ASCII report of an HPROF binary file\n"
            "                                      (written by the agent with format=b); OUT defaults to stdout\n"
            "  flame FILE [-o OUT] [--title T]     an interactive flame graph (one self-contained HTML page) of\n"
            "                                      an HPROF binary file or of collapsed stacks (ours, async-\n"
            "                                      profiler's, flamegraph.pl input); OUT defaults to stdout\n"
            "  collapse FILE [-o OUT]              the collapsed stacks (\"root;...;leaf count\" lines, for\n"
            "                                      flamegraph.pl or speedscope) of an HPROF binary file\n"
            "  heap FILE [--top N] [-o OUT]        the class histogram (instances, shallow bytes) of an HPROF\n"
            "                                      heap dump (jcmd PID GC.heap_dump, ...); N rows, default 30,\n"
            "                                      0 = all. Shallow bytes: 16-byte header + fields as dumped;\n"
            "                                      arrays 20 + elements; rounded up to 8. --text: the whole dump\n"
            "                                      as HPROF's ASCII HEAP DUMP (ROOT/CLS/OBJ/ARR lines) instead\n"
            "  heap FILE --fix                     sets to null, in FILE itself, every reference to an object\n"
            "                                      the dump does not hold (JDK 17's own dumps leave out the\n"
            "                                      objects class data sharing archived, and keep ~800 such\n"
            "                                      references); prints how many it changed\n"
            "  options                             the agent's options, values and defaults\n"
            "  version                             print the version\n"
            "  help, --help                        this text\n"
            "\n"
            "The agent itself is loaded by the JVM:\n"
            "  java -agentpath:/path/to/libjvmprof.so=cpu=samples,file=out.txt MyMain\n");
}

/* Maps FILE read-only; NULL after a one-line message. */
static const void *cli_map_file(const char *path, size_t *len)
{
    char err[600];
    const void *p = file_map(path, len, err, sizeof err);
    if (!p)
        cli_error("%s", err);
    return p;
}

/* The arguments of report, flame and collapse: FILE and the options in
 * `allowed` (CLI_OPT_*). Returns 0, or the exit code 2 after a one-line
 * message. */
enum { CLI_OPT_OUT = 1, CLI_OPT_CUTOFF = 2, CLI_OPT_TITLE = 4, CLI_OPT_TOP = 8, CLI_OPT_TEXT = 16, CLI_OPT_FIX = 32 };
typedef struct cli_args {
    const char *in, *out, *title;
    double cutoff;
    unsigned long top;
    bool text, fix;
} cli_args;

static int cli_parse(const char *cmd, const char *usage, unsigned allowed, int argc, char **argv, cli_args *a)
{
    static const struct { const char *name; unsigned flag; } opts[] = {
        { "-o", CLI_OPT_OUT }, { "--cutoff", CLI_OPT_CUTOFF }, { "--title", CLI_OPT_TITLE }, { "--top", CLI_OPT_TOP },
        { "--text", CLI_OPT_TEXT }, { "--fix", CLI_OPT_FIX },
    };
    *a = (cli_args){ NULL, NULL, NULL, 0, 30, false, false };
    options_parse_fraction(options_defs[OPTIONS_ID_CUTOFF].deflt, &a->cutoff); /* the agent's cutoff= default */
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        unsigned flag = 0;
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
            if (strcmp(arg, opts[k].name) == 0 && (allowed & opts[k].flag))
                flag = opts[k].flag;
        if (flag == CLI_OPT_TEXT || flag == CLI_OPT_FIX) {
            *(flag == CLI_OPT_TEXT ? &a->text : &a->fix) = true;
            continue;
        }
        if (flag && i + 1 >= argc) {
            cli_error("%s: %s needs a value; usage: jvmprof %s %s", cmd, arg, cmd, usage);
            return 2;
        }
        if (flag == CLI_OPT_OUT) {
            a->out = argv[++i];
        } else if (flag == CLI_OPT_TITLE) {
            a->title = argv[++i];
        } else if (flag == CLI_OPT_CUTOFF) {
            if (!options_parse_fraction(argv[++i], &a->cutoff)) { /* judged as cutoff= is */
                cli_error("--cutoff %s: expected a number 0..1", argv[i]);
                return 2;
            }
        } else if (flag == CLI_OPT_TOP) {
            const char *v = argv[++i];
            if (!options_parse_uint(v, 0, ULONG_MAX, &a->top)) {
                cli_error("--top %s: expected a count (0 = all)", v);
                return 2;
            }
        } else if (arg[0] == '-' && arg[1]) {
            cli_error("%s: unknown argument %s; expected %s", cmd, arg, usage);
            return 2;
        } else if (!a->in) {
            a->in = arg;
        } else {
            cli_error("%s: one input file only (got %s and %s)", cmd, a->in, arg);
            return 2;
        }
    }
    if (!a->in) {
        cli_error("%s: missing FILE; usage: jvmprof %s %s", cmd, cmd, usage);
        return 2;
    }
    if (a->out && out_file_same(a->in, a->out)) {
        cli_error("%s: -o %s is the input file %s itself; write the output to another file", cmd, a->out, a->in);
        return 2;
    }
    return 0;
}

/* Writes what emit() puts in a sink to path (atomically), or to stdout when
 * path is NULL. `what` names the output in error messages; `flags` are
 * sink_open_file's (SINK_PRIVATE for a heap dump's contents). */
static int cli_output(const char *path, const char *what, unsigned flags, jp_status (*emit)(sink *s, const void *ctx),
                      const void *ctx)
{
    char err[512];
    buf mem;
    buf_init(&mem);
    sink *s = path ? sink_open_file(path, flags, err, sizeof err) : sink_open_memory(&mem);
    if (!s) {
        cli_error("%s", path ? err : "out of memory");
        return 1;
    }
    jp_status st = emit(s, ctx);
    if (st != JP_OK && path && sink_status(s) != JP_OK) { /* the output failed: commit says how, and cleans up */
        sink_commit(s, err, sizeof err);
        cli_error("%s", err);
        return 1;
    }
    if (st != JP_OK) {
        sink_abort(s);
        if (st != JP_ERR_FORMAT)   /* a bad input: the emitter's caller says what was wrong */
            cli_error("cannot write the %s output: %s", what, jp_status_name(st));
        buf_free(&mem);
        return 1;
    }
    st = sink_commit(s, err, sizeof err);
    if (st != JP_OK) {
        cli_error("%s", err);
        buf_free(&mem);
        return 1;
    }
    int rc = 0;
    if (!path && mem.len && fwrite(mem.data, 1, mem.len, stdout) != mem.len)
        rc = 1;
    buf_free(&mem);
    if (fflush(stdout) != 0) {
        cli_error("cannot write to standard output: %s", strerror(errno));
        rc = 1;
    }
    return rc;
}

typedef struct cli_model_output {
    const model *m;
    const jp_format_ops *f;
    const report_opts *ro;
} cli_model_output;

static jp_status cli_emit_model(sink *s, const void *ctx)
{
    const cli_model_output *o = ctx;
    return o->f->write(o->m, o->ro, s);
}

/* Writes m in format f to path (atomically), or to stdout when path is NULL. */
static int cli_write(const model *m, const jp_format_ops *f, const report_opts *ro, const char *path)
{
    cli_model_output o = { m, f, ro };
    return cli_output(path, f->name, 0, cli_emit_model, &o);
}

static int cli_report(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse("report", "FILE [--cutoff X] [-o OUT]", CLI_OPT_CUTOFF | CLI_OPT_OUT, argc, argv, &a);
    if (rc)
        return rc;
    size_t len = 0;
    const void *data = cli_map_file(a.in, &len);
    if (!data)
        return 1;
    char err[512];
    report_opts ro;
    model *m = hprof_bin_read(data, len, &ro, err, sizeof err);
    file_unmap(data, len);
    if (!m) {
        cli_error("%s: %s", a.in, err);
        return 1;
    }
    ro.cutoff = a.cutoff;
    rc = cli_write(m, &hprof_txt_format, &ro, a.out);
    model_free(m);
    return rc;
}

/* Reads FILE into a model with a stack table: an HPROF binary file (its CPU
 * samples' traces become stacks) or collapsed stacks, told apart by the
 * header. NULL after a one-line message. */
static model *cli_read_stacks(const char *path)
{
    size_t len = 0;
    const void *data = cli_map_file(path, &len);
    if (!data)
        return NULL;
    char err[512];
    model *m;
    static const char magic[] = "JAVA PROFILE 1.0.";
    if (len >= sizeof magic && memcmp(data, magic, sizeof magic - 1) == 0) {
        report_opts ro;
        m = hprof_bin_read(data, len, &ro, err, sizeof err);
        if (m && trace_stacks_build(m) != JP_OK) {
            model_free(m);
            m = NULL;
            snprintf(err, sizeof err, "out of memory");
        }
    } else {
        m = collapsed_read(data, len, err, sizeof err);
    }
    file_unmap(data, len);
    if (!m) {
        cli_error("%s: %s", path, err);
        return NULL;
    }
    if (m->total_stack_samples == 0)
        cli_error("warning: %s has no CPU samples; the output is empty", path);
    return m;
}

static int cli_flame(int argc, char **argv, bool html)
{
    cli_args a;
    const char *cmd = html ? "flame" : "collapse";
    int rc = html ? cli_parse(cmd, "FILE [-o OUT] [--title T]", CLI_OPT_OUT | CLI_OPT_TITLE, argc, argv, &a)
                  : cli_parse(cmd, "FILE [-o OUT]", CLI_OPT_OUT, argc, argv, &a);
    if (rc)
        return rc;
    model *m = cli_read_stacks(a.in);
    if (!m)
        return 1;
    report_opts ro = { 0 };
    ro.title = a.title;
    rc = cli_write(m, html ? &flame_html_format : &collapsed_format, &ro, a.out);
    model_free(m);
    return rc;
}

typedef struct cli_heap_output {
    const char *path;
    const heap_histogram *h;
    unsigned long top;
} cli_heap_output;

static jp_status cli_heap_print(sink *s, const void *ctx)
{
    const cli_heap_output *o = ctx;
    const heap_histogram *h = o->h;
    sink_printf(s, "%s: HPROF %s heap dump, %u-byte ids: %" PRIu64 " instances, %" PRIu64 " bytes, %zu classes\n",
                o->path, h->version, h->idsize, h->instances, h->bytes, h->nrows);
    sink_printf(s, "%6s %12s %14s  %s\n", "rank", "instances", "bytes", "class");
    size_t n = o->top && o->top < h->nrows ? (size_t)o->top : h->nrows;
    for (size_t i = 0; i < n; i++)
        sink_printf(s, "%6zu %12" PRIu64 " %14" PRIu64 "  %s\n", i + 1, h->rows[i].instances, h->rows[i].bytes,
                    h->rows[i].name);
    if (n < h->nrows)
        sink_printf(s, "(%zu more classes; --top 0 shows all)\n", h->nrows - n);
    return JP_OK;
}

typedef struct cli_heap_text {
    const void *data;
    size_t len;
    jp_status st;
    char err[512];
} cli_heap_text;

static jp_status cli_heap_text_print(sink *s, const void *ctx)
{
    cli_heap_text *t = (cli_heap_text *)ctx;
    return t->st = hprof_heap_text_write(t->data, t->len, s, t->err, sizeof t->err);
}

/* jvmprof heap FILE --fix */
static int cli_heap_fix(const char *path)
{
    char err[600];
    size_t len = 0;
    uint8_t *data = file_map_writable(path, &len, err, sizeof err);
    if (!data) {
        cli_error("%s", err);
        return 1;
    }
    hprof_fixup_stats fs;
    jp_status st = hprof_heap_fixup(data, len, &fs, err, sizeof err);
    file_unmap(data, len);
    if (st != JP_OK) {
        cli_error("%s: %s (the file is unchanged)", path, err);
        return 1;
    }
    printf("%s: %" PRIu64 " of %" PRIu64 " references named objects the dump does not hold; set to null (%" PRIu64
           " of them GC roots); %" PRIu64 " objects and classes\n",
           path, fs.nulled, fs.references, fs.roots_nulled, fs.objects);
    return 0;
}

static int cli_heap(int argc, char **argv)
{
    cli_args a;
    const char *usage = "FILE [--top N] [--text] [-o OUT] | FILE --fix";
    int rc = cli_parse("heap", usage, CLI_OPT_TOP | CLI_OPT_OUT | CLI_OPT_TEXT | CLI_OPT_FIX, argc, argv, &a);
    if (rc)
        return rc;
    if (a.fix && (a.text || a.out)) {
        cli_error("heap: --fix changes FILE in place and prints one line; it takes no %s",
                a.text ? "--text" : "-o");
        return 2;
    }
    if (a.fix)
        return cli_heap_fix(a.in);
    size_t len = 0;
    const void *data = cli_map_file(a.in, &len);
    if (!data)
        return 1;
    if (a.text) {
        cli_heap_text t = { data, len, JP_OK, "" };
        rc = cli_output(a.out, "HPROF ASCII heap dump", SINK_PRIVATE, cli_heap_text_print, &t);
        file_unmap(data, len);
        if (rc && t.st == JP_ERR_FORMAT && t.err[0]) /* the input's fault; an output failure was said */
            cli_error("%s: %s", a.in, t.err);
        return rc;
    }
    char err[512];
    heap_histogram h;
    bool ok = heap_histogram_read(data, len, &h, err, sizeof err);
    file_unmap(data, len);
    if (!ok) {
        cli_error("%s: %s", a.in, err);
        return 1;
    }
    cli_heap_output o = { a.in, &h, a.top };
    rc = cli_output(a.out, "heap histogram", 0, cli_heap_print, &o);
    heap_histogram_free(&h);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("jvmprof %s\n", JP_VERSION);
        return 0;
    }
    if (strcmp(cmd, "options") == 0) {
        options_print_help(stdout);
        return 0;
    }
    if (strcmp(cmd, "report") == 0)
        return cli_report(argc - 2, argv + 2);
    if (strcmp(cmd, "flame") == 0)
        return cli_flame(argc - 2, argv + 2, true);
    if (strcmp(cmd, "collapse") == 0)
        return cli_flame(argc - 2, argv + 2, false);
    if (strcmp(cmd, "heap") == 0)
        return cli_heap(argc - 2, argv + 2);
    cli_error("unknown command '%s'; expected report, flame, collapse, heap, options, version or help",
            cmd);
    return 2;
}
