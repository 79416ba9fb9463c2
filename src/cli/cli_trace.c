/* cli_trace.c — jvmprof trace FILE [-o OUT] [--thread N] [--type T,...]
 * [--method S] [--from SEC] [--to SEC] [--chrome | --slowest N | --flame |
 * --collapsed]: a trace file (trace_file.h) as text, one event per line in
 * time order (trace_text.h), as Chrome's Trace Event Format (JSON), the
 * slowest calls, or its exact call tree as an HTML flame graph or collapsed
 * stacks, filtered. A file cut short
 * or damaged is printed up to where it can be read, with a line on stderr
 * naming the offset, and exit code 1. */
#include "cli_commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/file_map.h"
#include "../format/format.h"
#include "../trace/trace_text.h"
#include "../model/model.h"
#include "cli_common.h"

#define CLI_TRACE_USAGE                                                                                               \
    "FILE [-o OUT] [--chrome | --slowest N | --flame | --collapsed] [--thread N] [--type T[,T...]] [--method S] "     \
    "[--from SEC] [--to SEC]"

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

/* "enter,exit" -> bits (a name stands for every event type shown by it: "enter" also for the entries
 * with a receiver and those of exec:light); false naming the bad word and every name accepted */
static bool cli_trace_types(const char *text, uint64_t *bits)
{
    *bits = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ",");
        uint64_t these = 0;
        for (unsigned k = TRACE_EV_TIMED; k <= TRACE_EV_LAST; k++)
            if (trace_event_name(k) && strlen(trace_event_name(k)) == n && strncmp(p, trace_event_name(k), n) == 0)
                these |= 1ull << k;
        if (!these) {
            char names[512];
            size_t used = 0;
            for (unsigned k = TRACE_EV_TIMED; k <= TRACE_EV_LAST; k++) {
                const char *name = trace_event_name(k);
                bool seen = false;
                for (unsigned j = TRACE_EV_TIMED; j < k && !seen; j++)
                    seen = trace_event_name(j) && name && strcmp(trace_event_name(j), name) == 0;
                if (name && !seen && used < sizeof names)
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
            }
            cli_error("trace: --type %.*s: no such event; expected a list of %s (comma-separated)", (int)n, p, names);
            return false;
        }
        *bits |= these;
        p += n + (p[n] == ',');
    }
    return *bits != 0;
}

typedef struct cli_trace_ctx {
    const void *data;
    size_t len;
    trace_text_filter f;
    bool chrome, flame, collapsed;
    unsigned long slowest;
    trace_text_summary sum;
    char why[256];
} cli_trace_ctx;

static jp_status cli_trace_emit(sink *s, const void *v)
{
    cli_trace_ctx *c = (cli_trace_ctx *)v;
    if (c->slowest)
        return trace_slowest_write(c->data, c->len, &c->f, c->slowest, s, &c->sum, c->why, sizeof c->why);
    if (c->collapsed)
        return trace_collapsed_write(c->data, c->len, &c->f, s, &c->sum, c->why, sizeof c->why);
    return (c->chrome ? trace_chrome_write : trace_text_write)(c->data, c->len, &c->f, s, &c->sum, c->why,
                                                               sizeof c->why);
}

/* --flame: the call tree as collapsed stacks in memory, read back into a
 * model whose stack counts are ns, drawn as an HTML flame graph. */
static int cli_trace_flame(cli_trace_ctx *c, const char *out)
{
    buf text;
    buf_init(&text);
    sink *s = sink_open_memory(&text);
    if (!s) {
        cli_error("trace: out of memory");
        return 1;
    }
    c->collapsed = true;
    jp_status st = cli_trace_emit(s, c);
    char err[512];
    if (sink_commit(s, err, sizeof err) != JP_OK || st != JP_OK) {
        buf_free(&text);
        if (!c->why[0])
            snprintf(c->why, sizeof c->why, "out of memory");
        return 1;
    }
    if (text.len == 0) {
        buf_free(&text);
        cli_error("trace: no call with its exit in the trace (trace=exec, or trace=exec with mintime=): no flame "
                  "graph to draw");
        return 1;
    }
    model *m = collapsed_read(text.data, text.len, err, sizeof err);
    buf_free(&text);
    if (!m) {
        cli_error("trace: %s", err);
        return 1;
    }
    m->stacks_ns = true;
    report_opts ro = { 0 };
    int rc = cli_write(m, &flame_html_format, &ro, out);
    model_free(m);
    return rc;
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
        } else if (strcmp(a, "--flame") == 0) {
            c.flame = true;
        } else if (strcmp(a, "--collapsed") == 0) {
            c.collapsed = true;
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
    if (c.chrome + !!c.slowest + c.flame + c.collapsed > 1) {
        cli_error("trace: --chrome, --slowest, --flame and --collapsed are views of their own; choose one");
        return 2;
    }
    if ((c.flame || c.collapsed) && (c.f.types || c.f.method)) {
        cli_error("trace: --flame and --collapsed draw every call: --type and --method do not apply (--thread, "
                  "--from and --to do)");
        return 2;
    }
    if (!in) {
        cli_error("trace: no FILE; usage: jvmprof trace %s", CLI_TRACE_USAGE);
        return 2;
    }
    c.data = cli_map_file(in, &c.len);
    if (!c.data)
        return 1;
    int rc = c.flame ? cli_trace_flame(&c, out)
                     : cli_output(out, c.chrome ? "trace events (JSON)" : c.collapsed ? "collapsed stacks" : "trace text",
                                  0, cli_trace_emit, &c);
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
