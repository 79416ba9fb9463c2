/* intern.c — open-addressing hash table (linear probing, load <= 1/2) over
 * an entries array indexed by id. FNV-1a hashing: keys are short. */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

uint32_t intern_hash(const void *key, uint32_t len)
{
    const unsigned char *p = key;
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

void intern_init(intern_table *t, arena *keys)
{
    memset(t, 0, sizeof *t);
    t->keys = keys;
}

void intern_free(intern_table *t)
{
    free(t->slots);
    free(t->entries);
    t->slots = NULL;
    t->entries = NULL;
    t->count = t->entries_cap = t->slot_mask = 0;
}

static uint32_t intern_lookup_slot(const intern_table *t, const void *key, uint32_t len, uint32_t h)
{
    uint32_t i = h & t->slot_mask;
    for (;;) {
        uint32_t id = t->slots[i];
        if (id == 0)
            return i;
        const intern_entry *e = &t->entries[id - 1];
        if (e->hash == h && e->len == len && (len == 0 || memcmp(e->key, key, len) == 0))
            return i;
        i = (i + 1) & t->slot_mask;
    }
}

static bool intern_grow_slots(intern_table *t)
{
    uint32_t n = t->slots ? (t->slot_mask + 1) * 2 : 1024;
    if (n == 0)
        return false;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    free(t->slots);
    t->slots = slots;
    t->slot_mask = n - 1;
    for (uint32_t id = 1; id <= t->count; id++) {
        uint32_t i = t->entries[id - 1].hash & t->slot_mask;
        while (slots[i])
            i = (i + 1) & t->slot_mask;
        slots[i] = id;
    }
    return true;
}

uint32_t intern_find(const intern_table *t, const void *key, uint32_t len)
{
    if (!t->slots)
        return 0;
    return t->slots[intern_lookup_slot(t, key, len, intern_hash(key, len))];
}

uint32_t intern_put(intern_table *t, const void *key, uint32_t len, bool *added)
{
    if (added)
        *added = false;
    if (!t->slots && !intern_grow_slots(t))
        return 0;
    uint32_t h = intern_hash(key, len);
    uint32_t slot = intern_lookup_slot(t, key, len, h);
    if (t->slots[slot])
        return t->slots[slot];
    if (t->count == UINT32_MAX - 1)
        return 0;
    if (t->count == t->entries_cap) {
        uint32_t cap = t->entries_cap ? t->entries_cap * 2 : 256;
        intern_entry *e = realloc(t->entries, (size_t)cap * sizeof *e);
        if (!e)
            return 0;
        t->entries = e;
        t->entries_cap = cap;
    }
    void *copy = arena_dup(t->keys, key, len);
    if (!copy)
        return 0;
    uint32_t id = ++t->count;
    t->entries[id - 1] = (intern_entry){ copy, len, h };
    t->slots[slot] = id;
    if ((uint64_t)t->count * 2 > (uint64_t)t->slot_mask + 1) {
        if (!intern_grow_slots(t)) {
            /* table stays valid, only fuller; the next put retries */
        }
    }
    if (added)
        *added = true;
    return id;
}

const void *intern_key(const intern_table *t, uint32_t id, uint32_t *len)
{
    const intern_entry *e = &t->entries[id - 1];
    if (len)
        *len = e->len;
    return e->key;
}
