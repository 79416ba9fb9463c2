/* heap_dominators.c — dominators and retained sizes (see heap_dominators.h).
 * Everything in the DFS preorder numbering: 0 is the super root, then the
 * objects as the DFS from the roots (then, IGNORE_WEAK, from referents)
 * reaches them; a dominator always has a smaller number than what it
 * dominates, so retained sizes add up in one pass from the last number down. */
#include "heap_dominators.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDOM_NONE UINT32_MAX

typedef struct hdom_work {
    const heap_graph *g;
    uint32_t *num;    /* per object: its DFS number, HDOM_NONE unreached */
    uint32_t *vertex; /* per number: the object (vertex[0]: none, the super root) */
    uint32_t *parent; /* per number: the DFS tree parent's number */
    uint32_t *stack;  /* DFS: (object, next edge) pairs; then the path compression's */
    uint32_t count;   /* numbers given */
    uint32_t weak_start; /* the first number reached through a referent only */
} hdom_work;

/* Numbers, by iterative DFS, what `seed` reaches that is not numbered yet. */
static void hdom_dfs(hdom_work *w, uint32_t seed)
{
    const heap_graph *g = w->g;
    if (w->num[seed] != HDOM_NONE)
        return;
    size_t top = 0;
    w->num[seed] = w->count;
    w->vertex[w->count] = seed;
    w->parent[w->count++] = 0;
    w->stack[0] = seed;
    w->stack[1] = g->edge_at[seed];
    top = 1;
    while (top) {
        uint32_t o = w->stack[2 * top - 2], c = w->stack[2 * top - 1];
        if (c == g->edge_at[o + 1]) {
            top--;
            continue;
        }
        w->stack[2 * top - 1] = c + 1;
        uint32_t t = g->edges[c];
        if (w->num[t] != HDOM_NONE)
            continue;
        w->num[t] = w->count;
        w->vertex[w->count] = t;
        w->parent[w->count++] = w->num[o];
        w->stack[2 * top] = t;
        w->stack[2 * top + 1] = g->edge_at[t];
        top++;
    }
}

/* The predecessors of each numbered vertex, in CSR form (numbers): the
 * super root before each root and weak-only referent; no edge from a
 * weak-only object into a strongly reachable one. */
static bool hdom_preds(hdom_work *w, uint32_t **pred_at_out, uint32_t **pred_out)
{
    const heap_graph *g = w->g;
    uint32_t N = w->count;
    uint32_t *at = calloc((size_t)N + 1, sizeof *at);
    if (!at)
        return false;
    /* counts in at[w + 1], then starts */
    for (size_t i = 0; i < g->nroots; i++)
        at[w->num[g->roots[i].obj] + 1]++;
    for (size_t j = 0; j < g->nreferents; j++) {
        uint32_t f = w->num[g->referent_from[j]], t = w->num[g->referent_to[j]];
        if (f != HDOM_NONE && t != HDOM_NONE && t >= w->weak_start)
            at[t + 1]++;
    }
    for (uint32_t v = 1; v < N; v++) {
        uint32_t o = w->vertex[v];
        for (uint32_t k = g->edge_at[o]; k < g->edge_at[o + 1]; k++) {
            uint32_t t = w->num[g->edges[k]];
            if (!(v >= w->weak_start && t < w->weak_start))
                at[t + 1]++;
        }
    }
    uint64_t sum = 0;
    for (uint32_t v = 0; v <= N; v++) {
        sum += at[v];
        if (sum >= UINT32_MAX) {
            free(at);
            return false;
        }
        at[v] = (uint32_t)sum;
    }
    /* at[v] is now the start of v's list: filled with at[v] as a cursor (which leaves it at the start of v + 1),
     * then shifted back by one */
    uint32_t *pred = malloc((sum ? (size_t)sum : 1) * sizeof *pred);
    if (!pred) {
        free(at);
        return false;
    }
    for (size_t i = 0; i < g->nroots; i++)
        pred[at[w->num[g->roots[i].obj]]++] = 0;
    for (size_t j = 0; j < g->nreferents; j++) {
        uint32_t f = w->num[g->referent_from[j]], t = w->num[g->referent_to[j]];
        if (f != HDOM_NONE && t != HDOM_NONE && t >= w->weak_start)
            pred[at[t]++] = 0;
    }
    for (uint32_t v = 1; v < N; v++) {
        uint32_t o = w->vertex[v];
        for (uint32_t k = g->edge_at[o]; k < g->edge_at[o + 1]; k++) {
            uint32_t t = w->num[g->edges[k]];
            if (!(v >= w->weak_start && t < w->weak_start))
                pred[at[t]++] = v;
        }
    }
    for (uint32_t v = N; v > 0; v--)
        at[v] = at[v - 1];
    at[0] = 0;
    *pred_at_out = at;
    *pred_out = pred;
    return true;
}

