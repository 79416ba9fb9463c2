/* trace_stacks.c — gives a model read from an HPROF file a stack table, so
 * it can become a flame graph or collapsed stacks: each trace with CPU
 * samples becomes a stack of its methods (cut to the depth= the agent used),
 * CPP or KERNEL when the method's class is a library or the kernel, NATIVE
 * where HPROF says "Native method", UNKNOWN otherwise (HPROF does not
 * record how a frame ran). Traces that differ only in line numbers become
 * the same stack and their samples add up. Wall-clock samples read with their
 * states (WALL STATES) keep them: a stack per trace and state. The samples
 * kept with their times (a file's SAMPLE TIMES) learn their stack. */
#include "format.h"

#include <stdlib.h>

jp_status trace_stacks_build(model *m)
{
    uint32_t n = model_trace_count(m), cap = 0;
    uint32_t *frames = NULL;
    bool states = m->wall && m->trace_states_cap > 0;
    uint32_t nst = states ? SAMPLE_STATES : 1u;
    uint32_t *sid = m->sample_times_len ? calloc((size_t)n * nst + 1, sizeof *sid) : NULL; /* [(t-1)*nst+st] */
    if (m->sample_times_len && !sid)
        return JP_ERR_NOMEM;
    for (uint32_t t = 1; t <= n; t++) {
        if (model_trace_samples(m, (trace_id){ t }) == 0)
            continue;
        model_trace tr = model_trace_get(m, (trace_id){ t });
        if (tr.nframes > cap) {
            uint32_t *f = realloc(frames, (size_t)tr.nframes * sizeof *f);
            if (!f) {
                free(frames);
                free(sid);
                return JP_ERR_NOMEM;
            }
            frames = f;
            cap = tr.nframes;
        }
        for (uint32_t i = 0; i < tr.nframes; i++) {
            const model_frame *fr = model_frame_get(m, tr.frames[i]);
            method_id me = fr ? fr->method : (method_id){ 0 };
            frame_kind k = model_method_native_kind(m, me);
            if (k == FRAME_KIND_UNKNOWN && fr && fr->line == FRAME_LINE_NATIVE)
                k = FRAME_KIND_NATIVE;
            frames[i] = me.v <= UINT32_MAX >> FRAME_KIND_BITS ? stack_frame_pack(me, k) : 0;
        }
        for (uint32_t st = 0; st < (states ? SAMPLE_STATES : 1u); st++) {
            uint64_t samples = states ? model_trace_state_samples(m, (trace_id){ t }, (sample_state)st)
                                      : model_trace_samples(m, (trace_id){ t });
            if (!samples)
                continue;
            stack_id s = model_stack_intern(m, tr.thread, (sample_state)st, frames, tr.nframes);
            model_stack_add(m, s, samples);
            if (sid)
                sid[(size_t)(t - 1) * nst + st] = s.v;
        }
    }
    for (uint32_t i = 0; sid && i < m->sample_times_len; i++) {
        const model_sample_time *e = &m->sample_times[i];
        uint32_t s = e->trace && e->trace <= n
                         ? sid[(size_t)(e->trace - 1) * nst + (states && e->state < SAMPLE_STATES ? e->state : 0)]
                         : 0;
        if (!model_sample_time_set_stack(m, i, (stack_id){ s })) {
            free(sid);
            free(frames);
            return JP_ERR_NOMEM;
        }
    }
    free(sid);
    free(frames);
    m->wall = states;
    return m->oom ? JP_ERR_NOMEM : JP_OK;
}
