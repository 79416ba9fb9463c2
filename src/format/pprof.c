/* pprof.c — the report as a pprof profile (profile.proto, gzipped: what
 * go tool pprof, Pyroscope, Parca and Cloud Profiler read). Built from the
 * model's traces, as the HPROF report is, so its totals and top functions
 * are the report's: one sample per trace (CPU samples: samples and
 * nanoseconds; wall samples: the same per thread state, labelled; cpu=times:
 * calls and nanoseconds), per allocation site (alloc_objects, alloc_space,
 * inuse_objects, inuse_space, labelled with the class) and per monitor
 * (contentions and delay, labelled with the class and whether it blocked
 * or waited). A location is a trace frame (method and line); a function is
 * a method, named pkg.Class.method, its file the class's source file under
 * its package's directory. Traces of one thread (thread=y) are labelled
 * with its name. A native frame (C/C++, kernel) is a function named by its
 * symbol, its file the library's path, and its location is in the library's
 * Mapping (filename the path, the build id; the kernel's "[kernel.kallsyms]").
 * Samples of the JVM's own threads are labelled with their "thread kind".
 * A model with stacks and no traces (collapsed stacks read
 * back) gives one sample per stack instead, its frames methods without
 * lines, its thread and state frames labels. The protobuf is encoded here (a few dozen lines: no
 * library needed for writing it); zlib gzips it. */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../common/buf.h"

/* ---- protobuf: varints and length-delimited fields into a buf ---- */

static void pp_key(buf *b, unsigned field, unsigned wire) { buf_put_uleb(b, (uint64_t)field << 3 | wire); }

static void pp_uint(buf *b, unsigned field, uint64_t v)
{
    if (!v)
        return; /* proto3: zero is the default, not written */
    pp_key(b, field, 0);
    buf_put_uleb(b, v);
}

static void pp_bytes(buf *b, unsigned field, const void *p, size_t n)
{
    pp_key(b, field, 2);
    buf_put_uleb(b, n);
    buf_put(b, p, n);
}

/* A message field: the message m (built apart), length-prefixed. */
static void pp_message(buf *b, unsigned field, const buf *m) { pp_bytes(b, field, m->data, m->len); }

/* ---- the string table: model strings by id, and our own ---- */

typedef struct pp_ctx {
    const model *m;
    buf out;                     /* the Profile message */
    uint64_t nstrings;
    uint64_t *model_str;         /* [str id] -> our index, 0: not yet */
    uint64_t *function_of;       /* [method id] -> function id written, 0: not yet */
    uint64_t *location_of;       /* [frame id] -> location id written */
    uint64_t *method_location_of; /* stacks: [method id] -> location id (after the frames') */
    uint64_t *class_location_of;  /* stacks: [class id] -> location id of the allocated class (its function's
                                   * id follows the methods') */
    uint8_t *mapping_done;        /* [class id]: the Mapping of a library (id: the class id) is written */
    int ntypes;
    int col_samples, col_ns, col_calls, col_time, col_contentions, col_delay, col_alloc_objs, col_alloc_bytes,
        col_inuse_objs, col_inuse_bytes;
} pp_ctx;

static uint64_t pp_string(pp_ctx *c, const char *s, size_t n)
{
    pp_bytes(&c->out, 6, s, n);
    return c->nstrings++;
}

static uint64_t pp_cstring(pp_ctx *c, const char *s) { return pp_string(c, s, strlen(s)); }

static uint64_t pp_model_string(pp_ctx *c, str_id id)
{
    if (!id.v)
        return 0;
    if (!c->model_str[id.v]) {
        size_t n;
        const char *s = model_string_get(c->m, id, &n);
        c->model_str[id.v] = pp_string(c, s, n);
    }
    return c->model_str[id.v];
}

static void pp_value_type(pp_ctx *c, unsigned field, const char *type, const char *unit)
{
    buf v;
    buf_init(&v);
    pp_uint(&v, 1, pp_cstring(c, type));
    pp_uint(&v, 2, pp_cstring(c, unit));
    pp_message(&c->out, field, &v);
    buf_free(&v);
}

/* A sample type column, if the report holds it: its index, or -1. */
static int pp_column(pp_ctx *c, bool present, const char *type, const char *unit)
{
    if (!present)
        return -1;
    pp_value_type(c, 1, type, unit);
    return c->ntypes++;
}