/* Semidominators (semi), then immediate dominators (into idom), by number. */
static bool hdom_snca(hdom_work *w, const uint32_t *pred_at, const uint32_t *pred, uint32_t *semi, uint32_t *idom,
                      heap_progress_fn progress, void *pctx)
{
    uint32_t N = w->count;
    uint32_t *label = malloc((size_t)N * sizeof *label), *ancestor = idom; /* idom's memory, free until the end */
    if (!label)
        return false;
    for (uint32_t v = 0; v < N; v++) {
        semi[v] = label[v] = v;
        ancestor[v] = HDOM_NONE;
    }
    uint32_t *path = w->stack;
    for (uint32_t x = N; x-- > 1;) {
        if (progress && ((N - x) & 0xfffff) == 0)
            progress(pctx, "dominators", N - x, N);
        for (uint32_t k = pred_at[x]; k < pred_at[x + 1]; k++) {
            uint32_t v = pred[k], u = v;
            if (ancestor[v] != HDOM_NONE) {
                /* eval(v): compress the path from v to its forest root, then label[v] */
                size_t n = 0;
                for (uint32_t y = v; ancestor[ancestor[y]] != HDOM_NONE; y = ancestor[y])
                    path[n++] = y;
                while (n) {
                    uint32_t y = path[--n], a = ancestor[y];
                    if (semi[label[a]] < semi[label[y]])
                        label[y] = label[a];
                    ancestor[y] = ancestor[a];
                }
                u = label[v];
            }
            if (semi[u] < semi[x])
                semi[x] = semi[u];
        }
        ancestor[x] = w->parent[x];
    }
    free(label);
    idom[0] = 0;
    for (uint32_t x = 1; x < N; x++) {
        uint32_t d = w->parent[x];
        while (d > semi[x])
            d = idom[d];
        idom[x] = d;
    }
    return true;
}

static bool hdom_fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s computing the dominators of the heap dump", what);
    return false;
}

