/* cli_heap_paths.c — jvmprof heap FILE --path ID | --path-class CLASS [--top
 * N] [--tsv] [-o OUT]: the shortest path from a GC root to an object, or to
 * each of the N instances of a class that retain the most, with the root's
 * kind and thread and each step's field or index (heap_paths.h). */
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
#include "../heapdump/heap_paths.h"
#include "cli_common.h"
#include "cli_heap_shared.h"

typedef struct hpath_out {
    const char *path;
    const heap_graph *g;
    const heap_dominators *dm;
    const heap_paths *hp;
    const uint32_t *objs; /* the objects whose paths are printed */
    size_t nobjs;
    const char *cls;      /* --path-class: the class asked for */
    uint64_t instances, reachable; /* ... its instances, and of them the strongly or weakly reachable */
    bool tsv;
} hpath_out;

/* How object i is reachable, one word: strong, soft, weak, phantom, final (the first referent on its path),
 * unreachable. */
static const char *hpath_reach_word(const heap_graph *g, const heap_paths *hp, const uint32_t *chain, size_t n)
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

static jp_status hpath_one(sink *s, const hpath_out *o, uint32_t i)
{
    const heap_graph *g = o->g;
    const heap_paths *hp = o->hp;
    uint32_t *chain = NULL;
    size_t n = 0;
    if (!heap_paths_chain(hp, i, &chain, &n))
        return JP_ERR_NOMEM;
    char cname[1024], words[1400], tname[600], step[700];
    const char *reach = hpath_reach_word(g, hp, chain, n);
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

static jp_status hpath_print(sink *s, const void *ctx)
{
    const hpath_out *o = ctx;
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
        jp_status st = hpath_one(s, o, o->objs[k]);
        if (st != JP_OK)
            return st;
    }
    return JP_OK;
}

/* --path ID's id: 0x... hex or decimal */
static bool hpath_parse_id(const char *v, uint64_t *id)
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

typedef struct hpath_rank {
    const heap_graph *g;
    const uint64_t *retained;
} hpath_rank;

/* insertion of object i into top[0..*n) (at most cap), kept by retained size descending, then id */
static void hpath_rank_add(const hpath_rank *r, uint32_t *top, size_t *n, size_t cap, uint32_t i)
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
int cli_heap_paths_run(const cli_args *a, const char *want_id, const char *want_cls, bool tsv)
{
    uint64_t id = 0;
    if (want_id && !hpath_parse_id(want_id, &id)) {
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
    hpath_out o = { .path = a->in, .g = &g, .dm = &dm, .hp = &hp, .tsv = tsv };
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
        hpath_rank r = { &g, dm.retained };
        const char *cn;
        for (uint32_t i = 0; any && i < g.n; i++) {
            if (g.cls[i] >= g.nclasses || !match[g.cls[i]] || heap_graph_is_class(&g, i, &cn))
                continue;
            o.instances++;
            o.reachable += hp.how[i] != HEAP_PATH_NONE;
            hpath_rank_add(&r, objs, &nobjs, cap, i);
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
        rc = cli_output(a->out, "paths to GC roots", 0, hpath_print, &o);
        goto out;
    }
    rc = cli_output(a->out, "paths to GC roots", 0, hpath_print, &o);
out:
    free(objs);
    heap_paths_free(&hp);
    heap_dominators_free(&dm);
    if (g.r)
        heap_graph_free(&g);
    file_unmap(data, len);
    return rc;
}

