/* cli_heap_retained.c — jvmprof heap FILE --retained [--sort
 * retained|shallow|instances] [--ignore-weak] [--tsv] [--top N] [-o OUT]
 * (retained sizes by class, in the --sort order, and by object, from the
 * dominator tree) and jvmprof heap A --diff B [--ignore-weak] [--tsv] [--top
 * N] [-o OUT] (two dumps compared class by class, sorted by growth). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/file_map.h"
#include "../format/sink.h"
#include "../heapdump/heap_diff.h"
#include "../heapdump/heap_dominators.h"
#include "../heapdump/heap_graph.h"
#include "cli_common.h"
#include "cli_heap_shared.h"

typedef struct hret_out {
    const char *path;
    const heap_graph *g;
    const heap_dominators *dm;
    const heap_class_retained *rows;
    size_t nrows;
    const uint32_t *top;
    size_t ntop;
    unsigned long top_n;
    bool tsv;
    heap_class_order order; /* the class rows' */
} hret_out;

static jp_status hret_print(sink *s, const void *ctx)
{
    const hret_out *o = ctx;
    const heap_graph *g = o->g;
    const heap_dominators *dm = o->dm;
    bool weak = g->flags & HEAP_GRAPH_IGNORE_WEAK;
    char name[1024];
    size_t nclasses = o->top_n && o->top_n < o->nrows ? (size_t)o->top_n : o->nrows;
    if (o->tsv) {
        sink_printf(s, "rule\t%s\n", weak ? "ignore-weak" : "every-reference");
        sink_printf(s, "shallow\t%s\n", g->compressed_oops ? "compressed-references" : "dumped-layout");
        for (size_t k = 0; k < nclasses; k++)
            sink_printf(s, "class\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
                        cli_heap_clean(heap_graph_class_name(g, o->rows[k].cls), name, sizeof name),
                        o->rows[k].instances, o->rows[k].shallow, o->rows[k].retained);
        for (size_t k = 0; k < o->ntop; k++) {
            uint32_t i = o->top[k];
            sink_printf(s, "object\t0x%" PRIx64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\n", g->ids[i],
                        cli_heap_object_class(g, i, name, sizeof name), heap_graph_shallow_of(g, i), dm->retained[i]);
        }
        return JP_OK;
    }
    sink_printf(s,
                "%s: HPROF %s heap dump, %u-byte ids: %" PRIu32 " objects (%" PRIu64 " bytes), %" PRIu64
                " reachable (%" PRIu64 " bytes), %" PRIu64 " unreachable (%" PRIu64 " bytes), %" PRIu64
                " references, %" PRIu64 " unresolved references, %" PRIu64 " unresolved GC roots\n",
                o->path, g->version, g->idsize, g->n, g->shallow_total, dm->reachable, dm->reachable_bytes,
                dm->unreachable, dm->unreachable_bytes, g->nedges, g->unresolved, g->unresolved_roots);
    if (weak)
        sink_printf(s,
                    "rule: --ignore-weak: the referent of a weak, soft, phantom or final reference retains nothing; %" PRIu64
                    " objects (%" PRIu64 " bytes) reachable only through referents hang below the GC roots\n",
                    dm->weak_only, dm->weak_only_bytes);
    else
        sink_printf(s, "rule: every reference retains, weak, soft, phantom and final references' referents too (as MAT and "
                       "VisualVM; --ignore-weak: not those)\n");
    sink_printf(s, "shallow sizes: %s\n",
                g->compressed_oops ? "references compressed to 4 bytes, 12-byte object headers (the dumped system "
                                     "property java.vm.compressedOopsMode says the JVM compressed them)"
                                   : "the dumped layout: references at the dump's id size, 16-byte object headers");
    sink_printf(s, "\nclasses by %s (a class: its instances that no other instance of it retains)\n",
                o->order == HEAP_CLASSES_BY_SHALLOW     ? "shallow size"
                : o->order == HEAP_CLASSES_BY_INSTANCES ? "instances"
                                                        : "retained size");
    sink_printf(s, "%6s %12s %14s %14s  %s\n", "rank", "instances", "shallow", "retained", "class");
    for (size_t k = 0; k < nclasses; k++)
        sink_printf(s, "%6zu %12" PRIu64 " %14" PRIu64 " %14" PRIu64 "  %s\n", k + 1, o->rows[k].instances,
                    o->rows[k].shallow, o->rows[k].retained,
                    cli_heap_clean(heap_graph_class_name(g, o->rows[k].cls), name, sizeof name));
    if (nclasses < o->nrows)
        sink_printf(s, "(%zu more classes; --top 0 shows all)\n", o->nrows - nclasses);
    sink_printf(s, "\nobjects by retained size\n");
    sink_printf(s, "%6s %-18s %14s %14s  %s\n", "rank", "id", "shallow", "retained", "class");
    for (size_t k = 0; k < o->ntop; k++) {
        uint32_t i = o->top[k];
        char id[24];
        snprintf(id, sizeof id, "0x%" PRIx64, g->ids[i]);
        sink_printf(s, "%6zu %-18s %14" PRIu64 " %14" PRIu64 "  %s\n", k + 1, id, heap_graph_shallow_of(g, i),
                    dm->retained[i], cli_heap_object_class(g, i, name, sizeof name));
    }
    if (o->ntop < dm->reachable)
        sink_printf(s, "(%" PRIu64 " more reachable objects; --top 0 shows all)\n", dm->reachable - o->ntop);
    return JP_OK;
}

