/* cli_heap.c — jvmprof heap FILE [--top N] [--text] [-o OUT] | FILE --fix |
 * FILE --retained [--ignore-weak] [--tsv] [--top N] [-o OUT] | A --diff B
 * [--ignore-weak] [--tsv] [--top N] [-o OUT] | FILE --path ID [--tsv] [-o
 * OUT] | FILE --path-class CLASS [--top N] [--tsv] [-o OUT] | FILE --leaks
 * [--threshold PCT] [--ignore-weak] [--tsv | --html] [--top N] [-o OUT]: the class
 * histogram of an HPROF heap dump (ours or HotSpot's), the whole dump as
 * HPROF's ASCII HEAP DUMP (--text), the dump made self-contained in place
 * (--fix), retained sizes by class and by object (--retained, with a
 * progress line on stderr for the long phases), two dumps compared class by
 * class (--diff), or the shortest path from a GC root to an object (--path)
 * or to each of the N instances of a class that retain the most
 * (--path-class), with the root's kind and thread and each step's field or
 * index, or the leak suspects (--leaks: what retains more than PCT% of the
 * heap, with its accumulation point and path from a GC root; the classes by
 * retained size; --html: the same as one page with the dominator tree drawn,
 * heap_leaks_html.h); src/heapdump does the reading. */
#include "cli_commands.h"

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
#include "../heapdump/heap_histogram.h"
#include "../heapdump/heap_leaks.h"
#include "../heapdump/heap_leaks_html.h"
#include "../heapdump/heap_paths.h"
#include "../heapdump/hprof_heap_fixup.h"
#include "../heapdump/hprof_heap_text.h"
#include "cli_common.h"

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

/* ---- --retained ---- */

/* The progress line: on a terminal, one line redrawn (\r) once the run has
 * taken a second; elsewhere, after that second, a line per phase. */
typedef struct cli_heap_progress {
    double start, last;
    bool tty, shown;
    const char *phase;
    const char *what; /* "--retained", "--path" ... (NULL: --retained) */
} cli_heap_progress;

static double cli_heap_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cli_heap_progress_fn(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    cli_heap_progress *p = ctx;
    double now = cli_heap_now();
    bool same = p->phase == phase;
    if (now - p->start < 1.0 || (p->tty && same && now - p->last < 0.2) || (!p->tty && same))
        return;
    p->phase = phase;
    p->last = now;
    p->shown = true;
    const char *what = p->what ? p->what : "--retained";
    if (!p->tty) {
        fprintf(stderr, "jvmprof: heap %s: %s (%.0f s)\n", what, phase, now - p->start);
        return;
    }
    if (total)
        fprintf(stderr, "\rjvmprof: heap %s: %s %3.0f%%  (%.0f s)       ", what, phase,
                100.0 * (double)done / (double)total, now - p->start);
    else
        fprintf(stderr, "\rjvmprof: heap %s: %s  (%.0f s)            ", what, phase, now - p->start);
}

static void cli_heap_progress_end(cli_heap_progress *p)
{
    if (p->tty && p->shown)
        fprintf(stderr, "\r%70s\r", "");
}

typedef struct cli_heap_retained {
    const char *path;
    const heap_graph *g;
    const heap_dominators *dm;
    const heap_class_retained *rows;
    size_t nrows;
    const uint32_t *top;
    size_t ntop;
    unsigned long top_n;
    bool tsv;
} cli_heap_retained;

/* a name from the file, made one printable field (no control characters, no tabs) */
static const char *cli_heap_clean(const char *name, char *out, size_t len)
{
    size_t i = 0;
    for (; name[i] && i + 1 < len; i++)
        out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
    out[i] = '\0';
    return out;
}

/* object i's class, "class NAME" for a class object */
static const char *cli_heap_object_class(const heap_graph *g, uint32_t i, char *out, size_t len)
{
    const char *name;
    char tmp[1024];
    if (heap_graph_is_class(g, i, &name)) {
        snprintf(tmp, sizeof tmp, "class %s", name);
        return cli_heap_clean(tmp, out, len);
    }
    return cli_heap_clean(heap_graph_class_name(g, g->cls[i]), out, len);
}

