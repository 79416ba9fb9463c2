/* arena.c — chunked linear allocator: 64 KiB chunks, larger requests get a
 * chunk of their own. Chunks are singly linked, newest first. */
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK_SIZE (64u * 1024u)

struct arena_chunk {
    arena_chunk *next;
    size_t size;
    _Alignas(8) unsigned char data[];
};

void arena_init(arena *a) { memset(a, 0, sizeof *a); }

void *arena_alloc(arena *a, size_t n)
{
    if (n > SIZE_MAX - 7u)
        return NULL; /* rounding up would wrap to a tiny block */
    n = (n + 7u) & ~(size_t)7u;
    if (n == 0)
        n = 8;
    if (!a->head || a->used + n > a->head->size) {
        size_t size = n > ARENA_CHUNK_SIZE ? n : ARENA_CHUNK_SIZE;
        if (size > SIZE_MAX - sizeof(arena_chunk))
            return NULL;
        arena_chunk *c = malloc(sizeof(arena_chunk) + size);
        if (!c)
            return NULL;
        c->size = size;
        if (a->head && n > ARENA_CHUNK_SIZE) {
            /* big block: keep the current head as the bump chunk */
            c->next = a->head->next;
            a->head->next = c;
            a->total += n;
            return c->data;
        }
        c->next = a->head;
        a->head = c;
        a->used = 0;
    }
    void *p = a->head->data + a->used;
    a->used += n;
    a->total += n;
    return p;
}

void *arena_dup(arena *a, const void *src, size_t n)
{
    void *p = arena_alloc(a, n);
    if (p && n)
        memcpy(p, src, n);
    return p;
}

void arena_free(arena *a)
{
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    memset(a, 0, sizeof *a);
}
