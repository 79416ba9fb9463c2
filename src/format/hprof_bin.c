/* hprof_bin.c — the HPROF binary writer (format=b, java.hprof): header
 * "JAVA PROFILE 1.0.2" with 8-byte ids, then CONTROL SETTINGS, jvmprof's
 * own SAMPLING record (the interval and kind of the samples), every string
 * as UTF8, LOAD CLASS, START/END THREAD in event order, FRAME, TRACE, ALLOC
 * SITES and CPU SAMPLES; then jvmprof's own records of what HPROF's binary
 * format had none for (hprof_bin.h): VIRTUAL THREADS (after the threads),
 * NATIVE (after the frames: which classes are libraries, which threads the JVM's own),
 * WALL STATES, SAMPLE TIMES (record=y: each sample's time), CPU TIMES, MONITORS and COUNTS. Tables are written in id order, so hprof_bin_read() rebuilds a
 * model with the same ids and `jvmprof report` prints the same serials and
 * sections. Each record body is built in memory first, for its length prefix. */
#include "format.h"
#include "hprof_bin.h"

#include <stdlib.h>
#include <string.h>

#include "../model/recording.h"

typedef struct bin_writer {
    sink *s;
    buf body;
    uint32_t micros;   /* record time: dump time relative to the header time */
    bool oom;          /* a record body could not be built */
} bin_writer;

static void bin_record(bin_writer *w, uint8_t tag)
{
    sink_u1(w->s, tag);
    sink_u4(w->s, w->micros);
    sink_u4(w->s, (uint32_t)w->body.len);
    sink_write(w->s, w->body.data, w->body.len);
    if (w->body.failed)
        w->oom = true;
    buf_reset(&w->body);
}

