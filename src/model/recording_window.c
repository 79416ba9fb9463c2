/* recording_window.c — a recording's window replayed into a fresh model:
 * the ids of the session's model mapped to the new model's as they are met
 * (each table copied by name, the way the readers build a model), CPU and
 * wall samples added to their trace, stack and state with their times (the
 * JFR writer places them where they were taken, the flame graph's timeline
 * slices them by stack), lock waits to their monitor
 * rows, sampled allocations to their sites (live: a window follows no object
 * to its death, so what it allocated is what it shows live). */
#include "recording_window.h"

#include <stdlib.h>
#include <string.h>

#include "recording.h"

typedef struct rw_ctx {
    const model *src;
    model *dst;
    uint32_t *strings, *classes, *methods, *frames, *traces, *stacks; /* [src id]: dst id, 0 not yet */
    frame_id *fbuf;
    uint32_t *kbuf;
    uint32_t buf_cap;
    uint64_t first_ns, last_ns;
    uint64_t locks, allocs, gcs;  /* lock waits, allocations and collections' records replayed */
} rw_ctx;

static str_id rw_string(rw_ctx *c, str_id s)
{
    if (s.v == 0 || s.v > model_string_count(c->src))
        return (str_id){ 0 };
    if (!c->strings[s.v]) {
        size_t len;
        const char *text = model_string_get(c->src, s, &len);
        c->strings[s.v] = model_string(c->dst, text, len).v;
    }
    return (str_id){ c->strings[s.v] };
}

static class_id rw_class(rw_ctx *c, class_id k)
{
    const model_class *mc = model_class_get(c->src, k);
    if (!mc)
        return (class_id){ 0 };
    if (!c->classes[k.v]) {
        str_id name = rw_string(c, mc->name);
        c->classes[k.v] = mc->code != MODEL_CODE_JAVA
                              ? model_class_intern_lib(c->dst, name, mc->code, rw_string(c, mc->path),
                                                       rw_string(c, mc->build_id)).v
                              : model_class_intern(c->dst, name, rw_string(c, mc->source_file)).v;
    }
    return (class_id){ c->classes[k.v] };
}

static method_id rw_method(rw_ctx *c, method_id me)
{
    const model_method *mm = model_method_get(c->src, me);
    if (!mm)
        return (method_id){ 0 };
    if (!c->methods[me.v])
        c->methods[me.v] = model_method_intern(c->dst, rw_class(c, mm->cls), rw_string(c, mm->name),
                                               rw_string(c, mm->sig)).v;
    return (method_id){ c->methods[me.v] };
}

static frame_id rw_frame(rw_ctx *c, frame_id f)
{
    const model_frame *mf = model_frame_get(c->src, f);
    if (!mf)
        return (frame_id){ 0 };
    if (!c->frames[f.v])
        c->frames[f.v] = model_frame_intern(c->dst, rw_method(c, mf->method), mf->line).v;
    return (frame_id){ c->frames[f.v] };
}

static bool rw_room(rw_ctx *c, uint32_t n)
{
    if (n <= c->buf_cap)
        return true;
    frame_id *f = realloc(c->fbuf, (size_t)n * sizeof *f);
    if (f)
        c->fbuf = f;
    uint32_t *k = realloc(c->kbuf, (size_t)n * sizeof *k);
    if (k)
        c->kbuf = k;
    if (!f || !k)
        return false;
    c->buf_cap = n;
    return true;
}

static trace_id rw_trace(rw_ctx *c, uint32_t t)
{
    if (t == 0 || t > model_trace_count(c->src))
        return (trace_id){ 0 };
    if (!c->traces[t]) {
        model_trace tr = model_trace_get(c->src, (trace_id){ t });
        if (!rw_room(c, tr.nframes + 1))
            return (trace_id){ 0 };
        for (uint32_t i = 0; i < tr.nframes; i++)
            c->fbuf[i] = rw_frame(c, tr.frames[i]);
        c->traces[t] = model_trace_intern(c->dst, tr.thread, c->fbuf, tr.nframes).v;
    }
    return (trace_id){ c->traces[t] };
}

static stack_id rw_stack(rw_ctx *c, uint32_t s)
{
    if (s == 0 || s > model_stack_count(c->src))
        return (stack_id){ 0 };
    if (!c->stacks[s]) {
        model_stack st = model_stack_get(c->src, (stack_id){ s });
        if (!rw_room(c, st.nframes + 1))
            return (stack_id){ 0 };
        for (uint32_t i = 0; i < st.nframes; i++)
            c->kbuf[i] = stack_frame_pack(rw_method(c, stack_frame_method(st.frames[i])),
                                          stack_frame_kind(st.frames[i]));
        c->stacks[s] = model_stack_intern(c->dst, st.thread, st.state, c->kbuf, st.nframes).v;
    }
    return (stack_id){ c->stacks[s] };
}