/* ---- functions and locations ---- */

/* The Mapping of a native frame's library (or the kernel's, "[kernel.kallsyms]"): its id, the class id; 0
 * for a Java frame. Its filename is the library's path (its name when the path is unknown), its build id
 * the library's; has_functions, so pprof does not look for symbols in a file of this machine. */
static uint64_t pp_mapping(pp_ctx *c, method_id id)
{
    const model_method *mm = model_method_get(c->m, id);
    const model_class *mc = mm ? model_class_get(c->m, mm->cls) : NULL;
    if (!mc || mc->code == MODEL_CODE_JAVA)
        return 0;
    if (!c->mapping_done[mm->cls.v]) {
        buf mp;
        buf_init(&mp);
        pp_uint(&mp, 1, mm->cls.v);
        pp_uint(&mp, 5, pp_model_string(c, mc->path.v ? mc->path : mc->name));
        pp_uint(&mp, 6, pp_model_string(c, mc->build_id));
        pp_uint(&mp, 7, 1);
        pp_message(&c->out, 3, &mp);
        buf_free(&mp);
        c->mapping_done[mm->cls.v] = 1;
    }
    return mm->cls.v;
}

static uint64_t pp_function(pp_ctx *c, method_id id)
{
    if (c->function_of[id.v])
        return c->function_of[id.v];
    const model_method *mm = model_method_get(c->m, id);
    const model_class *mc = mm ? model_class_get(c->m, mm->cls) : NULL;
    if (mc && mc->code != MODEL_CODE_JAVA) { /* a native frame: the symbol, in the library's file */
        uint64_t sym = pp_model_string(c, mm->name);
        buf f;
        buf_init(&f);
        pp_uint(&f, 1, id.v);
        pp_uint(&f, 2, sym);
        pp_uint(&f, 3, sym);
        pp_uint(&f, 4, pp_model_string(c, mc->path.v ? mc->path : mc->name));
        pp_message(&c->out, 5, &f);
        buf_free(&f);
        return c->function_of[id.v] = id.v;
    }
    size_t cn = 0, mn = 0, sn = 0, fn = 0;
    const char *cls = mc ? model_string_get(c->m, mc->name, &cn) : "", *meth = mm ? model_string_get(c->m, mm->name, &mn)
                                                                                  : "?";
    const char *sig = mm && mm->sig.v ? model_string_get(c->m, mm->sig, &sn) : "";
    const char *src = mc && mc->source_file.v ? model_string_get(c->m, mc->source_file, &fn) : "";
    buf name, file;
    buf_init(&name);
    buf_init(&file);
    if (cn) {
        buf_put(&name, cls, cn);
        buf_put(&name, ".", 1);
    }
    buf_put(&name, meth, mn);
    if (fn) { /* java/util/HashMap.java: the package's directory and the source file */
        const char *dot = cn ? memrchr(cls, '.', cn) : NULL;
        for (size_t i = 0; dot && cls + i < dot; i++)
            buf_put(&file, cls[i] == '.' ? "/" : &cls[i], 1);
        if (dot)
            buf_put(&file, "/", 1);
        buf_put(&file, src, fn);
    }
    uint64_t name_ix = pp_string(c, (const char *)name.data, name.len);
    buf_put(&name, sig, sn);
    uint64_t system_ix = pp_string(c, (const char *)name.data, name.len);
    uint64_t file_ix = file.len ? pp_string(c, (const char *)file.data, file.len) : 0;
    buf f;
    buf_init(&f);
    pp_uint(&f, 1, id.v);
    pp_uint(&f, 2, name_ix);
    pp_uint(&f, 3, system_ix);
    pp_uint(&f, 4, file_ix);
    pp_message(&c->out, 5, &f);
    buf_free(&f);
    buf_free(&name);
    buf_free(&file);
    return c->function_of[id.v] = id.v;
}

static uint64_t pp_location(pp_ctx *c, frame_id id)
{
    if (c->location_of[id.v])
        return c->location_of[id.v];
    const model_frame *fr = model_frame_get(c->m, id);
    uint64_t fn = pp_function(c, fr->method), mapping = pp_mapping(c, fr->method);
    buf line, loc;
    buf_init(&line);
    buf_init(&loc);
    pp_uint(&line, 1, fn);
    pp_uint(&line, 2, fr->line > 0 ? (uint64_t)fr->line : 0);
    pp_uint(&loc, 1, id.v);
    pp_uint(&loc, 2, mapping);
    pp_message(&loc, 4, &line);
    pp_message(&c->out, 4, &loc);
    buf_free(&line);
    buf_free(&loc);
    return c->location_of[id.v] = id.v;
}

