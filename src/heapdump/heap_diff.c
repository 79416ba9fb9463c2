/* heap_diff.c — see heap_diff.h. Owns the merge: every side's rows
 * appended with their names copied, sorted by name, rows of one name
 * folded into one, then sorted by growth. */
#include "heap_diff.h"

#include <stdlib.h>
#include <string.h>

static bool hdf_push(heap_diff *d, const char *name, int side, const heap_class_retained *r)
{
    if (d->nrows == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 256;
        heap_diff_row *rows = realloc(d->rows, cap * sizeof *rows);
        if (!rows)
            return false;
        d->rows = rows;
        d->cap = cap;
    }
    heap_diff_row *row = &d->rows[d->nrows];
    memset(row, 0, sizeof *row);
    if (!(row->name = strdup(name ? name : "?")))
        return false;
    row->instances[side] = r->instances;
    row->shallow[side] = r->shallow;
    row->retained[side] = r->retained;
    d->nrows++;
    return true;
}

bool heap_diff_add(heap_diff *d, int side, const heap_graph *g, const heap_class_retained *rows, size_t nrows)
{
    for (size_t i = 0; i < nrows; i++)
        if (!hdf_push(d, heap_graph_class_name(g, rows[i].cls), side, &rows[i])) {
            heap_diff_free(d);
            return false;
        }
    return true;
}

static int hdf_by_name(const void *a, const void *b)
{
    return strcmp(((const heap_diff_row *)a)->name, ((const heap_diff_row *)b)->name);
}

/* a before b when a grew more: retained, then shallow, then instances; then by name */
static int hdf_by_growth(const void *pa, const void *pb)
{
    const heap_diff_row *a = pa, *b = pb;
    int64_t x[3] = { heap_diff_change(a->retained), heap_diff_change(a->shallow), heap_diff_change(a->instances) };
    int64_t y[3] = { heap_diff_change(b->retained), heap_diff_change(b->shallow), heap_diff_change(b->instances) };
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k])
            return x[k] > y[k] ? -1 : 1;
    return strcmp(a->name, b->name);
}

bool heap_diff_finish(heap_diff *d)
{
    if (d->nrows)
        qsort(d->rows, d->nrows, sizeof *d->rows, hdf_by_name);
    size_t w = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        heap_diff_row *row = &d->rows[i];
        if (w && strcmp(d->rows[w - 1].name, row->name) == 0) {
            /* the same class name again (two loaders' classes, or the other side): summed */
            heap_diff_row *into = &d->rows[w - 1];
            for (int s = 0; s < 2; s++) {
                into->instances[s] += row->instances[s];
                into->shallow[s] += row->shallow[s];
                into->retained[s] += row->retained[s];
            }
            free(row->name);
            continue;
        }
        d->rows[w++] = *row;
    }
    d->nrows = w;
    if (d->nrows)
        qsort(d->rows, d->nrows, sizeof *d->rows, hdf_by_growth);
    d->sorted = true;
    return true;
}

void heap_diff_free(heap_diff *d)
{
    for (size_t i = 0; i < d->nrows; i++)
        free(d->rows[i].name);
    free(d->rows);
    memset(d, 0, sizeof *d);
}
