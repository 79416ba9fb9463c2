/* fuzz_readers.c — libFuzzer target for every reader the jvmprof command
 * (src/cli/) runs on a file it is given, each followed by the writers
 * that command would run on what was read, into memory sinks:
 *   report        hprof_bin_read, then hprof_txt_format
 *   convert       hprof_bin_read, then pprof_format and jfr_format;
 *                 collapsed_read, then pprof_format
 *   flame/collapse hprof_bin_read + trace_stacks_build, or collapsed_read;
 *                 then flame_html_format and collapsed_format
 *   heap          heap_histogram_read; heap --text: hprof_heap_text_write
 *   heap --retained  heap_graph_build (both rules), heap_dominators_compute,
 *                 _classes and _top, every edge named; the retained sizes
 *                 of the super root's children must add up to the
 *                 reachable bytes, each id must find its own index.
 *   heap --path   heap_paths_compute (both rules): the objects it reaches
 *                 are the dominators' reachable ones; each path (of the
 *                 first 256 objects) runs from a root to its object, every
 *                 step named; every object read as a String, the first 64
 *                 roots' threads named.
 *   heap --fix    hprof_heap_fixup on a writable copy (exactly the input's
 *                 size, so ASan sees any overrun); when it succeeds, a second
 *                 run must find nothing more to null, and the fixed dump must
 *                 still convert to text.
 *   trace         trace_text_write (all events, and filtered), --chrome,
 *                 --slowest, --collapsed (--flame's input); a file that is
 *                 no trace must say why in one line; one cut short or damaged
 *                 must say where it stopped in one line.
 *   convert TRACE jfr_write_trace
 * Beyond "no crash, no leak, no sanitizer report", every refusal must come
 * with a one-line message. Built and run by `make fuzz` (and briefly by `make
 * test`, tests/it/t0001-fuzz-readers.sh); seeds in tests/fuzz/readers_corpus/,
 * inputs that once crashed a reader in tests/fuzz/readers_regressions/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "format/format.h"
#include "format/sink.h"
#include "trace/trace_text.h"
#include "heapdump/heap_dominators.h"
#include "heapdump/heap_graph.h"
#include "heapdump/heap_paths.h"
#include "heapdump/heap_histogram.h"
#include "heapdump/hprof_heap_fixup.h"
#include "heapdump/hprof_heap_text.h"

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_readers: %s: %s\n", what, detail);
    abort();
}

/* A refusal: a message of one line, not empty. */
static void check_message(const char *who, const char *err)
{
    if (!err[0])
        die(who, "failed without a message");
    if (strchr(err, '\n'))
        die(who, "a message of more than one line");
}

static void write_model(const model *m, const jp_format_ops *f, const report_opts *ro)
{
    buf out;
    buf_init(&out);
    sink *s = sink_open_memory(&out);
    if (!s)
        die("sink_open_memory", "out of memory");
    if (f->write(m, ro, s) == JP_OK) {
        char err[256];
        (void)sink_commit(s, err, sizeof err);
    } else {
        sink_abort(s);
    }
    buf_free(&out);
}

/* flame and collapse: both writers on a model with a stack table */
static void write_stacks(const model *m)
{
    report_opts ro = { 0 };
    write_model(m, &collapsed_format, &ro);
    ro.title = "fuzz";
    write_model(m, &flame_html_format, &ro);
}

static void fuzz_hprof_bin(const uint8_t *data, size_t size)
{
    char err[512];
    report_opts ro;
    model *m = hprof_bin_read(data, size, &ro, err, sizeof err);
    if (!m) {
        check_message("hprof_bin_read", err);
        return;
    }
    ro.cutoff = 0; /* every row */
    write_model(m, &hprof_txt_format, &ro);
    ro.cutoff = 0.0001; /* the CLI's default */
    write_model(m, &hprof_txt_format, &ro);
    write_model(m, &pprof_format, &ro);
    /* JFR has an event per sample: past JFR_SAMPLES_MAX it must refuse; between 1M and that the
     * writer is sound but too slow under ASan for libFuzzer's time-out */
    if (m->total_samples <= 1000000 || m->total_samples > JFR_SAMPLES_MAX)
        write_model(m, &jfr_format, &ro);
    if (trace_stacks_build(m) == JP_OK)
        write_stacks(m);
    model_free(m);
}

