/* site_stacks.c — the allocation sites as a stack table, for allocation
 * flame graphs and collapsed stacks (see format.h): each site's trace, its
 * top frame first as in the model, under one frame for the allocated class,
 * counted in bytes allocated. Frames are packed like sampled stacks' (kind
 * NATIVE where the trace says "Native method", UNKNOWN otherwise: a site's
 * trace does not record how a frame ran); the top one packs the class id. */
#include "format.h"

#include <stdlib.h>

jp_status site_stacks_build(model *m)
{
    model_stacks_reset(m);
    m->stacks_alloc = true;
    uint32_t n = model_site_count(m), cap = 0;
    uint32_t *frames = NULL;
    for (uint32_t i = 1; i <= n; i++) {
        const model_site *si = model_site_get(m, (site_id){ i });
        if (!si || !(si->alloc_bytes >= 1))
            continue;
        model_trace tr = model_trace_get(m, si->trace);
        if (tr.nframes + 1 > cap) {
            uint32_t *f = realloc(frames, ((size_t)tr.nframes + 1) * sizeof *f);
            if (!f) {
                free(frames);
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
            frame_kind kind = fr && fr->line == FRAME_LINE_NATIVE ? FRAME_KIND_NATIVE : FRAME_KIND_UNKNOWN;
            frames[k + 1] = me.v <= UINT32_MAX >> FRAME_KIND_BITS ? stack_frame_pack(me, kind) : 0;
        }
        model_stack_add(m, model_stack_intern(m, tr.thread, SAMPLE_RUNNING, frames, tr.nframes + 1),
                        (uint64_t)(si->alloc_bytes + 0.5));
    }
    free(frames);
    return m->oom ? JP_ERR_NOMEM : JP_OK;
}
