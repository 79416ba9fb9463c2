/* pub_table.h — a table of pointers by number that any thread may add to and
 * read without a lock: entries live in chunks of PUB_CHUNK, each made at its
 * first entry and installed with one compare-and-swap; an entry is published
 * with a release store and read with an acquire load, so a reader that sees
 * it sees what it points to. Entries are replaced, never freed; the chunks
 * live as long as the process. */
#ifndef PUB_TABLE_H
#define PUB_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define PUB_CHUNK 4096u

typedef _Atomic(void *) pub_slot;
typedef struct pub_table {
    _Atomic(pub_slot *) *chunks; /* [nchunks], zeroed */
    uint32_t nchunks;            /* numbers below nchunks * PUB_CHUNK */
} pub_table;

/* A table for numbers below max_ids, with static storage: PUB_TABLE(name, 1u << 22); */
#define PUB_TABLE(name, max_ids) \
    static _Atomic(pub_slot *) name##_chunks[((max_ids) + PUB_CHUNK - 1) / PUB_CHUNK]; \
    static pub_table name = { name##_chunks, ((max_ids) + PUB_CHUNK - 1) / PUB_CHUNK }

/* The entry numbered id, or NULL (none, or id out of range). */
void *pub_get(const pub_table *t, uint32_t id);
/* Publishes p as entry id; false when id is out of range or out of memory. */
bool pub_put(pub_table *t, uint32_t id, void *p);

#endif
