/* stack_walk.c — the one walk over the model's sampled stacks that every
 * stack-based writer (collapsed.c, flame_html.c, and the next: pprof) makes:
 * each stack with samples, seen as a flame graph shows it (collapsed_frames:
 * thread frame, frames outermost first, state frame; for allocation stacks
 * the allocated class last). */
#include "format.h"

#include <stdlib.h>

uint32_t collapsed_frames(const model *m, const model_stack *st, collapsed_frame *out)
{
    uint32_t n = 0;
    if (st->thread)
        out[n++] = (collapsed_frame){ COLLAPSED_KIND_THREAD, st->thread };
    for (uint32_t i = st->nframes; i-- > 0;)
        out[n++] = (collapsed_frame){ i == 0 && m->stacks_alloc ? COLLAPSED_KIND_CLASS : stack_frame_kind(st->frames[i]),
                                      stack_frame_method(st->frames[i]).v };
    if (m->wall)
        out[n++] = (collapsed_frame){ COLLAPSED_KIND_STATE, (uint32_t)st->state };
    if (n == 0)
        out[n++] = (collapsed_frame){ FRAME_KIND_UNKNOWN, 0 };
    return n;
}

jp_status stack_walk(const model *m, stack_walk_fn fn, void *ctx)
{
    uint32_t nstacks = model_stack_count(m), fcap = 0;
    collapsed_frame *fr = NULL;
    jp_status st = JP_OK;
    for (uint32_t id = 1; id <= nstacks && st == JP_OK; id++) {
        uint64_t samples = model_stack_samples(m, (stack_id){ id });
        if (samples == 0)
            continue;
        model_stack ms = model_stack_get(m, (stack_id){ id });
        if (ms.nframes + 2 > fcap) {
            fcap = ms.nframes + 2;
            collapsed_frame *p = realloc(fr, (size_t)fcap * sizeof *fr);
            if (!p) {
                st = JP_ERR_NOMEM;
                break;
            }
            fr = p;
        }
        st = fn(fr, collapsed_frames(m, &ms, fr), samples, ctx);
    }
    free(fr);
    return st;
}
