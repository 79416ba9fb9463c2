/* trace_tree.c — see trace_tree.h. Nodes in one array; a hash table with
 * open addressing maps (parent, key) to a node. */
#include "trace_tree.h"

#include <stdlib.h>

typedef struct tree_node {
    uint32_t parent;
    uint32_t depth;             /* the root's children: 1 */
    uint64_t key, ns;
} tree_node;

struct trace_tree {
    tree_node *nodes;
    uint32_t n, cap;
    uint32_t *slots;            /* node index + 1; 0: empty */
    uint32_t nslots;            /* a power of two */
};

static uint64_t tree_hash(uint32_t parent, uint64_t key)
{
    uint64_t h = (key ^ ((uint64_t)parent << 32 | parent)) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

trace_tree *trace_tree_new(void)
{
    trace_tree *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cap = 1024;
    t->nslots = 2048;
    t->nodes = malloc(t->cap * sizeof *t->nodes);
    t->slots = calloc(t->nslots, sizeof *t->slots);
    if (!t->nodes || !t->slots) {
        trace_tree_free(t);
        return NULL;
    }
    t->nodes[0] = (tree_node){ 0, 0, 0, 0 };
    t->n = 1;
    return t;
}

void trace_tree_free(trace_tree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t->slots);
    free(t);
}

static bool tree_rehash(trace_tree *t)
{
    uint32_t nslots = t->nslots * 2;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 1; i < t->n; i++) {
        uint64_t h = tree_hash(t->nodes[i].parent, t->nodes[i].key);
        uint32_t s = (uint32_t)h & (nslots - 1);
        while (slots[s])
            s = (s + 1) & (nslots - 1);
        slots[s] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return true;
}

uint32_t trace_tree_child(trace_tree *t, uint32_t parent, uint64_t key)
{
    if (parent >= t->n)
        return 0;
    uint32_t s = (uint32_t)tree_hash(parent, key) & (t->nslots - 1);
    for (; t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
        tree_node *nd = &t->nodes[t->slots[s] - 1];
        if (nd->parent == parent && nd->key == key)
            return t->slots[s] - 1;
    }
    if (t->n == UINT32_MAX - 1)
        return 0;
    if (t->n == t->cap) {
        uint32_t cap = t->cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : t->cap * 2;
        tree_node *nodes = realloc(t->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes)
            return 0;
        t->nodes = nodes;
        t->cap = cap;
    }
    uint32_t id = t->n++;
    t->nodes[id] = (tree_node){ parent, t->nodes[parent].depth + 1, key, 0 };
    t->slots[s] = id + 1;
    if ((uint64_t)t->n * 2 > t->nslots && !tree_rehash(t)) {
        t->n--; /* cannot grow the table: the node is not kept */
        t->slots[s] = 0;
        return 0;
    }
    return id;
}

void trace_tree_add(trace_tree *t, uint32_t node, uint64_t ns)
{
    if (node && node < t->n)
        t->nodes[node].ns += ns;
}

bool trace_tree_walk(const trace_tree *t, uint32_t max, trace_tree_fn fn, void *ctx)
{
    uint64_t *keys = max ? malloc(max * sizeof *keys) : NULL;
    if (!keys)
        return false;
    bool go = true;
    for (uint32_t i = 1; go && i < t->n; i++) {
        if (!t->nodes[i].ns)
            continue;
        uint32_t depth = t->nodes[i].depth, n = depth < max ? depth : max;
        uint32_t at = i;
        while (t->nodes[at].depth > n) /* deeper than max: cut at the top max levels */
            at = t->nodes[at].parent;
        for (uint32_t k = n; k > 0; k--) {
            keys[k - 1] = t->nodes[at].key;
            at = t->nodes[at].parent;
        }
        go = fn(keys, n, t->nodes[i].ns, ctx);
    }
    free(keys);
    return go;
}
