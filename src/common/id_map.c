/* id_map.c — see id_map.h. */
#include "id_map.h"

#include <stdlib.h>

static bool id_map_grow(id_map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys), *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = id_map_hash(m->keys[i]) & (cap - 1);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return true;
}

bool id_map_put(id_map *m, uint64_t key, uint64_t val)
{
    if (key == 0) {
        m->has_zero = true;
        m->zero_val = val;
        return true;
    }
    if ((m->n + 1) * 4 > m->cap * 3 && !id_map_grow(m))
        return false;
    size_t j = id_map_hash(key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->keys[j]) {
        m->keys[j] = key;
        m->n++;
    }
    m->vals[j] = val;
    return true;
}

void id_map_free(id_map *m)
{
    free(m->keys);
    free(m->vals);
}