/* ---- samples ---- */

typedef struct pp_label { const char *key; uint64_t str; } pp_label;

static void pp_sample(pp_ctx *c, trace_id t, const int64_t *values, const pp_label *labels, int nlabels)
{
    model_trace tr = model_trace_get(c->m, t);
    uint64_t locs[1024];
    uint32_t n = tr.nframes < 1024 ? tr.nframes : 1024;
    for (uint32_t i = 0; i < n; i++)
        locs[i] = pp_location(c, tr.frames[i]);
    buf s, packed;
    buf_init(&s);
    buf_init(&packed);
    for (uint32_t i = 0; i < n; i++)
        buf_put_uleb(&packed, locs[i]);
    pp_message(&s, 1, &packed);
    packed.len = 0;
    for (int i = 0; i < c->ntypes; i++)
        buf_put_uleb(&packed, (uint64_t)values[i]);
    pp_message(&s, 2, &packed);
    uint64_t thread_key = 0, thread_name = 0, carrier_key = 0, carrier_name = 0;
    if (tr.thread && tr.thread <= c->m->threads_cap && c->m->threads[tr.thread - 1].name.v) {
        thread_key = pp_cstring(c, "thread");
        thread_name = pp_model_string(c, c->m->threads[tr.thread - 1].name);
        /* a thread of the JVM's own: its kind (gc, compiler, vm, jvm other), in the carrier's label slot
         * (a JVM thread is never virtual) */
        if (c->m->threads[tr.thread - 1].jvm_internal) {
            carrier_key = pp_cstring(c, "thread kind");
            carrier_name = pp_cstring(c, thread_kind_names[model_thread_kind(c->m, tr.thread)]);
        }
        /* a virtual thread's: the carrier it ran on */
        uint32_t carrier = c->m->threads[tr.thread - 1].carrier;
        if (carrier && carrier <= c->m->threads_cap && c->m->threads[carrier - 1].name.v) {
            carrier_key = pp_cstring(c, "carrier");
            carrier_name = pp_model_string(c, c->m->threads[carrier - 1].name);
        }
    }
    int nall = nlabels + (thread_key ? 1 : 0) + (carrier_key ? 1 : 0);
    for (int i = 0; i < nall; i++) {
        buf l;
        buf_init(&l);
        pp_uint(&l, 1, i < nlabels ? pp_cstring(c, labels[i].key) : i == nlabels ? thread_key : carrier_key);
        pp_uint(&l, 2, i < nlabels ? labels[i].str : i == nlabels ? thread_name : carrier_name);
        pp_message(&s, 3, &l);
        buf_free(&l);
    }
    pp_message(&c->out, 2, &s);
    buf_free(&s);
    buf_free(&packed);
}

/* ---- the sampled stacks (a model read from collapsed stacks has them and no traces) ---- */

static uint64_t pp_method_location(pp_ctx *c, uint32_t method)
{
    if (!c->method_location_of[method]) {
        uint64_t id = (uint64_t)model_frame_count(c->m) + method, fn = pp_function(c, (method_id){ method });
        uint64_t mapping = pp_mapping(c, (method_id){ method });
        buf line, loc;
        buf_init(&line);
        buf_init(&loc);
        pp_uint(&line, 1, fn);
        pp_uint(&loc, 1, id);
        pp_uint(&loc, 2, mapping);
        pp_message(&loc, 4, &line);
        pp_message(&c->out, 4, &loc);
        buf_free(&line);
        buf_free(&loc);
        c->method_location_of[method] = id;
    }
    return c->method_location_of[method];
}

