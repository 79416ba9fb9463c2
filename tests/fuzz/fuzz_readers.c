/* fuzz_readers.c — libFuzzer target for every reader the jvmprof command
 * (src/cli/) runs on a file it is given, each followed by the writers
 * that command would run on what was read, into memory sinks:
 *   report        hprof_bin_read, then hprof_txt_format
 *   convert       hprof_bin_read, then pprof_format and jfr_format;
 *                 collapsed_read, then pprof_format
 *   flame/collapse hprof_bin_read + trace_stacks_build, or collapsed_read;
 *                 then flame_html_format and collapsed_format; with SAMPLE
 *                 TIMES, also --from/--to: model_sample_times_keep (the
 *                 middle half of the times) before trace_stacks_build
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
 *   heap --leaks  heap_dom_children_build: each reachable object once, in
 *                 its immediate dominator's list, largest retained first;
 *                 heap_leaks_find (both rules, threshold 5%): every suspect
 *                 above the threshold, objects then classes, each largest
 *                 first; an object suspect dominates its accumulation point,
 *                 whose children retain its retained size less its shallow
 *                 size; a class suspect is its class row. --html:
 *                 heap_leaks_html_write (a hostile path text given) into a
 *                 memory sink: one whole page, no NUL, no name ending its
 *                 script elements.
 *   heap --site   heap_site_find (after heap --path's checks) for object 0's
 *                 trace and, in a dump of at most 20000 objects, trace 1: each
 *                 path runs from a root to an object of the trace, the paths
 *                 by their objects, their objects, bytes and classes adding
 *                 up; hprof_traces_read, then hprof_traces_find and _frame for
 *                 the trace serial of each of the first 256 objects and a few
 *                 fixed ones (300001: a report's first TRACE, so the seeds'
 *                 reports give frames): no frame past a trace's count, every name
 *                 inside the file, each frame's text NUL-terminated inside
 *                 its buffer (no byte past it written) and, cut short, a
 *                 prefix of the whole text.
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
#include <strings.h>

#include "common/buf.h"
#include "format/format.h"
#include "format/sink.h"
#include "trace/trace_text.h"
#include "heapdump/heap_dominators.h"
#include "heapdump/heap_graph.h"
#include "heapdump/heap_paths.h"
#include "heapdump/heap_site.h"
#include "heapdump/heap_histogram.h"
#include "heapdump/heap_leaks.h"
#include "heapdump/heap_leaks_html.h"
#include "heapdump/hprof_traces.h"
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
    /* jvmprof flame --from/--to: a window of the sample times, read again */
    m = hprof_bin_read(data, size, &ro, err, sizeof err);
    if (m && m->sample_times_len) {
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint32_t i = 0; i < m->sample_times_len; i++) {
            lo = m->sample_times[i].wall_ns < lo ? m->sample_times[i].wall_ns : lo;
            hi = m->sample_times[i].wall_ns > hi ? m->sample_times[i].wall_ns : hi;
        }
        model_sample_times_keep(m, lo + (hi - lo) / 4, hi - (hi - lo) / 4);
        if (trace_stacks_build(m) == JP_OK)
            write_stacks(m);
    }
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
    /* heap --site: the objects of object 0's trace serial (and, in a small dump, of the empty trace 1:
     * nearly every object), grouped by their paths */
    for (int pass = 0; pass < 2 && g->n; pass++) {
        uint32_t trace = pass ? 1 : heap_graph_trace_serial(g, 0);
        if (pass && g->n > 20000)
            break;
        heap_site st;
        if (!heap_site_find(g, dm, &p, trace, NULL, &st))
            continue; /* out of memory */
        uint64_t in_groups = 0, shallow = 0, in_classes = 0;
        for (size_t k = 0; k < st.ngroups; k++) {
            const heap_site_group *gr = &st.groups[k];
            in_groups += gr->objects;
            shallow += gr->shallow;
            if (!gr->len || heap_graph_trace_serial(g, gr->chain[gr->len - 1]) != trace ||
                heap_paths_root(g, &p, gr->chain[0]) == NULL || (gr->objects == 1 && !gr->same[0]))
                die("heap_site_find", "a path that does not run from a root to an object of the site");
            if (k && gr->objects > st.groups[k - 1].objects)
                die("heap_site_find", "paths not ordered by their objects");
        }
        for (size_t c = 0; c < st.nclasses; c++)
            in_classes += st.classes[c].objects;
        if (in_groups + st.unreachable != st.objects || shallow > st.shallow || in_classes != st.objects ||
            st.retained > dm->reachable_bytes)
            die("heap_site_find", "the site's objects, paths and classes do not add up");
        heap_site_free(&st);
    }
    heap_paths_free(&p);
}

/* a name of the traces: NULL, or inside the file */
static void check_trace_name(const hprof_traces *t, hprof_name n)
{
    const char *lo = (const char *)t->d, *hi = lo + t->len;
    if (n.p && (n.p < lo || n.p > hi || n.len > (size_t)(hi - n.p)))
        die("hprof_traces_frame", "a name outside the file");
}

