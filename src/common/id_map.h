/* id_map.h — a map from 64-bit ids to 64-bit values (open addressing,
 * linear probing, grown at 3/4 load; the key 0 is kept aside), for the heap
 * dump readers, which index a dump's strings and classes by id. */
#ifndef ID_MAP_H
#define ID_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct id_map {
    uint64_t *keys, *vals;
    size_t cap, n; /* cap is a power of two, or 0 */
    bool has_zero;
    uint64_t zero_val;
} id_map;

/* Sets key to val (replacing an old value). False when out of memory. */
bool id_map_put(id_map *m, uint64_t key, uint64_t val);

static inline size_t id_map_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k;
}

/* True and *val set when key is in the map (inline: readers look up an id
 * per object). */
static inline bool id_map_get(const id_map *m, uint64_t key, uint64_t *val)
{
    if (key == 0) {
        *val = m->zero_val;
        return m->has_zero;
    }
    if (!m->cap)
        return false;
    size_t j = id_map_hash(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->keys[j] == key) {
            *val = m->vals[j];
            return true;
        }
        j = (j + 1) & (m->cap - 1);
    }
    return false;
}
void id_map_free(id_map *m);

#endif
