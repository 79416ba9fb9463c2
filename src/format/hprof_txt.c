/* hprof_txt.c — the HPROF ASCII report (format=a, java.hprof.txt): header,
 * THREAD START/END in the order they happened, the TRACE records that the
 * printed rows refer to, then the CPU SAMPLES, CPU TIME and MONITOR TIME
 * tables ordered by cost, cut off below report_opts.cutoff. Layout follows
 * JDK 8 HPROF. */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct txt_row {
    uint32_t key;        /* trace id or monitor id */
    uint64_t cost;
    uint64_t count;      /* the count column: samples, calls or monitor events */
} txt_row;

static int txt_row_cmp(const void *a, const void *b)
{
    const txt_row *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost > y->cost ? -1 : 1;
    return x->key < y->key ? -1 : (x->key > y->key);
}

void hprof_txt_time(uint64_t ms, char out[64])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!localtime_r(&t, &tm) || strftime(out, 64, "%a %b %e %H:%M:%S %Y", &tm) == 0)
        strcpy(out, "?");
}

/* Rows above the cutoff, sorted by cost; returns the count printed. */
static uint32_t txt_rows_above_cutoff(txt_row *rows, uint32_t n, uint64_t total, double cutoff)
{
    qsort(rows, n, sizeof *rows, txt_row_cmp);
    uint32_t k = 0;
    while (k < n && total > 0 && (double)rows[k].cost / (double)total >= cutoff)
        k++;
    return k;
}

static void txt_method_name(const model *m, frame_id f, sink *s)
{
    const model_frame *fr = model_frame_get(m, f);
    const model_method *me = fr ? model_method_get(m, fr->method) : NULL;
    const model_class *c = me ? model_class_get(m, me->cls) : NULL;
    sink_printf(s, "%s.%s", c ? model_string_get(m, c->name, NULL) : "<unknown class>",
                me ? model_string_get(m, me->name, NULL) : "<unknown method>");
}

static void txt_write_trace(const model *m, trace_id t, sink *s)
{
    model_trace tr = model_trace_get(m, t);
    if (tr.thread)
        sink_printf(s, "TRACE %u: (thread=%u)\n", HPROF_SERIAL_TRACE + t.v, HPROF_SERIAL_THREAD + tr.thread);
    else
        sink_printf(s, "TRACE %u:\n", HPROF_SERIAL_TRACE + t.v);
    if (tr.nframes == 0)
        sink_printf(s, "\t<empty>\n");
    for (uint32_t i = 0; i < tr.nframes; i++) {
        const model_frame *fr = model_frame_get(m, tr.frames[i]);
        const model_method *me = fr ? model_method_get(m, fr->method) : NULL;
        const model_class *c = me ? model_class_get(m, me->cls) : NULL;
        const char *src = c && c->source_file.v ? model_string_get(m, c->source_file, NULL) : "Unknown Source";
        sink_write(s, "\t", 1);
        txt_method_name(m, tr.frames[i], s);
        int32_t line = fr ? fr->line : FRAME_LINE_UNKNOWN;
        if (line > 0)
            sink_printf(s, "(%s:%d)\n", src, line);
        else
            sink_printf(s, "(%s:%s)\n", src,
                        line == FRAME_LINE_NATIVE     ? "Native method"
                        : line == FRAME_LINE_COMPILED ? "Compiled method"
                                                      : "Unknown line");
    }
}