static uint64_t pp_class_location(pp_ctx *c, uint32_t cls)
{
    if (!c->class_location_of[cls]) {
        uint64_t fn = (uint64_t)intern_count(&c->m->methods) + cls;
        uint64_t id = (uint64_t)model_frame_count(c->m) + intern_count(&c->m->methods) + cls;
        const model_class *mc = model_class_get(c->m, (class_id){ cls });
        buf f, line, loc;
        buf_init(&f);
        buf_init(&line);
        buf_init(&loc);
        uint64_t name = mc ? pp_model_string(c, mc->name) : 0;
        pp_uint(&f, 1, fn);
        pp_uint(&f, 2, name);
        pp_uint(&f, 3, name);
        pp_message(&c->out, 5, &f);
        pp_uint(&line, 1, fn);
        pp_uint(&loc, 1, id);
        pp_message(&loc, 4, &line);
        pp_message(&c->out, 4, &loc);
        buf_free(&f);
        buf_free(&line);
        buf_free(&loc);
        c->class_location_of[cls] = id;
    }
    return c->class_location_of[cls];
}

static jp_status pp_stack(const collapsed_frame *frames, uint32_t n, uint64_t count, void *vctx)
{
    pp_ctx *c = vctx;
    buf s, locs, values;
    buf_init(&s);
    buf_init(&locs);
    buf_init(&values);
    uint64_t thread_key = 0, thread_val = 0, state_key = 0, state_val = 0, carrier_key = 0, carrier_val = 0;
    for (uint32_t i = n; i-- > 0;) { /* leaf first */
        const collapsed_frame *f = &frames[i];
        if (f->kind == COLLAPSED_KIND_THREAD) {
            thread_key = pp_cstring(c, "thread");
            const model *m = c->m;
            str_id name = f->ref && f->ref <= m->threads_cap ? m->threads[f->ref - 1].name : (str_id){ 0 };
            char num[32];
            snprintf(num, sizeof num, "thread %u", f->ref);
            thread_val = name.v ? pp_model_string(c, name) : pp_cstring(c, num);
            /* a virtual thread's: the carrier it ran on */
            uint32_t carrier = f->ref && f->ref <= m->threads_cap ? m->threads[f->ref - 1].carrier : 0;
            if (carrier && carrier <= m->threads_cap && m->threads[carrier - 1].name.v) {
                carrier_key = pp_cstring(c, "carrier");
                carrier_val = pp_model_string(c, m->threads[carrier - 1].name);
            } else if (f->ref && f->ref <= m->threads_cap && m->threads[f->ref - 1].jvm_internal) {
                carrier_key = pp_cstring(c, "thread kind"); /* the JVM's own thread: its kind */
                carrier_val = pp_cstring(c, thread_kind_names[model_thread_kind(m, f->ref)]);
            }
        } else if (f->kind == COLLAPSED_KIND_STATE) {
            state_key = pp_cstring(c, "thread state");
            state_val = pp_cstring(c, f->ref < SAMPLE_STATES ? sample_state_names[f->ref] : "unknown");
        } else if (f->kind == COLLAPSED_KIND_CLASS) {
            buf_put_uleb(&locs, pp_class_location(c, f->ref));
        } else if (f->ref) {
            buf_put_uleb(&locs, pp_method_location(c, f->ref));
        }
    }
    pp_message(&s, 1, &locs);
    if (c->col_samples >= 0)
        buf_put_uleb(&values, count);
    if (c->col_ns >= 0)
        buf_put_uleb(&values, c->m->stacks_ns ? count : count * (uint64_t)c->m->interval_us * 1000u);
    if (c->col_alloc_bytes >= 0)
        buf_put_uleb(&values, count);
    pp_message(&s, 2, &values);
    for (int i = 0; i < 3; i++) {
        uint64_t k = i == 2 ? carrier_key : i ? state_key : thread_key;
        uint64_t v = i == 2 ? carrier_val : i ? state_val : thread_val;
        if (!k)
            continue;
        buf l;
        buf_init(&l);
        pp_uint(&l, 1, k);
        pp_uint(&l, 2, v);
        pp_message(&s, 3, &l);
        buf_free(&l);
    }
    pp_message(&c->out, 2, &s);
    buf_free(&s);
    buf_free(&locs);
    buf_free(&values);
    return c->out.failed ? JP_ERR_NOMEM : JP_OK;
}

/* The stacks' profile: samples (and their time, when the interval is known), exact nanoseconds (a trace's
 * call tree), or bytes allocated (allocation stacks). */