static void fuzz_collapsed(const uint8_t *data, size_t size)
{
    char err[512];
    model *m = collapsed_read(data, size, err, sizeof err);
    if (!m) {
        check_message("collapsed_read", err);
        return;
    }
    report_opts ro = { 0 };
    write_model(m, &pprof_format, &ro);
    write_stacks(m);
    model_free(m);
}

static void fuzz_heap_text(const uint8_t *data, size_t size, const char *who)
{
    char err[512] = "";
    buf out;
    buf_init(&out);
    sink *s = sink_open_memory(&out);
    if (!s)
        die("sink_open_memory", "out of memory");
    jp_status st = hprof_heap_text_write(data, size, s, err, sizeof err);
    if (st == JP_OK) {
        (void)sink_commit(s, err, sizeof err);
    } else {
        sink_abort(s);
        if (st == JP_ERR_FORMAT)
            check_message(who, err);
    }
    buf_free(&out);
}

/* heap --path: the paths of g's objects, checked against the dominators' reachability */
static void fuzz_heap_paths(const heap_graph *g, const heap_dominators *dm)
{
    char err[512], name[256];
    heap_paths p;
    if (!heap_paths_compute(g, &p, err, sizeof err)) {
        check_message("heap_paths_compute", err);
        return;
    }
    if (p.roots + p.strong + p.weak_only != dm->reachable || p.unreachable != dm->unreachable)
        die("heap_paths_compute", "the paths reach other objects than the dominators");
    for (uint32_t i = 0; i < g->n; i++) {
        if ((p.how[i] == HEAP_PATH_NONE) != (dm->idom[i] == HEAP_DOM_UNREACHABLE))
            die("heap_paths_compute", "an object reachable by one and not by the other");
        (void)heap_graph_string(g, i, name, sizeof name);
        (void)heap_paths_reference_kind(g, i);
        if (i >= 256)
            continue;
        uint32_t *c;
        size_t n;
        if (!heap_paths_chain(&p, i, &c, &n))
            continue; /* out of memory */
        if (n && (c[n - 1] != i || heap_paths_root(g, &p, c[0]) == NULL))
            die("heap_paths_chain", "a path that does not run from a root to its object");
        for (size_t k = 1; k < n; k++)
            if (!heap_paths_step_name(g, &p, c[k - 1], c[k], name, sizeof name))
                die("heap_paths_step_name", "a step without a name");
        free(c);
    }
    for (size_t r = 0; r < g->nroots && r < 64; r++) /* each a search of the roots */
        (void)heap_paths_thread_name(g, g->roots[r].thread, name, sizeof name);
    heap_paths_free(&p);
}

static void fuzz_heap_retained(const uint8_t *data, size_t size, unsigned flags)
{
    char err[512];
    heap_graph g;
    if (!heap_graph_build(&g, data, size, flags, NULL, NULL, err, sizeof err)) {
        check_message("heap_graph_build", err);
        return;
    }
    char name[256];
    for (uint32_t i = 0; i < g.n; i++) {
        if (heap_graph_find(&g, g.ids[i]) != i)
            die("heap_graph_find", "an id does not find its own object");
        for (uint32_t k = 0; k < g.edge_at[i + 1] - g.edge_at[i]; k++)
            if (!heap_graph_edge_name(&g, i, k, name, sizeof name))
                die("heap_graph_edge_name", "an edge without a name");
        const char *cname;
        (void)heap_graph_is_class(&g, i, &cname);
        (void)heap_graph_class_name(&g, g.cls[i]);
    }
    heap_dominators dm;
    if (!heap_dominators_compute(&g, &dm, NULL, NULL, err, sizeof err)) {
        check_message("heap_dominators_compute", err);
        heap_graph_free(&g);
        return;
    }
    uint64_t top_sum = 0;
    for (uint32_t i = 0; i < g.n; i++) {
        if (dm.idom[i] == HEAP_DOM_SUPER)
            top_sum += dm.retained[i];
        if (dm.idom[i] != HEAP_DOM_UNREACHABLE && dm.retained[i] < heap_graph_shallow_of(&g, i))
            die("heap_dominators_compute", "a retained size below the shallow size");
    }
    if (top_sum != dm.reachable_bytes)
        die("heap_dominators_compute", "the super root's children do not retain every reachable byte");
    heap_class_retained *rows;
    size_t nrows, ntop;
    uint32_t *top;
    if (heap_dominators_classes(&g, &dm, &rows, &nrows))
        free(rows);
    if (heap_dominators_top(&g, &dm, 3, &top, &ntop))
        free(top);
    fuzz_heap_paths(&g, &dm);
    heap_dominators_free(&dm);
    heap_graph_free(&g);
}

