/* hprof_bin_read.c — reads an HPROF binary file (1.0.1 or 1.0.2, 4- or 8-byte
 * ids, ours or another producer's) into a model: strings, classes, frames,
 * traces, threads, CPU samples and allocation sites, and jvmprof's own records
 * (hprof_bin.h): SAMPLING (the interval, absent from other producers' files:
 * then 0, unknown), VIRTUAL THREADS, NATIVE (libraries, the JVM's threads), WALL STATES, SAMPLE TIMES (into the
 * model's sample times, all kept), CPU TIMES, MONITORS and COUNTS. Heap dump and other records are skipped
 * by length. Every read is bounds-checked; a truncated or corrupt file gives
 * a one-line error, never a crash. Producer ids are mapped to model ids
 * through intern tables, so files whose ids are not dense also work. */
#include "format.h"
#include "hprof_bin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* producer id (u8) -> model id (u32), via an intern table + side array */
typedef struct rd_map {
    intern_table keys;
    uint32_t *vals;
    uint32_t cap;
} rd_map;

static void rd_map_init(rd_map *mp, arena *a)
{
    intern_init(&mp->keys, a);
    mp->vals = NULL;
    mp->cap = 0;
}

static void rd_map_free(rd_map *mp)
{
    intern_free(&mp->keys);
    free(mp->vals);
}

static bool rd_map_set(rd_map *mp, uint64_t key, uint32_t val)
{
    uint32_t i = intern_put(&mp->keys, &key, sizeof key, NULL);
    if (!i || !model_grow((void **)&mp->vals, &mp->cap, i, sizeof *mp->vals))
        return false;
    mp->vals[i - 1] = val;
    return true;
}

static uint32_t rd_map_get(const rd_map *mp, uint64_t key)
{
    uint32_t i = intern_find(&mp->keys, &key, sizeof key);
    return i ? mp->vals[i - 1] : 0;
}

typedef struct reader {
    model *m;
    arena scratch;
    rd_map strings, class_names, frames, traces;
    unsigned idsize;
    size_t file_len;
    char *err;
    size_t errlen;
} reader;

static uint64_t rd_id(reader *r, buf_rd *b) { return r->idsize == 8 ? buf_get_u8(b) : buf_get_u4(b); }

static uint32_t rd_thread_serial(uint32_t serial)
{
    return serial > HPROF_SERIAL_THREAD ? serial - HPROF_SERIAL_THREAD : serial;
}

static str_id rd_string(reader *r, uint64_t id) { return (str_id){ rd_map_get(&r->strings, id) }; }

/* Class names may be in internal form (java/lang/String): shown dotted. */
static str_id rd_dotted(reader *r, str_id name)
{
    size_t len;
    const char *s = model_string_get(r->m, name, &len);
    if (!memchr(s, '/', len))
        return name;
    char *tmp = malloc(len + 1);
    if (!tmp)
        return name;
    for (size_t i = 0; i < len; i++)
        tmp[i] = s[i] == '/' ? '.' : s[i];
    str_id d = model_string(r->m, tmp, len);
    free(tmp);
    return d;
}

/* The sections a file holds, from the records seen. */
typedef struct rd_saw {
    bool cpu, sites, times, monitors;
} rd_saw;

/* A trace a jvmprof record refers to, or 0 with the error set. */
static trace_id rd_trace(reader *r, uint32_t serial, const char *record)
{
    trace_id t = { rd_map_get(&r->traces, serial) };
    if (t.v == 0)
        snprintf(r->err, r->errlen, "%s refers to an unknown TRACE %u", record, serial);
    return t;
}

/* A string a jvmprof record refers to, or 0 with the error set. */
static str_id rd_known_string(reader *r, uint64_t id, const char *record)
{
    str_id s = rd_string(r, id);
    if (s.v == 0)
        snprintf(r->err, r->errlen, "%s refers to an unknown string %llu", record, (unsigned long long)id);
    return s;
}

