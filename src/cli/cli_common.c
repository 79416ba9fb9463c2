/* cli_common.c — what the subcommands of the jvmprof command share (see
 * cli_common.h): messages, arguments, the input's map and the output. */
#include "cli_common.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/file_map.h"
#include "../common/out_file.h"
#include "../options/options.h"
#include "../trace/trace_file.h"

void cli_error(const char *fmt, ...)
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


const void *cli_map_file(const char *path, size_t *len)
{
    char err[600];
    const void *p = file_map(path, len, err, sizeof err);
    if (!p)
        cli_error("%s", err);
    return p;
}

bool cli_refuse_trace(const char *path, const void *data, size_t len)
{
    if (len < 16 || memcmp(data, TRACE_FILE_MAGIC, 16) != 0)
        return false;
    cli_error("%s is a trace file (trace=): jvmprof trace %s reads it (--flame draws its calls as a flame graph, "
              "--collapsed writes them as collapsed stacks)",
              path, path);
    return true;
}

model *cli_read_model(const char *path, const void *data, size_t len, report_opts *ro, bool *hprof)
{
    static const char magic[] = "JAVA PROFILE 1.0.";
    char err[512];
    memset(ro, 0, sizeof *ro);
    if (cli_refuse_trace(path, data, len))
        return NULL;
    *hprof = len >= sizeof magic && memcmp(data, magic, sizeof magic - 1) == 0;
    model *m = *hprof ? hprof_bin_read(data, len, ro, err, sizeof err) : collapsed_read(data, len, err, sizeof err);
    if (!m)
        cli_error("%s: %s", path, err);
    return m;
}

bool cli_duration_ms(const char *text, unsigned long long *ms)
{
    static const struct { const char *unit; unsigned long long ms; } units[] = {
        { "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
    };
    if (*text < '0' || *text > '9')
        return false;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit) && !errno && v * (double)units[i].ms < 1e15) {
            *ms = (unsigned long long)(v * (double)units[i].ms + 0.5);
            return true;
        }
    return false;
}

int cli_parse(const char *cmd, const char *usage, unsigned allowed, int argc, char **argv, cli_args *a)
{
    static const struct { const char *name; unsigned flag; } opts[] = {
        { "-o", CLI_OPT_OUT }, { "--cutoff", CLI_OPT_CUTOFF }, { "--title", CLI_OPT_TITLE }, { "--top", CLI_OPT_TOP },
        { "--text", CLI_OPT_TEXT }, { "--fix", CLI_OPT_FIX }, { "--methods", CLI_OPT_METHODS },
        { "--prefix", CLI_OPT_PREFIX }, { "--from", CLI_OPT_FROM }, { "--to", CLI_OPT_TO },
    };
    *a = (cli_args){ .top = 30 };
    options_parse_fraction(options_defs[OPTIONS_ID_CUTOFF].deflt, &a->cutoff); /* the agent's cutoff= default */
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        unsigned flag = 0;
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
            if (strcmp(arg, opts[k].name) == 0 && (allowed & opts[k].flag))
                flag = opts[k].flag;
        a->given |= flag;
        if (flag == CLI_OPT_TEXT || flag == CLI_OPT_FIX || flag == CLI_OPT_METHODS) {
            *(flag == CLI_OPT_TEXT ? &a->text : flag == CLI_OPT_FIX ? &a->fix : &a->methods) = true;
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
        } else if (flag == CLI_OPT_PREFIX) {
            a->prefix = argv[++i];
        } else if (flag == CLI_OPT_CUTOFF) {
            if (!options_parse_fraction(argv[++i], &a->cutoff)) { /* judged as cutoff= is */
                cli_error("--cutoff %s: expected a number 0..1", argv[i]);
                return 2;
            }
        } else if (flag == CLI_OPT_FROM || flag == CLI_OPT_TO) {
            const char *v = argv[++i];
            if (!cli_duration_ms(v, flag == CLI_OPT_FROM ? &a->from_ms : &a->to_ms)) {
                cli_error("%s: %s takes a time after the profile's start: a number with ms, s, m or h (a bare "
                          "number is seconds), not '%s'", cmd, arg, v);
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
    if ((a->given & CLI_OPT_TO) && a->to_ms <= a->from_ms) {
        cli_error("%s: --to %llu ms must come after --from %llu ms", cmd, a->to_ms, a->from_ms);
        return 2;
    }
    if (a->out && out_file_same(a->in, a->out)) {
        cli_error("%s: -o %s is the input file %s itself; write the output to another file", cmd, a->out, a->in);
        return 2;
    }
    return 0;
}

int cli_output(const char *path, const char *what, unsigned flags, jp_status (*emit)(sink *s, const void *ctx),
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

static jp_status cli_common_emit_model(sink *s, const void *ctx)
{
    const cli_model_output *o = ctx;
    return o->f->write(o->m, o->ro, s);
}

int cli_write(const model *m, const jp_format_ops *f, const report_opts *ro, const char *path)
{
    cli_model_output o = { m, f, ro };
    return cli_output(path, f->name, 0, cli_common_emit_model, &o);
}

jp_status cli_report_stacks(model *m)
{
    jp_status st = trace_stacks_build(m);
    if (st == JP_OK && m->total_stack_samples == 0 && model_site_count(m))
        st = site_stacks_build(m);
    return st;
}
