/* test_recording.c — record=y's ring (src/model/recording.c): the bound on
 * its memory (the oldest chunk goes), the bound on its age, the windows it
 * gives back; and a window replayed into a model of its own
 * (recording_window.c): names, counts, states, times (with their stacks) and threads of samples,
 * lock waits into their monitor rows, allocations into their sites. */
#include "harness.h"

#include "model/model.h"
#include "model/recording.h"
#include "model/recording_window.h"

#define MS 1000000ull

static recording_event ev(uint64_t time_ns, uint32_t thread, uint32_t trace, uint32_t stack)
{
    return (recording_event){ time_ns, 0, thread, trace, stack, 1, RECORDING_CPU, SAMPLE_RUNNING };
}

static void count_fn(const recording_event *e, void *ctx)
{
    uint64_t *c = ctx;
    c[0]++;
    if (!c[1] || e->time_ns < c[1])
        c[1] = e->time_ns;
}

/* Memory: a ring of room for four chunks (its index and header too) keeps three at most, the spare one
 * among them; 100000 events at 1 ms keep the last two full chunks and the 1696 of the 25th. */
static void test_size_bound(void)
{
    uint64_t chunk = 8 + RECORDING_CHUNK_EVENTS * sizeof(recording_event);
    uint64_t maxsize = 4 * (chunk + 8) + 200;
    recording *r = recording_new(maxsize, 3600000 * MS);
    ASSERT(r != NULL);
    for (uint32_t i = 1; i <= 100000; i++) {
        recording_event e = ev(i * MS, 1, 1, 1);
        CHECK(recording_add(r, &e));
    }
    recording_stats st;
    recording_get_stats(r, &st);
    CHECK(st.bytes <= maxsize);
    CHECK(st.max_bytes <= maxsize);
    CHECK_EQ_INT(st.events, 2 * 4096 + 1696);
    CHECK_EQ_INT(st.oldest_ns, (100000 - (2 * 4096 + 1696) + 1) * MS);
    CHECK_EQ_INT(st.newest_ns, 100000 * MS);
    CHECK_EQ_INT(st.dropped, 100000 - (2 * 4096 + 1696));
    CHECK_EQ_INT(st.lost, 0);
    uint64_t c[2] = { 0, 0 };
    recording_each(r, 0, UINT64_MAX, count_fn, c);
    CHECK_EQ_INT(c[0], 9888);
    recording_free(r);
}

/* Age: 1 s kept of events every 10 ms for 5 s: those of 4.0 s to 5.0 s, 101 of them. */
static void test_age_bound(void)
{
    recording *r = recording_new(32ull << 20, 1000 * MS);
    ASSERT(r != NULL);
    for (uint32_t i = 1; i <= 500; i++) {
        recording_event e = ev(i * 10 * MS, i % 3, 1, 0);
        recording_add(r, &e);
    }
    recording_stats st;
    recording_get_stats(r, &st);
    CHECK_EQ_INT(st.events, 101);
    CHECK_EQ_INT(st.oldest_ns, 4000 * MS);
    CHECK(st.bytes <= 32ull << 20);
    /* a window: [4.2 s, 4.5 s) holds 30 */
    uint64_t c[2] = { 0, 0 };
    recording_each(r, 4200 * MS, 4500 * MS, count_fn, c);
    CHECK_EQ_INT(c[0], 30);
    CHECK_EQ_INT(c[1], 4200 * MS);
    /* a window before what is kept: nothing */
    c[0] = c[1] = 0;
    recording_each(r, 0, 3990 * MS, count_fn, c);
    CHECK_EQ_INT(c[0], 0);
    /* 2 s later with nothing new: everything is too old */
    recording_expire(r, 7000 * MS);
    recording_get_stats(r, &st);
    CHECK_EQ_INT(st.events, 0);
    c[0] = 0;
    recording_each(r, 0, UINT64_MAX, count_fn, c);
    CHECK_EQ_INT(c[0], 0);
    /* and it goes on */
    recording_event e = ev(7001 * MS, 1, 1, 0);
    CHECK(recording_add(r, &e));
    recording_get_stats(r, &st);
    CHECK_EQ_INT(st.events, 1);
    recording_free(r);
}

/* A session's model with two traces on two threads (spike on thread 1, idle on thread 2) and their stacks;
 * a window of its recording holds only its events, under the same names. */