/* WALL STATES splits each trace's CPU SAMPLES by state: a trace's states
 * may not hold more samples than CPU SAMPLES gave it (the writers make an
 * event or a row per sample: the counts must stay as bounded as CPU
 * SAMPLES' 4-byte ones). */
static bool rd_wall_states(reader *r, buf_rd *b)
{
    uint32_t n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * 13 > buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t serial = buf_get_u4(b);
        uint8_t state = buf_get_u1(b);
        uint64_t count = buf_get_u8(b);
        if (state >= SAMPLE_STATES) {
            snprintf(r->err, r->errlen, "WALL STATES: thread state %u (expected 0..%u)", state, SAMPLE_STATES - 1);
            return false;
        }
        trace_id t = rd_trace(r, serial, "WALL STATES");
        if (t.v == 0)
            return false;
        uint64_t split = 0, whole = model_trace_samples(r->m, t);
        for (uint32_t st = 0; st < SAMPLE_STATES; st++)
            split += model_trace_state_samples(r->m, t, (sample_state)st);
        if (count > whole - split) {
            snprintf(r->err, r->errlen, "WALL STATES: TRACE %u has more samples by state than CPU SAMPLES gave it (%llu)",
                     serial, (unsigned long long)whole);
            return false;
        }
        model_trace_add_state_samples(r->m, t, (sample_state)state, count);
    }
    r->m->wall = true;
    return true;
}

/* SAMPLE TIMES: each sample's time, trace, weight and state, kept in the model's sample times (all of them:
 * the rows are bounded by the record's length) */
static bool rd_sample_times(reader *r, buf_rd *b)
{
    uint32_t n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * 15 != buf_rd_left(b))
        return false;
    model *m = r->m;
    m->sample_times_max = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t time_ns = buf_get_u8(b);
        uint32_t serial = buf_get_u4(b);
        uint16_t weight = buf_get_u2(b);
        uint8_t state = buf_get_u1(b);
        if (state >= SAMPLE_STATES) {
            snprintf(r->err, r->errlen, "SAMPLE TIMES: thread state %u (expected 0..%u)", state, SAMPLE_STATES - 1);
            return false;
        }
        trace_id t = rd_trace(r, serial, "SAMPLE TIMES");
        if (t.v == 0)
            return false;
        uint32_t before = m->sample_times_len;
        model_sample_time_add(m, t, (stack_id){ 0 }, (sample_state)state, weight, time_ns);
        if (m->sample_times_len == before)
            return false; /* out of memory */
    }
    return true;
}

static bool rd_cpu_times(reader *r, buf_rd *b)
{
    uint32_t n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * 28 > buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t serial = buf_get_u4(b);
        uint64_t ns = buf_get_u8(b), calls = buf_get_u8(b), wait = buf_get_u8(b);
        trace_id t = rd_trace(r, serial, "CPU TIMES");
        if (t.v == 0)
            return false;
        model_trace_add_time(r->m, t, ns, calls);
        model_trace_add_wait(r->m, t, wait);
    }
    n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * (12 + 2 * r->idsize) > buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cserial = buf_get_u4(b);
        uint64_t name = rd_id(r, b), sig = rd_id(r, b), calls = buf_get_u8(b);
        str_id cname = { rd_map_get(&r->class_names, cserial) };
        if (cname.v == 0) {
            snprintf(r->err, r->errlen, "CPU TIMES refers to an unknown class %u", cserial);
            return false;
        }
        str_id mname = rd_known_string(r, name, "CPU TIMES"), msig = rd_known_string(r, sig, "CPU TIMES");
        if (mname.v == 0 || msig.v == 0)
            return false;
        class_id c = model_class_intern(r->m, cname, (str_id){ 0 });
        model_method_add_counted(r->m, model_method_intern(r->m, c, mname, msig), calls);
    }
    return true;
}

