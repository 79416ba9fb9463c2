/* stacks.c — the sampled-stack table behind flame graphs: full-depth stacks
 * keyed by (thread serial, state, packed frames...), each with its sample
 * count. HPROF's traces (traces.c) are the same samples cut to depth=. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

const char *const sample_state_names[SAMPLE_STATES] = { "running", "native", "sleeping", "waiting", "blocked" };

stack_id model_stack_intern(model *m, uint32_t thread, sample_state state, const uint32_t *frames, uint32_t nframes)
{
    uint32_t local[2 + 128];
    uint32_t *key = local;
    if (nframes > UINT32_MAX / 4 - 3 || (unsigned)state >= SAMPLE_STATES)
        return (stack_id){ 0 };
    if (nframes + 2 > sizeof local / sizeof local[0]) {
        key = malloc(((size_t)nframes + 2) * sizeof *key);
        if (!key) {
            m->oom = true;
            return (stack_id){ 0 };
        }
    }
    key[0] = thread;
    key[1] = (uint32_t)state;
    for (uint32_t i = 0; i < nframes; i++)
        key[i + 2] = frames[i];
    uint32_t id = intern_put(&m->stacks, key, (nframes + 2) * (uint32_t)sizeof *key, NULL);
    if (key != local)
        free(key);
    if (!id)
        m->oom = true;
    return (stack_id){ id };
}

model_stack model_stack_get(const model *m, stack_id id)
{
    model_stack s = { 0, SAMPLE_RUNNING, 0, NULL };
    if (id.v == 0 || id.v > intern_count(&m->stacks))
        return s;
    uint32_t len;
    const uint32_t *key = intern_key(&m->stacks, id.v, &len);
    s.thread = key[0];
    s.state = (sample_state)key[1];
    s.nframes = len / 4 - 2;
    s.frames = key + 2;
    return s;
}

void model_stack_add(model *m, stack_id id, uint64_t samples)
{
    if (id.v == 0)
        return;
    if (!model_grow((void **)&m->stack_samples, &m->stack_samples_cap, id.v, sizeof *m->stack_samples)) {
        m->oom = true;
        return;
    }
    m->stack_samples[id.v - 1] += samples;
    m->total_stack_samples += samples;
}

void model_stacks_reset(model *m)
{
    if (m->stack_samples_cap)
        memset(m->stack_samples, 0, m->stack_samples_cap * sizeof *m->stack_samples);
    m->total_stack_samples = 0;
}

uint64_t model_stack_samples(const model *m, stack_id id)
{
    return id.v == 0 || id.v > m->stack_samples_cap ? 0 : m->stack_samples[id.v - 1];
}
