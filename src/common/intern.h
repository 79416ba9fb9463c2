/* intern.h — maps key bytes to small, dense, 1-based uint32 ids, in the order
 * keys were first seen. Keys are copied into the caller's arena and never
 * move; id 0 means "none" (or out of memory from intern_put). Single writer:
 * the model is only changed by the agent thread or after it has stopped. */
#ifndef INTERN_H
#define INTERN_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"

typedef struct intern_entry {
    const void *key;
    uint32_t len;
    uint32_t hash;
} intern_entry;

typedef struct intern_table {
    arena *keys;
    uint32_t *slots;        /* open addressing; holds ids, 0 = empty */
    uint32_t slot_mask;     /* slot count - 1 (power of two) */
    uint32_t count;         /* ids handed out */
    intern_entry *entries;  /* entries[id - 1] */
    uint32_t entries_cap;
} intern_table;

void intern_init(intern_table *t, arena *keys);
void intern_free(intern_table *t);
/* Returns the id of key, adding it if new (*added = true). 0 on out of memory. */
uint32_t intern_put(intern_table *t, const void *key, uint32_t len, bool *added);
/* Returns the id of key, or 0 if absent. */
uint32_t intern_find(const intern_table *t, const void *key, uint32_t len);
/* The key of id (which must be valid). */
const void *intern_key(const intern_table *t, uint32_t id, uint32_t *len);
static inline uint32_t intern_count(const intern_table *t) { return t->count; }

uint32_t intern_hash(const void *key, uint32_t len);

#endif