static bool rd_monitors(reader *r, buf_rd *b)
{
    uint32_t n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * (21 + r->idsize) > buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t serial = buf_get_u4(b);
        uint64_t name = rd_id(r, b);
        uint8_t kind = buf_get_u1(b);
        uint64_t count = buf_get_u8(b), ns = buf_get_u8(b);
        if (kind > 1) {
            snprintf(r->err, r->errlen, "MONITORS: kind %u (expected 0 blocked or 1 waiting)", kind);
            return false;
        }
        trace_id t = rd_trace(r, serial, "MONITORS");
        str_id cname = t.v ? rd_known_string(r, name, "MONITORS") : (str_id){ 0 };
        if (cname.v == 0)
            return false;
        monitor_id mo = model_monitor_intern(r->m, t, cname, kind ? MONITOR_WAITING : MONITOR_BLOCKED);
        model_monitor_add(r->m, mo, count, ns);
    }
    return true;
}

/* VIRTUAL THREADS: which started threads were virtual, and their carriers (serials bounded as START
 * THREAD's: the model's tables are indexed by them) */
static bool rd_virtual_threads(reader *r, buf_rd *b)
{
    uint32_t n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * 8 > buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t serial = buf_get_u4(b), carrier = buf_get_u4(b);
        if (!model_thread_get(r->m, rd_thread_serial(serial))) {
            snprintf(r->err, r->errlen, "VIRTUAL THREADS refers to thread %u, which no START THREAD before it started",
                     serial);
            return false;
        }
        if (rd_thread_serial(carrier) > r->file_len) {
            snprintf(r->err, r->errlen, "VIRTUAL THREADS: carrier serial %u out of range", carrier);
            return false;
        }
        model_thread_set_virtual(r->m, rd_thread_serial(serial), rd_thread_serial(carrier));
    }
    return true;
}

/* NATIVE: the classes that are native libraries or the kernel, and the JVM's own threads */
static bool rd_native(reader *r, buf_rd *b)
{
    uint32_t n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * (5 + 2 * r->idsize) > buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cserial = buf_get_u4(b);
        uint8_t code = buf_get_u1(b);
        uint64_t path = rd_id(r, b), build_id = rd_id(r, b);
        str_id cname = { rd_map_get(&r->class_names, cserial) };
        if (cname.v == 0) {
            snprintf(r->err, r->errlen, "NATIVE refers to an unknown class %u", cserial);
            return false;
        }
        if (code != MODEL_CODE_NATIVE && code != MODEL_CODE_KERNEL) {
            snprintf(r->err, r->errlen, "NATIVE: class %u has code %u (expected 1 a library or 2 the kernel)", cserial,
                     code);
            return false;
        }
        str_id p = path ? rd_known_string(r, path, "NATIVE") : (str_id){ 0 };
        str_id bid = build_id ? rd_known_string(r, build_id, "NATIVE") : (str_id){ 0 };
        if ((path && !p.v) || (build_id && !bid.v))
            return false;
        if (!model_class_intern_lib(r->m, cname, code, p, bid).v)
            return false;
    }
    n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * 4 != buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t serial = buf_get_u4(b);
        if (!model_thread_get(r->m, rd_thread_serial(serial))) {
            snprintf(r->err, r->errlen, "NATIVE refers to thread %u, which no START THREAD before it started", serial);
            return false;
        }
        model_thread_set_jvm_internal(r->m, rd_thread_serial(serial));
    }
    return true;
}

/* COUNTS: each name is kept as a model string, whose storage lives as long as the model */
static bool rd_counts(reader *r, buf_rd *b)
{
    uint32_t n = buf_get_u4(b);
    if (b->overrun || (uint64_t)n * 10 > buf_rd_left(b))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t len = buf_get_u2(b);
        const char *name = buf_get_bytes(b, len);
        uint64_t value = buf_get_u8(b);
        if (b->overrun)
            return false;
        str_id s = model_string(r->m, name ? name : "", len);
        if (s.v == 0)
            return false;
        if (!model_count_set(r->m, model_string_get(r->m, s, NULL), value)) {
            snprintf(r->err, r->errlen, "COUNTS: more than %u counts", MODEL_COUNTS_MAX);
            return false;
        }
    }
    return true;
}