bool heap_dominators_compute(const heap_graph *g, heap_dominators *dm, heap_progress_fn progress, void *pctx,
                             char *err, size_t errlen)
{
    memset(dm, 0, sizeof *dm);
    err[0] = '\0';
    uint32_t n = g->n;
    if (n >= HDOM_NONE - 1)
        return hdom_fail(err, errlen, "too many objects");
    hdom_work w = { .g = g, .count = 1 };
    size_t n1 = (size_t)n + 1;
    w.num = malloc(n1 * sizeof *w.num);
    w.vertex = malloc(n1 * sizeof *w.vertex);
    w.parent = malloc(n1 * sizeof *w.parent);
    w.stack = malloc(2 * n1 * sizeof *w.stack);
    uint32_t *pred_at = NULL, *pred = NULL, *semi = NULL, *idom = NULL;
    bool ok = w.num && w.vertex && w.parent && w.stack;
    if (ok) {
        memset(w.num, 0xff, n1 * sizeof *w.num);
        w.vertex[0] = HDOM_NONE;
        w.parent[0] = 0;
        if (progress)
            progress(pctx, "reachability", 0, 0);
        for (size_t i = 0; i < g->nroots; i++)
            hdom_dfs(&w, g->roots[i].obj);
        w.weak_start = w.count;
        for (bool more = g->nreferents > 0; more;) {
            more = false;
            for (size_t j = 0; j < g->nreferents; j++)
                if (w.num[g->referent_from[j]] != HDOM_NONE && w.num[g->referent_to[j]] == HDOM_NONE) {
                    hdom_dfs(&w, g->referent_to[j]);
                    more = true;
                }
        }
        ok = hdom_preds(&w, &pred_at, &pred);
    }
    uint32_t N = w.count;
    if (ok) {
        semi = malloc((size_t)N * sizeof *semi);
        idom = malloc((size_t)N * sizeof *idom);
        ok = semi && idom && hdom_snca(&w, pred_at, pred, semi, idom, progress, pctx);
    }
    free(pred_at);
    free(pred);
    free(semi);
    if (ok) { /* the results, allocated once the predecessors are gone (a lower peak) */
        dm->idom = malloc(n1 * sizeof *dm->idom);
        dm->retained = calloc(n1, sizeof *dm->retained);
        ok = dm->idom && dm->retained;
    }
    if (ok) {
        uint64_t *ret = dm->retained; /* by number first (N <= n + 1), then moved to the objects */
        for (uint32_t x = 1; x < N; x++)
            ret[x] = heap_graph_shallow_of(g, w.vertex[x]);
        for (uint32_t x = N; x-- > 1;)
            ret[idom[x]] += ret[x];
        for (uint32_t i = 0; i < n; i++)
            dm->idom[i] = HEAP_DOM_UNREACHABLE;
        /* move: each object's value from slot num[i] to slot i, following the permutation's cycles
         * is costly to write; a copy through the (now free) parent and stack arrays instead */
        uint32_t *lo = w.parent, *hi = w.stack; /* the low and high 32 bits of ret by number */
        for (uint32_t x = 0; x < N; x++) {
            lo[x] = (uint32_t)ret[x];
            hi[x] = (uint32_t)(ret[x] >> 32);
        }
        memset(ret, 0, n1 * sizeof *ret);
        for (uint32_t x = 1; x < N; x++) {
            uint32_t o = w.vertex[x];
            ret[o] = (uint64_t)hi[x] << 32 | lo[x];
            dm->idom[o] = idom[x] ? w.vertex[idom[x]] : HEAP_DOM_SUPER;
            uint64_t s = heap_graph_shallow_of(g, o);
            dm->reachable++;
            dm->reachable_bytes += s;
            if (x >= w.weak_start) {
                dm->weak_only++;
                dm->weak_only_bytes += s;
            }
        }
        for (uint32_t i = 0; i < n; i++)
            if (w.num[i] == HDOM_NONE) {
                dm->unreachable++;
                dm->unreachable_bytes += heap_graph_shallow_of(g, i);
            }
    }
    free(idom);
    free(w.num);
    free(w.vertex);
    free(w.parent);
    free(w.stack);
    if (!ok) {
        heap_dominators_free(dm);
        return hdom_fail(err, errlen, "out of memory (or more than 4G references)");
    }
    return true;
}

void heap_dominators_free(heap_dominators *dm)
{
    free(dm->idom);
    free(dm->retained);
    memset(dm, 0, sizeof *dm);
}

/* ---- per class ---- */

typedef struct hdom_sort_ctx {
    const heap_graph *g;
    heap_class_order by;
} hdom_sort_ctx;

static int hdom_row_cmp(const void *a, const void *b, void *ctx)
{
    const heap_class_retained *x = a, *y = b;
    heap_class_order by = ((const hdom_sort_ctx *)ctx)->by;
    if (by == HEAP_CLASSES_BY_SHALLOW && x->shallow != y->shallow)
        return x->shallow > y->shallow ? -1 : 1;
    if (by == HEAP_CLASSES_BY_INSTANCES && x->instances != y->instances)
        return x->instances > y->instances ? -1 : 1;
    if (x->retained != y->retained)
        return x->retained > y->retained ? -1 : 1;
    if (x->shallow != y->shallow)
        return x->shallow > y->shallow ? -1 : 1;
    const heap_graph *g = ((const hdom_sort_ctx *)ctx)->g;
    int c = strcmp(heap_graph_class_name(g, x->cls), heap_graph_class_name(g, y->cls));
    return c ? c : (x->cls > y->cls) - (x->cls < y->cls);
}