static void txt_write_header(const model *m, sink *s)
{
    /* native frames and the JVM's threads are explained only where there are some: reports of Java
     * frames alone stay as they were */
    bool native = model_has_jvm_threads(m);
    for (uint32_t i = 1; i <= model_class_count(m) && !native; i++)
        native = model_class_get(m, (class_id){ i })->code != MODEL_CODE_JAVA;
    char when[64];
    hprof_txt_time(m->start_time_ms, when);
    sink_printf(s, "JAVA PROFILE 1.0.1, created %s\n\n", when);
    if (m->window_to_ms) { /* a window of record=y's recording */
        char to[64], back[64];
        hprof_txt_time(m->window_to_ms, to);
        hprof_txt_time(m->recorded_from_ms, back);
        sink_printf(s, "RECORDING WINDOW: %s to %s (%.3f s); the recording reaches back to %s (%.3f s before the "
                    "window's end)\n\n", when, to, (double)(m->window_to_ms - m->window_from_ms) / 1000, back,
                    m->recorded_from_ms && m->recorded_from_ms < m->window_to_ms
                        ? (double)(m->window_to_ms - m->recorded_from_ms) / 1000 : 0.0);
        if (m->trigger[0]) /* a trigger's dump (trigger=) */
            sink_printf(s, "TRIGGER: %s\n\n", m->trigger);
    }
    sink_printf(s,
                "Written by jvmprof, an HPROF-compatible profiler for the Java virtual machine.\n"
                "\n"
                "Sections, in the order they appear:\n"
                "THREAD START / THREAD END: threads as they started and ended; id is the thread serial.\n"
                "TRACE: a stack trace (top frame first) that the tables below refer to by serial; with\n"
                "  thread=y each trace belongs to one thread. A line is a number, \"Native method\",\n"
                "  \"Compiled method\" or \"Unknown line\" (no line table, or lineno=n).\n"
                "GC: heap=sites, not HPROF's: the garbage collections, and their time from start to finish.\n"
                "SITES: heap=sites: allocation sites (a trace and a class) by live bytes, with the live and\n"
                "  allocated bytes and objects: estimates from sampled allocations (alloc_interval=0: exact).\n"
                "  alloc_count=site: the allocated columns are exact per site (the allocating frame alone:\n"
                "  for what JNI and the VM made, their caller); under each row its \"sampled caller\" traces,\n"
                "  each with its share of the row's sampled bytes.\n"
                "LIFETIMES: lifetimes=y, not HPROF's: per site, its objects' deaths by age (collections\n"
                "  survived, ms), with leak suspects and churn.\n"
                "CPU SAMPLES: how often each trace was on a running thread when the sampler looked, every\n"
                "  interval= ms; ranked by count, rows below cutoff= omitted.\n"
                "WALL SAMPLES: wall=, in place of CPU SAMPLES: every thread sampled every wall= ms whatever it\n"
                "  was doing; a row is a trace and the state its thread was in (running, native, sleeping,\n"
                "  waiting, blocked).\n"
                "%s"
                "CPU TIME (ms): cpu=times, measured by bytecode instrumentation: self is the share of the\n"
                "  total time running spent in the trace's top method itself (callees excluded; time it\n"
                "  waited is not running: see CPU WAIT TIME), count is the exact number of calls; a trace\n"
                "  is the call path of depth= instrumented methods.\n"
                "CPU WAIT TIME (ms): cpu=times, not HPROF's: the time the trace's top method spent waiting\n"
                "  (blocked on a monitor, in Object.wait, parked or sleeping), which CPU TIME leaves out.\n"
                "MONITOR TIME: time threads spent blocked: entering a contended monitor, or acquiring a\n"
                "  java.util.concurrent lock (ReentrantLock, ReentrantReadWriteLock, Semaphore, StampedLock...),\n"
                "  by trace and class of the monitor or lock (its synchronizer) object.\n"
                "MONITOR WAIT TIME: not HPROF's: time threads spent waiting to be woken: in Object.wait, a\n"
                "  Condition, or any other park (queues, pools, latches, futures), by trace and class of the\n"
                "  monitor or park blocker (<no blocker> when the park named none).\n"
                "METHODS: not HPROF's; after its sections, the CPU or wall samples (or cpu=times' time) by\n"
                "  method instead of by trace: self while the method was on top, total while it was\n"
                "  anywhere in the trace (within its depth= frames); with cpu=times also its calls.\n"
                "CALLS COUNTED: not HPROF's; cpu=times' methods whose calls are counted exactly but not\n"
                "  timed: their time is their callers' self time. By default the straight-line leaves of\n"
                "  at most 80 bytes of bytecode (no call, loop, switch, array allocation or lock), whose\n"
                "  time per call is bounded by their length; with tiny=N also the loop-free methods of at\n"
                "  most N bytes that make calls, whose time, and their counted callees', goes to their\n"
                "  caller without a bound. All threads and call paths together; rows below cutoff= of all\n"
                "  counted calls omitted.\n"
                "\n--------\n\n",
                native ? "  A frame of native code (C/C++: the JVM's own, libc, a JNI library) is library.symbol\n"
                         "  (library:Native method), a kernel frame kernel.symbol(vmlinux:Native method).\n"
                         "THREAD KINDS: not HPROF's; when the JVM's own threads (GC, compiler, VM thread: kind= in\n"
                         "  their THREAD START) were sampled too, each kind's share of the samples.\n"
                       : "");
}