static jp_status pp_build_stacks(pp_ctx *c)
{
    const model *m = c->m;
    c->col_samples = c->col_ns = c->col_alloc_bytes = -1;
    if (m->stacks_alloc) {
        c->col_alloc_bytes = pp_column(c, true, "alloc_space", "bytes");
    } else if (m->stacks_ns) {
        c->col_ns = pp_column(c, true, "cpu", "nanoseconds");
    } else {
        c->col_samples = pp_column(c, true, "samples", "count");
        c->col_ns = pp_column(c, m->interval_us != 0, m->wall ? "wall" : "cpu", "nanoseconds");
    }
    jp_status st = stack_walk(m, pp_stack, c);
    if (st == JP_OK && c->col_samples >= 0 && c->col_ns >= 0) {
        pp_value_type(c, 11, m->wall ? "wall" : "cpu", "nanoseconds");
        pp_uint(&c->out, 12, (uint64_t)m->interval_us * 1000u);
    }
    return st != JP_OK ? st : c->out.failed ? JP_ERR_NOMEM : JP_OK;
}

static int64_t pp_round(double v) { return v <= 0 ? 0 : (int64_t)(v + 0.5); }

static jp_status pp_build(pp_ctx *c, const report_opts *o)
{
    const model *m = c->m;
    pp_cstring(c, ""); /* index 0 is "" */
    if (!model_trace_count(m) && model_stack_count(m)) /* collapsed stacks: no traces, only stacks */
        return pp_build_stacks(c);
    bool samples = o->cpu_samples && m->total_samples, times = o->cpu_times && m->total_time_ns;
    bool monitors = o->monitor && model_monitor_count(m), sites = o->sites && model_site_count(m);
    uint64_t period_ns = (uint64_t)m->interval_us * 1000u;
    /* the samples' time only when the interval is known (a binary report of another producer has none): a
     * column of zeros would be the default view, an empty profile */
    c->col_samples = pp_column(c, samples, "samples", "count");
    c->col_ns = pp_column(c, samples && period_ns, m->wall ? "wall" : "cpu", "nanoseconds");
    c->col_calls = pp_column(c, times, "calls", "count");
    c->col_time = pp_column(c, times, "cpu", "nanoseconds");
    c->col_contentions = pp_column(c, monitors, "contentions", "count");
    c->col_delay = pp_column(c, monitors, "delay", "nanoseconds");
    c->col_alloc_objs = pp_column(c, sites, "alloc_objects", "count");
    c->col_alloc_bytes = pp_column(c, sites, "alloc_space", "bytes");
    c->col_inuse_objs = pp_column(c, sites, "inuse_objects", "count");
    c->col_inuse_bytes = pp_column(c, sites, "inuse_space", "bytes");
    int64_t values[10];
    for (uint32_t i = 1; samples && i <= model_trace_count(m); i++) {
        trace_id t = { i };
        for (int st = 0; st < (m->wall ? SAMPLE_STATES : 1); st++) {
            uint64_t n = m->wall ? model_trace_state_samples(m, t, (sample_state)st) : model_trace_samples(m, t);
            if (!n)
                continue;
            memset(values, 0, sizeof values);
            values[c->col_samples] = (int64_t)n;
            if (c->col_ns >= 0)
                values[c->col_ns] = (int64_t)(n * period_ns);
            pp_label state = { "thread state", m->wall ? pp_cstring(c, sample_state_names[st]) : 0 };
            pp_sample(c, t, values, &state, m->wall ? 1 : 0);
        }
    }
    for (uint32_t i = 1; times && i <= model_trace_count(m); i++) {
        trace_id t = { i };
        uint64_t ns = model_trace_time_ns(m, t), calls = model_trace_calls(m, t);
        if (!ns && !calls)
            continue;
        memset(values, 0, sizeof values);
        values[c->col_calls] = (int64_t)calls;
        values[c->col_time] = (int64_t)ns;
        pp_sample(c, t, values, NULL, 0);
    }
    for (uint32_t i = 1; monitors && i <= model_monitor_count(m); i++) {
        const model_monitor *mo = model_monitor_get(m, (monitor_id){ i });
        if (!mo || (!mo->count && !mo->time_ns))
            continue;
        memset(values, 0, sizeof values);
        values[c->col_contentions] = (int64_t)mo->count;
        values[c->col_delay] = (int64_t)mo->time_ns;
        pp_label labels[2] = { { "monitor class", pp_model_string(c, mo->class_name) },
                               { "monitor", pp_cstring(c, mo->kind == MONITOR_BLOCKED ? "blocked" : "waiting") } };
        pp_sample(c, mo->trace, values, labels, 2);
    }
    for (uint32_t i = 1; sites && i <= model_site_count(m); i++) {
        const model_site *si = model_site_get(m, (site_id){ i });
        if (!si || (si->alloc_objs <= 0 && si->live_objs <= 0) || si->counted != m->sites_counted)
            continue; /* alloc_count=site: the exact sites, not their sampled callers */
        memset(values, 0, sizeof values);
        values[c->col_alloc_objs] = pp_round(si->alloc_objs);
        values[c->col_alloc_bytes] = pp_round(si->alloc_bytes);
        values[c->col_inuse_objs] = pp_round(si->live_objs);
        values[c->col_inuse_bytes] = pp_round(si->live_bytes);
        const model_class *mc = model_class_get(m, si->cls);
        pp_label cls = { "class", mc ? pp_model_string(c, mc->name) : 0 };
        pp_sample(c, si->trace, values, &cls, 1);
    }
    /* when, for how long, and the sampling period */
    if (m->start_time_ms) {
        pp_key(&c->out, 9, 0);
        buf_put_uleb(&c->out, m->start_time_ms * 1000000u);
    }
    if (m->dump_time_ms > m->start_time_ms && m->start_time_ms)
        pp_uint(&c->out, 10, (m->dump_time_ms - m->start_time_ms) * 1000000u);
    if (samples && period_ns) {
        pp_value_type(c, 11, m->wall ? "wall" : "cpu", "nanoseconds");
        pp_uint(&c->out, 12, period_ns);
    }
    if (c->ntypes)
        pp_uint(&c->out, 14, pp_cstring(c, samples ? (!period_ns ? "samples" : m->wall ? "wall" : "cpu")
                                           : times    ? "cpu"
                                           : monitors ? "delay"
                                                      : "alloc_space"));
    return c->out.failed ? JP_ERR_NOMEM : JP_OK;
}