static void test_window(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    m->interval_us = 10000;
    class_id k = model_class_intern(m, model_cstring(m, "SpikeIdle"), model_cstring(m, "SpikeIdle.java"));
    method_id spike = model_method_intern(m, k, model_cstring(m, "spike"), model_cstring(m, "(J)V"));
    method_id idle = model_method_intern(m, k, model_cstring(m, "idle"), model_cstring(m, "()V"));
    method_id main_me = model_method_intern(m, k, model_cstring(m, "main"), model_cstring(m, "([Ljava/lang/String;)V"));
    frame_id fs[2] = { model_frame_intern(m, spike, 30), model_frame_intern(m, main_me, 50) };
    frame_id fi[1] = { model_frame_intern(m, idle, 20) };
    trace_id ts = model_trace_intern(m, 1, fs, 2), ti = model_trace_intern(m, 2, fi, 1);
    uint32_t ks[2] = { stack_frame_pack(spike, FRAME_KIND_JIT), stack_frame_pack(main_me, FRAME_KIND_INTERPRETED) };
    uint32_t ki[1] = { stack_frame_pack(idle, FRAME_KIND_JIT) };
    stack_id ss = model_stack_intern(m, 1, SAMPLE_RUNNING, ks, 2), si = model_stack_intern(m, 2, SAMPLE_RUNNING, ki, 1);
    model_thread_start(m, 1, 11, model_cstring(m, "main"), model_cstring(m, "main"), (str_id){ 0 });
    model_thread_start(m, 2, 12, model_cstring(m, "idler"), model_cstring(m, "main"), (str_id){ 0 });
    m->recording = recording_new(1 << 20, 600000 * MS);
    ASSERT(m->recording != NULL);
    /* 0..3 s: idle every 100 ms; 3..5 s: spike every 10 ms and idle; 5..8 s idle */
    uint64_t base = 1700000000000 * MS;
    for (uint32_t t = 0; t < 8000; t += 10) {
        if (t % 100 == 0) {
            recording_event e = ev(base + t * MS, 2, ti.v, si.v);
            recording_add(m->recording, &e);
        }
        if (t >= 3000 && t < 5000) {
            recording_event e = ev(base + t * MS, 1, ts.v, ss.v);
            recording_add(m->recording, &e);
        }
    }
    /* the spike's window, 2.5 s to 5.5 s: 200 spike samples, 30 idle */
    model *w = recording_window(m, base + 2500 * MS, base + 5500 * MS);
    ASSERT(w != NULL);
    CHECK_EQ_INT(w->total_samples, 230);
    CHECK_EQ_INT(model_trace_count(w), 2);
    uint64_t spike_n = 0, idle_n = 0;
    for (uint32_t t = 1; t <= model_trace_count(w); t++) {
        model_trace tr = model_trace_get(w, (trace_id){ t });
        const model_method *me = model_method_get(w, model_frame_get(w, tr.frames[0])->method);
        const char *name = model_string_get(w, me->name, NULL);
        if (!strcmp(name, "spike")) {
            spike_n = model_trace_samples(w, (trace_id){ t });
            CHECK_EQ_INT(tr.nframes, 2);
            CHECK_EQ_INT(model_frame_get(w, tr.frames[0])->line, 30);
            CHECK_EQ_STR(model_string_get(w, model_class_get(w, me->cls)->name, NULL), "SpikeIdle");
            CHECK_EQ_INT(tr.thread, 1);
        } else if (!strcmp(name, "idle"))
            idle_n = model_trace_samples(w, (trace_id){ t });
    }
    CHECK_EQ_INT(spike_n, 200);
    CHECK_EQ_INT(idle_n, 30);
    CHECK_EQ_INT(model_stack_count(w), 2);
    CHECK_EQ_INT(w->total_stack_samples, 230);
    CHECK_EQ_INT(w->sample_times_len, 230);
    CHECK_EQ_INT(w->sample_times[0].wall_ns, base + 2500 * MS);
    /* each sample time knows its stack in the window's model (the flame graph's timeline): the stack whose
     * top frame is its trace's method */
    bool stacks_match = true;
    for (uint32_t i = 0; i < w->sample_times_len; i++) {
        uint32_t s = model_sample_time_stack(w, i);
        model_trace tr = model_trace_get(w, (trace_id){ w->sample_times[i].trace });
        stacks_match &= s != 0 && s <= model_stack_count(w) && tr.nframes &&
                        stack_frame_method(model_stack_get(w, (stack_id){ s }).frames[0]).v ==
                            model_frame_get(w, tr.frames[0])->method.v;
    }
    CHECK(stacks_match);
    CHECK_EQ_INT(w->window_from_ms, base / MS + 2500);
    CHECK_EQ_INT(w->window_to_ms, base / MS + 5500);
    CHECK_EQ_INT(w->recorded_from_ms, base / MS);
    CHECK_EQ_INT(w->interval_us, 10000);
    const model_thread *th = model_thread_get(w, 2);
    ASSERT(th != NULL);
    CHECK_EQ_STR(model_string_get(w, th->name, NULL), "idler");
    model_free(w);
    /* the first idle window, 0 to 2.5 s: 25 idle samples, no spike */
    w = recording_window(m, base, base + 2500 * MS);
    ASSERT(w != NULL);
    CHECK_EQ_INT(w->total_samples, 25);
    CHECK_EQ_INT(model_trace_count(w), 1);
    model_free(w);
    /* no recording: no window */
    model *plain = model_new();
    ASSERT(plain != NULL);
    CHECK(recording_window(plain, 0, UINT64_MAX) == NULL);
    model_free(plain);
    model_free(m); /* frees its recording */
}

