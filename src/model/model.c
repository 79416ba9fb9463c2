/* model.c — creation and destruction of the model, and the helper that grows
 * the per-id side arrays (counters, attributes) that hang off the interned
 * tables. */
#include "model.h"

#include "recording.h"

#include <stdlib.h>
#include <string.h>

model *model_new(void)
{
    model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    arena_init(&m->keys);
    intern_init(&m->strings, &m->keys);
    intern_init(&m->classes, &m->keys);
    intern_init(&m->methods, &m->keys);
    intern_init(&m->frames, &m->keys);
    intern_init(&m->traces, &m->keys);
    intern_init(&m->monitors, &m->keys);
    intern_init(&m->stacks, &m->keys);
    intern_init(&m->sites, &m->keys);
    return m;
}

void model_free(model *m)
{
    if (!m)
        return;
    intern_free(&m->strings);
    intern_free(&m->classes);
    intern_free(&m->methods);
    intern_free(&m->frames);
    intern_free(&m->traces);
    intern_free(&m->monitors);
    intern_free(&m->stacks);
    intern_free(&m->sites);
    free(m->site_info);
    free(m->stack_samples);
    free(m->class_info);
    free(m->trace_samples);
    free(m->trace_state_samples);
    free(m->trace_time_ns);
    free(m->trace_calls);
    free(m->method_counted);
    free(m->trace_wait_ns);
    free(m->monitor_info);
    free(m->threads);
    free(m->thread_events);
    free(m->sample_times);
    free(m->sample_stacks);
    recording_free(m->recording);
    arena_free(&m->keys);
    free(m);
}

bool model_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > UINT32_MAX / 2)
            return false;
        n *= 2;
    }
    void *p = realloc(*arr, (size_t)n * elem);
    if (!p)
        return false;
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
    *arr = p;
    *cap = n;
    return true;
}

void model_interval_reset(model *m)
{
    if (m->trace_samples_cap)
        memset(m->trace_samples, 0, m->trace_samples_cap * sizeof *m->trace_samples);
    if (m->trace_states_cap)
        memset(m->trace_state_samples, 0, (size_t)m->trace_states_cap * SAMPLE_STATES * sizeof *m->trace_state_samples);
    m->total_samples = 0;
    m->sample_times_len = 0;
    m->sample_times_dropped = 0;
    model_stacks_reset(m);
    model_times_reset(m);
    for (uint32_t i = 0; i < intern_count(&m->monitors); i++)
        m->monitor_info[i].count = m->monitor_info[i].time_ns = 0;
    for (uint32_t i = 0; i < intern_count(&m->sites); i++) {
        model_site *s = &m->site_info[i];
        s->alloc_objs = s->alloc_bytes = 0;
        memset(s->died_by_gcs, 0, sizeof s->died_by_gcs);
        memset(s->died_by_ms, 0, sizeof s->died_by_ms);
    }
}

void model_sample_time_add(model *m, trace_id t, stack_id s, sample_state st, uint32_t weight, uint64_t wall_ns)
{
    if (!m->sample_times_max)
        return;
    if (m->sample_times_len >= m->sample_times_max || weight > UINT16_MAX ||
        !model_grow((void **)&m->sample_times, &m->sample_times_cap, m->sample_times_len + 1, sizeof *m->sample_times)) {
        m->sample_times_dropped += weight;
        return;
    }
    if ((s.v || m->sample_stacks) && !model_sample_time_set_stack(m, m->sample_times_len, s)) {
        m->sample_times_dropped += weight;
        return;
    }
    m->sample_times[m->sample_times_len++] = (model_sample_time){ wall_ns, t.v, (uint16_t)weight, (uint8_t)st };
}

bool model_sample_time_set_stack(model *m, uint32_t i, stack_id s)
{
    if (!s.v && !m->sample_stacks)
        return true;
    if (i == UINT32_MAX || !model_grow((void **)&m->sample_stacks, &m->sample_stacks_cap, i + 1, sizeof *m->sample_stacks))
        return false;
    m->sample_stacks[i] = s.v;
    return true;
}

void model_sample_times_keep(model *m, uint64_t from_ns, uint64_t to_ns)
{
    if (m->trace_samples_cap)
        memset(m->trace_samples, 0, m->trace_samples_cap * sizeof *m->trace_samples);
    if (m->trace_states_cap)
        memset(m->trace_state_samples, 0, (size_t)m->trace_states_cap * SAMPLE_STATES * sizeof *m->trace_state_samples);
    m->total_samples = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->sample_times_len; i++) {
        model_sample_time e = m->sample_times[i];
        if (e.wall_ns < from_ns || e.wall_ns >= to_ns || e.trace == 0 || e.trace > model_trace_count(m))
            continue;
        model_trace_add_samples(m, (trace_id){ e.trace }, e.weight);
        if (m->wall)
            model_trace_add_state_samples(m, (trace_id){ e.trace }, (sample_state)e.state, e.weight);
        if (m->sample_stacks)
            m->sample_stacks[n] = model_sample_time_stack(m, i);
        m->sample_times[n++] = e;
    }
    m->sample_times_len = n;
}

bool model_count_set(model *m, const char *name, uint64_t value)
{
    for (uint32_t i = 0; i < m->ncounts; i++) {
        if (strcmp(m->counts[i].name, name) == 0) {
            m->counts[i].value = value;
            return true;
        }
    }
    if (m->ncounts == MODEL_COUNTS_MAX)
        return false;
    m->counts[m->ncounts++] = (model_count){ name, value };
    return true;
}