/* The Profile message gzipped to the sink. */
static jp_status pp_gzip(const buf *in, sink *s)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return JP_ERR_NOMEM;
    unsigned char chunk[65536];
    z.next_in = in->data;
    z.avail_in = (uInt)in->len;
    int rc;
    do {
        z.next_out = chunk;
        z.avail_out = sizeof chunk;
        rc = deflate(&z, Z_FINISH);
        if (rc == Z_STREAM_ERROR)
            break;
        sink_write(s, chunk, sizeof chunk - z.avail_out);
    } while (rc != Z_STREAM_END);
    deflateEnd(&z);
    return rc == Z_STREAM_END ? sink_status(s) : JP_ERR_NOMEM;
}

static jp_status pp_write(const model *m, const report_opts *o, sink *s)
{
    pp_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    buf_init(&c.out);
    c.model_str = calloc((size_t)model_string_count(m) + 1, sizeof *c.model_str);
    c.function_of = calloc((size_t)intern_count(&m->methods) + 1, sizeof *c.function_of);
    c.location_of = calloc((size_t)model_frame_count(m) + 1, sizeof *c.location_of);
    c.method_location_of = calloc((size_t)intern_count(&m->methods) + 1, sizeof *c.method_location_of);
    c.class_location_of = calloc((size_t)model_class_count(m) + 1, sizeof *c.class_location_of);
    c.mapping_done = calloc((size_t)model_class_count(m) + 1, 1);
    jp_status st = c.model_str && c.function_of && c.location_of && c.method_location_of && c.class_location_of &&
                           c.mapping_done
                       ? pp_build(&c, o)
                       : JP_ERR_NOMEM;
    if (st == JP_OK)
        st = pp_gzip(&c.out, s);
    free(c.model_str);
    free(c.function_of);
    free(c.location_of);
    free(c.method_location_of);
    free(c.class_location_of);
    free(c.mapping_done);
    buf_free(&c.out);
    return st;
}

static void pp_summary(const model *m, char *out, size_t len)
{
    hprof_summary(m, out, len);
}

const jp_format_ops pprof_format = {
    "pprof", "pprof=", "the pprof format (profile.proto, gzipped)",
    FMT_CPU_SAMPLES | FMT_WALL_SAMPLES | FMT_CPU_TIMES | FMT_MONITORS | FMT_SITES, pp_write, pp_summary,
};
