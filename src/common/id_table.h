/* id_table.h — records of a fixed size by 64-bit id, for readers of files
 * that name things by number (a trace's strings, classes, methods, threads):
 * the records are kept densely in the order their ids were first seen and
 * an id_map finds them, so memory grows with the ids the file holds, never
 * with how large an id it names (an array indexed by id made a 68-byte file
 * ask for gigabytes). */
#ifndef ID_TABLE_H
#define ID_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "id_map.h"

typedef struct id_table {
    id_map index;     /* id -> its record's position */
    unsigned char *v; /* n records of elem bytes */
    uint64_t *ids;    /* the id of each record */
    size_t n, cap, elem;
} id_table;

/* An empty table of records of elem bytes. */
void id_table_init(id_table *t, size_t elem);
/* The record of id, added zeroed if new; NULL when out of memory. Valid
 * until the next record is added. */
void *id_table_at(id_table *t, uint64_t id);
/* The record of id, or NULL if none was added. */
static inline void *id_table_get(const id_table *t, uint64_t id)
{
    uint64_t at;
    return id_map_get(&t->index, id, &at) ? t->v + at * t->elem : NULL;
}
static inline size_t id_table_count(const id_table *t) { return t->n; }
/* The i-th record added (i < count) and its id. */
static inline void *id_table_nth(const id_table *t, size_t i, uint64_t *id)
{
    *id = t->ids[i];
    return t->v + i * t->elem;
}
void id_table_free(id_table *t);

#endif
