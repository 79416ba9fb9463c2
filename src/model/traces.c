/* traces.c — the trace table, keyed by (thread serial, frames...), and the
 * CPU sample counter and the cpu=times self time and calls of each trace. The key layout is u32 thread followed by
 * the frame ids, so model_trace_get() reads the frames in place. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

trace_id model_trace_intern(model *m, uint32_t thread, const frame_id *frames, uint32_t nframes)
{
    uint32_t stackkey[1 + 64];
    uint32_t *key = stackkey;
    if (nframes > UINT32_MAX / 4 - 2)
        return (trace_id){ 0 };
    if (nframes + 1 > sizeof stackkey / sizeof stackkey[0]) {
        key = malloc(((size_t)nframes + 1) * sizeof *key);
        if (!key) {
            m->oom = true;
            return (trace_id){ 0 };
        }
    }
    key[0] = thread;
    for (uint32_t i = 0; i < nframes; i++)
        key[i + 1] = frames[i].v;
    uint32_t id = intern_put(&m->traces, key, (nframes + 1) * (uint32_t)sizeof *key, NULL);
    if (key != stackkey)
        free(key);
    if (!id)
        m->oom = true;
    return (trace_id){ id };
}

model_trace model_trace_get(const model *m, trace_id id)
{
    model_trace t = { 0, 0, NULL };
    if (id.v == 0 || id.v > intern_count(&m->traces))
        return t;
    uint32_t len;
    const uint32_t *key = intern_key(&m->traces, id.v, &len);
    t.thread = key[0];
    t.nframes = len / 4 - 1;
    t.frames = (const frame_id *)(key + 1);
    return t;
}

void model_trace_add_samples(model *m, trace_id t, uint64_t n)
{
    if (t.v == 0)
        return;
    if (!model_grow((void **)&m->trace_samples, &m->trace_samples_cap, t.v, sizeof *m->trace_samples)) {
        m->oom = true;
        return;
    }
    m->trace_samples[t.v - 1] += n;
    m->total_samples += n;
}

void model_trace_add_state_samples(model *m, trace_id t, sample_state state, uint64_t n)
{
    if (t.v == 0 || (unsigned)state >= SAMPLE_STATES)
        return;
    uint32_t cap = m->trace_states_cap * SAMPLE_STATES;
    if (!model_grow((void **)&m->trace_state_samples, &cap, t.v * SAMPLE_STATES, sizeof *m->trace_state_samples)) {
        m->oom = true;
        return;
    }
    m->trace_states_cap = cap / SAMPLE_STATES;
    m->trace_state_samples[(size_t)(t.v - 1) * SAMPLE_STATES + state] += n;
}

uint64_t model_trace_state_samples(const model *m, trace_id t, sample_state state)
{
    if (t.v == 0 || t.v > m->trace_states_cap || (unsigned)state >= SAMPLE_STATES)
        return 0;
    return m->trace_state_samples[(size_t)(t.v - 1) * SAMPLE_STATES + state];
}

uint64_t model_trace_samples(const model *m, trace_id t)
{
    if (t.v == 0 || t.v > m->trace_samples_cap)
        return 0;
    return m->trace_samples[t.v - 1];
}

void model_trace_add_time(model *m, trace_id t, uint64_t self_ns, uint64_t calls)
{
    if (t.v == 0)
        return;
    uint32_t cap = m->trace_times_cap;
    if (!model_grow((void **)&m->trace_time_ns, &cap, t.v, sizeof *m->trace_time_ns) ||
        !model_grow((void **)&m->trace_calls, &m->trace_times_cap, t.v, sizeof *m->trace_calls)) {
        m->oom = true;
        return;
    }
    m->trace_time_ns[t.v - 1] += self_ns;
    m->trace_calls[t.v - 1] += calls;
    m->total_time_ns += self_ns;
}

void model_trace_add_wait(model *m, trace_id t, uint64_t wait_ns)
{
    if (t.v == 0 || wait_ns == 0)
        return;
    if (!model_grow((void **)&m->trace_wait_ns, &m->trace_wait_cap, t.v, sizeof *m->trace_wait_ns)) {
        m->oom = true;
        return;
    }
    m->trace_wait_ns[t.v - 1] += wait_ns;
    m->total_wait_ns += wait_ns;
}

uint64_t model_trace_wait_ns(const model *m, trace_id t)
{
    return t.v == 0 || t.v > m->trace_wait_cap ? 0 : m->trace_wait_ns[t.v - 1];
}

uint64_t model_trace_time_ns(const model *m, trace_id t)
{
    return t.v == 0 || t.v > m->trace_times_cap ? 0 : m->trace_time_ns[t.v - 1];
}

uint64_t model_trace_calls(const model *m, trace_id t)
{
    return t.v == 0 || t.v > m->trace_times_cap ? 0 : m->trace_calls[t.v - 1];
}

void model_times_reset(model *m)
{
    if (m->trace_times_cap) {
        memset(m->trace_time_ns, 0, m->trace_times_cap * sizeof *m->trace_time_ns);
        memset(m->trace_calls, 0, m->trace_times_cap * sizeof *m->trace_calls);
    }
    if (m->trace_wait_cap)
        memset(m->trace_wait_ns, 0, m->trace_wait_cap * sizeof *m->trace_wait_ns);
    if (m->method_counted_cap)
        memset(m->method_counted, 0, m->method_counted_cap * sizeof *m->method_counted);
    m->total_time_ns = 0;
    m->total_wait_ns = 0;
    m->total_counted = 0;
}
