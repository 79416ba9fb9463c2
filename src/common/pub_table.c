/* pub_table.c — see pub_table.h. */
#include "pub_table.h"

#include <stdlib.h>

void *pub_get(const pub_table *t, uint32_t id)
{
    if (id / PUB_CHUNK >= t->nchunks)
        return NULL;
    pub_slot *chunk = atomic_load_explicit(&t->chunks[id / PUB_CHUNK], memory_order_acquire);
    return chunk ? atomic_load_explicit(&chunk[id % PUB_CHUNK], memory_order_acquire) : NULL;
}

bool pub_put(pub_table *t, uint32_t id, void *p)
{
    if (id / PUB_CHUNK >= t->nchunks)
        return false;
    _Atomic(pub_slot *) *slot = &t->chunks[id / PUB_CHUNK];
    pub_slot *chunk = atomic_load_explicit(slot, memory_order_acquire);
    if (!chunk) {
        pub_slot *fresh = calloc(PUB_CHUNK, sizeof *fresh);
        if (!fresh)
            return false;
        if (atomic_compare_exchange_strong_explicit(slot, &chunk, fresh, memory_order_acq_rel, memory_order_acquire))
            chunk = fresh;
        else
            free(fresh); /* another thread installed one: chunk holds it now */
    }
    atomic_store_explicit(&chunk[id % PUB_CHUNK], p, memory_order_release);
    return true;
}