static jp_status cli_heap_retained_print(sink *s, const void *ctx)
{
    const cli_heap_retained *o = ctx;
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
    sink_printf(s, "\nclasses by retained size (a class: its instances that no other instance of it retains)\n");
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

/* jvmprof heap FILE --retained [--ignore-weak] [--tsv] [--top N] [-o OUT] */
static int cli_heap_retained_run(const cli_args *a, bool ignore_weak, bool tsv)
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
    }
    cli_heap_progress_end(&p);
    int rc = 1;
    if (!ok) {
        cli_error("%s: %s", a->in, err);
    } else {
        cli_heap_retained o = { a->in, &g, &dm, rows, nrows, top, ntop, a->top, tsv };
        rc = cli_output(a->out, "retained sizes", 0, cli_heap_retained_print, &o);
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
static bool cli_heap_diff_side(heap_diff *d, int side, const char *path, bool ignore_weak, cli_heap_progress *p,
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

typedef struct cli_heap_diff_out {
    const char *path[2];
    const heap_graph *g[2]; /* n, idsize, compressed_oops; shallow_total: reachable bytes; nedges: reachable */
    const heap_diff *d;
    unsigned long top;
    bool tsv, weak;
} cli_heap_diff_out;

static jp_status cli_heap_diff_print(sink *s, const void *ctx)
{
    const cli_heap_diff_out *o = ctx;
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

static int cli_heap_diff_run(const cli_args *a, const char *other, bool ignore_weak, bool tsv)
{
    heap_diff d = { 0 };
    heap_graph g[2];
    cli_heap_progress p = { .start = cli_heap_now(), .tty = isatty(2) != 0 };
    bool ok = cli_heap_diff_side(&d, 0, a->in, ignore_weak, &p, &g[0]) &&
              cli_heap_diff_side(&d, 1, other, ignore_weak, &p, &g[1]) && heap_diff_finish(&d);
    cli_heap_progress_end(&p);
    int rc = 1;
    if (ok) {
        cli_heap_diff_out o = { { a->in, other }, { &g[0], &g[1] }, &d, a->top, tsv, ignore_weak };
        rc = cli_output(a->out, "heap diff", 0, cli_heap_diff_print, &o);
    }
    heap_diff_free(&d);
    return rc;
}

/* ---- --path, --path-class ---- */

typedef struct cli_heap_paths_out {
    const char *path;
    const heap_graph *g;
    const heap_dominators *dm;
    const heap_paths *hp;
    const uint32_t *objs; /* the objects whose paths are printed */
    size_t nobjs;
    const char *cls;      /* --path-class: the class asked for */
    uint64_t instances, reachable; /* ... its instances, and of them the strongly or weakly reachable */
    bool tsv;
} cli_heap_paths_out;

/* The reference from chain[k] to chain[k + 1], as printed: "static HeapPaths.cache" for a class's static,
 * ".table" for a field, "[7]" for an element, "<class>", "<super>", "<loader>", ".referent (soft)" for the
 * referent of a Reference. */
static void cli_heap_step(const heap_graph *g, const heap_paths *hp, uint32_t from, uint32_t to, char *out, size_t len)
{
    char step[512], name[600];
    const char *cname;
    if (!heap_paths_step_name(g, hp, from, to, step, sizeof step)) {
        snprintf(out, len, "?");
        return;
    }
    if (!strncmp(step, "static ", 7) && heap_graph_is_class(g, from, &cname))
        snprintf(name, sizeof name, "static %s.%s", cname, step + 7);
    else if (step[0] == '[' || step[0] == '<')
        snprintf(name, sizeof name, "%s", step);
    else if (hp->how[to] == HEAP_PATH_WEAK && hp->how[from] != HEAP_PATH_WEAK && !strcmp(step, "referent")) {
        const char *kind = heap_paths_reference_kind(g, from);
        snprintf(name, sizeof name, ".referent (%s)", kind ? kind : "reference");
    } else
        snprintf(name, sizeof name, ".%s", step);
    cli_heap_clean(name, out, len);
}

/* The root line's words: "Java frame of thread "main" (serial 3)", "JNI global" */
static void cli_heap_root_words(const heap_graph *g, const heap_root *r, char *out, size_t len, char *tname,
                                size_t tlen)
{
    tname[0] = '\0';
    const char *kind = r ? heap_graph_root_kind(r->kind) : "?";
    if (!r || !r->thread) {
        snprintf(out, len, "%s", kind);
        return;
    }
    if (heap_paths_thread_name(g, r->thread, tname, tlen))
        snprintf(out, len, "%s of thread \"%s\" (serial %" PRIu32 ")", kind, tname, r->thread);
    else
        snprintf(out, len, "%s of thread serial %" PRIu32, kind, r->thread);
}

/* How object i is reachable, one word: strong, soft, weak, phantom, final (the first referent on its path),
 * unreachable. */
static const char *cli_heap_reach_word(const heap_graph *g, const heap_paths *hp, const uint32_t *chain, size_t n)
{
    if (!n)
        return "unreachable";
    for (size_t k = 1; k < n; k++)
        if (hp->how[chain[k]] == HEAP_PATH_WEAK) {
            const char *kind = heap_paths_reference_kind(g, chain[k - 1]);
            return kind ? kind : "reference";
        }
    return "strong";
}

static jp_status cli_heap_path_one(sink *s, const cli_heap_paths_out *o, uint32_t i)
{
    const heap_graph *g = o->g;
    const heap_paths *hp = o->hp;
    uint32_t *chain = NULL;
    size_t n = 0;
    if (!heap_paths_chain(hp, i, &chain, &n))
        return JP_ERR_NOMEM;
    char cname[1024], words[1400], tname[600], step[700];
    const char *reach = cli_heap_reach_word(g, hp, chain, n);
    const heap_root *root = n ? heap_paths_root(g, hp, chain[0]) : NULL;
    cli_heap_object_class(g, i, cname, sizeof cname);
    if (o->tsv) {
        sink_printf(s, "path\t0x%" PRIx64 "\t%s\t%s\t%zu\n", g->ids[i], cname, reach, n ? n - 1 : 0);
        if (n) {
            cli_heap_root_words(g, root, words, sizeof words, tname, sizeof tname);
            sink_printf(s, "root\t%s\t%" PRIu32 "\t%s\n", root ? heap_graph_root_kind(root->kind) : "?",
                        root ? root->thread : 0, tname);
        }
        for (size_t k = 0; k < n; k++) {
            step[0] = '\0';
            if (k + 1 < n)
                cli_heap_step(g, hp, chain[k], chain[k + 1], step, sizeof step);
            sink_printf(s, "step\t%zu\t0x%" PRIx64 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%s\n", k, g->ids[chain[k]],
                        cli_heap_object_class(g, chain[k], cname, sizeof cname), heap_graph_shallow_of(g, chain[k]),
                        o->dm->retained[chain[k]], step);
        }
        free(chain);
        return JP_OK;
    }
    if (!n) {
        sink_printf(s, "0x%" PRIx64 " (%s): unreachable: no GC root reaches it, not even through a weak, soft, phantom "
                       "or final reference (garbage the dump holds)\n",
                    g->ids[i], cname);
        return JP_OK;
    }
    if (!strcmp(reach, "strong") && n == 1)
        sink_printf(s, "0x%" PRIx64 " (%s): a GC root itself\n", g->ids[i], cname);
    else if (!strcmp(reach, "strong"))
        sink_printf(s, "0x%" PRIx64 " (%s): %zu step%s from a GC root\n", g->ids[i], cname, n - 1, n == 2 ? "" : "s");
    else
        sink_printf(s, "0x%" PRIx64 " (%s): no path of strong references from a GC root: only %s reachable, "
                       "through the referent of a %s reference (%zu steps)\n",
                    g->ids[i], cname,
                    !strcmp(reach, "soft") ? "softly" : !strcmp(reach, "weak") ? "weakly"
                    : !strcmp(reach, "phantom") ? "phantom" : !strcmp(reach, "final") ? "finalizer" : "weakly",
                    reach, n - 1);
    cli_heap_root_words(g, root, words, sizeof words, tname, sizeof tname);
    sink_printf(s, "GC root: %s\n", words);
    /* the reference column as wide as its widest */
    size_t w = strlen("next by");
    for (size_t k = 0; k + 1 < n; k++) {
        cli_heap_step(g, hp, chain[k], chain[k + 1], step, sizeof step);
        if (strlen(step) > w)
            w = strlen(step);
    }
    if (w > 60)
        w = 60;
    sink_printf(s, "%6s %-18s %10s %12s  %-*s  %s\n", "step", "id", "shallow", "retained", (int)w, "next by",
                "object");
    for (size_t k = 0; k < n; k++) {
        char id[24];
        step[0] = '\0';
        if (k + 1 < n)
            cli_heap_step(g, hp, chain[k], chain[k + 1], step, sizeof step);
        snprintf(id, sizeof id, "0x%" PRIx64, g->ids[chain[k]]);
        sink_printf(s, "%6zu %-18s %10" PRIu64 " %12" PRIu64 "  %-*s  %s\n", k, id, heap_graph_shallow_of(g, chain[k]),
                    o->dm->retained[chain[k]], (int)w, step, cli_heap_object_class(g, chain[k], cname, sizeof cname));
    }
    free(chain);
    return JP_OK;
}

static jp_status cli_heap_paths_print(sink *s, const void *ctx)
{
    const cli_heap_paths_out *o = ctx;
    const heap_graph *g = o->g;
    if (!o->tsv) {
        sink_printf(s, "%s: HPROF %s heap dump, %u-byte ids: %" PRIu32 " objects, %zu GC roots; %" PRIu64
                       " objects reachable through strong references, %" PRIu64 " only through weak, soft, phantom "
                       "or final ones, %" PRIu64 " unreachable\n",
                    o->path, g->version, g->idsize, g->n, g->nroots, o->hp->roots + o->hp->strong, o->hp->weak_only,
                    o->hp->unreachable);
        sink_printf(s, "paths: shortest, of strong references (a referent is a step only where no strong path "
                       "exists); retained sizes by --retained --ignore-weak's rule\n");
        if (o->cls) {
            char name[1024];
            sink_printf(s, "class %s: %" PRIu64 " instance%s, %" PRIu64 " reachable; ", cli_heap_clean(o->cls, name, sizeof name),
                        o->instances, o->instances == 1 ? "" : "s", o->reachable);
            if (o->nobjs == o->instances)
                sink_printf(s, "%s:\n", o->nobjs == 1 ? "its path" : "the path of each, by retained size");
            else
                sink_printf(s, "the paths of the %zu that retain the most:\n", o->nobjs);
        }
    }
    for (size_t k = 0; k < o->nobjs; k++) {
        if (!o->tsv)
            sink_printf(s, "\n");
        jp_status st = cli_heap_path_one(s, o, o->objs[k]);
        if (st != JP_OK)
            return st;
    }
    return JP_OK;
}

/* --path ID's id: 0x... hex or decimal */
static bool cli_heap_parse_id(const char *v, uint64_t *id)
{
    int base = v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 16 : 10;
    const char *digits = base == 16 ? v + 2 : v;
    if (!*digits || !strchr("0123456789abcdefABCDEF", digits[0]) || (base == 10 && !strchr("0123456789", digits[0])))
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(digits, &end, base);
    if (errno || *end)
        return false;
    *id = x;
    return true;
}

typedef struct cli_heap_rank {
    const heap_graph *g;
    const uint64_t *retained;
} cli_heap_rank;

/* insertion of object i into top[0..*n) (at most cap), kept by retained size descending, then id */
static void cli_heap_rank_add(const cli_heap_rank *r, uint32_t *top, size_t *n, size_t cap, uint32_t i)
{
    size_t k = *n;
    while (k > 0) {
        uint32_t j = top[k - 1];
        bool before = r->retained[i] > r->retained[j] || (r->retained[i] == r->retained[j] && r->g->ids[i] < r->g->ids[j]);
        if (!before)
            break;
        if (k < cap)
            top[k] = j;
        k--;
    }
    if (k < cap) {
        top[k] = i;
        if (*n < cap)
            (*n)++;
    }
}

/* jvmprof heap FILE --path ID | --path-class CLASS [--top N] [--tsv] [-o OUT] */
static int cli_heap_paths_run(const cli_args *a, const char *want_id, const char *want_cls, bool tsv)
{
    uint64_t id = 0;
    if (want_id && !cli_heap_parse_id(want_id, &id)) {
        cli_error("heap: --path %s: expected an object id, hex (0x7ff812340) or decimal, as --retained lists them",
                  want_id);
        return 2;
    }
    size_t len = 0;
    const void *data = cli_map_file(a->in, &len);
    if (!data)
        return 1;
    cli_heap_progress p = { .start = cli_heap_now(), .tty = isatty(2) != 0, .what = want_id ? "--path" : "--path-class" };
    char err[512];
    heap_graph g;
    heap_dominators dm = { 0 };
    heap_paths hp = { 0 };
    uint32_t *objs = NULL;
    size_t nobjs = 0;
    int rc = 1;
    bool ok = heap_graph_build(&g, data, len, HEAP_GRAPH_IGNORE_WEAK, cli_heap_progress_fn, &p, err, sizeof err);
    if (ok)
        ok = heap_dominators_compute(&g, &dm, cli_heap_progress_fn, &p, err, sizeof err);
    if (ok) {
        cli_heap_progress_fn(&p, "paths from the GC roots", 0, 0);
        ok = heap_paths_compute(&g, &hp, err, sizeof err);
    }
    cli_heap_progress_end(&p);
    if (!ok) {
        cli_error("%s: %s", a->in, err);
        goto out;
    }
    cli_heap_paths_out o = { .path = a->in, .g = &g, .dm = &dm, .hp = &hp, .tsv = tsv };
    uint32_t one = 0;
    if (want_id) {
        one = heap_graph_find(&g, id);
        if (one == HEAP_GRAPH_NONE) {
            cli_error("heap: %s holds no object 0x%" PRIx64 " (%" PRIu64 "); --path takes the id of an object or class "
                      "of the dump, hex (0x...) or decimal, as --retained lists them",
                      a->in, id, id);
            rc = 2;
            goto out;
        }
        o.objs = &one;
        o.nobjs = 1;
    } else {
        /* the classes of that name (java.util.HashMap, or java/util/HashMap), every loader's */
        char name[1024];
        snprintf(name, sizeof name, "%s", want_cls);
        for (char *c = name; *c; c++)
            if (*c == '/')
                *c = '.';
        bool *match = calloc(g.nclasses ? g.nclasses : 1, sizeof *match);
        size_t cap = a->given & CLI_OPT_TOP ? (a->top ? a->top : g.n) : 5;
        if (cap > g.n)
            cap = g.n;
        objs = malloc((cap ? cap : 1) * sizeof *objs);
        if (!match || !objs) {
            free(match);
            cli_error("%s: out of memory ranking the instances of %s", a->in, want_cls);
            goto out;
        }
        bool any = false;
        for (uint32_t c = 0; c < g.nclasses; c++)
            any |= match[c] = strcmp(heap_graph_class_name(&g, c), name) == 0;
        cli_heap_rank r = { &g, dm.retained };
        const char *cn;
        for (uint32_t i = 0; any && i < g.n; i++) {
            if (g.cls[i] >= g.nclasses || !match[g.cls[i]] || heap_graph_is_class(&g, i, &cn))
                continue;
            o.instances++;
            o.reachable += hp.how[i] != HEAP_PATH_NONE;
            cli_heap_rank_add(&r, objs, &nobjs, cap, i);
        }
        free(match);
        if (!o.instances) {
            char clean[1024];
            cli_error("heap: %s has no instance of a class %s; --path-class takes a class name as the histogram "
                      "prints it (java.util.HashMap, Outer$Inner, int[], java.lang.Object[])",
                      a->in, cli_heap_clean(want_cls, clean, sizeof clean));
            rc = 2;
            goto out;
        }
        o.cls = name;
        o.objs = objs;
        o.nobjs = nobjs;
        rc = cli_output(a->out, "paths to GC roots", 0, cli_heap_paths_print, &o);
        goto out;
    }
    rc = cli_output(a->out, "paths to GC roots", 0, cli_heap_paths_print, &o);
out:
    free(objs);
    heap_paths_free(&hp);
    heap_dominators_free(&dm);
    if (g.r)
        heap_graph_free(&g);
    file_unmap(data, len);
    return rc;
}

/* ---- --leaks ---- */

typedef struct cli_heap_leaks {
    const char *path;
    const heap_graph *g;
    const heap_dominators *dm;
    const heap_dom_children *c;
    const heap_leaks *l;
    const heap_class_retained *rows;
    size_t nrows;
    unsigned long top_n;
    bool tsv;
    char *const *paths; /* per suspect: the path from a GC root to its point or holder (cli_heap_leak_path), or NULL */
} cli_heap_leaks;

/* The path from a GC root to object i, lines each ending in a newline: "GC root: KIND", the root object,
 * then each step "  REFERENCE  CLASS 0xID"; the middle of a path longer than 40 steps left out. NULL when
 * out of memory or i is unreachable. */
static char *cli_heap_leak_path(const heap_graph *g, const heap_paths *hp, uint32_t i)
{
    uint32_t *chain = NULL;
    size_t n = 0;
    if (!heap_paths_chain(hp, i, &chain, &n) || !n) {
        free(chain);
        return NULL;
    }
    char words[1400], tname[600], step[700], cname[1024];
    buf b;
    buf_init(&b);
    cli_heap_root_words(g, heap_paths_root(g, hp, chain[0]), words, sizeof words, tname, sizeof tname);
    buf_printf(&b, "GC root: %s\n", words);
    for (size_t k = 0; k < n; k++) {
        if (n > 40 && k == 10) {
            buf_printf(&b, "  ... (%zu steps)\n", n - 30);
            k = n - 20;
        }
        step[0] = '\0';
        if (k)
            cli_heap_step(g, hp, chain[k - 1], chain[k], step, sizeof step);
        buf_printf(&b, "%s%s%s0x%" PRIx64 " %s\n", k ? "  " : "", step, k ? "  " : "", g->ids[chain[k]],
                   cli_heap_object_class(g, chain[k], cname, sizeof cname));
    }
    free(chain);
    buf_put(&b, "", 1);
    if (b.failed) {
        buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

static double cli_heap_share(const heap_leaks *l, uint64_t bytes)
{
    return l->heap ? 100.0 * (double)bytes / (double)l->heap : 0.0;
}

/* "CLASS 0xID" of object i, or "the GC roots" for the super root */
static const char *cli_heap_named(const heap_graph *g, const heap_dom_children *c, uint32_t i, char *out, size_t len)
{
    if (i == HEAP_GRAPH_NONE || i == c->n) {
        snprintf(out, len, "the GC roots");
        return out;
    }
    char name[1024];
    snprintf(out, len, "%s 0x%" PRIx64, cli_heap_object_class(g, i, name, sizeof name), g->ids[i]);
    return out;
}

static void cli_heap_leaks_tsv(sink *s, const cli_heap_leaks *o)
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

static jp_status cli_heap_leaks_print(sink *s, const void *ctx)
{
    const cli_heap_leaks *o = ctx;
    const heap_graph *g = o->g;
    const heap_dominators *dm = o->dm;
    const heap_leaks *l = o->l;
    if (o->tsv) {
        cli_heap_leaks_tsv(s, o);
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
                        cli_heap_named(g, o->c, x->obj, name2, sizeof name2), x->retained,
                        cli_heap_share(l, x->retained));
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
                    sink_printf(s, "%s %s", j + 1 == n ? "" : " >", cli_heap_named(g, o->c, chain[j], name2, sizeof name2));
                sink_printf(s, "\n");
            }
            sink_printf(s, "  accumulation point: %s (%s), retains %" PRIu64 " bytes",
                        cli_heap_named(g, o->c, p->obj, name2, sizeof name2),
                        p->steps ? "below the suspect" : "the suspect itself", dm->retained[p->obj]);
            if (!p->children)
                sink_printf(s, "; it dominates no other object\n");
            else
                sink_printf(s,
                            ": %" PRIu32 " objects it dominates retain %" PRIu64 " bytes, %" PRIu32 " of them %s (%" PRIu64
                            " bytes, %.2f%% of the heap)\n",
                            p->children, p->children_retained, p->top_cls_children,
                            cli_heap_clean(heap_graph_class_name(g, p->top_cls), name, sizeof name),
                            p->top_cls_retained, cli_heap_share(l, p->top_cls_retained));
        } else {
            sink_printf(s, "\nsuspect %zu: %" PRIu64 " instances of %s retain %" PRIu64 " bytes, %.2f%% of the heap\n",
                        nth, x->instances, cli_heap_clean(heap_graph_class_name(g, x->cls), name, sizeof name),
                        x->retained, cli_heap_share(l, x->retained));
            if (x->holder == HEAP_GRAPH_NONE)
                sink_printf(s, "  no object holds them: they hang below the GC roots");
            else
                sink_printf(s, "  %" PRIu64 " of them (%" PRIu64 " bytes) %s %s", x->held, x->held_bytes,
                            x->holder_levels > 1 ? "lie below" : "are held by",
                            cli_heap_named(g, o->c, x->holder, name2, sizeof name2));
            if (x->holder_levels > 1)
                sink_printf(s, ", %" PRIu32 " levels of the dominator tree up", x->holder_levels);
            sink_printf(s, "; the largest: %s, %" PRIu64 " bytes\n", cli_heap_named(g, o->c, x->obj, name2, sizeof name2),
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
                    o->rows[k].shallow, o->rows[k].retained, cli_heap_share(l, o->rows[k].retained),
                    cli_heap_clean(heap_graph_class_name(g, o->rows[k].cls), name, sizeof name));
    if (nclasses < o->nrows)
        sink_printf(s, "(%zu more classes; --top 0 shows all)\n", o->nrows - nclasses);
    return JP_OK;
}

static jp_status cli_heap_leaks_html(sink *s, const void *ctx) { return heap_leaks_html_write(s, ctx); }

/* jvmprof heap FILE --leaks [--threshold PCT] [--ignore-weak] [--tsv | --html] [--top N] [-o OUT] */
static int cli_heap_leaks_run(const cli_args *a, bool ignore_weak, bool tsv, bool html, double threshold)
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
            paths[k] = cli_heap_leak_path(&g, &hp, heap_leak_target(&l.s[k]));
        if (!ok && !paths)
            snprintf(err, sizeof err, "out of memory finding the paths from the GC roots");
    }
    cli_heap_progress_end(&p);
    int rc = 1;
    if (!ok) {
        cli_error("%s: %s", a->in, err);
    } else if (html) {
        heap_leaks_page page = { a->in, &g, &dm, &c, &l, rows, nrows, a->top, (const char *const *)paths };
        rc = cli_output(a->out, "leak report page", 0, cli_heap_leaks_html, &page);
    } else {
        cli_heap_leaks o = { a->in, &g, &dm, &c, &l, rows, nrows, a->top, tsv, paths };
        rc = cli_output(a->out, "leak report", 0, cli_heap_leaks_print, &o);
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

int cli_heap(int argc, char **argv)
{
    cli_args a;
    const char *usage =
        "FILE [--top N] [--text] [-o OUT] | FILE --fix | FILE --retained [--ignore-weak] [--tsv] [--top N] [-o OUT] | "
        "A --diff B [--ignore-weak] [--tsv] [--top N] [-o OUT] | FILE --path ID [--tsv] [-o OUT] | "
        "FILE --path-class CLASS [--top N] [--tsv] [-o OUT] | FILE --leaks [--threshold PCT] [--ignore-weak] "
        "[--tsv | --html] [--top N] [-o OUT]";
    /* --retained and its flags, which only this command has, taken out before the common parser */
    bool retained = false, ignore_weak = false, tsv = false, leaks = false, html = false;
    const char *diff = NULL, *path_id = NULL, *path_cls = NULL, *threshold_arg = NULL;
    double threshold = 10.0;
    char **rest = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *rest);
    if (!rest) {
        cli_error("heap: out of memory");
        return 1;
    }
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--retained"))
            retained = true;
        else if (!strcmp(argv[i], "--ignore-weak"))
            ignore_weak = true;
        else if (!strcmp(argv[i], "--tsv"))
            tsv = true;
        else if (!strcmp(argv[i], "--leaks"))
            leaks = true;
        else if (!strcmp(argv[i], "--html"))
            leaks = html = true;
        else if (!strcmp(argv[i], "--threshold") && i + 1 < argc)
            threshold_arg = argv[++i];
        else if (!strcmp(argv[i], "--threshold")) {
            cli_error("heap: --threshold needs a percent of the heap: jvmprof heap FILE --leaks --threshold 10");
            free(rest);
            return 2;
        }
        else if (!strcmp(argv[i], "--diff") && i + 1 < argc)
            diff = argv[++i];
        else if (!strcmp(argv[i], "--diff")) {
            cli_error("heap: --diff needs the second dump: jvmprof heap A.hprof --diff B.hprof");
            free(rest);
            return 2;
        } else if ((!strcmp(argv[i], "--path") || !strcmp(argv[i], "--path-class")) && i + 1 < argc) {
            const char **which = argv[i][6] ? &path_cls : &path_id;
            *which = argv[++i];
        } else if (!strcmp(argv[i], "--path") || !strcmp(argv[i], "--path-class")) {
            cli_error("heap: %s needs %s: jvmprof heap FILE --path 0x7ff812340, jvmprof heap FILE --path-class "
                      "java.util.HashMap [--top N]",
                      argv[i], argv[i][6] ? "a class name" : "an object id");
            free(rest);
            return 2;
        } else
            rest[nrest++] = argv[i];
        if (i + 1 < argc && (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--top"))) /* a value, whatever it is */
            rest[nrest++] = argv[++i];
    }
    int rc = cli_parse("heap", usage, CLI_OPT_TOP | CLI_OPT_OUT | CLI_OPT_TEXT | CLI_OPT_FIX, nrest, rest, &a);
    if (!rc && threshold_arg) {
        char *end = NULL;
        threshold = strtod(threshold_arg, &end);
        if (!*threshold_arg || *end || !(threshold > 0.0 && threshold <= 100.0)) {
            cli_error("heap: bad --threshold '%s': a percent of the heap above 0 and at most 100, such as 10 or 2.5",
                      threshold_arg);
            rc = 2;
        } else if (!leaks) {
            cli_error("heap: --threshold goes with --leaks: jvmprof heap FILE --leaks --threshold PCT");
            rc = 2;
        }
    }
    if (!rc && leaks && (retained || diff || a.text || a.fix)) {
        cli_error("heap: --leaks reports leak suspects; it takes no %s",
                  retained ? "--retained" : diff ? "--diff" : a.text ? "--text" : "--fix");
        rc = 2;
    }
    if (!rc && html && tsv) {
        cli_error("heap: --leaks writes text, --tsv or --html: one of them");
        rc = 2;
    }
    if (!rc && diff && (retained || a.text || a.fix)) {
        cli_error("heap: --diff compares two dumps' classes; it takes no %s",
                  retained ? "--retained" : a.text ? "--text" : "--fix");
        rc = 2;
    }
    bool paths = path_id || path_cls;
    if (!rc && paths && (leaks || retained || diff || a.text || a.fix || ignore_weak || (path_id && path_cls))) {
        cli_error("heap: %s prints paths from the GC roots (always of strong references); it takes no %s",
                  path_id ? "--path" : "--path-class",
                  path_id && path_cls ? "second --path or --path-class" : leaks ? "--leaks" : retained ? "--retained"
                  : diff ? "--diff" : a.text ? "--text" : a.fix ? "--fix" : "--ignore-weak");
        rc = 2;
    }
    if (!rc && path_id && (a.given & CLI_OPT_TOP)) {
        cli_error("heap: --path prints one object's path; --top N goes with --path-class CLASS");
        rc = 2;
    }
    if (!rc && !paths && (ignore_weak || tsv) && !retained && !diff && !leaks) {
        if (ignore_weak)
            cli_error("heap: --ignore-weak goes with --retained, --diff or --leaks: jvmprof heap FILE --retained "
                      "[--ignore-weak] [--tsv] [--top N], jvmprof heap A --diff B [--ignore-weak] [--tsv] [--top N], "
                      "jvmprof heap FILE --leaks [--ignore-weak]");
        else
            cli_error("heap: --tsv goes with --retained, --diff, --leaks, --path or --path-class: jvmprof heap FILE "
                      "--retained [--tsv] [--top N], jvmprof heap A --diff B [--tsv], jvmprof heap FILE --leaks --tsv, "
                      "jvmprof heap FILE --path ID [--tsv], jvmprof heap FILE --path-class CLASS [--tsv]");
        rc = 2;
    }
    if (!rc && retained && (a.text || a.fix)) {
        cli_error("heap: --retained prints retained sizes; it takes no %s", a.text ? "--text" : "--fix");
        rc = 2;
    }
    free(rest);
    if (rc)
        return rc;
    if (leaks)
        return cli_heap_leaks_run(&a, ignore_weak, tsv, html, threshold);
    if (paths)
        return cli_heap_paths_run(&a, path_id, path_cls, tsv);
    if (retained)
        return cli_heap_retained_run(&a, ignore_weak, tsv);
    if (diff)
        return cli_heap_diff_run(&a, diff, ignore_weak, tsv);
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