static bool rd_record(reader *r, uint8_t tag, buf_rd *b, rd_saw *saw)
{
    model *m = r->m;
    switch (tag) {
    case HPROF_TAG_UTF8: {
        uint64_t id = rd_id(r, b);
        size_t n = buf_rd_left(b);
        const char *s = buf_get_bytes(b, n);
        if (b->overrun)
            return false;
        str_id sid = model_string(m, s ? s : "", n);
        return rd_map_set(&r->strings, id, sid.v);
    }
    case HPROF_TAG_LOAD_CLASS: {
        uint32_t serial = buf_get_u4(b);
        rd_id(r, b);
        buf_get_u4(b);
        uint64_t name = rd_id(r, b);
        if (b->overrun)
            return false;
        /* interned in the file's order, so a file we wrote gives back the class ids it was written with (the
         * source file comes with the class's first FRAME) */
        str_id dotted = rd_dotted(r, rd_string(r, name));
        if (dotted.v && !model_class_intern(m, dotted, (str_id){ 0 }).v)
            return false;
        return rd_map_set(&r->class_names, serial, dotted.v);
    }
    case HPROF_TAG_FRAME: {
        uint64_t fid = rd_id(r, b), mname = rd_id(r, b), msig = rd_id(r, b), src = rd_id(r, b);
        uint32_t cserial = buf_get_u4(b);
        int32_t line = (int32_t)buf_get_u4(b);
        if (b->overrun)
            return false;
        str_id cname = { rd_map_get(&r->class_names, cserial) };
        if (cname.v == 0)
            cname = model_cstring(m, "<unknown class>");
        class_id c = model_class_intern(m, cname, rd_string(r, src));
        method_id me = model_method_intern(m, c, rd_string(r, mname), rd_string(r, msig));
        frame_id f = model_frame_intern(m, me, line);
        return f.v && rd_map_set(&r->frames, fid, f.v);
    }
    case HPROF_TAG_TRACE: {
        uint32_t serial = buf_get_u4(b), thread = buf_get_u4(b), n = buf_get_u4(b);
        if (b->overrun || (uint64_t)n * r->idsize > buf_rd_left(b))
            return false;
        /* writers index tables by thread serial: bounded as in START THREAD */
        if (rd_thread_serial(thread) > r->file_len) {
            snprintf(r->err, r->errlen, "TRACE %u: thread serial %u out of range", serial, thread);
            return false;
        }
        frame_id *frames = malloc(((size_t)n + 1) * sizeof *frames);
        if (!frames)
            return false;
        for (uint32_t i = 0; i < n; i++) {
            frames[i].v = rd_map_get(&r->frames, rd_id(r, b));
            if (frames[i].v == 0) {
                free(frames);
                snprintf(r->err, r->errlen, "TRACE %u refers to an unknown FRAME", serial);
                return false;
            }
        }
        trace_id t = model_trace_intern(m, rd_thread_serial(thread), frames, n);
        free(frames);
        return t.v && rd_map_set(&r->traces, serial, t.v);
    }
    case HPROF_TAG_START_THREAD: {
        uint32_t serial = buf_get_u4(b);
        uint64_t obj = rd_id(r, b);
        buf_get_u4(b);
        uint64_t name = rd_id(r, b), group = rd_id(r, b), parent = rd_id(r, b);
        if (b->overrun)
            return false;
        /* threads are a table indexed by serial: a corrupt serial must not
         * make us allocate for a billion threads. Serials are dense, so a
         * file cannot name more threads than it has bytes. */
        if (rd_thread_serial(serial) > r->file_len) {
            snprintf(r->err, r->errlen, "START THREAD serial %u out of range", serial);
            return false;
        }
        model_thread_start(m, rd_thread_serial(serial), obj, rd_string(r, name), rd_string(r, group),
                           rd_string(r, parent));
        return true;
    }
    case HPROF_TAG_END_THREAD:
        model_thread_end(m, rd_thread_serial(buf_get_u4(b)));
        return !b->overrun;
    case HPROF_TAG_CONTROL_SETTINGS:
        buf_get_u4(b);
        m->depth = buf_get_u2(b);
        return !b->overrun;
    case HPROF_TAG_JVMPROF_SAMPLING: {
        uint32_t interval_us = buf_get_u4(b);
        uint8_t kind = buf_get_u1(b);
        if (b->overrun || kind > HPROF_SAMPLING_WALL)
            return false;
        m->interval_us = interval_us;
        m->wall = kind == HPROF_SAMPLING_WALL;
        return true;
    }
    case HPROF_TAG_CPU_SAMPLES: {
        buf_get_u4(b); /* total: recomputed from the rows */
        uint32_t n = buf_get_u4(b);
        if (b->overrun || (uint64_t)n * 8 > buf_rd_left(b))
            return false;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t count = buf_get_u4(b), serial = buf_get_u4(b);
            trace_id t = { rd_map_get(&r->traces, serial) };
            if (t.v == 0) {
                snprintf(r->err, r->errlen, "CPU SAMPLES refers to an unknown TRACE %u", serial);
                return false;
            }
            model_trace_add_samples(m, t, count);
        }
        saw->cpu = true;
        return true;
    }
    case HPROF_TAG_ALLOC_SITES: {
        uint16_t flags = buf_get_u2(b); /* jvmprof's 0x4000: counted per site; 0x8000: their sampled callers */
        buf_get_u4(b);                 /* cutoff */
        buf_get_u4(b);                 /* totals: recomputed from the sites */
        buf_get_u4(b);
        buf_get_u8(b);
        buf_get_u8(b);
        uint32_t n = buf_get_u4(b);
        if (b->overrun || (uint64_t)n * 25 > buf_rd_left(b))
            return false;
        for (uint32_t i = 0; i < n; i++) {
            uint8_t array = buf_get_u1(b);
            uint32_t cserial = buf_get_u4(b), tserial = buf_get_u4(b);
            uint32_t live_bytes = buf_get_u4(b), live_objs = buf_get_u4(b);
            uint32_t alloc_bytes = buf_get_u4(b), alloc_objs = buf_get_u4(b);
            trace_id t = { rd_map_get(&r->traces, tserial) };
            str_id cname = { rd_map_get(&r->class_names, cserial) };
            if (t.v == 0 || cname.v == 0) {
                snprintf(r->err, r->errlen, "ALLOC SITES refers to an unknown %s %u", t.v ? "class" : "TRACE",
                         t.v ? cserial : tserial);
                return false;
            }
            class_id cls = model_class_intern(m, cname, (str_id){ 0 });
            site_id site = (flags & 0x4000) ? model_site_intern_counted(m, t, cls, array != 0)
                                            : model_site_intern(m, t, cls, array != 0);
            model_site_alloc(m, site, live_objs, live_bytes, true);
            model_site_alloc(m, site, alloc_objs > live_objs ? alloc_objs - live_objs : 0,
                             alloc_bytes > live_bytes ? alloc_bytes - live_bytes : 0, false);
        }
        if (flags & 0x4000)
            m->sites_counted = true;
        saw->sites = true;
        return true;
    }
    case HPROF_TAG_JVMPROF_WALL_STATES:
        return rd_wall_states(r, b);
    case HPROF_TAG_JVMPROF_SAMPLE_TIMES:
        return rd_sample_times(r, b);
    case HPROF_TAG_JVMPROF_CPU_TIMES:
        return (saw->times = rd_cpu_times(r, b));
    case HPROF_TAG_JVMPROF_MONITORS:
        return (saw->monitors = rd_monitors(r, b));
    case HPROF_TAG_JVMPROF_COUNTS:
        return rd_counts(r, b);
    case HPROF_TAG_JVMPROF_VIRTUAL_THREADS:
        return rd_virtual_threads(r, b);
    case HPROF_TAG_JVMPROF_NATIVE:
        return rd_native(r, b);
    default:
        return true; /* records this reader does not model (heap dumps) */
    }
}