/* jvmprof heap FILE --retained [--sort retained|shallow|instances] [--ignore-weak] [--tsv] [--top N] [-o OUT] */
int cli_heap_retained_run(const cli_args *a, bool ignore_weak, bool tsv, heap_class_order order)
{
    size_t len = 0;
    const void *data = cli_map_file(a->in, &len);
    if (!data)
        return 1;
    cli_heap_progress p = { .start = cli_heap_now(), .tty = isatty(2) != 0 };
    char err[512];
    heap_graph g;
    heap_dominators dm = { 0 };
    heap_class_retained *rows = NULL;
    uint32_t *top = NULL;
    size_t nrows = 0, ntop = 0;
    bool ok = heap_graph_build(&g, data, len, ignore_weak ? HEAP_GRAPH_IGNORE_WEAK : 0, cli_heap_progress_fn, &p, err,
                               sizeof err);
    if (ok)
        ok = heap_dominators_compute(&g, &dm, cli_heap_progress_fn, &p, err, sizeof err);
    if (ok) {
        cli_heap_progress_fn(&p, "retained sizes by class", 0, 0);
        ok = heap_dominators_classes(&g, &dm, &rows, &nrows) && heap_dominators_top(&g, &dm, a->top, &top, &ntop);
        if (!ok)
            snprintf(err, sizeof err, "out of memory ranking the retained sizes");
        else if (order != HEAP_CLASSES_BY_RETAINED)
            heap_dominators_classes_sort(&g, rows, nrows, order);
    }
    cli_heap_progress_end(&p);
    int rc = 1;
    if (!ok) {
        cli_error("%s: %s", a->in, err);
    } else {
        hret_out o = { a->in, &g, &dm, rows, nrows, top, ntop, a->top, tsv, order };
        rc = cli_output(a->out, "retained sizes", 0, hret_print, &o);
    }
    free(rows);
    free(top);
    heap_dominators_free(&dm);
    if (g.r)
        heap_graph_free(&g);
    file_unmap(data, len);
    return rc;
}

/* One side of --diff: the dump's class rows into the diff. */
static bool hret_diff_side(heap_diff *d, int side, const char *path, bool ignore_weak, cli_heap_progress *p,
                               heap_graph *gout)
{
    size_t len = 0;
    const void *data = cli_map_file(path, &len);
    if (!data)
        return false;
    char err[512];
    heap_graph g;
    heap_dominators dm = { 0 };
    heap_class_retained *rows = NULL;
    size_t nrows = 0;
    bool ok = heap_graph_build(&g, data, len, ignore_weak ? HEAP_GRAPH_IGNORE_WEAK : 0, cli_heap_progress_fn, p, err,
                               sizeof err);
    if (ok)
        ok = heap_dominators_compute(&g, &dm, cli_heap_progress_fn, p, err, sizeof err);
    if (ok && !(heap_dominators_classes(&g, &dm, &rows, &nrows) && heap_diff_add(d, side, &g, rows, nrows))) {
        snprintf(err, sizeof err, "out of memory comparing the dumps");
        ok = false;
    }
    if (!ok)
        cli_error("%s: %s", path, err);
    else { /* what the header says of it */
        memset(gout, 0, sizeof *gout);
        gout->n = g.n;
        gout->idsize = g.idsize;
        gout->compressed_oops = g.compressed_oops;
        gout->shallow_total = dm.reachable_bytes;
        gout->nedges = dm.reachable;
    }
    free(rows);
    heap_dominators_free(&dm);
    if (g.r)
        heap_graph_free(&g);
    file_unmap(data, len);
    return ok;
}