/* The rows of a CPU SAMPLES, CPU TIME or WALL SAMPLES table: self and accum
 * are shares of total cost, count is samples or calls. WALL SAMPLES rows
 * (by_state) have key = trace id * SAMPLE_STATES + state and a state column. */
static void txt_write_cpu_rows(const model *m, const txt_row *rows, uint32_t n, uint64_t total, bool by_state,
                               sink *s)
{
    sink_printf(s, by_state ? "rank   self  accum   count trace state    method\n"
                            : "rank   self  accum   count trace method\n");
    double accum = 0;
    for (uint32_t i = 0; i < n; i++) {
        double self = 100.0 * (double)rows[i].cost / (double)total;
        accum += self;
        uint32_t t = by_state ? rows[i].key / SAMPLE_STATES : rows[i].key;
        model_trace tr = model_trace_get(m, (trace_id){ t });
        sink_printf(s, "%4u %5.2f%% %5.2f%% %7llu %5u ", i + 1, self, accum, (unsigned long long)rows[i].count,
                    HPROF_SERIAL_TRACE + t);
        if (by_state)
            sink_printf(s, "%-8s ", sample_state_names[rows[i].key % SAMPLE_STATES]);
        if (tr.nframes)
            txt_method_name(m, tr.frames[0], s);
        else
            sink_printf(s, "<empty trace>");
        sink_write(s, "\n", 1);
    }
}

static void txt_write_sites(const model *m, const site_row *rows, uint32_t n, double live,
                            const site_callers *callers, const char *when, sink *s)
{
    if (m->alloc_interval || m->sites_exact) /* from the agent; an HPROF binary file does not carry these */
        sink_printf(s, "GC (total = %llu collections, %.1f ms between start and finish) %s\n",
                    (unsigned long long)m->gc_count, (double)m->gc_ns / 1e6, when);
    if (m->sites_counted) {
        char every[64] = "";
        if (m->alloc_interval)
            snprintf(every, sizeof every, " every %llu bytes", (unsigned long long)m->alloc_interval);
        sink_printf(s, "SITES BEGIN (ordered by live bytes; alloc'ed: exact counts per site; live and callers: "
                       "estimates from allocations sampled%s) %s\n", every, when);
    } else if (m->alloc_interval) {
        sink_printf(s, "SITES BEGIN (ordered by live bytes; estimates from allocations sampled every %llu bytes) %s\n",
                    (unsigned long long)m->alloc_interval, when);
    } else if (m->sites_exact) {
        sink_printf(s, "SITES BEGIN (ordered by live bytes; exact counts) %s\n", when);
    } else {
        sink_printf(s, "SITES BEGIN (ordered by live bytes) %s\n", when);
    }
    sink_printf(s, "          percent          live          alloc'ed  stack class\n");
    sink_printf(s, " rank   self  accum     bytes objs     bytes  objs trace name\n");
    double accum = 0;
    for (uint32_t i = 0; i < n; i++) {
        const model_site *si = model_site_get(m, (site_id){ rows[i].site });
        double self = live > 0 ? 100.0 * si->live_bytes / live : 0;
        accum += self;
        sink_printf(s, "%5u %5.2f%% %5.2f%% %9llu %4llu %9llu %5llu %5u %s\n", i + 1, self, accum,
                    site_count(si->live_bytes), site_count(si->live_objs), site_count(si->alloc_bytes),
                    site_count(si->alloc_objs), HPROF_SERIAL_TRACE + si->trace.v,
                    model_string_get(m, model_class_get(m, si->cls)->name, NULL));
        for (uint32_t k = 0; callers && callers[i].n && k < callers[i].n; k++)
            sink_printf(s, "                 sampled caller %6.2f%% trace %u\n", callers[i].at[k].share,
                        HPROF_SERIAL_TRACE + model_site_get(m, callers[i].at[k].site)->trace.v);
    }
    sink_printf(s, "SITES END\n");
}

/* lifetimes=y: per site (the SITES rows, same order) what died at which
 * age, then per class, then the leak suspects and churn. */
