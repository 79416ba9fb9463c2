/* heap_site.c — the objects of one allocation site in a heap dump, grouped
 * by the paths that hold them (see heap_site.h). */
#include "heap_site.h"

#include <stdlib.h>
#include <string.h>

#define HSI_ARRAY_STEP UINT64_C(0xA11A11A11A11A11A) /* an element of an object array, any index */
#define HSI_WEAK_STEP UINT64_C(0x3EA4A3EA4A3EA4A3)  /* a referent */

static uint64_t hsi_mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9E3779B97F4A7C15) + (h << 6) + (h >> 2);
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    return h ^ (h >> 33);
}

static uint8_t hsi_tag(const heap_graph *g, uint32_t i) { return g->d[g->at[i]]; }

/* Which field of `from` leads to `to`: its edge number (the first edge to it), for a group's key. */
static uint64_t hsi_step_key(const heap_graph *g, const heap_paths *hp, uint32_t from, uint32_t to)
{
    if (hp->how[to] == HEAP_PATH_WEAK && hp->how[from] != HEAP_PATH_WEAK)
        return hsi_mix(g->cls[from], HSI_WEAK_STEP);
    uint8_t tag = hsi_tag(g, from);
    if (tag == 0x22) /* OBJECT ARRAY DUMP: any index */
        return hsi_mix(g->cls[from], HSI_ARRAY_STEP);
    uint64_t k = UINT32_MAX;
    for (uint32_t e = g->edge_at[from]; e < g->edge_at[from + 1]; e++)
        if (g->edges[e] == to) {
            k = e - g->edge_at[from];
            break;
        }
    if (tag == 0x20) /* CLASS DUMP: this class's statics */
        return hsi_mix(hsi_mix(UINT64_C(0xC1A55), from), k);
    if (k == UINT32_MAX && hp->how[to] == HEAP_PATH_WEAK) /* a referent between two weakly reachable objects */
        return hsi_mix(g->cls[from], HSI_WEAK_STEP);
    return hsi_mix(g->cls[from], k);
}

static uint64_t hsi_key(const heap_graph *g, const heap_paths *hp, const uint32_t *chain, size_t len)
{
    const heap_root *r = heap_paths_root(g, hp, chain[0]);
    uint64_t h = hsi_mix(r ? r->kind : 0, r ? r->thread : 0);
    h = hsi_mix(h, hsi_tag(g, chain[0]) == 0x20 ? (uint64_t)chain[0] | UINT64_C(1) << 40 : g->cls[chain[0]]);
    for (size_t d = 1; d < len; d++)
        h = hsi_mix(h, hsi_step_key(g, hp, chain[d - 1], chain[d]));
    return hsi_mix(h, g->cls[chain[len - 1]]);
}

/* Per object: whether a member of the set dominates it (strictly); members marked in state beforehand. */
enum { HSI_UNKNOWN = 0, HSI_MEMBER = 1, HSI_FREE = 2, HSI_BELOW = 3 };

/* True when a member other than i dominates member (or object) i. state[] memoizes each object's
 * answer for those above it; stack is a scratch array of g->n entries. */
static bool hsi_below_member(const heap_dominators *dm, uint8_t *state, uint32_t *stack, uint32_t i)
{
    size_t n = 0;
    uint32_t x = dm->idom[i];
    uint8_t answer = HSI_FREE;
    while (x != HEAP_DOM_SUPER && x != HEAP_DOM_UNREACHABLE) {
        if (state[x] == HSI_MEMBER || state[x] == HSI_BELOW) {
            answer = HSI_BELOW;
            break;
        }
        if (state[x] == HSI_FREE)
            break;
        stack[n++] = x;
        x = dm->idom[x];
    }
    while (n)
        state[stack[--n]] = answer;
    return answer == HSI_BELOW;
}

typedef struct hsi_slot {
    uint64_t key;
    size_t group; /* index + 1; 0: empty */
} hsi_slot;

static int hsi_group_order(const void *pa, const void *pb)
{
    const heap_site_group *a = pa, *b = pb;
    if (a->objects != b->objects)
        return a->objects > b->objects ? -1 : 1;
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    return a->chain[a->len - 1] < b->chain[b->len - 1] ? -1 : a->chain[a->len - 1] > b->chain[b->len - 1];
}

static int hsi_class_order(const void *pa, const void *pb)
{
    const heap_site_class *a = pa, *b = pb;
    if (a->objects != b->objects)
        return a->objects > b->objects ? -1 : 1;
    return a->cls < b->cls ? -1 : a->cls > b->cls;
}

void heap_site_free(heap_site *s)
{
    for (size_t k = 0; k < s->ngroups; k++) {
        free(s->groups[k].chain);
        free(s->groups[k].same);
    }
    free(s->groups);
    free(s->classes);
    memset(s, 0, sizeof *s);
}

bool heap_site_any_traced(const heap_graph *g)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (heap_graph_trace_serial(g, i) > 1)
            return true;
    return false;
}

