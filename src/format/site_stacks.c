/* site_stacks.c — the allocation sites as a stack table, for allocation
 * flame graphs and collapsed stacks (see format.h): each site's trace, its
 * top frame first as in the model, under one frame for the allocated class,
 * counted in bytes allocated. Frames are packed like sampled stacks' (kind
 * NATIVE where the trace says "Native method", UNKNOWN otherwise: a site's
 * trace does not record how a frame ran); the top one packs the class id.
 * alloc_count=site: each counted site's exact bytes are shared among its
 * sampled callers' stacks by their sampled bytes (the remainder of the
 * rounding to the largest), so the frames at the leaves are exact; a counted
 * site that no sample reached is drawn as its own frame alone. */
#include "format.h"

#include <stdlib.h>

/* alloc_count=site: the bytes each site's stack is drawn with ([site id]), 0 for none. */
static uint64_t *site_stacks_shares(const model *m)
{
    uint32_t n = model_site_count(m);
    uint64_t *w = calloc((size_t)n + 1, sizeof *w);
    site_row *rows = w ? calloc((size_t)n + 1, sizeof *rows) : NULL;
    uint32_t nrows = 0;
    for (uint32_t i = 1; rows && i <= n; i++) {
        const model_site *si = model_site_get(m, (site_id){ i });
        if (si->counted)
            rows[nrows++] = (site_row){ i, si->live_bytes, si->alloc_bytes };
    }
    site_callers *c = rows && nrows ? site_callers_of(m, rows, nrows, 0) : NULL;
    if (!rows || (nrows && !c)) {
        free(w);
        free(rows);
        return NULL;
    }
    for (uint32_t r = 0; r < nrows; r++) {
        uint64_t total = (uint64_t)(model_site_get(m, (site_id){ rows[r].site })->alloc_bytes + 0.5), given = 0;
        if (!c[r].n) {
            w[rows[r].site] = total;
            continue;
        }
        for (uint32_t k = 0; k < c[r].n; k++) {
            uint64_t b = (uint64_t)((double)total * c[r].at[k].share / 100.0);
            if (given + b > total)
                b = total - given;
            w[c[r].at[k].site.v] += b;
            given += b;
        }
        w[c[r].at[0].site.v] += total - given; /* the largest caller takes what rounding left */
    }
    site_callers_free(c, nrows);
    free(rows);
    return w;
}

jp_status site_stacks_build(model *m)
{
    model_stacks_reset(m);
    m->stacks_alloc = true;
    uint32_t n = model_site_count(m), cap = 0;
    uint32_t *frames = NULL;
    uint64_t *shares = NULL;
    if (m->sites_counted && !(shares = site_stacks_shares(m)))
        return JP_ERR_NOMEM;
    for (uint32_t i = 1; i <= n; i++) {
        const model_site *si = model_site_get(m, (site_id){ i });
        uint64_t bytes = shares ? shares[i] : si ? (uint64_t)(si->alloc_bytes + 0.5) : 0;
        if (!si || bytes == 0)
            continue;
        model_trace tr = model_trace_get(m, si->trace);
        if (tr.nframes + 1 > cap) {
            uint32_t *f = realloc(frames, ((size_t)tr.nframes + 1) * sizeof *f);
            if (!f) {
                free(frames);
                free(shares);
                return JP_ERR_NOMEM;
            }
            frames = f;
            cap = tr.nframes + 1;
        }
        if (si->cls.v > UINT32_MAX >> FRAME_KIND_BITS)
            continue;
        frames[0] = stack_frame_pack((method_id){ si->cls.v }, FRAME_KIND_UNKNOWN);
        for (uint32_t k = 0; k < tr.nframes; k++) {
            const model_frame *fr = model_frame_get(m, tr.frames[k]);
            method_id me = fr ? fr->method : (method_id){ 0 };
            frame_kind kind = model_method_native_kind(m, me);
            if (kind == FRAME_KIND_UNKNOWN && fr && fr->line == FRAME_LINE_NATIVE)
                kind = FRAME_KIND_NATIVE;
            frames[k + 1] = me.v <= UINT32_MAX >> FRAME_KIND_BITS ? stack_frame_pack(me, kind) : 0;
        }
        model_stack_add(m, model_stack_intern(m, tr.thread, SAMPLE_RUNNING, frames, tr.nframes + 1), bytes);
    }
    free(frames);
    free(shares);
    return m->oom ? JP_ERR_NOMEM : JP_OK;
}
