/* cli_heap_leaks.c — jvmprof heap FILE --leaks [--threshold PCT]
 * [--ignore-weak] [--tsv | --html] [--top N] [-o OUT]: the leak suspects
 * (heap_leaks.h: what retains more than PCT% of the heap, its accumulation
 * point, its path from a GC root; the classes by retained size), in text,
 * TSV or one page with the dominator tree drawn (heap_leaks_html.h). */
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
#include "../heapdump/heap_dominators.h"
#include "../heapdump/heap_graph.h"
#include "../heapdump/heap_leaks.h"
#include "../heapdump/heap_leaks_html.h"
#include "../heapdump/heap_paths.h"
#include "cli_common.h"
#include "cli_heap_shared.h"

typedef struct hleak_out {
    const char *path;
    const heap_graph *g;
    const heap_dominators *dm;
    const heap_dom_children *c;
    const heap_leaks *l;
    const heap_class_retained *rows;
    size_t nrows;
    unsigned long top_n;
    bool tsv;
    char *const *paths; /* per suspect: the path from a GC root to its point or holder (cli_heap_path_text), or NULL */
} hleak_out;

static double hleak_share(const heap_leaks *l, uint64_t bytes)
{
    return l->heap ? 100.0 * (double)bytes / (double)l->heap : 0.0;
}

/* "CLASS 0xID" of object i, or "the GC roots" for the super root */
static const char *hleak_named(const heap_graph *g, const heap_dom_children *c, uint32_t i, char *out, size_t len)
{
    if (i == HEAP_GRAPH_NONE || i == c->n) {
        snprintf(out, len, "the GC roots");
        return out;
    }
    char name[1024];
    snprintf(out, len, "%s 0x%" PRIx64, cli_heap_object_class(g, i, name, sizeof name), g->ids[i]);
    return out;
}

static void hleak_tsv(sink *s, const hleak_out *o)
{
    const heap_graph *g = o->g;
    const heap_leaks *l = o->l;
    char name[1024], name2[1024], name3[1024];
    sink_printf(s, "rule\t%s\n", g->flags & HEAP_GRAPH_IGNORE_WEAK ? "ignore-weak" : "every-reference");
    sink_printf(s, "heap\t%" PRIu64 "\t%g\n", l->heap, l->threshold);
    for (size_t k = 0; k < l->n; k++) {
        const heap_leak_suspect *x = &l->s[k];
        if (x->kind == HEAP_LEAK_OBJECT) {
            const heap_leak_point *p = &x->point;
            sink_printf(s,
                        "suspect\tobject\t%s\t0x%" PRIx64 "\t%" PRIu64 "\t%s\t0x%" PRIx64 "\t%" PRIu32 "\t%" PRIu64
                        "\t%" PRIu32 "\t%" PRIu64 "\t%s\t%" PRIu32 "\t%" PRIu64 "\n",
                        cli_heap_object_class(g, x->obj, name, sizeof name), g->ids[x->obj], x->retained,
                        cli_heap_object_class(g, p->obj, name2, sizeof name2), g->ids[p->obj], p->steps,
                        o->dm->retained[p->obj], p->children, p->children_retained,
                        p->top_cls == HEAP_GRAPH_NONE ? "-"
                                                      : cli_heap_clean(heap_graph_class_name(g, p->top_cls), name3,
                                                                       sizeof name3),
                        p->top_cls_children, p->top_cls_retained);
            /* the objects from the suspect down to its point */
            uint32_t chain[64];
            uint32_t n = 0;
            for (uint32_t i = p->obj; n < 64; i = o->dm->idom[i]) {
                chain[n++] = i;
                if (i == x->obj)
                    break;
            }
            for (uint32_t j = n; j-- > 0;)
                sink_printf(s, "chain\t%zu\t%s\t0x%" PRIx64 "\t%" PRIu64 "\n", k + 1,
                            cli_heap_object_class(g, chain[j], name, sizeof name), g->ids[chain[j]],
                            o->dm->retained[chain[j]]);
        } else {
            bool roots = x->holder == HEAP_GRAPH_NONE;
            sink_printf(s,
                        "suspect\tclass\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\n",
                        cli_heap_clean(heap_graph_class_name(g, x->cls), name, sizeof name), x->instances,
                        x->retained, roots ? "-" : cli_heap_object_class(g, x->holder, name2, sizeof name2),
                        roots ? "-" : (snprintf(name3, sizeof name3, "0x%" PRIx64, g->ids[x->holder]), name3),
                        x->holder_levels, x->held, x->held_bytes);
        }
    }
    for (size_t k = 0; o->paths && k < l->n; k++) /* "path N LINE": the path's lines as the text shows them */
        for (const char *line = o->paths[k]; line && *line;) {
            const char *nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            sink_printf(s, "path\t%zu\t%.*s\n", k + 1, (int)len, line);
            line += len + (nl ? 1 : 0);
        }
    size_t nclasses = o->top_n && o->top_n < o->nrows ? (size_t)o->top_n : o->nrows;
    for (size_t k = 0; k < nclasses; k++)
        sink_printf(s, "class\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
                    cli_heap_clean(heap_graph_class_name(g, o->rows[k].cls), name, sizeof name), o->rows[k].instances,
                    o->rows[k].shallow, o->rows[k].retained);
}