/* Lock waits, sampled allocations and collections: each into its monitor row, site or the GC line, by name,
 * with its time and size. */
static void test_window_locks_allocs(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    m->alloc_interval = 524288;
    class_id k = model_class_intern(m, model_cstring(m, "Shared"), model_cstring(m, "Shared.java"));
    method_id run = model_method_intern(m, k, model_cstring(m, "run"), model_cstring(m, "()V"));
    frame_id f = model_frame_intern(m, run, 12);
    trace_id t = model_trace_intern(m, 0, &f, 1);
    monitor_id mon = model_monitor_intern(m, t, model_cstring(m, "Shared$Lock"), MONITOR_BLOCKED);
    model_monitor_add(m, mon, 3, 3000);
    class_id arr = model_class_intern(m, model_cstring(m, "long[]"), (str_id){ 0 });
    site_id site = model_site_intern(m, t, arr, true);
    model_site_alloc(m, site, 10, 1000, true);
    m->recording = recording_new(1 << 20, 600000 * MS);
    ASSERT(m->recording != NULL);
    uint64_t base = 1700000000000 * MS;
    /* waits of 1 ms at 1 s and 2 s, 5 ms at 3 s; allocations of 4000 bytes (2 objects) at 1.5 s and 3.5 s */
    recording_event evs[] = {
        { base + 1000 * MS, 1 * MS, 1, t.v, mon.v, 1, RECORDING_LOCK, MONITOR_BLOCKED },
        { base + 1500 * MS, 4000, 1, t.v, site.v, 2, RECORDING_ALLOC, 0 },
        { base + 2000 * MS, 1 * MS, 2, t.v, mon.v, 1, RECORDING_LOCK, MONITOR_BLOCKED },
        { base + 3000 * MS, 5 * MS, 1, t.v, mon.v, 1, RECORDING_LOCK, MONITOR_BLOCKED },
        { base + 3500 * MS, 4000, 2, t.v, site.v, 2, RECORDING_ALLOC, 0 },
        { base + 1200 * MS, 7 * MS, 0, 0, 0, 2, RECORDING_GC, 0 },
        { base + 2600 * MS, 3 * MS, 0, 0, 0, 1, RECORDING_GC, 0 },
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        CHECK(recording_add(m->recording, &evs[i]));
    model *w = recording_window(m, base + 500 * MS, base + 2500 * MS);
    ASSERT(w != NULL);
    ASSERT(model_monitor_count(w) == 1);
    const model_monitor *wm = model_monitor_get(w, (monitor_id){ 1 });
    CHECK_EQ_INT(wm->count, 2);
    CHECK_EQ_INT(wm->time_ns, 2 * MS);
    CHECK_EQ_INT(wm->kind, MONITOR_BLOCKED);
    CHECK_EQ_STR(model_string_get(w, wm->class_name, NULL), "Shared$Lock");
    ASSERT(model_site_count(w) == 1);
    const model_site *ws = model_site_get(w, (site_id){ 1 });
    CHECK_EQ_INT((int)ws->alloc_bytes, 4000);
    CHECK_EQ_INT((int)ws->alloc_objs, 2);
    CHECK_EQ_INT((int)ws->live_bytes, 4000);
    CHECK(ws->is_array);
    CHECK_EQ_STR(model_string_get(w, model_class_get(w, ws->cls)->name, NULL), "long[]");
    CHECK_EQ_INT(w->alloc_interval, 524288);
    CHECK_EQ_INT(w->total_samples, 0);
    CHECK_EQ_INT(w->gc_count, 2); /* the two of 1.2 s; not the one of 2.6 s */
    CHECK_EQ_INT(w->gc_ns, 7 * MS);
    model_free(w);
    model_free(m);
}

int main(void)
{
    RUN(test_size_bound);
    RUN(test_age_bound);
    RUN(test_window);
    RUN(test_window_locks_allocs);
    return DONE();
}