static void fuzz_heap(const uint8_t *data, size_t size)
{
    fuzz_heap_retained(data, size, 0);
    fuzz_heap_retained(data, size, HEAP_GRAPH_IGNORE_WEAK);
    char err[512];
    heap_histogram h;
    if (heap_histogram_read(data, size, &h, err, sizeof err))
        heap_histogram_free(&h);
    else
        check_message("heap_histogram_read", err);
    fuzz_heap_text(data, size, "hprof_heap_text_write");

    uint8_t *w = malloc(size ? size : 1);
    if (!w)
        die("malloc", "out of memory");
    memcpy(w, data, size);
    hprof_fixup_stats fs, again;
    jp_status st = hprof_heap_fixup(w, size, &fs, err, sizeof err);
    if (st == JP_OK) {
        if (hprof_heap_fixup(w, size, &again, err, sizeof err) != JP_OK)
            die("hprof_heap_fixup", "refuses the dump it fixed");
        if (again.nulled != 0 || again.references != fs.references - fs.nulled)
            die("hprof_heap_fixup", "a second run nulls more references");
        fuzz_heap_text(w, size, "hprof_heap_text_write after the fix-up");
    } else {
        if (memcmp(w, data, size) != 0)
            die("hprof_heap_fixup", "refused the dump but changed it");
        if (st == JP_ERR_FORMAT)
            check_message("hprof_heap_fixup", err);
    }
    free(w);
}

static const trace_text_filter trace_filters[2] = { { 0 }, { .thread = 1, .types = 1ull << TRACE_EV_ENTER,
                                                                .method = "a.B", .from_ns = 10, .to_ns = 1000000 } };

/* jvmprof trace --chrome, --slowest, --collapsed and convert TRACE --jfr: no crash, one-line refusals */
static void fuzz_trace_writers(const uint8_t *data, size_t size)
{
    for (int w = 0; w < 4; w++) {
        buf out;
        buf_init(&out);
        sink *s = sink_open_memory(&out);
        if (!s)
            die("sink_open_memory", "out of memory");
        char why[256] = "";
        trace_text_summary sum;
        jp_status st = w == 0   ? trace_chrome_write(data, size, &trace_filters[0], s, &sum, why, sizeof why)
                       : w == 1 ? trace_slowest_write(data, size, &trace_filters[0], 5, s, &sum, why, sizeof why)
                       : w == 2 ? trace_collapsed_write(data, size, &trace_filters[0], s, &sum, why, sizeof why)
                                : jfr_write_trace(data, size, s, why, sizeof why);
        if (st == JP_OK) {
            (void)sink_commit(s, why, sizeof why);
            if (w < 3 && sum.stopped)
                check_message("a trace writer (stopped)", sum.why);
        } else {
            sink_abort(s);
            if (st == JP_ERR_FORMAT)
                check_message(w < 3 ? "a trace writer" : "jfr_write_trace", why);
        }
        buf_free(&out);
    }
}

static void fuzz_trace(const uint8_t *data, size_t size)
{
    const trace_text_filter *filters = trace_filters;
    for (int i = 0; i < 2; i++) {
        buf out;
        buf_init(&out);
        sink *s = sink_open_memory(&out);
        if (!s)
            die("sink_open_memory", "out of memory");
        char why[256] = "";
        trace_text_summary sum;
        jp_status st = trace_text_write(data, size, &filters[i], s, &sum, why, sizeof why);
        if (st == JP_OK) {
            (void)sink_commit(s, why, sizeof why);
            if (sum.stopped)
                check_message("trace_text_write (stopped)", sum.why);
            if (sum.printed > sum.events)
                die("trace_text_write", "printed more events than it read");
        } else {
            sink_abort(s);
            if (st == JP_ERR_FORMAT)
                check_message("trace_text_write", why);
        }
        buf_free(&out);
    }
    fuzz_trace_writers(data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the CLI tells HPROF from collapsed stacks by the header; here every
     * input goes to every reader, so each meets the others' files too */
    fuzz_hprof_bin(data, size);
    fuzz_collapsed(data, size);
    fuzz_heap(data, size);
    fuzz_trace(data, size);
    return 0;
}
