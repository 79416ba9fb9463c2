/* timeline_bins.c — samples cut into time slices by key (timeline_bins.h):
 * each sample is a cell (key, slice, count) appended as it comes; finishing
 * sorts them by key and slice and adds up the cells of one (key, slice). */
#include "timeline_bins.h"

#include <stdlib.h>

#define TLB_MIN_SLICE_NS 10000000ull /* 10 ms */

uint64_t timeline_slice_ns(uint64_t span_ns, uint32_t max_slices)
{
    static const uint64_t tlb_steps[] = { 1, 2, 5 };
    if (max_slices == 0)
        max_slices = 1;
    for (uint64_t decade = 1000000ull; decade <= UINT64_MAX / 50; decade *= 10)
        for (unsigned i = 0; i < sizeof tlb_steps / sizeof tlb_steps[0]; i++) {
            uint64_t w = tlb_steps[i] * decade;
            if (w >= TLB_MIN_SLICE_NS && span_ns / w < max_slices)
                return w;
        }
    return UINT64_MAX / 10;
}

void timeline_bins_init(timeline_bins *b, uint64_t origin_ns, uint64_t first_ns, uint64_t last_ns,
                        uint32_t max_slices)
{
    *b = (timeline_bins){ 0 };
    if (last_ns < first_ns)
        last_ns = first_ns;
    /* the width for the span from the slice the first sample falls in (at most one width more) */
    uint64_t w = timeline_slice_ns(last_ns - first_ns, max_slices > 1 ? max_slices - 1 : 1);
    b->slice_ns = w;
    b->from_ns = first_ns >= origin_ns ? origin_ns + (first_ns - origin_ns) / w * w : first_ns;
    b->nslices = (uint32_t)((last_ns - b->from_ns) / w + 1);
}

void timeline_bins_add(timeline_bins *b, uint64_t time_ns, uint32_t key, uint64_t count)
{
    if (time_ns < b->from_ns || (time_ns - b->from_ns) / b->slice_ns >= b->nslices || b->oom) {
        b->dropped += count;
        return;
    }
    uint32_t slice = (uint32_t)((time_ns - b->from_ns) / b->slice_ns);
    if (b->ncells && b->cells[b->ncells - 1].key == key && b->cells[b->ncells - 1].slice == slice) {
        b->cells[b->ncells - 1].count += count;
        return;
    }
    if (b->ncells == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 1024;
        timeline_cell *c = cap > b->cap ? realloc(b->cells, (size_t)cap * sizeof *c) : NULL;
        if (!c) {
            b->oom = true;
            b->dropped += count;
            return;
        }
        b->cells = c;
        b->cap = cap;
    }
    b->cells[b->ncells++] = (timeline_cell){ key, slice, count };
}

static int tlb_cmp(const void *x, const void *y)
{
    const timeline_cell *a = x, *c = y;
    if (a->key != c->key)
        return a->key < c->key ? -1 : 1;
    return a->slice < c->slice ? -1 : a->slice > c->slice;
}

bool timeline_bins_finish(timeline_bins *b)
{
    if (b->ncells > 1)
        qsort(b->cells, b->ncells, sizeof *b->cells, tlb_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->ncells; i++) {
        if (n && b->cells[n - 1].key == b->cells[i].key && b->cells[n - 1].slice == b->cells[i].slice)
            b->cells[n - 1].count += b->cells[i].count;
        else
            b->cells[n++] = b->cells[i];
    }
    b->ncells = n;
    return !b->oom;
}

void timeline_bins_free(timeline_bins *b)
{
    free(b->cells);
    *b = (timeline_bins){ 0 };
}