static uint32_t bin_clamp_u4(uint64_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

typedef struct bin_sample { uint32_t trace; uint64_t count; } bin_sample;

static int bin_sample_cmp(const void *a, const void *b)
{
    const bin_sample *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->trace < y->trace ? -1 : (x->trace > y->trace);
}

/* ALLOC SITES flags beyond HPROF's (0x1 incremental, 0x2 by allocation, 0x4 forced GC) */
enum { BIN_SITES_COUNTED = 0x4000, BIN_SITES_CALLERS = 0x8000 };

static void bin_sites(bin_writer *w, const model *m, double cutoff, uint16_t flags, const site_row *rows, uint32_t n,
                      const site_totals *total)
{
    float cut = (float)cutoff;
    uint32_t cutoff_bits;
    memcpy(&cutoff_bits, &cut, 4);
    buf_put_u2(&w->body, flags);
    buf_put_u4(&w->body, cutoff_bits);
    buf_put_u4(&w->body, bin_clamp_u4(site_count(total->live_bytes)));
    buf_put_u4(&w->body, bin_clamp_u4(site_count(total->live_objs)));
    buf_put_u8(&w->body, site_count(total->alloc_bytes));
    buf_put_u8(&w->body, site_count(total->alloc_objs));
    buf_put_u4(&w->body, n);
    for (uint32_t i = 0; i < n; i++) {
        const model_site *si = model_site_get(m, (site_id){ rows[i].site });
        buf_put_u1(&w->body, si->is_array ? 2 : 0);
        buf_put_u4(&w->body, HPROF_SERIAL_CLASS + si->cls.v);
        buf_put_u4(&w->body, HPROF_SERIAL_TRACE + si->trace.v);
        buf_put_u4(&w->body, bin_clamp_u4(site_count(si->live_bytes)));
        buf_put_u4(&w->body, bin_clamp_u4(site_count(si->live_objs)));
        buf_put_u4(&w->body, bin_clamp_u4(site_count(si->alloc_bytes)));
        buf_put_u4(&w->body, bin_clamp_u4(site_count(si->alloc_objs)));
    }
    bin_record(w, HPROF_TAG_ALLOC_SITES);
}

/* wall=: each trace's samples by the state its thread was in (CPU SAMPLES has their sum) */
static void bin_wall_states(bin_writer *w, const model *m)
{
    uint32_t n = 0, ntraces = model_trace_count(m);
    for (uint32_t i = 1; i <= ntraces; i++)
        for (uint32_t st = 0; st < SAMPLE_STATES; st++)
            n += model_trace_state_samples(m, (trace_id){ i }, (sample_state)st) != 0;
    buf_put_u4(&w->body, n);
    for (uint32_t i = 1; i <= ntraces; i++)
        for (uint32_t st = 0; st < SAMPLE_STATES; st++) {
            uint64_t c = model_trace_state_samples(m, (trace_id){ i }, (sample_state)st);
            if (!c)
                continue;
            buf_put_u4(&w->body, HPROF_SERIAL_TRACE + i);
            buf_put_u1(&w->body, (uint8_t)st);
            buf_put_u8(&w->body, c);
        }
    bin_record(w, HPROF_TAG_JVMPROF_WALL_STATES);
}

/* SAMPLE TIMES: each CPU or wall sample with its time, its trace and its state: those of record=y's recording,
 * or a model's sample times when it kept them all (a window of the recording, a file read back); jfr='s
 * (bounded) are not written. At most what one record's length can say. */
typedef struct bin_times_ctx {
    buf *body;
    uint32_t n, max;
} bin_times_ctx;

enum { BIN_TIME_ROW = 15 };

static void bin_time_row(bin_times_ctx *c, uint64_t time_ns, uint32_t trace, uint16_t weight, uint8_t state)
{
    if (trace == 0 || c->n >= c->max)
        return;
    buf_put_u8(c->body, time_ns);
    buf_put_u4(c->body, HPROF_SERIAL_TRACE + trace);
    buf_put_u2(c->body, weight);
    buf_put_u1(c->body, state);
    c->n++;
}

static void bin_time_event(const recording_event *e, void *ctx)
{
    if (e->kind == RECORDING_CPU || e->kind == RECORDING_WALL)
        bin_time_row(ctx, e->time_ns, e->trace, e->weight, e->state);
}

static void bin_sample_times(bin_writer *w, const model *m)
{
    bool all_times = m->sample_times_max == UINT32_MAX && m->sample_times_len;
    if (!m->recording && !all_times)
        return;
    bin_times_ctx c = { &w->body, 0, (UINT32_MAX - 4) / BIN_TIME_ROW };
    buf_put_u4(&w->body, 0); /* the rows, set below */
    if (m->recording)
        recording_each(m->recording, 0, UINT64_MAX, bin_time_event, &c);
    else
        for (uint32_t i = 0; i < m->sample_times_len; i++)
            bin_time_row(&c, m->sample_times[i].wall_ns, m->sample_times[i].trace, m->sample_times[i].weight,
                         m->sample_times[i].state);
    if (w->body.failed || w->body.len < 4) {
        w->oom = true;
        buf_reset(&w->body);
        return;
    }
    w->body.data[0] = (uint8_t)(c.n >> 24);
    w->body.data[1] = (uint8_t)(c.n >> 16);
    w->body.data[2] = (uint8_t)(c.n >> 8);
    w->body.data[3] = (uint8_t)c.n;
    bin_record(w, HPROF_TAG_JVMPROF_SAMPLE_TIMES);
}

/* cpu=times: each trace's self time, calls and time waiting; then the methods counted, not timed */
static void bin_cpu_times(bin_writer *w, const model *m)
{
    uint32_t n = 0, ntraces = model_trace_count(m), nmethods = intern_count(&m->methods);
    for (uint32_t i = 1; i <= ntraces; i++) {
        trace_id t = { i };
        n += model_trace_time_ns(m, t) || model_trace_calls(m, t) || model_trace_wait_ns(m, t);
    }
    buf_put_u4(&w->body, n);
    for (uint32_t i = 1; i <= ntraces; i++) {
        trace_id t = { i };
        uint64_t ns = model_trace_time_ns(m, t), calls = model_trace_calls(m, t), wait = model_trace_wait_ns(m, t);
        if (!ns && !calls && !wait)
            continue;
        buf_put_u4(&w->body, HPROF_SERIAL_TRACE + i);
        buf_put_u8(&w->body, ns);
        buf_put_u8(&w->body, calls);
        buf_put_u8(&w->body, wait);
    }
    n = 0;
    for (uint32_t i = 1; i <= nmethods; i++)
        n += model_method_counted(m, (method_id){ i }) != 0;
    buf_put_u4(&w->body, n);
    for (uint32_t i = 1; i <= nmethods; i++) {
        uint64_t calls = model_method_counted(m, (method_id){ i });
        if (!calls)
            continue;
        const model_method *me = model_method_get(m, (method_id){ i });
        buf_put_u4(&w->body, HPROF_SERIAL_CLASS + me->cls.v);
        buf_put_u8(&w->body, me->name.v);
        buf_put_u8(&w->body, me->sig.v);
        buf_put_u8(&w->body, calls);
    }
    bin_record(w, HPROF_TAG_JVMPROF_CPU_TIMES);
}

/* monitor=y: every monitor row, blocked and waiting */
static void bin_monitors(bin_writer *w, const model *m)
{
    uint32_t n = model_monitor_count(m);
    buf_put_u4(&w->body, n);
    for (uint32_t i = 1; i <= n; i++) {
        const model_monitor *mo = model_monitor_get(m, (monitor_id){ i });
        buf_put_u4(&w->body, HPROF_SERIAL_TRACE + mo->trace.v);
        buf_put_u8(&w->body, mo->class_name.v);
        buf_put_u1(&w->body, mo->kind == MONITOR_WAITING);
        buf_put_u8(&w->body, mo->count);
        buf_put_u8(&w->body, mo->time_ns);
    }
    bin_record(w, HPROF_TAG_JVMPROF_MONITORS);
}

/* the virtual threads (thread=y on JDK 21+) and the carrier each ran on: HPROF's START THREAD has no field
 * for either; written only when there is one */
static void bin_virtual_threads(bin_writer *w, const model *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->threads_cap; i++)
        n += m->threads[i].known && m->threads[i].virtual_thread;
    if (!n)
        return;
    buf_put_u4(&w->body, n);
    for (uint32_t i = 0; i < m->threads_cap; i++) {
        const model_thread *t = &m->threads[i];
        if (!t->known || !t->virtual_thread)
            continue;
        buf_put_u4(&w->body, HPROF_SERIAL_THREAD + i + 1);
        buf_put_u4(&w->body, t->carrier ? HPROF_SERIAL_THREAD + t->carrier : 0);
    }
    bin_record(w, HPROF_TAG_JVMPROF_VIRTUAL_THREADS);
}