typedef struct hret_diff_out {
    const char *path[2];
    const heap_graph *g[2]; /* n, idsize, compressed_oops; shallow_total: reachable bytes; nedges: reachable */
    const heap_diff *d;
    unsigned long top;
    bool tsv, weak;
} hret_diff_out;

static jp_status hret_diff_print(sink *s, const void *ctx)
{
    const hret_diff_out *o = ctx;
    const heap_diff *d = o->d;
    size_t n = o->top && o->top < d->nrows ? (size_t)o->top : d->nrows;
    char name[1024];
    if (o->tsv) {
        sink_printf(s, "rule\t%s\n", o->weak ? "ignore-weak" : "every-reference");
        for (size_t i = 0; i < n; i++) {
            const heap_diff_row *r = &d->rows[i];
            sink_printf(s, "diff\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
                        cli_heap_clean(r->name, name, sizeof name), r->instances[0], r->instances[1], r->shallow[0],
                        r->shallow[1], r->retained[0], r->retained[1]);
        }
        return JP_OK;
    }
    for (int k = 0; k < 2; k++)
        sink_printf(s, "%s: %s: %" PRIu32 " objects, %" PRIu64 " reachable (%" PRIu64 " bytes)%s\n", k ? "B" : "A",
                    o->path[k], o->g[k]->n, o->g[k]->nedges, o->g[k]->shallow_total,
                    o->g[k]->compressed_oops ? ", compressed references" : "");
    sink_printf(s, "rule: %s\n", o->weak ? "--ignore-weak: referents retain nothing"
                                         : "every reference retains (as MAT and VisualVM; --ignore-weak: not referents)");
    sink_printf(s, "\nclasses by growth of their retained size from A to B (a class: its instances that no other "
                   "instance of it retains)\n");
    sink_printf(s, "%6s %11s %11s %11s %13s %13s %13s %13s  %s\n", "rank", "instances A", "instances B", "change",
                "shallow chg", "retained A", "retained B", "change", "class");
    for (size_t i = 0; i < n; i++) {
        const heap_diff_row *r = &d->rows[i];
        sink_printf(s, "%6zu %11" PRIu64 " %11" PRIu64 " %+11" PRId64 " %+13" PRId64 " %13" PRIu64 " %13" PRIu64
                       " %+13" PRId64 "  %s\n",
                    i + 1, r->instances[0], r->instances[1], heap_diff_change(r->instances), heap_diff_change(r->shallow),
                    r->retained[0], r->retained[1], heap_diff_change(r->retained),
                    cli_heap_clean(r->name, name, sizeof name));
    }
    if (n < d->nrows)
        sink_printf(s, "(%zu more classes; --top 0 shows all)\n", d->nrows - n);
    return JP_OK;
}

int cli_heap_diff_run(const cli_args *a, const char *other, bool ignore_weak, bool tsv)
{
    heap_diff d = { 0 };
    heap_graph g[2];
    cli_heap_progress p = { .start = cli_heap_now(), .tty = isatty(2) != 0 };
    bool ok = hret_diff_side(&d, 0, a->in, ignore_weak, &p, &g[0]) &&
              hret_diff_side(&d, 1, other, ignore_weak, &p, &g[1]) && heap_diff_finish(&d);
    cli_heap_progress_end(&p);
    int rc = 1;
    if (ok) {
        hret_diff_out o = { { a->in, other }, { &g[0], &g[1] }, &d, a->top, tsv, ignore_weak };
        rc = cli_output(a->out, "heap diff", 0, hret_diff_print, &o);
    }
    heap_diff_free(&d);
    return rc;
}

