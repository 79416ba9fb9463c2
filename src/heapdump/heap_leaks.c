/* heap_leaks.c — leak suspects and their accumulation points, over the
 * dominator tree's children lists (heap_leaks.h). Nothing recurses: the
 * walks are loops, the suspects' search a worklist. */
#include "heap_leaks.h"

#include <stdlib.h>
#include <string.h>

/* children by retained size descending, then index (the ids' order) */
static int hl_by_retained_desc(const void *a, const void *b, void *ctx)
{
    const uint64_t *retained = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (retained[x] != retained[y])
        return retained[x] > retained[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

bool heap_dom_children_build(const heap_graph *g, const heap_dominators *dm, heap_dom_children *c)
{
    memset(c, 0, sizeof *c);
    c->n = g->n;
    c->at = calloc((size_t)g->n + 2, sizeof *c->at);
    c->list = malloc((dm->reachable ? (size_t)dm->reachable : 1) * sizeof *c->list);
    uint32_t *fill = malloc(((size_t)g->n + 1) * sizeof *fill);
    if (!c->at || !c->list || !fill) {
        free(fill);
        heap_dom_children_free(c);
        return false;
    }
    /* counts, then each list's start, then filled in index order, then each list sorted */
    for (uint32_t i = 0; i < g->n; i++)
        if (dm->idom[i] != HEAP_DOM_UNREACHABLE)
            c->at[heap_dom_parent(dm, c, i) + 1]++;
    for (uint32_t i = 0; i <= g->n; i++)
        c->at[i + 1] += c->at[i];
    memcpy(fill, c->at, ((size_t)g->n + 1) * sizeof *fill);
    for (uint32_t i = 0; i < g->n; i++)
        if (dm->idom[i] != HEAP_DOM_UNREACHABLE)
            c->list[fill[heap_dom_parent(dm, c, i)]++] = i;
    free(fill);
    for (uint32_t i = 0; i <= g->n; i++)
        if (c->at[i + 1] - c->at[i] > 1)
            qsort_r(c->list + c->at[i], c->at[i + 1] - c->at[i], sizeof *c->list, hl_by_retained_desc,
                    dm->retained);
    return true;
}

void heap_dom_children_free(heap_dom_children *c)
{
    free(c->at);
    free(c->list);
    memset(c, 0, sizeof *c);
}

uint32_t heap_dom_parent(const heap_dominators *dm, const heap_dom_children *c, uint32_t i)
{
    uint32_t d = dm->idom[i];
    return d == HEAP_DOM_SUPER ? c->n : d == HEAP_DOM_UNREACHABLE ? HEAP_GRAPH_NONE : d;
}

/* From x down the tree while the largest child holds HEAP_LEAK_FOLLOW of its parent; false when out of memory. */
static bool hl_point(const heap_graph *g, const heap_dominators *dm, const heap_dom_children *c, uint32_t x,
                     heap_leak_point *out)
{
    heap_leak_point p = { .obj = x, .top_cls = HEAP_GRAPH_NONE };
    while (heap_dom_children_count(c, p.obj)) {
        uint32_t big = c->list[c->at[p.obj]];
        if ((double)dm->retained[big] < HEAP_LEAK_FOLLOW * (double)dm->retained[p.obj])
            break;
        p.obj = big;
        p.steps++;
    }
    p.children = heap_dom_children_count(c, p.obj);
    /* the class whose children retain the most (ties: the class of the larger child) */
    uint64_t *bytes = calloc(g->nclasses ? g->nclasses : 1, 2 * sizeof *bytes), *count = bytes + g->nclasses;
    if (!bytes)
        return false;
    for (uint32_t k = c->at[p.obj]; k < c->at[p.obj + 1]; k++) {
        uint32_t y = c->list[k];
        p.children_retained += dm->retained[y];
        if (g->cls[y] < g->nclasses) {
            bytes[g->cls[y]] += dm->retained[y];
            count[g->cls[y]]++;
        }
    }
    for (uint32_t k = c->at[p.obj]; k < c->at[p.obj + 1]; k++) {
        uint32_t ci = g->cls[c->list[k]];
        if (ci < g->nclasses && (p.top_cls == HEAP_GRAPH_NONE || bytes[ci] > p.top_cls_retained)) {
            p.top_cls = ci;
            p.top_cls_retained = bytes[ci];
            p.top_cls_children = (uint32_t)count[ci];
        }
    }
    free(bytes);
    *out = p;
    return true;
}

static bool hl_push(heap_leaks *l, size_t *cap, const heap_leak_suspect *s)
{
    if (l->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        heap_leak_suspect *ns = realloc(l->s, nc * sizeof *ns);
        if (!ns)
            return false;
        l->s = ns;
        *cap = nc;
    }
    l->s[l->n++] = *s;
    return true;
}

static bool hl_above(const heap_leaks *l, uint64_t bytes)
{
    return (double)bytes * 100.0 > l->threshold * (double)l->heap;
}

/* the children of x above the threshold: a prefix of its list (largest first) */
static uint32_t hl_big_children(const heap_leaks *l, const heap_dominators *dm, const heap_dom_children *c, uint32_t x)
{
    uint32_t k = 0;
    while (c->at[x] + k < c->at[x + 1] && hl_above(l, dm->retained[c->list[c->at[x] + k]]))
        k++;
    return k;
}

/* the object suspects: a worklist, from the super root's children above the threshold */
static bool hl_objects(const heap_graph *g, const heap_dominators *dm, const heap_dom_children *c, heap_leaks *l,
                       size_t *cap)
{
    size_t wn = 0, wcap = 64;
    uint32_t *work = malloc(wcap * sizeof *work);
    if (!work)
        return false;
    uint32_t top = hl_big_children(l, dm, c, c->n);
    for (uint32_t k = top; k-- > 0;) /* largest popped first */
        work[wn++] = c->list[c->at[c->n] + k];
    bool ok = true;
    while (ok && wn) {
        uint32_t x = work[--wn];
        heap_leak_point p;
        if (!hl_point(g, dm, c, x, &p)) {
            ok = false;
            break;
        }
        uint32_t big = hl_big_children(l, dm, c, p.obj);
        if (big >= 2) { /* the retained size splits into suspects of their own */
            if (wn + big > wcap) {
                size_t nc = (wn + big) * 2;
                uint32_t *nw = realloc(work, nc * sizeof *nw);
                if (!nw) {
                    ok = false;
                    break;
                }
                work = nw;
                wcap = nc;
            }
            for (uint32_t k = big; k-- > 0;)
                work[wn++] = c->list[c->at[p.obj] + k];
            continue;
        }
        heap_leak_suspect s = { .kind = HEAP_LEAK_OBJECT, .obj = x, .cls = g->cls[x], .instances = 1,
                                .retained = dm->retained[x], .point = p, .holder = HEAP_GRAPH_NONE };
        ok = hl_push(l, cap, &s);
    }
    free(work);
    return ok;
}

static int hl_by_holder(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* a class suspect: its largest instance, and the nearest object dominating at least half its instances */
static bool hl_class(const heap_graph *g, const heap_dominators *dm, const heap_dom_children *c,
                     const heap_class_retained *row, heap_leak_suspect *s)
{
    *s = (heap_leak_suspect){ .kind = HEAP_LEAK_CLASS, .obj = HEAP_GRAPH_NONE, .cls = row->cls,
                              .instances = row->instances, .retained = row->retained, .holder = HEAP_GRAPH_NONE };
    uint64_t *pairs = malloc(((size_t)row->instances + 1) * 2 * sizeof *pairs); /* (ancestor, retained) */
    if (!pairs)
        return false;
    for (uint32_t level = 1; level <= HEAP_LEAK_LEVELS; level++) {
        size_t n = 0;
        for (uint32_t i = 0; i < g->n && n < row->instances; i++) {
            if (g->cls[i] != row->cls || dm->idom[i] == HEAP_DOM_UNREACHABLE)
                continue;
            if (level == 1 && (s->obj == HEAP_GRAPH_NONE || dm->retained[i] > dm->retained[s->obj]))
                s->obj = i;
            uint32_t d = i;
            for (uint32_t k = 0; k < level && d != c->n; k++)
                d = heap_dom_parent(dm, c, d);
            pairs[2 * n] = d;
            pairs[2 * n + 1] = dm->retained[i];
            n++;
        }
        qsort(pairs, n, 2 * sizeof *pairs, hl_by_holder);
        uint64_t best = 0, best_bytes = 0, best_at = c->n;
        for (size_t a = 0; a < n;) {
            size_t b = a;
            uint64_t bytes = 0;
            for (; b < n && pairs[2 * b] == pairs[2 * a]; b++)
                bytes += pairs[2 * b + 1];
            if (pairs[2 * a] != c->n && (b - a > best || (b - a == best && bytes > best_bytes))) {
                best = b - a;
                best_bytes = bytes;
                best_at = pairs[2 * a];
            }
            a = b;
        }
        if (best > s->held) { /* the best level so far */
            s->holder = (uint32_t)best_at;
            s->held = best;
            s->held_bytes = best_bytes;
            s->holder_levels = level;
        }
        if (best * 2 >= n)
            break;
    }
    free(pairs);
    return true;
}

/* one instance of the class retains HEAP_LEAK_FOLLOW of the class's bytes: an object suspect's story */
static bool hl_one_holds(const heap_graph *g, const heap_dominators *dm, const heap_class_retained *row)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (g->cls[i] == row->cls && dm->idom[i] != HEAP_DOM_UNREACHABLE &&
            (double)dm->retained[i] >= HEAP_LEAK_FOLLOW * (double)row->retained)
            return true;
    return false;
}

static int hl_by_retained(const void *a, const void *b)
{
    const heap_leak_suspect *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained > y->retained ? -1 : 1;
    return x->obj < y->obj ? -1 : x->obj > y->obj;
}

bool heap_leaks_find(const heap_graph *g, const heap_dominators *dm, const heap_dom_children *c,
                     const heap_class_retained *rows, size_t nrows, double threshold, heap_leaks *out)
{
    memset(out, 0, sizeof *out);
    out->heap = dm->reachable_bytes;
    out->threshold = threshold;
    size_t cap = 0;
    if (!hl_objects(g, dm, c, out, &cap)) {
        heap_leaks_free(out);
        return false;
    }
    if (out->n)
        qsort(out->s, out->n, sizeof *out->s, hl_by_retained);
    size_t nobj = out->n;
    for (size_t k = 0; k < nrows && hl_above(out, rows[k].retained); k++) { /* rows: largest first */
        heap_leak_suspect s;
        if (hl_one_holds(g, dm, &rows[k]))
            continue;
        if (!hl_class(g, dm, c, &rows[k], &s) || !hl_push(out, &cap, &s)) {
            heap_leaks_free(out);
            return false;
        }
    }
    if (out->n > nobj)
        qsort(out->s + nobj, out->n - nobj, sizeof *out->s, hl_by_retained);
    return true;
}

uint32_t heap_leak_target(const heap_leak_suspect *s)
{
    if (s->kind == HEAP_LEAK_OBJECT)
        return s->point.obj;
    return s->holder != HEAP_GRAPH_NONE ? s->holder : s->obj;
}

void heap_leaks_free(heap_leaks *l)
{
    free(l->s);
    memset(l, 0, sizeof *l);
}