/* the frame's text in buffers of several sizes: NUL-terminated inside each, nothing written past it, and
 * each cut a prefix of the whole */
static void check_frame_text(const hprof_trace_frame *f)
{
    static const size_t lens[] = { 1, 2, 17, 300 };
    char whole[2048], cut[300 + 8];
    hprof_traces_frame_text(f, whole, sizeof whole);
    if (!memchr(whole, 0, sizeof whole))
        die("hprof_traces_frame_text", "a text without its NUL");
    memset(cut, 0x5a, sizeof cut);
    hprof_traces_frame_text(f, cut, 0);
    if (cut[0] != 0x5a)
        die("hprof_traces_frame_text", "wrote into a buffer of 0 bytes");
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        memset(cut, 0x5a, sizeof cut);
        hprof_traces_frame_text(f, cut, lens[k]);
        const char *nul = memchr(cut, 0, lens[k]);
        if (!nul)
            die("hprof_traces_frame_text", "no NUL inside the buffer");
        for (size_t j = lens[k]; j < sizeof cut; j++)
            if (cut[j] != 0x5a)
                die("hprof_traces_frame_text", "wrote past the buffer");
        if (strncmp(cut, whole, (size_t)(nul - cut)) != 0)
            die("hprof_traces_frame_text", "a text cut short that is not a prefix of the whole");
    }
}

/* one trace serial: its frames, and none past its count */
static void fuzz_trace_serial(const hprof_traces *t, uint32_t serial)
{
    uint32_t nframes = 0, thread = 0;
    hprof_trace_frame f;
    if (!hprof_traces_find(t, serial, &nframes, &thread)) {
        if (hprof_traces_frame(t, serial, 0, &f))
            die("hprof_traces_frame", "a frame of a trace hprof_traces_find does not find");
        return;
    }
    if (hprof_traces_frame(t, serial, nframes, &f))
        die("hprof_traces_frame", "a frame past the trace's count");
    for (uint32_t k = 0; k < nframes && k < 64; k++) {
        if (!hprof_traces_frame(t, serial, k, &f))
            continue; /* a frame id without a FRAME record */
        check_trace_name(t, f.method);
        check_trace_name(t, f.sig);
        check_trace_name(t, f.source);
        check_trace_name(t, f.class_name);
        check_frame_text(&f);
    }
}

/* heap --site: the traces of g's objects (g read from the same data; NULL: none read) */
static void fuzz_heap_traces(const heap_graph *g, const uint8_t *data, size_t size)
{
    char err[512];
    hprof_traces t;
    if (!hprof_traces_read(&t, data, size, err, sizeof err)) {
        check_message("hprof_traces_read", err);
        return;
    }
    if (t.d != data || t.len != size || (t.idsize != 4 && t.idsize != 8))
        die("hprof_traces_read", "traces of another file");
    uint32_t last = 0;
    for (uint32_t i = 0; g && i < g->n && i < 256; i++) {
        uint32_t serial = heap_graph_trace_serial(g, i);
        if (i && serial == last)
            continue;
        fuzz_trace_serial(&t, serial);
        last = serial;
    }
    static const uint32_t fixed[] = { 0, 1, 300001, 300002, 0x7fffffffu, 0xffffffffu };
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        fuzz_trace_serial(&t, fixed[k]);
    hprof_traces_free(&t);
}

/* the dominator tree's children lists: each reachable object once, in its immediate dominator's list, each
 * list largest retained first, ties by index */
static void check_children(const heap_graph *g, const heap_dominators *dm, const heap_dom_children *c)
{
    if (c->n != g->n || c->at[0] != 0 || c->at[g->n + 1] != dm->reachable)
        die("heap_dom_children_build", "lists that do not hold every reachable object");
    for (uint32_t p = 0; p <= g->n; p++) {
        if (c->at[p + 1] < c->at[p])
            die("heap_dom_children_build", "a list that ends before it starts");
        for (uint32_t k = c->at[p]; k < c->at[p + 1]; k++) {
            uint32_t y = c->list[k];
            if (y >= g->n || heap_dom_parent(dm, c, y) != p)
                die("heap_dom_children_build", "a child not immediately dominated by its parent");
            if (k > c->at[p]) {
                uint32_t x = c->list[k - 1];
                if (dm->retained[x] < dm->retained[y] || (dm->retained[x] == dm->retained[y] && x >= y))
                    die("heap_dom_children_build", "a list out of order");
            }
        }
    }
}

static int count_script_ends(const buf *b)
{
    int n = 0;
    for (size_t k = 0; k + 8 <= b->len; k++)
        if (!strncasecmp((const char *)b->data + k, "</script", 8))
            n++;
    return n;
}

