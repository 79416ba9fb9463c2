/* test_model.c — the model tables (src/model): strings, classes, methods,
 * frames, traces, CPU sample counters, monitors, the thread log, and the
 * allocation sites' counts, lifetimes and leak rule. */
#include "harness.h"

#include "model/model.h"

static void test_strings(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    str_id a = model_cstring(m, "java.lang.String");
    str_id b = model_cstring(m, "main");
    CHECK_EQ_INT(a.v, 1);
    CHECK_EQ_INT(b.v, 2);
    CHECK_EQ_INT(model_cstring(m, "java.lang.String").v, 1);
    CHECK_EQ_INT(model_string_count(m), 2);

    /* a slice of a longer buffer is stored NUL-terminated */
    const char *text = "runLoop(I)V";
    str_id s = model_string(m, text, 7);
    size_t len = 99;
    const char *got = model_string_get(m, s, &len);
    CHECK_EQ_STR(got, "runLoop");
    CHECK_EQ_INT(len, 7);
    CHECK_EQ_INT(model_cstring(m, "runLoop").v, s.v);

    /* empty string, embedded NUL, a long name (heap path of model_string) */
    str_id e = model_cstring(m, "");
    CHECK(e.v != 0);
    CHECK_EQ_STR(model_string_get(m, e, &len), "");
    CHECK_EQ_INT(len, 0);
    str_id z = model_string(m, "a\0b", 3);
    CHECK(z.v != 0 && z.v != model_cstring(m, "a").v);
    got = model_string_get(m, z, &len);
    CHECK_EQ_INT(len, 3);
    CHECK(memcmp(got, "a\0b", 4) == 0);
    char longname[5000];
    memset(longname, 'L', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    str_id l = model_cstring(m, longname);
    CHECK(l.v != 0);
    CHECK_EQ_STR(model_string_get(m, l, &len), longname);
    CHECK_EQ_INT(len, sizeof longname - 1);
    CHECK_EQ_INT(model_string(m, longname, sizeof longname - 1).v, l.v);

    /* invalid ids give "" rather than a crash */
    CHECK_EQ_STR(model_string_get(m, (str_id){ 0 }, &len), "");
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_STR(model_string_get(m, (str_id){ 9999 }, NULL), "");
    CHECK(!m->oom);
    model_free(m);
}

static void test_classes_methods_frames(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    str_id name = model_cstring(m, "demo.Hot"), src = model_cstring(m, "Hot.java");
    str_id other_src = model_cstring(m, "Other.java");

    /* the source file is set once, by the first record that knows it */
    class_id c = model_class_intern(m, name, (str_id){ 0 });
    CHECK_EQ_INT(c.v, 1);
    CHECK_EQ_INT(model_class_get(m, c)->source_file.v, 0);
    CHECK_EQ_INT(model_class_intern(m, name, src).v, 1);
    CHECK_EQ_INT(model_class_get(m, c)->source_file.v, src.v);
    CHECK_EQ_INT(model_class_intern(m, name, other_src).v, 1);
    CHECK_EQ_INT(model_class_get(m, c)->source_file.v, src.v);
    CHECK_EQ_INT(model_class_intern(m, name, (str_id){ 0 }).v, 1);
    CHECK_EQ_INT(model_class_get(m, c)->source_file.v, src.v);
    CHECK_EQ_INT(model_class_get(m, c)->name.v, name.v);
    class_id c2 = model_class_intern(m, model_cstring(m, "demo.Cold"), other_src);
    CHECK_EQ_INT(c2.v, 2);
    CHECK_EQ_INT(model_class_count(m), 2);
    CHECK(model_class_get(m, (class_id){ 0 }) == NULL);
    CHECK(model_class_get(m, (class_id){ 3 }) == NULL);

    str_id run = model_cstring(m, "run"), sig1 = model_cstring(m, "()V"), sig2 = model_cstring(m, "(I)V");
    method_id m1 = model_method_intern(m, c, run, sig1);
    method_id m2 = model_method_intern(m, c, run, sig2);     /* overload */
    method_id m3 = model_method_intern(m, c2, run, sig1);    /* same name in another class */
    CHECK_EQ_INT(m1.v, 1);
    CHECK_EQ_INT(m2.v, 2);
    CHECK_EQ_INT(m3.v, 3);
    CHECK_EQ_INT(model_method_intern(m, c, run, sig1).v, 1);
    const model_method *mm = model_method_get(m, m2);
    ASSERT(mm != NULL);
    CHECK_EQ_INT(mm->cls.v, c.v);
    CHECK_EQ_INT(mm->name.v, run.v);
    CHECK_EQ_INT(mm->sig.v, sig2.v);
    CHECK(model_method_get(m, (method_id){ 0 }) == NULL);
    CHECK(model_method_get(m, (method_id){ 4 }) == NULL);

    static const int32_t lines[] = { 12, FRAME_LINE_UNKNOWN, FRAME_LINE_COMPILED, FRAME_LINE_NATIVE, 1, 13 };
    for (uint32_t i = 0; i < 6; i++) {
        frame_id f = model_frame_intern(m, m1, lines[i]);
        CHECK_EQ_INT(f.v, i + 1);
        const model_frame *fr = model_frame_get(m, f);
        ASSERT(fr != NULL);
        CHECK_EQ_INT(fr->line, lines[i]);
        CHECK_EQ_INT(fr->method.v, m1.v);
    }
    CHECK_EQ_INT(model_frame_intern(m, m1, 12).v, 1);
    CHECK_EQ_INT(model_frame_intern(m, m1, FRAME_LINE_NATIVE).v, 4);
    CHECK_EQ_INT(model_frame_intern(m, m2, 12).v, 7);  /* same line, other method */
    CHECK_EQ_INT(model_frame_count(m), 7);
    CHECK(model_frame_get(m, (frame_id){ 0 }) == NULL);
    CHECK(model_frame_get(m, (frame_id){ 8 }) == NULL);
    CHECK(!m->oom);
    model_free(m);
}

static void test_traces(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    class_id c = model_class_intern(m, model_cstring(m, "T"), (str_id){ 0 });
    method_id me = model_method_intern(m, c, model_cstring(m, "f"), model_cstring(m, "()V"));
    frame_id f[200];
    for (int32_t i = 0; i < 200; i++)
        f[i] = model_frame_intern(m, me, i + 1);

    frame_id ab[2] = { f[0], f[1] }, ba[2] = { f[1], f[0] };
    trace_id t1 = model_trace_intern(m, 0, ab, 2);
    CHECK_EQ_INT(t1.v, 1);
    CHECK_EQ_INT(model_trace_intern(m, 0, ab, 2).v, 1);            /* dedupe */
    CHECK_EQ_INT(model_trace_intern(m, 0, ba, 2).v, 2);            /* order matters */
    CHECK_EQ_INT(model_trace_intern(m, 0, ab, 1).v, 3);            /* a prefix differs */
    trace_id t4 = model_trace_intern(m, 7, ab, 2);                 /* with a thread serial */
    CHECK_EQ_INT(t4.v, 4);
    CHECK_EQ_INT(model_trace_intern(m, 8, ab, 2).v, 5);            /* another thread */
    CHECK_EQ_INT(model_trace_intern(m, 7, ab, 2).v, 4);
    trace_id empty = model_trace_intern(m, 0, NULL, 0);            /* zero frames */
    CHECK_EQ_INT(empty.v, 6);
    CHECK_EQ_INT(model_trace_intern(m, 0, NULL, 0).v, 6);
    CHECK_EQ_INT(model_trace_intern(m, 7, NULL, 0).v, 7);
    trace_id deep = model_trace_intern(m, 3, f, 200);              /* deeper than the stack key */
    CHECK_EQ_INT(deep.v, 8);
    CHECK_EQ_INT(model_trace_intern(m, 3, f, 200).v, 8);
    CHECK_EQ_INT(model_trace_intern(m, 3, f, 199).v, 9);
    CHECK_EQ_INT(model_trace_count(m), 9);

    model_trace t = model_trace_get(m, t4);
    CHECK_EQ_INT(t.thread, 7);
    CHECK_EQ_INT(t.nframes, 2);
    CHECK(t.frames && t.frames[0].v == f[0].v && t.frames[1].v == f[1].v);
    t = model_trace_get(m, empty);
    CHECK_EQ_INT(t.thread, 0);
    CHECK_EQ_INT(t.nframes, 0);
    t = model_trace_get(m, deep);
    CHECK_EQ_INT(t.thread, 3);
    ASSERT(t.nframes == 200);
    bool same = true;
    for (uint32_t i = 0; i < 200; i++)
        same = same && t.frames[i].v == f[i].v;
    CHECK(same);
    t = model_trace_get(m, (trace_id){ 0 });
    CHECK(t.nframes == 0 && t.frames == NULL && t.thread == 0);
    t = model_trace_get(m, (trace_id){ 10 });
    CHECK(t.nframes == 0 && t.frames == NULL);
    CHECK(!m->oom);
    model_free(m);
}

static void test_samples(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    frame_id none[1] = { { 0 } };
    trace_id a = model_trace_intern(m, 0, NULL, 0), b = model_trace_intern(m, 1, NULL, 0);
    trace_id c = model_trace_intern(m, 2, none, 0);
    CHECK_EQ_INT(model_trace_samples(m, a), 0);
    model_trace_add_samples(m, a, 3);
    model_trace_add_samples(m, b, 1);
    model_trace_add_samples(m, a, 2);
    CHECK_EQ_INT(model_trace_samples(m, a), 5);
    CHECK_EQ_INT(model_trace_samples(m, b), 1);
    CHECK_EQ_INT(model_trace_samples(m, c), 0);
    CHECK_EQ_INT(m->total_samples, 6);
    model_trace_add_samples(m, (trace_id){ 0 }, 100); /* ignored */
    CHECK_EQ_INT(m->total_samples, 6);
    CHECK_EQ_INT(model_trace_samples(m, (trace_id){ 0 }), 0);
    CHECK_EQ_INT(model_trace_samples(m, (trace_id){ 1000000 }), 0);
    /* 64-bit counters */
    model_trace_add_samples(m, c, UINT64_C(5000000000));
    CHECK(model_trace_samples(m, c) == UINT64_C(5000000000));
    CHECK(m->total_samples == UINT64_C(5000000006));

    /* many traces: the counter array grows and keeps what it had */
    for (uint32_t i = 0; i < 5000; i++) {
        frame_id f = { i + 1 };
        trace_id t = model_trace_intern(m, 0, &f, 1);
        model_trace_add_samples(m, t, i + 1);
    }
    CHECK_EQ_INT(model_trace_samples(m, a), 5);
    CHECK_EQ_INT(model_trace_samples(m, (trace_id){ 4 }), 1);
    CHECK_EQ_INT(model_trace_samples(m, (trace_id){ 5003 }), 5000);
    CHECK(m->total_samples == UINT64_C(5000000006) + UINT64_C(5000) * 5001 / 2);
    CHECK(!m->oom);
    model_free(m);
}

static void test_monitors(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    trace_id t1 = model_trace_intern(m, 0, NULL, 0), t2 = model_trace_intern(m, 1, NULL, 0);
    str_id lock = model_cstring(m, "java.lang.Object"), other = model_cstring(m, "demo.Lock");
    monitor_id a = model_monitor_intern(m, t1, lock, MONITOR_BLOCKED);
    monitor_id b = model_monitor_intern(m, t1, other, MONITOR_BLOCKED);
    monitor_id c = model_monitor_intern(m, t2, lock, MONITOR_BLOCKED);
    CHECK_EQ_INT(a.v, 1);
    CHECK_EQ_INT(b.v, 2);
    CHECK_EQ_INT(c.v, 3);
    CHECK_EQ_INT(model_monitor_intern(m, t1, lock, MONITOR_BLOCKED).v, 1);
    CHECK_EQ_INT(model_monitor_count(m), 3);
    const model_monitor *mm = model_monitor_get(m, a);
    ASSERT(mm != NULL);
    CHECK_EQ_INT(mm->count, 0);
    CHECK_EQ_INT(mm->time_ns, 0);
    CHECK_EQ_INT(mm->trace.v, t1.v);
    CHECK_EQ_INT(mm->class_name.v, lock.v);

    model_monitor_add(m, a, 1, 1000);
    model_monitor_add(m, a, 2, 500);
    model_monitor_add(m, c, 1, 7);
    model_monitor_add(m, (monitor_id){ 0 }, 1, 1000000);  /* ignored */
    model_monitor_add(m, (monitor_id){ 4 }, 1, 1000000);  /* ignored */
    /* re-interning does not reset the counters */
    CHECK_EQ_INT(model_monitor_intern(m, t1, lock, MONITOR_BLOCKED).v, 1);
    mm = model_monitor_get(m, a);
    CHECK_EQ_INT(mm->count, 3);
    CHECK_EQ_INT(mm->time_ns, 1500);
    CHECK_EQ_INT(model_monitor_get(m, b)->count, 0);
    CHECK_EQ_INT(model_monitor_get(m, c)->time_ns, 7);
    CHECK_EQ_INT(model_monitor_total_ns(m, MONITOR_BLOCKED), 1507);
    CHECK_EQ_INT(model_monitor_total_ns(m, MONITOR_WAITING), 0);
    /* the same trace and class, waiting: a row of its own */
    monitor_id w = model_monitor_intern(m, t1, lock, MONITOR_WAITING);
    CHECK_EQ_INT(w.v, 4);
    CHECK_EQ_INT(model_monitor_get(m, w)->kind, MONITOR_WAITING);
    model_monitor_add(m, w, 1, 40);
    CHECK_EQ_INT(model_monitor_total_ns(m, MONITOR_WAITING), 40);
    CHECK_EQ_INT(model_monitor_total_ns(m, MONITOR_BLOCKED), 1507);
    CHECK(model_monitor_get(m, (monitor_id){ 0 }) == NULL);
    CHECK(model_monitor_get(m, (monitor_id){ 5 }) == NULL);
    CHECK(!m->oom);
    model_free(m);
}

static void test_threads(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    CHECK(model_thread_get(m, 1) == NULL);
    str_id main_name = model_cstring(m, "main"), grp = model_cstring(m, "main"), sys = model_cstring(m, "system");
    str_id w = model_cstring(m, "worker-1");
    model_thread_start(m, 1, 0x1000, main_name, grp, sys);
    model_thread_start(m, 2, 0x2000, w, grp, sys);
    model_thread_end(m, 7);            /* unknown thread: ignored */
    model_thread_end(m, 0);            /* no serial: ignored */
    model_thread_end(m, 100000);       /* far beyond anything seen: ignored */
    model_thread_end(m, 2);
    model_thread_start(m, 0, 0x3000, w, grp, sys); /* serial 0 is "none": ignored */
    model_thread_start(m, 300, 0x3000, w, grp, sys); /* sparse serials grow the table */
    model_thread_end(m, 1);

    static const struct { model_thread_event_kind kind; uint32_t thread; } want[] = {
        { MODEL_THREAD_START, 1 }, { MODEL_THREAD_START, 2 }, { MODEL_THREAD_END, 2 },
        { MODEL_THREAD_START, 300 }, { MODEL_THREAD_END, 1 },
    };
    ASSERT(CHECK_EQ_INT(m->thread_events_len, 5));
    for (uint32_t i = 0; i < 5; i++) {
        CHECK_EQ_INT(m->thread_events[i].kind, want[i].kind);
        CHECK_EQ_INT(m->thread_events[i].thread, want[i].thread);
    }
    const model_thread *t = model_thread_get(m, 2);
    ASSERT(t != NULL);
    CHECK(t->known);
    CHECK_EQ_INT(t->object_id, 0x2000);
    CHECK_EQ_INT(t->name.v, w.v);
    CHECK_EQ_INT(t->group.v, grp.v);
    CHECK_EQ_INT(t->parent_group.v, sys.v);
    CHECK(model_thread_get(m, 1) != NULL); /* ended threads stay known */
    CHECK(model_thread_get(m, 300) != NULL);
    CHECK(model_thread_get(m, 299) == NULL);
    CHECK(model_thread_get(m, 0) == NULL);
    CHECK(model_thread_get(m, 7) == NULL);
    CHECK(model_thread_get(m, 1000000) == NULL);

    /* a long log */
    for (uint32_t i = 1000; i < 3000; i++) {
        model_thread_start(m, i, i, w, grp, sys);
        model_thread_end(m, i);
    }
    CHECK_EQ_INT(m->thread_events_len, 5 + 4000);
    CHECK(m->thread_events[4004].kind == MODEL_THREAD_END && m->thread_events[4004].thread == 2999);
    CHECK(m->thread_events[5].kind == MODEL_THREAD_START && m->thread_events[5].thread == 1000);
    CHECK(!m->oom);
    model_free(m);
}

static void test_grow(void)
{
    uint32_t *arr = NULL, cap = 0;
    CHECK(model_grow((void **)&arr, &cap, 1, sizeof *arr));
    CHECK(cap >= 1 && arr != NULL);
    arr[0] = 42;
    CHECK(model_grow((void **)&arr, &cap, 1000, sizeof *arr));
    ASSERT(cap >= 1000);
    CHECK_EQ_INT(arr[0], 42);
    bool zero = true;
    for (uint32_t i = 1; i < cap; i++)
        zero = zero && arr[i] == 0;
    CHECK(zero);
    uint32_t before = cap;
    CHECK(model_grow((void **)&arr, &cap, 10, sizeof *arr)); /* no shrink */
    CHECK_EQ_INT(cap, before);
    /* more than a u32 count can hold is refused, not wrapped */
    CHECK(!model_grow((void **)&arr, &cap, UINT32_MAX, sizeof *arr));
    CHECK_EQ_INT(cap, before);
    CHECK_EQ_INT(arr[0], 42);
    free(arr);

    model_free(NULL); /* allowed */
    CHECK(true);
}

/* One site that allocates `per_gc` objects between collections, of which it
 * keeps `kept`; before each collection is noted, `noise[i]` of the dropped ones
 * are still counted live (their frees come later). */
static site_id sites_run(model *m, const char *cls, int gcs, double per_gc, double kept, const double *noise,
                         double base)
{
    class_id c = model_class_intern(m, model_cstring(m, cls), (str_id){ 0 });
    method_id me = model_method_intern(m, c, model_cstring(m, "make"), model_cstring(m, "()V"));
    frame_id f = model_frame_intern(m, me, 1);
    site_id s = model_site_intern(m, model_trace_intern(m, 0, &f, 1), c, false);
    model_site_alloc(m, s, base, base * 16, true);   /* live from the start, and kept */
    for (int i = 0; i < gcs; i++) {
        model_site_alloc(m, s, per_gc, per_gc * 16, true);
        double late = noise ? noise[i] : 0;
        model_site_free(m, s, per_gc - kept - late, (per_gc - kept - late) * 16);
        model_site_died_at(m, s, per_gc - kept - late, 0, 5);
        model_sites_gc(m);
        model_site_free(m, s, late, late * 16);
        model_site_died_at(m, s, late, 0, 50);
    }
    return s;
}

static void test_sites(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    /* a leak: 100 of every 10000 kept; the counts swing with late frees */
    double noise[40];
    for (int i = 0; i < 40; i++)
        noise[i] = (i * 7919) % 13 == 0 ? 9000 : (i % 5) * 300;
    site_id leak = sites_run(m, "Leak", 40, 10000, 100, noise, 0);
    const model_site *ls = model_site_get(m, leak);
    ASSERT(ls != NULL);
    CHECK_EQ_INT((int)ls->alloc_objs, 400000);
    CHECK_EQ_INT((int)ls->live_objs, 4000);
    CHECK_EQ_INT((int)model_site_died(ls), 396000);
    CHECK_EQ_INT(ls->gc_seen, 39);   /* the floor after each collection but the last (noted at the next) */
    CHECK(ls->gc_shift == 2);   /* 39 collections in spans of 4 */
    CHECK(model_site_leak_suspect(ls));
    double first, last;
    model_site_leak_floors(ls, &first, &last);
    if (!CHECK(first >= 100 && first <= 1000 && last >= 2900 && last < 4000))
        fprintf(stderr, "    floors: first %.0f, last %.0f\n", first, last);
    CHECK(model_site_churn(ls));   /* 99% died young too */
    /* the frees of every collection come late, after it was noted (a loaded
     * machine: the JVM's service thread behind), and fewer each time: the
     * counts when collections are noted fall, the floors still rise */
    model *m4 = model_new();
    ASSERT(m4 != NULL);
    double late[40];
    for (int i = 0; i < 40; i++)
        late[i] = 9000 - 200 * i;
    const model_site *ll = model_site_get(m4, sites_run(m4, "LateLeak", 40, 10000, 100, late, 0));
    CHECK(model_site_leak_suspect(ll));
    model_site_leak_floors(ll, &first, &last);
    if (!CHECK(first >= 100 && first <= 1000 && last >= 2900 && last < 4000))
        fprintf(stderr, "    floors: first %.0f, last %.0f\n", first, last);
    model_free(m4);
    /* the same swings over a constant 5000 kept from the start: no leak */
    site_id flat = sites_run(m, "Flat", 40, 10000, 0, noise, 5000);
    CHECK_EQ_INT((int)model_site_get(m, flat)->live_objs, 5000);
    CHECK(!model_site_leak_suspect(model_site_get(m, flat)));
    /* kept, but seen over fewer than 8 collections: not yet */
    model *m2 = model_new();
    ASSERT(m2 != NULL);
    CHECK(!model_site_leak_suspect(model_site_get(m2, sites_run(m2, "Young", 7, 1000, 100, NULL, 0))));
    model_free(m2);
    /* a cache that filled once and stays: its floor stops rising */
    model *m3 = model_new();
    ASSERT(m3 != NULL);
    site_id cache = sites_run(m3, "Cache", 2, 50000, 50000, NULL, 0);
    site_id cache2 = model_site_intern(m3, model_site_get(m3, cache)->trace, model_site_get(m3, cache)->cls, false);
    CHECK_EQ_INT(cache2.v, cache.v);
    for (int i = 0; i < 30; i++)
        model_sites_gc(m3);
    CHECK(!model_site_leak_suspect(model_site_get(m3, cache)));
    model_free(m3);
    /* the age buckets */
    CHECK_EQ_INT(life_gc_bucket(0), 0);
    CHECK_EQ_INT(life_gc_bucket(1), 1);
    CHECK_EQ_INT(life_gc_bucket(3), 2);
    CHECK_EQ_INT(life_gc_bucket(7), 3);
    CHECK_EQ_INT(life_gc_bucket(1000), 4);
    CHECK_EQ_INT(life_ms_bucket(0), 0);
    CHECK_EQ_INT(life_ms_bucket(9), 1);
    CHECK_EQ_INT(life_ms_bucket(10), 2);
    CHECK_EQ_INT(life_ms_bucket(9999), 4);
    CHECK_EQ_INT(life_ms_bucket(10000), 5);
    double by_gcs[LIFE_GC_BUCKETS] = { 1, 2, 3, 4, 5 }, by_ms[LIFE_MS_BUCKETS] = { 6, 1, 1, 3, 3, 1 };
    model_site_died_counts(m, flat, by_gcs, by_ms);
    CHECK_EQ_INT((int)model_site_get(m, flat)->died_by_gcs[4], 5);
    model_free(m);
}

int main(void)
{
    RUN(test_strings);
    RUN(test_classes_methods_frames);
    RUN(test_traces);
    RUN(test_samples);
    RUN(test_monitors);
    RUN(test_threads);
    RUN(test_grow);
    RUN(test_sites);
    return DONE();
}
