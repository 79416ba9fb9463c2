/* arena.h — a chunked linear allocator. Memory handed out never moves and is
 * only released all at once (arena_free), so interned keys can be referenced
 * by pointer for the life of the model. Not thread-safe. */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;
typedef struct arena {
    arena_chunk *head;
    size_t used;      /* bytes used in head */
    size_t total;     /* bytes handed out, for statistics */
} arena;

void arena_init(arena *a);
/* Returns 8-byte aligned memory, or NULL when out of memory. */
void *arena_alloc(arena *a, size_t n);
void *arena_dup(arena *a, const void *src, size_t n);
void arena_free(arena *a);

#endif