/* which classes are native libraries or the kernel (their path and build id), and which threads are the
 * JVM's own: HPROF's LOAD CLASS and START THREAD have no field for either; written only when there is one */
static void bin_native(bin_writer *w, const model *m)
{
    uint32_t nlibs = 0, nthreads = 0, nclasses = model_class_count(m);
    for (uint32_t i = 1; i <= nclasses; i++)
        nlibs += model_class_get(m, (class_id){ i })->code != MODEL_CODE_JAVA;
    for (uint32_t i = 0; i < m->threads_cap; i++)
        nthreads += m->threads[i].known && m->threads[i].jvm_internal;
    if (!nlibs && !nthreads)
        return;
    buf_put_u4(&w->body, nlibs);
    for (uint32_t i = 1; i <= nclasses; i++) {
        const model_class *c = model_class_get(m, (class_id){ i });
        if (c->code == MODEL_CODE_JAVA)
            continue;
        buf_put_u4(&w->body, HPROF_SERIAL_CLASS + i);
        buf_put_u1(&w->body, c->code);
        buf_put_u8(&w->body, c->path.v);
        buf_put_u8(&w->body, c->build_id.v);
    }
    buf_put_u4(&w->body, nthreads);
    for (uint32_t i = 0; i < m->threads_cap; i++)
        if (m->threads[i].known && m->threads[i].jvm_internal)
            buf_put_u4(&w->body, HPROF_SERIAL_THREAD + i + 1);
    bin_record(w, HPROF_TAG_JVMPROF_NATIVE);
}