/* heap --leaks [--html]: the suspects over dm, checked; with html, the page */
static void fuzz_heap_leaks(const heap_graph *g, const heap_dominators *dm, const heap_class_retained *rows,
                            size_t nrows, bool html)
{
    const double threshold = 5.0;
    heap_dom_children c;
    if (!heap_dom_children_build(g, dm, &c))
        return; /* out of memory */
    check_children(g, dm, &c);
    heap_leaks l;
    if (!heap_leaks_find(g, dm, &c, rows, nrows, threshold, &l)) {
        heap_dom_children_free(&c);
        return;
    }
    if (l.heap != dm->reachable_bytes)
        die("heap_leaks_find", "a heap other than the reachable bytes");
    for (size_t k = 0; k < l.n; k++) {
        const heap_leak_suspect *x = &l.s[k];
        if (!((double)x->retained * 100.0 > threshold * (double)l.heap))
            die("heap_leaks_find", "a suspect not above the threshold");
        if (k && x->kind < l.s[k - 1].kind)
            die("heap_leaks_find", "an object suspect after a class suspect");
        if (k && x->kind == l.s[k - 1].kind && x->retained > l.s[k - 1].retained)
            die("heap_leaks_find", "suspects out of order");
        if (x->obj >= g->n || dm->idom[x->obj] == HEAP_DOM_UNREACHABLE)
            die("heap_leaks_find", "a suspect without a reachable object");
        if (x->kind == HEAP_LEAK_OBJECT) {
            const heap_leak_point *p = &x->point;
            if (x->retained != dm->retained[x->obj] || p->obj >= g->n)
                die("heap_leaks_find", "an object suspect's retained size is not its object's");
            uint32_t i = p->obj;
            for (uint32_t s = 0; s < p->steps && i < g->n; s++)
                i = dm->idom[i];
            if (i != x->obj)
                die("heap_leaks_find", "an accumulation point its suspect does not dominate by its steps");
            if (p->children != heap_dom_children_count(&c, p->obj) ||
                p->children_retained + heap_graph_shallow_of(g, p->obj) != dm->retained[p->obj])
                die("heap_leaks_find", "an accumulation point's children that are not its retained size");
            if (p->top_cls_retained > p->children_retained || p->top_cls_children > p->children)
                die("heap_leaks_find", "a point's top class beyond its children");
        } else {
            size_t r = 0;
            while (r < nrows && rows[r].cls != x->cls)
                r++;
            if (r == nrows || rows[r].retained != x->retained || rows[r].instances != x->instances ||
                g->cls[x->obj] != x->cls)
                die("heap_leaks_find", "a class suspect that is not its class's row");
            if (x->held > x->instances)
                die("heap_leaks_find", "a holder of more instances than the class has");
        }
    }
    const char **paths = html && l.n ? calloc(l.n, sizeof *paths) : NULL;
    if (paths) { /* suspect 1's path: text that must not end the page's script or break its markup */
        paths[0] = "</script><b>\"&amp;\n\x01</SCRIPT";
        heap_leaks_page page = { "fuzz</script>.hprof", g, dm, &c, &l, rows, nrows, 20, paths };
        char err[256];
        buf out;
        buf_init(&out);
        sink *s = sink_open_memory(&out);
        if (!s)
            die("sink_open_memory", "out of memory");
        if (heap_leaks_html_write(s, &page) != JP_OK)
            sink_abort(s);
        else if (sink_commit(s, err, sizeof err) == JP_OK) {
            static const char head[] = "<!DOCTYPE html>", tail[] = "</html>\n";
            if (out.len < sizeof head + sizeof tail || memcmp(out.data, head, sizeof head - 1) != 0 ||
                memcmp(out.data + out.len - (sizeof tail - 1), tail, sizeof tail - 1) != 0)
                die("heap_leaks_html_write", "not one whole page");
            if (memchr(out.data, 0, out.len))
                die("heap_leaks_html_write", "a NUL in the page");
            if (count_script_ends(&out) != 3) /* head.html's and the writer's two */
                die("heap_leaks_html_write", "a name or path that ends a script element");
        }
        buf_free(&out);
        free(paths);
    }
    heap_leaks_free(&l);
    heap_dom_children_free(&c);
}

static void fuzz_heap_retained(const uint8_t *data, size_t size, unsigned flags)
{
    char err[512];
    heap_graph g;
    if (!heap_graph_build(&g, data, size, flags, NULL, NULL, err, sizeof err)) {
        check_message("heap_graph_build", err);
        if (!(flags & HEAP_GRAPH_IGNORE_WEAK)) /* a report has traces and no heap */
            fuzz_heap_traces(NULL, data, size);
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
    if (heap_dominators_classes(&g, &dm, &rows, &nrows)) {
        fuzz_heap_leaks(&g, &dm, rows, nrows, !(flags & HEAP_GRAPH_IGNORE_WEAK));
        free(rows);
    }
    if (heap_dominators_top(&g, &dm, 3, &top, &ntop))
        free(top);
    fuzz_heap_paths(&g, &dm);
    if (!(flags & HEAP_GRAPH_IGNORE_WEAK))
        fuzz_heap_traces(&g, data, size);
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