static jp_status hleak_print(sink *s, const void *ctx)
{
    const hleak_out *o = ctx;
    const heap_graph *g = o->g;
    const heap_dominators *dm = o->dm;
    const heap_leaks *l = o->l;
    if (o->tsv) {
        hleak_tsv(s, o);
        return JP_OK;
    }
    char name[1024], name2[1200];
    sink_printf(s,
                "%s: HPROF %s heap dump, %u-byte ids: %" PRIu32 " objects, %" PRIu64 " reachable (%" PRIu64
                " bytes: the heap below)\n",
                o->path, g->version, g->idsize, g->n, dm->reachable, dm->reachable_bytes);
    sink_printf(s, "rule: %s\n",
                g->flags & HEAP_GRAPH_IGNORE_WEAK
                    ? "--ignore-weak: the referent of a weak, soft, phantom or final reference retains nothing"
                    : "every reference retains, referents of weak, soft, phantom and final references too (--ignore-weak: not those)");
    sink_printf(s, "leak suspects: what retains more than %g%% of the heap (%.0f bytes; --threshold PCT)\n",
                l->threshold, l->threshold / 100.0 * (double)l->heap);
    size_t nth = 0;
    for (size_t k = 0; k < l->n; k++) {
        const heap_leak_suspect *x = &l->s[k];
        nth++;
        if (x->kind == HEAP_LEAK_OBJECT) {
            const heap_leak_point *p = &x->point;
            sink_printf(s, "\nsuspect %zu: %s retains %" PRIu64 " bytes, %.2f%% of the heap\n", nth,
                        hleak_named(g, o->c, x->obj, name2, sizeof name2), x->retained,
                        hleak_share(l, x->retained));
            if (p->steps) {
                uint32_t chain[64];
                uint32_t n = 0;
                for (uint32_t i = p->obj; n < 64; i = dm->idom[i]) {
                    chain[n++] = i;
                    if (i == x->obj)
                        break;
                }
                sink_printf(s, "  dominator tree down to it:");
                if (chain[n - 1] != x->obj)
                    sink_printf(s, " ...");
                for (uint32_t j = n; j-- > 0;)
                    sink_printf(s, "%s %s", j + 1 == n ? "" : " >", hleak_named(g, o->c, chain[j], name2, sizeof name2));
                sink_printf(s, "\n");
            }
            sink_printf(s, "  accumulation point: %s (%s), retains %" PRIu64 " bytes",
                        hleak_named(g, o->c, p->obj, name2, sizeof name2),
                        p->steps ? "below the suspect" : "the suspect itself", dm->retained[p->obj]);
            if (!p->children)
                sink_printf(s, "; it dominates no other object\n");
            else
                sink_printf(s,
                            ": %" PRIu32 " objects it dominates retain %" PRIu64 " bytes, %" PRIu32 " of them %s (%" PRIu64
                            " bytes, %.2f%% of the heap)\n",
                            p->children, p->children_retained, p->top_cls_children,
                            cli_heap_clean(heap_graph_class_name(g, p->top_cls), name, sizeof name),
                            p->top_cls_retained, hleak_share(l, p->top_cls_retained));
        } else {
            sink_printf(s, "\nsuspect %zu: %" PRIu64 " instances of %s retain %" PRIu64 " bytes, %.2f%% of the heap\n",
                        nth, x->instances, cli_heap_clean(heap_graph_class_name(g, x->cls), name, sizeof name),
                        x->retained, hleak_share(l, x->retained));
            if (x->holder == HEAP_GRAPH_NONE)
                sink_printf(s, "  no object holds them: they hang below the GC roots");
            else
                sink_printf(s, "  %" PRIu64 " of them (%" PRIu64 " bytes) %s %s", x->held, x->held_bytes,
                            x->holder_levels > 1 ? "lie below" : "are held by",
                            hleak_named(g, o->c, x->holder, name2, sizeof name2));
            if (x->holder_levels > 1)
                sink_printf(s, ", %" PRIu32 " levels of the dominator tree up", x->holder_levels);
            sink_printf(s, "; the largest: %s, %" PRIu64 " bytes\n", hleak_named(g, o->c, x->obj, name2, sizeof name2),
                        dm->retained[x->obj]);
        }
        size_t same = 0; /* an earlier suspect whose path leads to the same object */
        for (size_t j = 0; j < k && !same; j++)
            if (heap_leak_target(&l->s[j]) == heap_leak_target(x))
                same = j + 1;
        if (o->paths && o->paths[k] && same)
            sink_printf(s, "  path from a GC root to %s: as suspect %zu's\n",
                        x->kind == HEAP_LEAK_OBJECT ? "the accumulation point" : "their holder", same);
        else if (o->paths && o->paths[k]) { /* indented by 4 */
            sink_printf(s, "  path from a GC root to %s:\n",
                        x->kind == HEAP_LEAK_OBJECT ? "the accumulation point" : x->holder != HEAP_GRAPH_NONE ? "their holder" : "the largest");
            for (const char *line = o->paths[k]; *line;) {
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                sink_printf(s, "    %.*s\n", (int)len, line);
                line += len + (nl ? 1 : 0);
            }
        }
    }
    if (!l->n)
        sink_printf(s, "\nno suspect: no object, and no class, retains more than %g%% of the heap\n", l->threshold);
    size_t nclasses = o->top_n && o->top_n < o->nrows ? (size_t)o->top_n : o->nrows;
    sink_printf(s, "\nclasses by retained size (a class: its instances that no other instance of it retains)\n");
    sink_printf(s, "%6s %12s %14s %14s %8s  %s\n", "rank", "instances", "shallow", "retained", "heap", "class");
    for (size_t k = 0; k < nclasses; k++)
        sink_printf(s, "%6zu %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %7.2f%%  %s\n", k + 1, o->rows[k].instances,
                    o->rows[k].shallow, o->rows[k].retained, hleak_share(l, o->rows[k].retained),
                    cli_heap_clean(heap_graph_class_name(g, o->rows[k].cls), name, sizeof name));
    if (nclasses < o->nrows)
        sink_printf(s, "(%zu more classes; --top 0 shows all)\n", o->nrows - nclasses);
    return JP_OK;
}