model *hprof_bin_read(const void *data, size_t len, report_opts *o, char *errbuf, size_t errlen)
{
    buf_rd b;
    buf_rd_init(&b, data, len);
    const char *magic = data;
    size_t mlen = len > 0 ? strnlen(magic, len < 64 ? len : 64) : 0;
    if (mlen == len || mlen == 64 ||
        (strcmp(magic, "JAVA PROFILE 1.0.1") != 0 && strcmp(magic, "JAVA PROFILE 1.0.2") != 0)) {
        snprintf(errbuf, errlen, "not an HPROF binary file (expected header \"JAVA PROFILE 1.0.1\" or \"1.0.2\")");
        return NULL;
    }
    buf_get_bytes(&b, mlen + 1);
    uint32_t idsize = buf_get_u4(&b);
    uint64_t start_ms = buf_get_u8(&b);
    if (b.overrun) {
        snprintf(errbuf, errlen, "truncated HPROF header");
        return NULL;
    }
    if (idsize != 4 && idsize != 8) {
        snprintf(errbuf, errlen, "unsupported HPROF identifier size %u (expected 4 or 8)", idsize);
        return NULL;
    }
    reader r = { 0 };
    r.m = model_new();
    if (!r.m) {
        snprintf(errbuf, errlen, "out of memory");
        return NULL;
    }
    r.idsize = idsize;
    r.file_len = len;
    r.err = errbuf;
    r.errlen = errlen;
    errbuf[0] = '\0';
    arena_init(&r.scratch);
    rd_map_init(&r.strings, &r.scratch);
    rd_map_init(&r.class_names, &r.scratch);
    rd_map_init(&r.frames, &r.scratch);
    rd_map_init(&r.traces, &r.scratch);
    r.m->start_time_ms = r.m->dump_time_ms = start_ms;
    *o = (report_opts){ 0.0001, false, false };

    rd_saw saw = { false, false, false, false };
    bool ok = true, saw_heap = false, first = true;
    while (ok && buf_rd_left(&b) > 0) {
        size_t off = len - buf_rd_left(&b);
        uint8_t tag = buf_get_u1(&b);
        uint32_t micros = buf_get_u4(&b), rlen = buf_get_u4(&b);
        const void *body = buf_get_bytes(&b, rlen);
        if (b.overrun) {
            snprintf(errbuf, errlen, "truncated record (tag 0x%02x) at offset %zu", tag, off);
            ok = false;
            break;
        }
        if (first) {
            r.m->dump_time_ms = start_ms + micros / 1000u;
            first = false;
        }
        buf_rd rb;
        buf_rd_init(&rb, body, rlen);
        saw_heap |= tag == 0x0c || tag == 0x1c; /* HEAP DUMP, HEAP DUMP SEGMENT */
        if (!rd_record(&r, tag, &rb, &saw)) {
            if (!errbuf[0])
                snprintf(errbuf, errlen, "malformed record (tag 0x%02x) at offset %zu", tag, off);
            ok = false;
        }
    }
    if (ok && r.m->oom) {
        snprintf(errbuf, errlen, "out of memory");
        ok = false;
    }
    if (ok && saw_heap && !saw.cpu && !saw.sites && !saw.times && !saw.monitors) {
        snprintf(errbuf, errlen, "a heap dump, not a profile: read it with jvmprof heap (a class histogram, or "
                                 "--text for HPROF's ASCII dump)");
        ok = false;
    }
    rd_map_free(&r.strings);
    rd_map_free(&r.class_names);
    rd_map_free(&r.frames);
    rd_map_free(&r.traces);
    arena_free(&r.scratch);
    if (!ok) {
        model_free(r.m);
        return NULL;
    }
    o->cpu_samples = saw.cpu;
    o->sites = saw.sites;
    o->cpu_times = saw.times;
    o->monitor = saw.monitors;
    return r.m;
}
