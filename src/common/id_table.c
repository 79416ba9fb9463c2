/* id_table.c — see id_table.h. */
#include "id_table.h"

#include <stdlib.h>
#include <string.h>

void id_table_init(id_table *t, size_t elem)
{
    memset(t, 0, sizeof *t);
    t->elem = elem;
}

void *id_table_at(id_table *t, uint64_t id)
{
    uint64_t at;
    if (id_map_get(&t->index, id, &at))
        return t->v + at * t->elem;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        unsigned char *v = realloc(t->v, cap * t->elem);
        if (!v)
            return NULL;
        t->v = v;
        uint64_t *ids = realloc(t->ids, cap * sizeof *ids);
        if (!ids)
            return NULL;
        t->ids = ids;
        t->cap = cap;
    }
    if (!id_map_put(&t->index, id, t->n))
        return NULL;
    void *rec = t->v + t->n * t->elem;
    memset(rec, 0, t->elem);
    t->ids[t->n++] = id;
    return rec;
}

void id_table_free(id_table *t)
{
    id_map_free(&t->index);
    free(t->v);
    free(t->ids);
    memset(t, 0, sizeof *t);
}