static void txt_write_lifetimes(const model *m, const site_row *rows, uint32_t n, const char *when, sink *s)
{
    sink_printf(s, "LIFETIMES BEGIN (%s; age at death in garbage collections survived and in ms) %s\n",
                m->alloc_interval ? "estimates from the sampled objects" : "every object", when);
    sink_printf(s, " rank trace   alloc'ed      died      live  died after GCs 0/1/2-3/4-7/8+  died after "
                   "<1ms/<10ms/<100ms/<1s/<10s/10s+  note  class\n");
    for (uint32_t i = 0; i < n; i++) {
        const model_site *si = model_site_get(m, (site_id){ rows[i].site });
        char gcs[128], ms[160];
        int o = 0;
        for (int k = 0; k < LIFE_GC_BUCKETS; k++)
            o += snprintf(gcs + o, sizeof gcs - (size_t)o, "%s%llu", k ? "/" : "", site_count(si->died_by_gcs[k]));
        o = 0;
        for (int k = 0; k < LIFE_MS_BUCKETS; k++)
            o += snprintf(ms + o, sizeof ms - (size_t)o, "%s%llu", k ? "/" : "", site_count(si->died_by_ms[k]));
        const char *note = model_site_leak_suspect(si) ? "LEAK?" : model_site_churn(si) ? "churn" : "-";
        sink_printf(s, "%5u %5u %10llu %9llu %9llu  %-30s %-40s %-5s %s\n", i + 1, HPROF_SERIAL_TRACE + si->trace.v,
                    site_count(si->alloc_objs), site_count(model_site_died(si)), site_count(si->live_objs), gcs, ms, note,
                    model_string_get(m, model_class_get(m, si->cls)->name, NULL));
    }
    /* by class: the same counts summed over the class's sites (all sites, not only the rows) */
    sink_printf(s, "by class:    alloc'ed      died      live  class\n");
    /* one pass over the sites: [class id] = allocated, died, live; each class
     * is printed once, where its first row is */
    uint32_t ncls = model_class_count(m);
    double (*sum)[3] = calloc((size_t)ncls + 1, sizeof *sum);
    for (uint32_t k = 1; sum && k <= model_site_count(m); k++) {
        const model_site *si = model_site_get(m, (site_id){ k });
        if (si->cls.v > ncls || si->counted) /* alloc_count=site: the sampled objects only, as the rows */
            continue;
        sum[si->cls.v][0] += si->alloc_objs;
        sum[si->cls.v][1] += model_site_died(si);
        sum[si->cls.v][2] += si->live_objs;
    }
    unsigned char *done = sum ? calloc((size_t)ncls + 1, 1) : NULL;
    for (uint32_t i = 0; done && i < n; i++) {
        class_id c = model_site_get(m, (site_id){ rows[i].site })->cls;
        if (c.v > ncls || done[c.v])
            continue;
        done[c.v] = 1;
        sink_printf(s, "           %10llu %9llu %9llu  %s\n", site_count(sum[c.v][0]), site_count(sum[c.v][1]),
                    site_count(sum[c.v][2]), model_string_get(m, model_class_get(m, c)->name, NULL));
    }
    free(done);
    free(sum);
    for (uint32_t i = 0; i < n; i++) {
        const model_site *si = model_site_get(m, (site_id){ rows[i].site });
        const char *cname = model_string_get(m, model_class_get(m, si->cls)->name, NULL);
        if (model_site_leak_suspect(si)) {
            double first, last;
            model_site_leak_floors(si, &first, &last);
            sink_printf(s, "LEAK SUSPECT: site %u (trace %u, %s): live objects kept growing over %u garbage "
                           "collections (at least %llu after each in the first quarter, %llu in the last); %llu "
                           "live of %llu allocated\n", i + 1, HPROF_SERIAL_TRACE + si->trace.v, cname, si->gc_seen,
                        site_count(first), site_count(last), site_count(si->live_objs), site_count(si->alloc_objs));
        }
        if (model_site_churn(si))
            sink_printf(s, "CHURN: site %u (trace %u, %s): %llu of %llu allocated died, %llu before surviving a "
                           "garbage collection\n", i + 1, HPROF_SERIAL_TRACE + si->trace.v, cname,
                        site_count(model_site_died(si)), site_count(si->alloc_objs), site_count(si->died_by_gcs[0]));
    }
    sink_printf(s, "LIFETIMES END\n");
}

/* THREAD KINDS, after the CPU or WALL SAMPLES, when the JVM's own threads
 * (GC, compilers, VM thread) were sampled too: each kind's share of the samples. */
