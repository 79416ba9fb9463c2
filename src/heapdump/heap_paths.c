/* heap_paths.c — shortest paths from the GC roots (see heap_paths.h): a
 * breadth-first search from every root over the graph's edges, then one
 * from the referents of the Reference objects it reached (the referents,
 * sorted by their Reference, let the second search follow the referents of
 * weakly reachable References too, by binary search). */
#include "heap_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_heap_scan.h"

typedef struct hpt_search {
    const heap_graph *g;
    heap_paths *p;
    uint32_t *queue; /* each object enters once: n slots */
    uint32_t head, tail;
    uint64_t *by_from; /* the referents as from << 32 | to, sorted */
} hpt_search;

static void hpt_reach(hpt_search *s, uint32_t from, uint32_t to, uint8_t how)
{
    if (s->p->how[to] != HEAP_PATH_NONE)
        return;
    s->p->how[to] = how;
    s->p->parent[to] = from;
    s->queue[s->tail++] = to;
}

/* The first index in by_from whose referent_from is o (nreferents if none). */
static size_t hpt_first_referent(const hpt_search *s, uint32_t o)
{
    size_t lo = 0, hi = s->g->nreferents;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->by_from[mid] >> 32 < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Takes the queue to its end, each object's edges (and, weak, its referents) marked `how`. */
static void hpt_search_run(hpt_search *s, uint8_t how)
{
    const heap_graph *g = s->g;
    while (s->head < s->tail) {
        uint32_t o = s->queue[s->head++];
        for (uint32_t k = g->edge_at[o]; k < g->edge_at[o + 1]; k++)
            hpt_reach(s, o, g->edges[k], how);
        if (how != HEAP_PATH_WEAK || !s->by_from)
            continue;
        for (size_t j = hpt_first_referent(s, o); j < g->nreferents && s->by_from[j] >> 32 == o; j++)
            hpt_reach(s, o, (uint32_t)s->by_from[j], how);
    }
}

static int hpt_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

bool heap_paths_compute(const heap_graph *g, heap_paths *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    err[0] = '\0';
    size_t n1 = g->n ? g->n : 1;
    hpt_search s = { .g = g, .p = p };
    p->n = g->n;
    p->parent = malloc(n1 * sizeof *p->parent);
    p->how = calloc(n1, 1);
    s.queue = malloc(n1 * sizeof *s.queue);
    if (g->nreferents)
        s.by_from = malloc(g->nreferents * sizeof *s.by_from);
    if (!p->parent || !p->how || !s.queue || (g->nreferents && !s.by_from)) {
        free(s.queue);
        free(s.by_from);
        heap_paths_free(p);
        snprintf(err, errlen, "out of memory for the paths to the GC roots of %u objects", g->n);
        return false;
    }
    for (uint32_t i = 0; i < g->n; i++)
        p->parent[i] = HEAP_GRAPH_NONE;
    /* the roots, in the file's order: the first ROOT record of an object names it */
    for (size_t r = 0; r < g->nroots && r < HEAP_GRAPH_NONE; r++)
        hpt_reach(&s, (uint32_t)r, g->roots[r].obj, HEAP_PATH_ROOT);
    p->roots = s.tail;
    hpt_search_run(&s, HEAP_PATH_STRONG);
    p->strong = s.tail - p->roots;
    /* then the referents of the References reached, by Reference, and what they reach */
    if (s.by_from) {
        for (size_t j = 0; j < g->nreferents; j++)
            s.by_from[j] = (uint64_t)g->referent_from[j] << 32 | g->referent_to[j];
        qsort(s.by_from, g->nreferents, sizeof *s.by_from, hpt_cmp_u64);
        uint32_t strong_end = s.tail;
        for (size_t j = 0; j < g->nreferents; j++) {
            uint32_t f = (uint32_t)(s.by_from[j] >> 32);
            if (p->how[f] == HEAP_PATH_ROOT || p->how[f] == HEAP_PATH_STRONG)
                hpt_reach(&s, f, (uint32_t)s.by_from[j], HEAP_PATH_WEAK);
        }
        hpt_search_run(&s, HEAP_PATH_WEAK);
        p->weak_only = s.tail - strong_end;
    }
    p->unreachable = g->n - s.tail;
    free(s.queue);
    free(s.by_from);
    return true;
}

void heap_paths_free(heap_paths *p)
{
    free(p->parent);
    free(p->how);
    memset(p, 0, sizeof *p);
}

bool heap_paths_chain(const heap_paths *p, uint32_t i, uint32_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (i >= p->n || p->how[i] == HEAP_PATH_NONE)
        return true;
    size_t n = 1;
    for (uint32_t o = i; p->how[o] != HEAP_PATH_ROOT && n <= p->n; o = p->parent[o])
        n++;
    if (n > p->n) /* never: the parents form a tree */
        return true;
    uint32_t *c = malloc(n * sizeof *c);
    if (!c)
        return false;
    size_t k = n;
    for (uint32_t o = i;; o = p->parent[o]) {
        c[--k] = o;
        if (p->how[o] == HEAP_PATH_ROOT)
            break;
    }
    *out = c;
    *len = n;
    return true;
}

const heap_root *heap_paths_root(const heap_graph *g, const heap_paths *p, uint32_t i)
{
    if (i >= p->n || p->how[i] != HEAP_PATH_ROOT || p->parent[i] >= g->nroots)
        return NULL;
    return &g->roots[p->parent[i]];
}

bool heap_paths_step_name(const heap_graph *g, const heap_paths *p, uint32_t from, uint32_t to, char *buf,
                          size_t len)
{
    (void)p;
    if (from >= g->n || to >= g->n || !len)
        return false;
    for (uint32_t k = g->edge_at[from]; k < g->edge_at[from + 1]; k++)
        if (g->edges[k] == to)
            return heap_graph_edge_name(g, from, k - g->edge_at[from], buf, len);
    for (size_t j = 0; j < g->nreferents; j++)
        if (g->referent_from[j] == from && g->referent_to[j] == to) {
            snprintf(buf, len, "referent");
            return true;
        }
    return false;
}

bool heap_paths_thread_name(const heap_graph *g, uint32_t serial, char *buf, size_t len)
{
    for (size_t r = 0; r < g->nroots; r++) {
        if (g->roots[r].kind != 0x08 || g->roots[r].thread != serial)
            continue;
        uint8_t t;
        uint64_t v;
        if (!heap_graph_field(g, g->roots[r].obj, "name", &t, &v) || t != 2)
            return false;
        uint32_t s = heap_graph_find(g, v);
        return s != HEAP_GRAPH_NONE && heap_graph_string(g, s, buf, len);
    }
    return false;
}

const char *heap_paths_reference_kind(const heap_graph *g, uint32_t i)
{
    static const struct {
        const char *cls, *kind;
    } kinds[] = { { "java.lang.ref.SoftReference", "soft" },
                  { "java.lang.ref.WeakReference", "weak" },
                  { "java.lang.ref.PhantomReference", "phantom" },
                  { "java.lang.ref.FinalReference", "final" },
                  { "java.lang.ref.Reference", "reference" } };
    if (i >= g->n || g->cls[i] < HEAP_CLASS_FIRST || g->d[g->at[i]] != 0x21)
        return NULL;
    const ht_reader *r = g->r;
    unsigned depth = 0;
    for (size_t k = g->cls[i] - HEAP_CLASS_FIRST; k < r->ncls && depth < 4096; k = r->cls[k].super_idx, depth++) {
        const char *name = r->cls[k].name;
        for (size_t j = 0; name && j < sizeof kinds / sizeof kinds[0]; j++)
            if (strcmp(name, kinds[j].cls) == 0)
                return kinds[j].kind;
    }
    return NULL;
}