/* The thread of serial, as the session's model knows it, into the window's. */
static void rw_thread(rw_ctx *c, uint32_t serial)
{
    if (model_thread_get(c->dst, serial))
        return;
    const model_thread *t = model_thread_get(c->src, serial);
    if (!t)
        return;
    if (t->jvm_internal) {
        model_thread_start_jvm(c->dst, serial, rw_string(c, t->name));
        return;
    }
    model_thread_start(c->dst, serial, t->object_id, rw_string(c, t->name), rw_string(c, t->group),
                       rw_string(c, t->parent_group));
    if (t->virtual_thread)
        model_thread_set_virtual(c->dst, serial, t->carrier);
}

/* A lock wait: its monitor row (trace, class, kind) in the window's model, with its time. */
static void rw_lock(rw_ctx *c, const recording_event *e)
{
    const model_monitor *mo = model_monitor_get(c->src, (monitor_id){ e->ref });
    if (!mo)
        return;
    trace_id t = rw_trace(c, mo->trace.v);
    monitor_id d = model_monitor_intern(c->dst, t, rw_string(c, mo->class_name), mo->kind);
    model_monitor_add(c->dst, d, 1, e->value);
    c->locks++;
}

/* A sampled allocation: its site (trace, class) in the window's model; what a window allocated counts as
 * live in it (the window follows no object to its death). */
static void rw_alloc(rw_ctx *c, const recording_event *e)
{
    const model_site *s = model_site_get(c->src, (site_id){ e->ref });
    if (!s)
        return;
    site_id d = model_site_intern(c->dst, rw_trace(c, s->trace.v), rw_class(c, s->cls), s->is_array);
    model_site_alloc(c->dst, d, (double)e->weight, (double)e->value, true);
    c->allocs++;
}

static void rw_event(const recording_event *e, void *arg)
{
    rw_ctx *c = arg;
    if (!c->first_ns || e->time_ns < c->first_ns)
        c->first_ns = e->time_ns;
    if (e->time_ns > c->last_ns)
        c->last_ns = e->time_ns;
    rw_thread(c, e->thread);
    if (e->kind == RECORDING_LOCK) {
        rw_lock(c, e);
        return;
    }
    if (e->kind == RECORDING_ALLOC) {
        rw_alloc(c, e);
        return;
    }
    if (e->kind == RECORDING_GC) { /* the collections a drain saw, and their time */
        c->dst->gc_count += e->weight;
        c->dst->gc_ns += e->value;
        c->gcs++;
        return;
    }
    if (e->kind != RECORDING_CPU && e->kind != RECORDING_WALL)
        return;
    trace_id t = rw_trace(c, e->trace);
    stack_id s = rw_stack(c, e->ref);
    if (t.v) {
        rw_thread(c, model_trace_get(c->dst, t).thread);
        model_trace_add_samples(c->dst, t, e->weight);
        model_trace_add_state_samples(c->dst, t, (sample_state)e->state, e->weight);
        model_sample_time_add(c->dst, t, s, (sample_state)e->state, e->weight, e->time_ns);
    }
    if (s.v)
        model_stack_add(c->dst, s, e->weight);
}

model *recording_window(const model *src, uint64_t from_ns, uint64_t to_ns)
{
    if (!src->recording)
        return NULL;
    rw_ctx c = { .src = src, .dst = model_new() };
    if (!c.dst)
        return NULL;
    c.strings = calloc(model_string_count(src) + 1, sizeof *c.strings);
    c.classes = calloc(model_class_count(src) + 1, sizeof *c.classes);
    c.methods = calloc(intern_count(&src->methods) + 1, sizeof *c.methods);
    c.frames = calloc(model_frame_count(src) + 1, sizeof *c.frames);
    c.traces = calloc(model_trace_count(src) + 1, sizeof *c.traces);
    c.stacks = calloc(model_stack_count(src) + 1, sizeof *c.stacks);
    model *w = c.dst;
    if (c.strings && c.classes && c.methods && c.frames && c.traces && c.stacks) {
        w->wall = src->wall;
        w->interval_us = src->interval_us;
        memcpy(w->sample_event, src->sample_event, sizeof w->sample_event);
        w->event_period = src->event_period;
        w->depth = src->depth;
        w->alloc_interval = src->alloc_interval;
        w->sample_times_max = UINT32_MAX;
        recording_each(src->recording, from_ns, to_ns, rw_event, &c);
        recording_stats st;
        recording_get_stats(src->recording, &st);
        w->recorded_from_ms = st.oldest_ns / 1000000u;
        uint64_t from = st.oldest_ns > from_ns && st.oldest_ns < to_ns ? st.oldest_ns : from_ns; /* what it holds */
        w->window_from_ms = from / 1000000u;
        w->window_to_ms = to_ns / 1000000u;
        w->start_time_ms = w->window_from_ms;
        w->dump_time_ms = w->window_to_ms;
        (void)model_count_set(w, "recording events in the window", w->sample_times_len + c.locks + c.allocs + c.gcs);
        (void)model_count_set(w, "recording events dropped (by age or for room)", st.dropped);
        (void)model_count_set(w, "recording bytes held", st.bytes);
    } else {
        model_free(w);
        w = NULL;
    }
    free(c.strings);
    free(c.classes);
    free(c.methods);
    free(c.frames);
    free(c.traces);
    free(c.stacks);
    free(c.fbuf);
    free(c.kbuf);
    return w;
}