bool heap_dominators_classes(const heap_graph *g, const heap_dominators *dm, heap_class_retained **rows_out,
                             size_t *nrows)
{
    *rows_out = NULL;
    *nrows = 0;
    uint32_t n = g->n, sroot = n; /* the super root's slot */
    uint32_t *child_at = calloc((size_t)n + 2, sizeof *child_at), *child = malloc(((size_t)n + 1) * sizeof *child);
    uint32_t *stack = malloc(2 * ((size_t)n + 1) * sizeof *stack), *active = calloc(g->nclasses, sizeof *active);
    heap_class_retained *rows = calloc(g->nclasses ? g->nclasses : 1, sizeof *rows);
    bool ok = child_at && child && stack && active && rows;
    if (ok) {
        /* the dominator tree's children, in CSR form */
        for (uint32_t i = 0; i < n; i++)
            if (dm->idom[i] != HEAP_DOM_UNREACHABLE)
                child_at[(dm->idom[i] == HEAP_DOM_SUPER ? sroot : dm->idom[i]) + 1]++;
        for (uint32_t i = 1; i <= n + 1; i++)
            child_at[i] += child_at[i - 1];
        for (uint32_t i = 0; i < n; i++)
            if (dm->idom[i] != HEAP_DOM_UNREACHABLE)
                child[child_at[dm->idom[i] == HEAP_DOM_SUPER ? sroot : dm->idom[i]]++] = i;
        for (uint32_t i = n + 1; i > 0; i--)
            child_at[i] = child_at[i - 1];
        child_at[0] = 0;
        /* depth first, each class counting its instances that no instance of it dominates */
        size_t top = 1;
        stack[0] = sroot;
        stack[1] = child_at[sroot];
        while (top) {
            uint32_t x = stack[2 * top - 2], c = stack[2 * top - 1];
            if (c == child_at[x + 1]) {
                if (x != sroot)
                    active[g->cls[x]]--;
                top--;
                continue;
            }
            stack[2 * top - 1] = c + 1;
            uint32_t y = child[c], k = g->cls[y];
            heap_class_retained *r = &rows[k];
            r->cls = k;
            r->instances++;
            r->shallow += heap_graph_shallow_of(g, y);
            if (!active[k]++)
                r->retained += dm->retained[y];
            stack[2 * top] = y;
            stack[2 * top + 1] = child_at[y];
            top++;
        }
        size_t m = 0;
        for (uint32_t k = 0; k < g->nclasses; k++)
            if (rows[k].instances)
                rows[m++] = rows[k];
        heap_dominators_classes_sort(g, rows, m, HEAP_CLASSES_BY_RETAINED);
        *rows_out = rows;
        *nrows = m;
        rows = NULL;
    }
    free(child_at);
    free(child);
    free(stack);
    free(active);
    free(rows);
    return ok;
}

void heap_dominators_classes_sort(const heap_graph *g, heap_class_retained *rows, size_t nrows, heap_class_order by)
{
    hdom_sort_ctx sc = { g, by };
    if (nrows > 1)
        qsort_r(rows, nrows, sizeof *rows, hdom_row_cmp, &sc);
}

/* ---- top objects ---- */

/* true when object a ranks below b (smaller retained; on a tie, the larger id) */
static bool hdom_below(const heap_dominators *dm, uint32_t a, uint32_t b)
{
    if (dm->retained[a] != dm->retained[b])
        return dm->retained[a] < dm->retained[b];
    return a > b;
}

/* sift down in a heap whose top is the lowest ranked */
static void hdom_sift(const heap_dominators *dm, uint32_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && hdom_below(dm, h[l], h[m]))
            m = l;
        if (r < n && hdom_below(dm, h[r], h[m]))
            m = r;
        if (m == i)
            return;
        uint32_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

bool heap_dominators_top(const heap_graph *g, const heap_dominators *dm, size_t top, uint32_t **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    size_t k = top && top < dm->reachable ? top : (size_t)dm->reachable;
    uint32_t *h = malloc((k ? k : 1) * sizeof *h);
    if (!h)
        return false;
    size_t n = 0;
    for (uint32_t i = 0; i < g->n && k; i++) {
        if (dm->idom[i] == HEAP_DOM_UNREACHABLE)
            continue;
        if (n < k) {
            h[n++] = i;
            if (n == k)
                for (size_t j = k / 2 + 1; j-- > 0;)
                    hdom_sift(dm, h, n, j);
        } else if (hdom_below(dm, h[0], i)) {
            h[0] = i;
            hdom_sift(dm, h, n, 0);
        }
    }
    if (n < k) /* not reached: reachable counts what idom marks */
        for (size_t j = n / 2 + 1; j-- > 0;)
            hdom_sift(dm, h, n, j);
    /* heap sort: the lowest ranked to the end */
    for (size_t m = n; m > 1; m--) {
        uint32_t t = h[0];
        h[0] = h[m - 1];
        h[m - 1] = t;
        hdom_sift(dm, h, m - 1, 0);
    }
    *out = h;
    *nout = n;
    return true;
}