static jp_status hleak_html(sink *s, const void *ctx) { return heap_leaks_html_write(s, ctx); }

/* jvmprof heap FILE --leaks [--threshold PCT] [--ignore-weak] [--tsv | --html] [--top N] [-o OUT] */
int cli_heap_leaks_run(const cli_args *a, bool ignore_weak, bool tsv, bool html, double threshold)
{
    size_t len = 0;
    const void *data = cli_map_file(a->in, &len);
    if (!data)
        return 1;
    cli_heap_progress p = { .start = cli_heap_now(), .tty = isatty(2) != 0, .what = "--leaks" };
    char err[512];
    heap_graph g;
    heap_dominators dm = { 0 };
    heap_dom_children c = { 0 };
    heap_leaks l = { 0 };
    heap_paths hp = { 0 };
    char **paths = NULL;
    heap_class_retained *rows = NULL;
    size_t nrows = 0;
    bool ok = heap_graph_build(&g, data, len, ignore_weak ? HEAP_GRAPH_IGNORE_WEAK : 0, cli_heap_progress_fn, &p, err,
                               sizeof err);
    if (ok)
        ok = heap_dominators_compute(&g, &dm, cli_heap_progress_fn, &p, err, sizeof err);
    if (ok) {
        cli_heap_progress_fn(&p, "leak suspects", 0, 0);
        ok = heap_dominators_classes(&g, &dm, &rows, &nrows) && heap_dom_children_build(&g, &dm, &c) &&
             heap_leaks_find(&g, &dm, &c, rows, nrows, threshold, &l);
        if (!ok)
            snprintf(err, sizeof err, "out of memory finding the leak suspects");
    }
    if (ok && l.n) {
        cli_heap_progress_fn(&p, "paths from the GC roots", 0, 0);
        ok = heap_paths_compute(&g, &hp, err, sizeof err) && (paths = calloc(l.n, sizeof *paths)) != NULL;
        for (size_t k = 0; ok && k < l.n; k++)
            paths[k] = cli_heap_path_text(&g, &hp, heap_leak_target(&l.s[k]));
        if (!ok && !paths)
            snprintf(err, sizeof err, "out of memory finding the paths from the GC roots");
    }
    cli_heap_progress_end(&p);
    int rc = 1;
    if (!ok) {
        cli_error("%s: %s", a->in, err);
    } else if (html) {
        heap_leaks_page page = { a->in, &g, &dm, &c, &l, rows, nrows, a->top, (const char *const *)paths };
        rc = cli_output(a->out, "leak report page", 0, hleak_html, &page);
    } else {
        hleak_out o = { a->in, &g, &dm, &c, &l, rows, nrows, a->top, tsv, paths };
        rc = cli_output(a->out, "leak report", 0, hleak_print, &o);
    }
    for (size_t k = 0; paths && k < l.n; k++)
        free(paths[k]);
    free(paths);
    heap_paths_free(&hp);
    heap_leaks_free(&l);
    heap_dom_children_free(&c);
    free(rows);
    heap_dominators_free(&dm);
    if (g.r)
        heap_graph_free(&g);
    file_unmap(data, len);
    return rc;
}

