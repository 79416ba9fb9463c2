/* method_rows.c — the per-method view of a report (see format.h): each
 * method's self and total (inclusive) share, from the traces. A trace's
 * count (CPU or wall samples, or cpu=times' self time and calls) is the
 * self of the method on top and adds to the total of every method in it,
 * once per trace however often recursion puts a method there. A trace keeps
 * the top depth= frames, so a total counts the calls seen within them.
 * Also cpu=times' counted methods, by calls. */
#include <stdlib.h>
#include <string.h>

#include "format.h"

static int method_rows_cmp(const void *a, const void *b)
{
    const method_row *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->method < y->method ? -1 : (x->method > y->method);
}

uint32_t method_rows(const model *m, bool times, method_row *rows)
{
    uint32_t nmethods = intern_count(&m->methods), ntraces = model_trace_count(m);
    method_row *by = calloc((size_t)nmethods + 1, sizeof *by);
    uint32_t *seen = calloc((size_t)nmethods + 1, sizeof *seen);   /* the last trace that added to its total */
    if (!by || !seen) {
        free(by);
        free(seen);
        return UINT32_MAX;
    }
    for (uint32_t t = 1; t <= ntraces; t++) {
        trace_id id = { t };
        uint64_t v = times ? model_trace_time_ns(m, id) : model_trace_samples(m, id);
        uint64_t calls = times ? model_trace_calls(m, id) : 0;
        if (!v && !calls)
            continue;
        model_trace tr = model_trace_get(m, id);
        for (uint32_t k = 0; k < tr.nframes; k++) {
            const model_frame *f = model_frame_get(m, tr.frames[k]);
            uint32_t me = f ? f->method.v : 0;
            if (me == 0 || me > nmethods)
                continue;
            if (k == 0) {
                by[me].self += v;
                by[me].calls += calls;
            }
            if (seen[me] != t) {
                seen[me] = t;
                by[me].total += v;
            }
        }
    }
    uint32_t n = 0;
    for (uint32_t me = 1; me <= nmethods; me++)
        if (by[me].total || by[me].calls) {
            rows[n] = by[me];
            rows[n++].method = me;
        }
    free(by);
    free(seen);
    qsort(rows, n, sizeof *rows, method_rows_cmp);
    return n;
}

/* A row's method (NULL if unknown) and its class's dotted name. */
static const char *row_class(const model *m, uint32_t method, const model_method **me)
{
    *me = model_method_get(m, (method_id){ method });
    const model_class *c = *me ? model_class_get(m, (*me)->cls) : NULL;
    return c ? model_string_get(m, c->name, NULL) : "<unknown class>";
}

jp_status method_rows_write(const model *m, bool times, const method_filter *f, const char *when, sink *s)
{
    method_row *rows = calloc((size_t)intern_count(&m->methods) + 1, sizeof *rows);
    uint32_t n = rows ? method_rows(m, times, rows) : UINT32_MAX;
    if (n == UINT32_MAX) {
        free(rows);
        return JP_ERR_NOMEM;
    }
    uint64_t total = times ? m->total_time_ns : m->total_samples;
    const char *what = times ? "CPU time" : m->wall ? "wall samples" : "CPU samples";
    if (times)
        sink_printf(s, "METHODS (%s) BEGIN (total = %llu ms) %s\n", what, (unsigned long long)(total / 1000000u), when);
    else
        sink_printf(s, "METHODS (%s) BEGIN (total = %llu) %s\n", what, (unsigned long long)total, when);
    sink_printf(s, times ? "rank   self  accum  total  self ms total ms    calls method\n"
                         : "rank   self  accum  total    self#   total# method\n");
    double accum = 0;
    unsigned long rank = 0;
    size_t plen = f->prefix ? strlen(f->prefix) : 0;
    for (uint32_t i = 0; i < n && total > 0 && (f->top == 0 || rank < f->top); i++) {
        double self = 100.0 * (double)rows[i].self / (double)total;
        double all = 100.0 * (double)rows[i].total / (double)total;
        accum += self;
        if (self < 100.0 * f->cutoff && all < 100.0 * f->cutoff)
            continue;
        const model_method *me;
        const char *cname = row_class(m, rows[i].method, &me);
        if (plen && strncmp(cname, f->prefix, plen) != 0)
            continue;
        sink_printf(s, "%4lu %5.2f%% %5.2f%% %5.2f%% ", ++rank, self, accum, all);
        if (times)
            sink_printf(s, "%8llu %8llu %8llu ", (unsigned long long)(rows[i].self / 1000000u),
                        (unsigned long long)(rows[i].total / 1000000u), (unsigned long long)rows[i].calls);
        else
            sink_printf(s, "%8llu %8llu ", (unsigned long long)rows[i].self, (unsigned long long)rows[i].total);
        sink_printf(s, "%s.%s\n", cname, me ? model_string_get(m, me->name, NULL) : "<unknown method>");
    }
    sink_printf(s, "METHODS (%s) END\n", what);
    free(rows);
    return JP_OK;
}

static int counted_cmp(const void *a, const void *b)
{
    const method_row *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return x->method < y->method ? -1 : (x->method > y->method);
}

jp_status counted_rows_write(const model *m, const method_filter *f, const char *when, sink *s)
{
    uint32_t nmethods = intern_count(&m->methods), n = 0;
    method_row *rows = calloc((size_t)nmethods + 1, sizeof *rows);
    if (!rows)
        return JP_ERR_NOMEM;
    for (uint32_t me = 1; me <= nmethods; me++) {
        uint64_t calls = model_method_counted(m, (method_id){ me });
        if (calls)
            rows[n++] = (method_row){ .method = me, .calls = calls };
    }
    qsort(rows, n, sizeof *rows, counted_cmp);
    sink_printf(s, "CALLS COUNTED BEGIN (total = %llu calls, %u methods) %s\n", (unsigned long long)m->total_counted,
                n, when);
    sink_printf(s, "rank  share  accum      calls method\n");
    double accum = 0;
    unsigned long rank = 0;
    size_t plen = f->prefix ? strlen(f->prefix) : 0;
    for (uint32_t i = 0; i < n && (f->top == 0 || rank < f->top); i++) {
        double share = 100.0 * (double)rows[i].calls / (double)m->total_counted;
        accum += share;
        if (share < 100.0 * f->cutoff)
            continue;
        const model_method *me;
        const char *cname = row_class(m, rows[i].method, &me);
        if (plen && strncmp(cname, f->prefix, plen) != 0)
            continue;
        sink_printf(s, "%4lu %5.2f%% %5.2f%% %10llu %s.%s%s\n", ++rank, share, accum, (unsigned long long)rows[i].calls,
                    cname, me ? model_string_get(m, me->name, NULL) : "<unknown method>",
                    me ? model_string_get(m, me->sig, NULL) : "");
    }
    sink_printf(s, "CALLS COUNTED END\n");
    free(rows);
    return JP_OK;
}