static void txt_write_thread_kinds(const model *m, const char *when, sink *s)
{
    uint64_t by[THREAD_KINDS], total = 0;
    if (!model_thread_kind_samples(m, by))
        return;
    for (unsigned k = 0; k < THREAD_KINDS; k++)
        total += by[k];
    sink_printf(s, "THREAD KINDS BEGIN (total = %llu) %s\n", (unsigned long long)total, when);
    for (unsigned k = 0; k < THREAD_KINDS; k++)
        if (by[k])
            sink_printf(s, "%-9s %5.1f%% (%llu)\n", thread_kind_names[k], 100.0 * (double)by[k] / (double)total,
                        (unsigned long long)by[k]);
    sink_printf(s, "THREAD KINDS END\n");
}

static jp_status txt_write(const model *m, const report_opts *o, sink *s)
{
    char when[64];
    txt_write_header(m, s);
    for (uint32_t i = 0; i < m->thread_events_len; i++) {
        const model_thread_event *e = &m->thread_events[i];
        const model_thread *t = model_thread_get(m, e->thread);
        if (!t)
            continue;
        if (e->kind == MODEL_THREAD_START && t->carrier) /* a virtual thread, as it ran on one carrier */
            sink_printf(s, "THREAD START (obj=%llx, id = %u, name=\"%s\", group=\"%s\", carrier=%u)\n",
                        (unsigned long long)t->object_id, HPROF_SERIAL_THREAD + e->thread,
                        model_string_get(m, t->name, NULL), model_string_get(m, t->group, NULL),
                        HPROF_SERIAL_THREAD + t->carrier);
        else if (e->kind == MODEL_THREAD_START && t->jvm_internal) /* the JVM's own: GC, compiler, VM thread */
            sink_printf(s, "THREAD START (obj=%llx, id = %u, name=\"%s\", group=\"%s\", kind=%s)\n",
                        (unsigned long long)t->object_id, HPROF_SERIAL_THREAD + e->thread,
                        model_string_get(m, t->name, NULL), model_string_get(m, t->group, NULL),
                        thread_kind_names[model_thread_kind(m, e->thread)]);
        else if (e->kind == MODEL_THREAD_START)
            sink_printf(s, "THREAD START (obj=%llx, id = %u, name=\"%s\", group=\"%s\")\n",
                        (unsigned long long)t->object_id, HPROF_SERIAL_THREAD + e->thread,
                        model_string_get(m, t->name, NULL), model_string_get(m, t->group, NULL));
        else
            sink_printf(s, "THREAD END (id = %u)\n", HPROF_SERIAL_THREAD + e->thread);
    }

    uint32_t ntraces = model_trace_count(m), nmon = model_monitor_count(m);
    /* WALL SAMPLES has a row per (trace, state), CPU SAMPLES one per trace */
    bool wall = o->cpu_samples && m->wall;
    txt_row *cpu = calloc((size_t)ntraces * (wall ? SAMPLE_STATES : 1) + 1, sizeof *cpu);
    txt_row *times = calloc(ntraces + 1, sizeof *times);
    txt_row *mon = calloc(2 * (size_t)nmon + 1, sizeof *mon);
    txt_row *waits = calloc(ntraces + 1, sizeof *waits);
    unsigned char *printed = calloc(ntraces + 1, 1);
    site_row *sites = calloc(model_site_count(m) + 1, sizeof *sites);
    if (!cpu || !times || !mon || !waits || !printed || !sites) {
        free(waits);
        free(cpu);
        free(times);
        free(mon);
        free(printed);
        free(sites);
        return JP_ERR_NOMEM;
    }
    site_totals site_total;
    uint32_t nsites = o->sites ? site_rows(m, o->cutoff, sites, &site_total) : 0;
    uint32_t ncpu = 0, ntimes = 0, nwaits = 0, nmonrows[2] = { 0, 0 };
    if (wall) {
        for (uint32_t t = 1; t <= ntraces; t++)
            for (uint32_t st = 0; st < SAMPLE_STATES; st++) {
                uint64_t c = model_trace_state_samples(m, (trace_id){ t }, (sample_state)st);
                if (c)
                    cpu[ncpu++] = (txt_row){ t * SAMPLE_STATES + st, c, c };
            }
        ncpu = txt_rows_above_cutoff(cpu, ncpu, m->total_samples, o->cutoff);
    } else if (o->cpu_samples) {
        for (uint32_t t = 1; t <= ntraces; t++) {
            uint64_t c = model_trace_samples(m, (trace_id){ t });
            if (c)
                cpu[ncpu++] = (txt_row){ t, c, c };
        }
        ncpu = txt_rows_above_cutoff(cpu, ncpu, m->total_samples, o->cutoff);
    }
    if (o->cpu_times) {
        for (uint32_t t = 1; t <= ntraces; t++) {
            uint64_t calls = model_trace_calls(m, (trace_id){ t }), ns = model_trace_time_ns(m, (trace_id){ t });
            if (calls || ns) /* (reset=y: a call entered before the interval has time but no call in it) */
                times[ntimes++] = (txt_row){ t, ns, calls };
        }
        ntimes = txt_rows_above_cutoff(times, ntimes, m->total_time_ns, o->cutoff);
        for (uint32_t t = 1; t <= ntraces; t++) {
            uint64_t w = model_trace_wait_ns(m, (trace_id){ t });
            if (w)
                waits[nwaits++] = (txt_row){ t, w, model_trace_calls(m, (trace_id){ t }) };
        }
        nwaits = txt_rows_above_cutoff(waits, nwaits, m->total_wait_ns, o->cutoff);
    }
    /* monitor rows: blocked ones in mon[0..], waiting ones in mon[nmon..] */
    uint64_t mon_total[2] = { model_monitor_total_ns(m, MONITOR_BLOCKED), model_monitor_total_ns(m, MONITOR_WAITING) };
    txt_row *mon_rows[2] = { mon, mon + nmon };
    if (o->monitor) {
        for (uint32_t i = 1; i <= nmon; i++) {
            const model_monitor *mm = model_monitor_get(m, (monitor_id){ i });
            uint32_t k = mm->kind == MONITOR_WAITING;
            mon_rows[k][nmonrows[k]++] = (txt_row){ i, mm->time_ns, mm->count };
        }
        for (uint32_t k = 0; k < 2; k++)
            nmonrows[k] = txt_rows_above_cutoff(mon_rows[k], nmonrows[k], mon_total[k], o->cutoff);
    }

    /* TRACE records for every printed row, in serial order */
    for (uint32_t i = 0; i < ncpu; i++)
        printed[wall ? cpu[i].key / SAMPLE_STATES : cpu[i].key] = 1;
    for (uint32_t i = 0; i < ntimes; i++)
        printed[times[i].key] = 1;
    for (uint32_t i = 0; i < nwaits; i++)
        printed[waits[i].key] = 1;
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t i = 0; i < nmonrows[k]; i++)
            printed[model_monitor_get(m, (monitor_id){ mon_rows[k][i].key })->trace.v] = 1;
    for (uint32_t i = 0; i < nsites; i++)
        printed[model_site_get(m, (site_id){ sites[i].site })->trace.v] = 1;
    /* alloc_count=site: each row's sampled callers, and their traces */
    site_callers *callers = m->sites_counted && nsites ? site_callers_of(m, sites, nsites, o->cutoff) : NULL;
    /* ... and lifetimes=y follows their sampled objects: its rows are the sampled sites */
    site_row *life = sites;
    uint32_t nlife = nsites;
    if (m->sites_counted && m->lifetimes && o->sites) {
        site_totals lt;
        life = calloc(model_site_count(m) + 1, sizeof *life);
        nlife = life ? site_rows_sampled(m, o->cutoff, life, &lt) : 0;
        for (uint32_t i = 0; i < nlife; i++)
            printed[model_site_get(m, (site_id){ life[i].site })->trace.v] = 1;
    }
    for (uint32_t i = 0; callers && i < nsites; i++)
        for (uint32_t k = 0; k < callers[i].n; k++)
            printed[model_site_get(m, callers[i].at[k].site)->trace.v] = 1;
    for (uint32_t t = 1; t <= ntraces; t++)
        if (printed[t])
            txt_write_trace(m, (trace_id){ t }, s);

    hprof_txt_time(m->dump_time_ms, when);
    if (o->sites)
        txt_write_sites(m, sites, nsites, site_total.live_bytes, callers, when, s);
    if (o->sites && m->lifetimes)
        txt_write_lifetimes(m, life, nlife, when, s);
    if (wall) {
        sink_printf(s, "WALL SAMPLES BEGIN (total = %llu, every %u ms) %s\n", (unsigned long long)m->total_samples,
                    m->interval_us / 1000, when);
        txt_write_cpu_rows(m, cpu, ncpu, m->total_samples, true, s);
        sink_printf(s, "WALL SAMPLES END\n");
    } else if (o->cpu_samples) {
        if (m->sample_event[0])
            sink_printf(s, "CPU SAMPLES BEGIN (total = %llu, event = %s, one every %llu) %s\n",
                        (unsigned long long)m->total_samples, m->sample_event, (unsigned long long)m->event_period, when);
        else
            sink_printf(s, "CPU SAMPLES BEGIN (total = %llu) %s\n", (unsigned long long)m->total_samples, when);
        txt_write_cpu_rows(m, cpu, ncpu, m->total_samples, false, s);
        sink_printf(s, "CPU SAMPLES END\n");
    }
    if (o->cpu_samples)
        txt_write_thread_kinds(m, when, s);
    if (o->cpu_times) {
        sink_printf(s, "CPU TIME (ms) BEGIN (total = %llu) %s\n", (unsigned long long)(m->total_time_ns / 1000000u),
                    when);
        txt_write_cpu_rows(m, times, ntimes, m->total_time_ns, false, s);
        sink_printf(s, "CPU TIME (ms) END\n");
        if (m->total_wait_ns) {
            sink_printf(s, "CPU WAIT TIME (ms) BEGIN (total = %llu) %s\n",
                        (unsigned long long)(m->total_wait_ns / 1000000u), when);
            txt_write_cpu_rows(m, waits, nwaits, m->total_wait_ns, false, s);
            sink_printf(s, "CPU WAIT TIME (ms) END\n");
        }
    }
    if (o->monitor) {
        static const char *const title[2] = { "MONITOR TIME", "MONITOR WAIT TIME" };
        for (uint32_t k = 0; k < 2; k++) {
            if (k == 1 && !mon_total[1])
                continue;
            sink_printf(s, "%s BEGIN (total = %llu ms) %s\n", title[k], (unsigned long long)(mon_total[k] / 1000000u),
                        when);
            sink_printf(s, "rank   self  accum   count trace monitor\n");
            double accum = 0;
            for (uint32_t i = 0; i < nmonrows[k]; i++) {
                const model_monitor *mm = model_monitor_get(m, (monitor_id){ mon_rows[k][i].key });
                double self = 100.0 * (double)mm->time_ns / (double)mon_total[k];
                accum += self;
                sink_printf(s, "%4u %5.2f%% %5.2f%% %7llu %5u %s (Java)\n", i + 1, self, accum,
                            (unsigned long long)mm->count, HPROF_SERIAL_TRACE + mm->trace.v,
                            model_string_get(m, mm->class_name, NULL));
            }
            sink_printf(s, "%s END\n", title[k]);
        }
    }
    jp_status st = JP_OK;
    if (o->cpu_samples)
        st = method_rows_write(m, false, &(method_filter){ o->cutoff, 0, NULL }, when, s);
    if (st == JP_OK && o->cpu_times)
        st = method_rows_write(m, true, &(method_filter){ o->cutoff, 0, NULL }, when, s);
    if (st == JP_OK && o->cpu_times && m->total_counted)
        st = counted_rows_write(m, &(method_filter){ o->cutoff, 0, NULL }, when, s);
    if (m->ncounts) { /* what collectors counted besides their tables */
        sink_printf(s, "COUNTS BEGIN %s\n", when);
        for (uint32_t i = 0; i < m->ncounts; i++)
            sink_printf(s, "%s %llu\n", m->counts[i].name, (unsigned long long)m->counts[i].value);
        sink_printf(s, "COUNTS END\n");
    }
    free(cpu);
    free(times);
    free(waits);
    free(mon);
    free(printed);
    if (life != sites)
        free(life);
    free(sites);
    site_callers_free(callers, nsites);
    return st != JP_OK ? st : sink_status(s);
}

const jp_format_ops hprof_txt_format = { "hprof-ascii", "format=a", "the HPROF ASCII format",
                                         FMT_CPU_SAMPLES | FMT_WALL_SAMPLES | FMT_CPU_TIMES | FMT_MONITORS | FMT_SITES,
                                         txt_write, hprof_summary };
