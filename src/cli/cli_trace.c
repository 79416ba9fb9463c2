/* cli_trace.c — jvmprof trace FILE [-o OUT] [--thread N] [--type T,...]
 * [--method S] [--from SEC] [--to SEC] [--chrome]: a trace file (trace_file.h) as
 * text, one event per line in time order (trace_text.h), or with --chrome as
 * Chrome's Trace Event Format (JSON), filtered. A file cut short
 * or damaged is printed up to where it can be read, with a line on stderr
 * naming the offset, and exit code 1. */
#include "cli_commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/file_map.h"
#include "../format/trace_text.h"
#include "cli_common.h"

#define CLI_TRACE_USAGE "FILE [-o OUT] [--chrome | --slowest N] [--thread N] [--type T[,T...]] [--method S] [--from SEC] [--to SEC]"

/* "1.5" seconds -> ns; false if not a number >= 0 */
static bool cli_trace_seconds(const char *text, uint64_t *ns)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || end == text || !(v >= 0 && v < 1e9))
        return false;
    *ns = (uint64_t)(v * 1e9 + 0.5);
    return true;
}

/* "enter,exit" -> bits; false naming the bad word */
static bool cli_trace_types(const char *text, uint64_t *bits)
{
    *bits = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ",");
        unsigned t = 0;
        for (unsigned k = TRACE_EV_TIMED; k <= TRACE_EV_LAST && !t; k++)
            if (trace_event_name(k) && strlen(trace_event_name(k)) == n && strncmp(p, trace_event_name(k), n) == 0)
                t = k;
        if (!t) {
            cli_error("trace: --type %.*s: no such event; expected a list of enter, exit, exit-throw, alloc, free, "
                      "gc-start, gc-end, thread-start, thread-end, class-load, class-unload, monitor, user",
                      (int)n, p);
            return false;
        }
        *bits |= 1ull << t;
        p += n + (p[n] == ',');
    }
    return *bits != 0;
}

typedef struct cli_trace_ctx {
    const void *data;
    size_t len;
    trace_text_filter f;
    bool chrome;
    unsigned long slowest;
    trace_text_summary sum;
    char why[256];
} cli_trace_ctx;

static jp_status cli_trace_emit(sink *s, const void *v)
{
    cli_trace_ctx *c = (cli_trace_ctx *)v;
    if (c->slowest)
        return trace_slowest_write(c->data, c->len, &c->f, c->slowest, s, &c->sum, c->why, sizeof c->why);
    return (c->chrome ? trace_chrome_write : trace_text_write)(c->data, c->len, &c->f, s, &c->sum, c->why,
                                                               sizeof c->why);
}

int cli_trace(int argc, char **argv)
{
    cli_trace_ctx c = { 0 };
    const char *in = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = strcmp(a, "-o") == 0 || strcmp(a, "--thread") == 0 || strcmp(a, "--type") == 0 ||
                     strcmp(a, "--slowest") == 0 ||
                     strcmp(a, "--method") == 0 || strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0;
        if (takes && !v) {
            cli_error("trace: %s needs a value; usage: jvmprof trace %s", a, CLI_TRACE_USAGE);
            return 2;
        }
        unsigned long n;
        char *end;
        if (strcmp(a, "-o") == 0) {
            out = v;
        } else if (strcmp(a, "--chrome") == 0) {
            c.chrome = true;
        } else if (strcmp(a, "--slowest") == 0) {
            errno = 0;
            n = strtoul(v, &end, 10);
            if (errno || *end || !n || n > 100000 || v[0] == '-') {
                cli_error("trace: --slowest %s: expected how many calls, 1 to 100000", v);
                return 2;
            }
            c.slowest = n;
        } else if (strcmp(a, "--thread") == 0) {
            errno = 0;
            n = strtoul(v, &end, 10);
            if (errno || *end || !n || n > UINT32_MAX) {
                cli_error("trace: --thread %s: expected a thread number (1, 2, ... as the trace prints them)", v);
                return 2;
            }
            c.f.thread = (uint32_t)n;
        } else if (strcmp(a, "--type") == 0) {
            if (!cli_trace_types(v, &c.f.types))
                return 2;
        } else if (strcmp(a, "--method") == 0) {
            c.f.method = v;
        } else if (strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) {
            if (!cli_trace_seconds(v, a[2] == 'f' ? &c.f.from_ns : &c.f.to_ns)) {
                cli_error("trace: %s %s: expected seconds since the trace began, such as 1.5", a, v);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            cli_error("trace: unknown option '%s'; usage: jvmprof trace %s", a, CLI_TRACE_USAGE);
            return 2;
        } else if (in) {
            cli_error("trace: one FILE only ('%s' and '%s'); usage: jvmprof trace %s", in, a, CLI_TRACE_USAGE);
            return 2;
        } else {
            in = a;
        }
        if (takes)
            i++;
    }
    if (c.chrome && c.slowest) {
        cli_error("trace: --chrome and --slowest are two views; choose one");
        return 2;
    }
    if (!in) {
        cli_error("trace: no FILE; usage: jvmprof trace %s", CLI_TRACE_USAGE);
        return 2;
    }
    c.data = cli_map_file(in, &c.len);
    if (!c.data)
        return 1;
    int rc = cli_output(out, c.chrome ? "trace events (JSON)" : "trace text", 0, cli_trace_emit, &c);
    file_unmap(c.data, c.len);
    if (c.why[0]) {
        cli_error("%s: %s", in, c.why);
        return 1;
    }
    if (c.sum.stopped) {
        cli_error("%s: %s (printed the %llu events before it)", in, c.sum.why, (unsigned long long)c.sum.events);
        return 1;
    }
    return rc;
}