/* The members' classes, counted (cls_count: per class index, scratch, zeroed). */
static bool hsi_classes(const heap_graph *g, const uint32_t *members, size_t nm, heap_site *s)
{
    uint64_t *count = calloc(g->nclasses ? g->nclasses : 1, 2 * sizeof *count);
    if (!count)
        return false;
    size_t nc = 0;
    for (size_t k = 0; k < nm; k++) {
        uint32_t c = g->cls[members[k]];
        if (c >= g->nclasses)
            continue;
        if (!count[2 * c])
            nc++;
        count[2 * c]++;
        count[2 * c + 1] += heap_graph_shallow_of(g, members[k]);
    }
    s->classes = calloc(nc ? nc : 1, sizeof *s->classes);
    if (!s->classes) {
        free(count);
        return false;
    }
    for (uint32_t c = 0; c < g->nclasses; c++)
        if (count[2 * c])
            s->classes[s->nclasses++] = (heap_site_class){ c, count[2 * c], count[2 * c + 1] };
    free(count);
    qsort(s->classes, s->nclasses, sizeof *s->classes, hsi_class_order);
    return true;
}

/* Member m (its path chain[0..len)) into its group, made when new. */
static bool hsi_add(const heap_graph *g, const heap_paths *hp, heap_site *s, hsi_slot *table, size_t mask,
                    size_t *cap, uint32_t *chain, size_t len, uint64_t retained)
{
    uint32_t m = chain[len - 1];
    uint64_t key = hsi_key(g, hp, chain, len);
    size_t at = (size_t)key & mask;
    while (table[at].group && table[at].key != key)
        at = (at + 1) & mask;
    heap_site_group *gr;
    if (!table[at].group) {
        if (s->ngroups == *cap) {
            size_t ncap = *cap ? 2 * *cap : 16;
            heap_site_group *ng = realloc(s->groups, ncap * sizeof *ng);
            if (!ng)
                return false;
            s->groups = ng;
            *cap = ncap;
        }
        gr = &s->groups[s->ngroups];
        memset(gr, 0, sizeof *gr);
        gr->same = malloc(len);
        if (!gr->same)
            return false;
        memset(gr->same, 1, len);
        gr->chain = chain; /* owned by the group from now on */
        gr->len = len;
        gr->weak = hp->how[m] == HEAP_PATH_WEAK;
        s->ngroups++;
        table[at].key = key;
        table[at].group = s->ngroups;
    } else {
        gr = &s->groups[table[at].group - 1];
        for (size_t d = 0; d < len && d < gr->len; d++)
            if (gr->chain[d] != chain[d])
                gr->same[d] = 0;
        free(chain);
    }
    gr->objects++;
    gr->shallow += heap_graph_shallow_of(g, m);
    gr->retained += retained;
    return true;
}

bool heap_site_find(const heap_graph *g, const heap_dominators *dm, const heap_paths *hp, uint32_t trace,
                    const char *class_name, heap_site *s)
{
    memset(s, 0, sizeof *s);
    s->trace = trace;
    uint8_t *state = calloc(g->n ? g->n : 1, 1);
    uint32_t *stack = malloc((g->n ? g->n : 1) * sizeof *stack);
    uint32_t *members = NULL;
    size_t nm = 0, mcap = 0;
    bool ok = state && stack;
    for (uint32_t i = 0; ok && i < g->n; i++) {
        if (heap_graph_trace_serial(g, i) != trace)
            continue;
        if (class_name && strcmp(heap_graph_class_name(g, g->cls[i]), class_name) != 0)
            continue;
        if (nm == mcap) {
            size_t ncap = mcap ? 2 * mcap : 64;
            uint32_t *nmem = realloc(members, ncap * sizeof *nmem);
            if (!nmem) {
                ok = false;
                break;
            }
            members = nmem;
            mcap = ncap;
        }
        members[nm++] = i;
        state[i] = HSI_MEMBER;
    }
    ok = ok && hsi_classes(g, members, nm, s);
    size_t tsize = 16;
    while (tsize < 2 * nm)
        tsize *= 2;
    hsi_slot *table = ok ? calloc(tsize, sizeof *table) : NULL;
    size_t cap = 0;
    ok = ok && table;
    for (size_t k = 0; ok && k < nm; k++) {
        uint32_t m = members[k];
        /* retained bytes, each once: an object no other member dominates brings its retained size */
        uint64_t retained = hsi_below_member(dm, state, stack, m) ? 0 : dm->retained[m];
        s->objects++;
        s->shallow += heap_graph_shallow_of(g, m);
        s->retained += retained;
        uint32_t *chain = NULL;
        size_t len = 0;
        if (!heap_paths_chain(hp, m, &chain, &len)) {
            ok = false;
            break;
        }
        if (!len) {
            s->unreachable++;
            continue;
        }
        if (!hsi_add(g, hp, s, table, tsize - 1, &cap, chain, len, retained)) {
            free(chain);
            ok = false;
        }
    }
    free(table);
    free(members);
    free(stack);
    free(state);
    if (!ok) {
        heap_site_free(s);
        return false;
    }
    if (s->ngroups)
        qsort(s->groups, s->ngroups, sizeof *s->groups, hsi_group_order);
    return true;
}