/* what collectors counted besides their tables (the ASCII report's COUNTS) */
static void bin_counts(bin_writer *w, const model *m)
{
    buf_put_u4(&w->body, m->ncounts);
    for (uint32_t i = 0; i < m->ncounts; i++) {
        size_t len = strlen(m->counts[i].name);
        if (len > UINT16_MAX)
            len = UINT16_MAX;
        buf_put_u2(&w->body, (uint16_t)len);
        buf_put(&w->body, m->counts[i].name, len);
        buf_put_u8(&w->body, m->counts[i].value);
    }
    bin_record(w, HPROF_TAG_JVMPROF_COUNTS);
}

static jp_status bin_write(const model *m, const report_opts *o, sink *s)
{
    bin_writer w = { s, { 0 }, 0, false };
    buf_init(&w.body);
    if (m->dump_time_ms > m->start_time_ms)
        w.micros = (uint32_t)((m->dump_time_ms - m->start_time_ms) * 1000u);

    sink_write(s, HPROF_BIN_MAGIC, sizeof HPROF_BIN_MAGIC); /* with its NUL */
    sink_u4(s, HPROF_BIN_ID_SIZE);
    sink_u8(s, m->start_time_ms);

    buf_put_u4(&w.body, o->cpu_samples ? HPROF_CONTROL_CPU_SAMPLING : 0);
    buf_put_u2(&w.body, (uint16_t)(m->depth > 0xffff ? 0xffff : m->depth));
    bin_record(&w, HPROF_TAG_CONTROL_SETTINGS);
    /* what a converter needs and HPROF's records lack: the sampling interval and the samples' kind */
    buf_put_u4(&w.body, m->interval_us);
    buf_put_u1(&w.body, m->wall ? HPROF_SAMPLING_WALL : HPROF_SAMPLING_CPU);
    bin_record(&w, HPROF_TAG_JVMPROF_SAMPLING);

    for (uint32_t i = 1; i <= model_string_count(m); i++) {
        size_t len;
        const char *str = model_string_get(m, (str_id){ i }, &len);
        buf_put_u8(&w.body, i);
        buf_put(&w.body, str, len);
        bin_record(&w, HPROF_TAG_UTF8);
    }
    for (uint32_t i = 1; i <= model_class_count(m); i++) {
        const model_class *c = model_class_get(m, (class_id){ i });
        buf_put_u4(&w.body, HPROF_SERIAL_CLASS + i);
        buf_put_u8(&w.body, i);      /* class object id: no heap objects in this file */
        buf_put_u4(&w.body, 0);      /* trace serial: class loads are not traced */
        buf_put_u8(&w.body, c->name.v);
        bin_record(&w, HPROF_TAG_LOAD_CLASS);
    }
    for (uint32_t i = 0; i < m->thread_events_len; i++) {
        const model_thread_event *e = &m->thread_events[i];
        const model_thread *t = model_thread_get(m, e->thread);
        if (!t)
            continue;
        buf_put_u4(&w.body, HPROF_SERIAL_THREAD + e->thread);
        if (e->kind == MODEL_THREAD_START) {
            buf_put_u8(&w.body, t->object_id);
            buf_put_u4(&w.body, 0);
            buf_put_u8(&w.body, t->name.v);
            buf_put_u8(&w.body, t->group.v);
            buf_put_u8(&w.body, t->parent_group.v);
            bin_record(&w, HPROF_TAG_START_THREAD);
        } else {
            bin_record(&w, HPROF_TAG_END_THREAD);
        }
    }
    bin_virtual_threads(&w, m);
    for (uint32_t i = 1; i <= model_frame_count(m); i++) {
        const model_frame *f = model_frame_get(m, (frame_id){ i });
        const model_method *me = model_method_get(m, f->method);
        const model_class *c = model_class_get(m, me->cls);
        buf_put_u8(&w.body, i);
        buf_put_u8(&w.body, me->name.v);
        buf_put_u8(&w.body, me->sig.v);
        buf_put_u8(&w.body, c->source_file.v);
        buf_put_u4(&w.body, HPROF_SERIAL_CLASS + me->cls.v);
        buf_put_u4(&w.body, (uint32_t)f->line);
        bin_record(&w, HPROF_TAG_FRAME);
    }
    bin_native(&w, m);
    uint32_t ntraces = model_trace_count(m);
    for (uint32_t i = 1; i <= ntraces; i++) {
        model_trace t = model_trace_get(m, (trace_id){ i });
        buf_put_u4(&w.body, HPROF_SERIAL_TRACE + i);
        buf_put_u4(&w.body, t.thread ? HPROF_SERIAL_THREAD + t.thread : 0);
        buf_put_u4(&w.body, t.nframes);
        for (uint32_t k = 0; k < t.nframes; k++)
            buf_put_u8(&w.body, t.frames[k].v);
        bin_record(&w, HPROF_TAG_TRACE);
    }
    if (o->sites) {
        /* ALLOC SITES, as HPROF wrote it: flags 0 (not incremental, ordered by live bytes), the cutoff
         * (as a float's bits), totals, then one entry per site in the ASCII report's order.
         * alloc_count=site: the counted sites (flag BIN_SITES_COUNTED), then a second record of their
         * sampled callers (flag BIN_SITES_CALLERS); readers that know neither flag see two lists of sites */
        site_row *rows = malloc(((size_t)model_site_count(m) + 1) * sizeof *rows);
        if (!rows) {
            buf_free(&w.body);
            return JP_ERR_NOMEM;
        }
        site_totals total;
        uint32_t n = site_rows(m, o->cutoff, rows, &total);
        bin_sites(&w, m, o->cutoff, m->sites_counted ? BIN_SITES_COUNTED : 0, rows, n, &total);
        site_callers *callers = m->sites_counted && n ? site_callers_of(m, rows, n, o->cutoff) : NULL;
        if (callers) {
            uint32_t nc = 0;
            site_totals ct = { 0 };
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t k = 0; k < callers[i].n; k++) {
                    const model_site *si = model_site_get(m, callers[i].at[k].site);
                    rows[nc++] = (site_row){ callers[i].at[k].site.v, si->live_bytes, si->alloc_bytes };
                    ct.live_bytes += si->live_bytes;
                    ct.live_objs += si->live_objs;
                    ct.alloc_bytes += si->alloc_bytes;
                    ct.alloc_objs += si->alloc_objs;
                }
            bin_sites(&w, m, o->cutoff, BIN_SITES_CALLERS, rows, nc, &ct);
            site_callers_free(callers, n);
        } else if (m->sites_counted && n) {
            w.oom = true;
        }
        free(rows);
    }
    if (o->cpu_samples) {
        bin_sample *rows = malloc(((size_t)ntraces + 1) * sizeof *rows);
        if (!rows) {
            buf_free(&w.body);
            return JP_ERR_NOMEM;
        }
        uint32_t n = 0;
        for (uint32_t i = 1; i <= ntraces; i++) {
            uint64_t c = model_trace_samples(m, (trace_id){ i });
            if (c)
                rows[n++] = (bin_sample){ i, c };
        }
        qsort(rows, n, sizeof *rows, bin_sample_cmp);
        buf_put_u4(&w.body, bin_clamp_u4(m->total_samples));
        buf_put_u4(&w.body, n);
        for (uint32_t i = 0; i < n; i++) {
            buf_put_u4(&w.body, bin_clamp_u4(rows[i].count));
            buf_put_u4(&w.body, HPROF_SERIAL_TRACE + rows[i].trace);
        }
        free(rows);
        bin_record(&w, HPROF_TAG_CPU_SAMPLES);
        if (m->wall)
            bin_wall_states(&w, m);
        bin_sample_times(&w, m);
    }
    if (o->cpu_times)
        bin_cpu_times(&w, m);
    if (o->monitor)
        bin_monitors(&w, m);
    if (m->ncounts)
        bin_counts(&w, m);
    jp_status st = w.oom ? JP_ERR_NOMEM : sink_status(s);
    buf_free(&w.body);
    return st;
}

/* HPROF's CPU SAMPLES and ALLOC SITES records, and jvmprof's own for wall-clock samples, CPU times and
 * monitors (HPROF's binary format had none) */
const jp_format_ops hprof_bin_format = { "hprof-binary", "format=b", "the HPROF binary format",
                                         FMT_CPU_SAMPLES | FMT_WALL_SAMPLES | FMT_CPU_TIMES | FMT_MONITORS | FMT_SITES,
                                         bin_write, hprof_summary };
