/* jfr.c — the report as a JDK Flight Recorder file (one chunk, format 2.0:
 * what the JDK's jfr tool and JDK Mission Control read). Built from the
 * model's traces, as the HPROF report is: each CPU sample of a trace is a
 * jdk.ExecutionSample (wall samples too, with the thread's state), each
 * allocation site one jdk.ObjectAllocationSample whose weight is its bytes
 * allocated, each monitor row one jdk.JavaMonitorEnter (blocked) or
 * jdk.JavaMonitorWait (waiting) lasting its whole time, except the time
 * virtual threads were pinned (collect_monitor.c's "<pinned>"): one
 * jdk.VirtualThreadPinned per wait, on the virtual thread and its carrier. Samples the agent
 * kept with their times (jfr=: model sample_times, bounded) are at the time
 * they were taken; the others (past the bound, or a report read back, which
 * counts samples and does not time them) are spread evenly over the
 * recording, in trace order. A native frame (C/C++, kernel) is of frame type
 * "Native", its class the library ("libc.so.6", "kernel"; its package the
 * library's path), its method the symbol (descriptor "()V"); wall samples in native code are jdk.NativeMethodSample events; a
 * thread of the JVM's own has no Java name or id. Stack traces, methods, classes, packages,
 * symbols, threads and states are in one checkpoint's constant pools, the
 * event types in the metadata, both written here byte by byte (LEB128
 * integers, strings as UTF-8 with their length). */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/arena.h"
#include "../common/buf.h"
#include "../common/id_table.h"
#include "../common/intern.h"
#include "../trace/trace_file.h"

enum {
    JT_METADATA = 0, JT_CPOOL = 1,
    JT_BOOLEAN = 4, JT_CHAR, JT_FLOAT, JT_DOUBLE, JT_BYTE, JT_SHORT, JT_INT, JT_LONG,
    JT_STRING = 20, JT_CLASS, JT_THREAD, JT_CLASS_LOADER, JT_FRAME_TYPE, JT_THREAD_STATE, JT_STACK_TRACE,
    JT_STACK_FRAME, JT_METHOD, JT_PACKAGE, JT_SYMBOL,
    JT_EVENT = 100, JT_EXECUTION_SAMPLE, JT_ALLOCATION_SAMPLE, JT_MONITOR_ENTER, JT_MONITOR_WAIT,
    JT_GARBAGE_COLLECTION, JT_THREAD_START, JT_THREAD_END, JT_NATIVE_SAMPLE, JT_VTHREAD_PINNED,
    JT_ANNOTATION = 200, JT_LABEL, JT_CATEGORY, JT_CONTENT_TYPE, JT_TIMESTAMP, JT_TIMESPAN, JT_DATA_AMOUNT,
    JT_UNSIGNED,
};
enum { JF_CPOOL = 1, JF_ARRAY = 2, JF_TICKS = 4, JF_SPAN = 8, JF_BYTES = 16, JF_NANOS = 32 };

/* ---- encodings ---- */

/* An integer as JFR reads one: 7 bits a byte, low first, as in LEB128, but
 * the ninth byte (if any) holds the top 8 bits whole. The same bytes as
 * LEB128 below 2^56; above (a trace's thread or object ids may be), LEB128's
 * ten bytes made the file unreadable. */
static void jw_long(buf *b, uint64_t v)
{
    unsigned char t[9];
    size_t n = 0;
    while (n < 8 && v >= 0x80) {
        t[n++] = (unsigned char)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    t[n++] = (unsigned char)v;
    buf_put(b, t, n);
}

/* v as a 5-byte LEB128 at b->data + at (room kept for it): an event's size, known at its end. */
static void jw_var5_at(buf *b, size_t at, uint32_t v)
{
    if (b->failed)
        return;
    for (int i = 0; i < 5; i++, v >>= 7)
        b->data[at + (size_t)i] = (unsigned char)((v & 0x7f) | (i < 4 ? 0x80 : 0));
}

static size_t jw_skip5(buf *b)
{
    size_t at = b->len;
    buf_put(b, "\0\0\0\0\0", 5);
    return at;
}

static void jw_string(buf *b, const char *s, size_t n)
{
    buf_put_u1(b, 3); /* UTF-8 */
    jw_long(b, n);
    buf_put(b, s, n);
}

static void jw_cstring(buf *b, const char *s) { jw_string(b, s, strlen(s)); }

/* ---- metadata: strings, then the element tree ---- */

typedef struct jw_meta {
    const char **strs;
    size_t n, cap;
    buf *out;                     /* NULL: the first pass, which only collects strings */
} jw_meta;

static uint32_t jw_sid(jw_meta *m, const char *s)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->strs[i], s))
            return (uint32_t)i;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 128;
        const char **p = realloc(m->strs, cap * sizeof *p);
        if (!p)
            return 0;
        m->strs = p;
        m->cap = cap;
    }
    m->strs[m->n] = s;
    return (uint32_t)m->n++;
}

/* An element: its name, attributes (key, value pairs, NULL-ended), and its number of children (which follow). */
static void jw_element(jw_meta *m, const char *name, const char *const *attrs, unsigned children)
{
    unsigned nattrs = 0;
    while (attrs && attrs[2 * nattrs])
        nattrs++;
    uint32_t ids[2 * 8 + 1];
    ids[0] = jw_sid(m, name);
    for (unsigned i = 0; i < 2 * nattrs && i < 16; i++)
        ids[1 + i] = jw_sid(m, attrs[i]);
    if (!m->out)
        return;
    jw_long(m->out, ids[0]);
    jw_long(m->out, nattrs);
    for (unsigned i = 0; i < 2 * nattrs; i++)
        jw_long(m->out, ids[1 + i]);
    jw_long(m->out, children);
}

static const char *jw_num(int v)
{
    static char nums[256][8];
    snprintf(nums[v & 255], sizeof nums[0], "%d", v);
    return nums[v & 255];
}

static void jw_annotation(jw_meta *m, int type, const char *value)
{
    const char *a[] = { "class", jw_num(type), value ? "value" : NULL, value, NULL };
    jw_element(m, "annotation", a, 0);
}

/* A field: name, type, JF_* flags, label. */
typedef struct jw_field { const char *name; int type; unsigned flags; const char *label; } jw_field;

static void jw_field_el(jw_meta *m, const jw_field *f)
{
    const char *a[8] = { "name", f->name, "class", jw_num(f->type) };
    int k = 4;
    if (f->flags & JF_CPOOL) {
        a[k++] = "constantPool";
        a[k++] = "true";
    }
    if (f->flags & JF_ARRAY) {
        a[k++] = "dimension";
        a[k++] = "1";
    }
    a[k] = NULL;
    unsigned children = (f->label ? 1 : 0) + ((f->flags & (JF_TICKS | JF_SPAN | JF_NANOS)) ? 1 : 0) +
                        ((f->flags & JF_BYTES) ? 2 : 0);
    jw_element(m, "field", a, children);
    if (f->label)
        jw_annotation(m, JT_LABEL, f->label);
    if (f->flags & JF_TICKS)
        jw_annotation(m, JT_TIMESTAMP, "TICKS");
    if (f->flags & JF_SPAN)
        jw_annotation(m, JT_TIMESPAN, "TICKS");
    if (f->flags & JF_NANOS)
        jw_annotation(m, JT_TIMESPAN, "NANOSECONDS");
    if (f->flags & JF_BYTES) {
        jw_annotation(m, JT_UNSIGNED, NULL);
        jw_annotation(m, JT_DATA_AMOUNT, "BYTES");
    }
}

/* A class: name, id, label, whether simple, its category (events), fields. */
static void jw_class(jw_meta *m, const char *name, int id, const char *label, bool simple, const char *category,
                     const jw_field *fields, unsigned nfields)
{
    const char *a[8] = { "name", name, "id", jw_num(id) };
    int k = 4;
    if (simple) {
        a[k++] = "simpleType";
        a[k++] = "true";
    } else if (id > JT_ANNOTATION) {
        a[k++] = "superType";
        a[k++] = "java.lang.annotation.Annotation";
    } else if (id > JT_EVENT) {
        a[k++] = "superType";
        a[k++] = "jdk.jfr.Event";
    }
    a[k] = NULL;
    jw_element(m, "class", a, (label ? 1 : 0) + (category ? 1 : 0) + nfields);
    if (label)
        jw_annotation(m, JT_LABEL, label);
    if (category) {
        const char *c[] = { "class", jw_num(JT_CATEGORY), "value-0", "Java Application", "value-1", category, NULL };
        jw_element(m, "annotation", c, 0);
    }
    for (unsigned i = 0; i < nfields; i++)
        jw_field_el(m, &fields[i]);
}

#define JW_N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

static void jw_tree(jw_meta *m)
{
    static const jw_field value[] = { { "value", JT_STRING, 0, NULL } };
    static const jw_field values[] = { { "value", JT_STRING, JF_ARRAY, NULL } };
    static const jw_field cls[] = { { "classLoader", JT_CLASS_LOADER, JF_CPOOL, "Class Loader" },
                                    { "name", JT_SYMBOL, JF_CPOOL, "Name" },
                                    { "package", JT_PACKAGE, JF_CPOOL, "Package" },
                                    { "modifiers", JT_INT, 0, "Access Modifiers" } };
    static const jw_field thread[] = { { "osName", JT_STRING, 0, "OS Thread Name" },
                                       { "osThreadId", JT_LONG, 0, "OS Thread Id" },
                                       { "javaName", JT_STRING, 0, "Java Thread Name" },
                                       { "javaThreadId", JT_LONG, 0, "Java Thread Id" },
                                       { "virtual", JT_BOOLEAN, 0, "Virtual Thread" } };
    static const jw_field loader[] = { { "type", JT_CLASS, JF_CPOOL, "Type" }, { "name", JT_SYMBOL, JF_CPOOL, "Name" } };
    static const jw_field description[] = { { "description", JT_STRING, 0, "Description" } };
    static const jw_field state_name[] = { { "name", JT_STRING, 0, "Name" } };
    static const jw_field trace[] = { { "truncated", JT_BOOLEAN, 0, "Truncated" },
                                      { "frames", JT_STACK_FRAME, JF_ARRAY, "Stack Frames" } };
    static const jw_field frame[] = { { "method", JT_METHOD, JF_CPOOL, "Java Method" },
                                      { "lineNumber", JT_INT, 0, "Line Number" },
                                      { "bytecodeIndex", JT_INT, 0, "Bytecode Index" },
                                      { "type", JT_FRAME_TYPE, JF_CPOOL, "Frame Type" } };
    static const jw_field method[] = { { "type", JT_CLASS, JF_CPOOL, "Type" }, { "name", JT_SYMBOL, JF_CPOOL, "Name" },
                                       { "descriptor", JT_SYMBOL, JF_CPOOL, "Descriptor" },
                                       { "modifiers", JT_INT, 0, "Access Modifiers" },
                                       { "hidden", JT_BOOLEAN, 0, "Hidden" } };
    static const jw_field package[] = { { "name", JT_SYMBOL, JF_CPOOL, "Name" } };
    static const jw_field symbol[] = { { "string", JT_STRING, 0, "String" } };
    static const jw_field sample[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                       { "sampledThread", JT_THREAD, JF_CPOOL, "Thread" },
                                       { "stackTrace", JT_STACK_TRACE, JF_CPOOL, "Stack Trace" },
                                       { "state", JT_THREAD_STATE, JF_CPOOL, "Thread State" } };
    static const jw_field alloc[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                      { "eventThread", JT_THREAD, JF_CPOOL, "Event Thread" },
                                      { "stackTrace", JT_STACK_TRACE, JF_CPOOL, "Stack Trace" },
                                      { "objectClass", JT_CLASS, JF_CPOOL, "Object Class" },
                                      { "weight", JT_LONG, JF_BYTES, "Sample Weight" } };
    static const jw_field enter[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                      { "duration", JT_LONG, JF_SPAN, "Duration" },
                                      { "eventThread", JT_THREAD, JF_CPOOL, "Event Thread" },
                                      { "stackTrace", JT_STACK_TRACE, JF_CPOOL, "Stack Trace" },
                                      { "monitorClass", JT_CLASS, JF_CPOOL, "Monitor Class" },
                                      { "previousOwner", JT_THREAD, JF_CPOOL, "Previous Monitor Owner" },
                                      { "address", JT_LONG, 0, "Monitor Address" } };
    static const jw_field wait[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                     { "duration", JT_LONG, JF_SPAN, "Duration" },
                                     { "eventThread", JT_THREAD, JF_CPOOL, "Event Thread" },
                                     { "stackTrace", JT_STACK_TRACE, JF_CPOOL, "Stack Trace" },
                                     { "monitorClass", JT_CLASS, JF_CPOOL, "Monitor Class" },
                                     { "notifier", JT_THREAD, JF_CPOOL, "Notifier Thread" },
                                     { "timeout", JT_LONG, 0, "Timeout" },
                                     { "timedOut", JT_BOOLEAN, 0, "Timed Out" },
                                     { "address", JT_LONG, 0, "Monitor Address" } };
    static const jw_field gc[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                   { "duration", JT_LONG, JF_SPAN, "Duration" },
                                   { "gcId", JT_INT, 0, "GC Identifier" },
                                   { "name", JT_STRING, 0, "Name" },
                                   { "cause", JT_STRING, 0, "When" },
                                   { "sumOfPauses", JT_LONG, JF_NANOS, "Sum of Pauses" },
                                   { "longestPause", JT_LONG, JF_NANOS, "Longest Pause" } };
    static const jw_field tstart[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                       { "eventThread", JT_THREAD, JF_CPOOL, "Event Thread" },
                                       { "thread", JT_THREAD, JF_CPOOL, "New Java Thread" },
                                       { "parentThread", JT_THREAD, JF_CPOOL, "Parent Java Thread" } };
    static const jw_field tend[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                     { "eventThread", JT_THREAD, JF_CPOOL, "Event Thread" },
                                     { "thread", JT_THREAD, JF_CPOOL, "Java Thread" } };
    static const jw_field pinned[] = { { "startTime", JT_LONG, JF_TICKS, "Start Time" },
                                       { "duration", JT_LONG, JF_SPAN, "Duration" },
                                       { "eventThread", JT_THREAD, JF_CPOOL, "Event Thread" },
                                       { "stackTrace", JT_STACK_TRACE, JF_CPOOL, "Stack Trace" },
                                       { "carrierThread", JT_THREAD, JF_CPOOL, "Carrier Thread" } };
    static const struct { const char *name; int id; } primitives[] = {
        { "boolean", JT_BOOLEAN }, { "char", JT_CHAR }, { "float", JT_FLOAT }, { "double", JT_DOUBLE },
        { "byte", JT_BYTE }, { "short", JT_SHORT }, { "int", JT_INT }, { "long", JT_LONG }, { "java.lang.String", JT_STRING },
    };
    jw_element(m, "root", NULL, 2);
    jw_element(m, "metadata", NULL, JW_N(primitives) + 26);
    for (unsigned i = 0; i < JW_N(primitives); i++)
        jw_class(m, primitives[i].name, primitives[i].id, NULL, false, NULL, NULL, 0);
    jw_class(m, "java.lang.Class", JT_CLASS, "Java Class", false, NULL, cls, JW_N(cls));
    jw_class(m, "java.lang.Thread", JT_THREAD, "Thread", false, NULL, thread, JW_N(thread));
    jw_class(m, "jdk.types.ClassLoader", JT_CLASS_LOADER, "Java Class Loader", false, NULL, loader, JW_N(loader));
    jw_class(m, "jdk.types.FrameType", JT_FRAME_TYPE, "Frame type", true, NULL, description, 1);
    jw_class(m, "jdk.types.ThreadState", JT_THREAD_STATE, "Java Thread State", true, NULL, state_name, 1);
    jw_class(m, "jdk.types.StackTrace", JT_STACK_TRACE, "Stacktrace", false, NULL, trace, JW_N(trace));
    jw_class(m, "jdk.types.StackFrame", JT_STACK_FRAME, NULL, false, NULL, frame, JW_N(frame));
    jw_class(m, "jdk.types.Method", JT_METHOD, "Java Method", false, NULL, method, JW_N(method));
    jw_class(m, "jdk.types.Package", JT_PACKAGE, "Package", false, NULL, package, 1);
    jw_class(m, "jdk.types.Symbol", JT_SYMBOL, "Symbol", true, NULL, symbol, 1);
    jw_class(m, "jdk.ExecutionSample", JT_EXECUTION_SAMPLE, "Method Profiling Sample", false, "Profiling", sample,
             JW_N(sample));
    jw_class(m, "jdk.ObjectAllocationSample", JT_ALLOCATION_SAMPLE, "Object Allocation Sample", false, "Allocation",
             alloc, JW_N(alloc));
    jw_class(m, "jdk.JavaMonitorEnter", JT_MONITOR_ENTER, "Java Monitor Blocked", false, "Locking", enter,
             JW_N(enter));
    jw_class(m, "jdk.JavaMonitorWait", JT_MONITOR_WAIT, "Java Monitor Wait", false, "Locking", wait, JW_N(wait));
    jw_class(m, "jdk.GarbageCollection", JT_GARBAGE_COLLECTION, "Garbage Collection", false, "Garbage Collector",
             gc, JW_N(gc));
    jw_class(m, "jdk.ThreadStart", JT_THREAD_START, "Java Thread Start", false, "Threads", tstart, JW_N(tstart));
    jw_class(m, "jdk.ThreadEnd", JT_THREAD_END, "Java Thread End", false, "Threads", tend, JW_N(tend));
    jw_class(m, "jdk.NativeMethodSample", JT_NATIVE_SAMPLE, "Method Profiling Sample Native", false, "Profiling",
             sample, JW_N(sample));
    jw_class(m, "jdk.VirtualThreadPinned", JT_VTHREAD_PINNED, "Virtual Thread Pinned", false, "Threading", pinned,
             JW_N(pinned));
    jw_class(m, "jdk.jfr.Label", JT_LABEL, NULL, false, NULL, value, 1);
    jw_class(m, "jdk.jfr.Category", JT_CATEGORY, NULL, false, NULL, values, 1);
    jw_class(m, "jdk.jfr.ContentType", JT_CONTENT_TYPE, "Content Type", false, NULL, NULL, 0);
    jw_class(m, "jdk.jfr.Timestamp", JT_TIMESTAMP, "Timestamp", false, NULL, value, 1);
    jw_class(m, "jdk.jfr.Timespan", JT_TIMESPAN, "Timespan", false, NULL, value, 1);
    jw_class(m, "jdk.jfr.DataAmount", JT_DATA_AMOUNT, "Data Amount", false, NULL, value, 1);
    jw_class(m, "jdk.jfr.Unsigned", JT_UNSIGNED, "Unsigned Value", false, NULL, NULL, 0);
    const char *region[] = { "locale", "en_US", "gmtOffset", "0", NULL };
    jw_element(m, "region", region, 0);
}

/* An event's start: its size (5 bytes, set at its end) and type. */
static size_t jw_event_begin(buf *b, int type)
{
    size_t at = jw_skip5(b);
    jw_long(b, (uint64_t)type);
    return at;
}

static void jw_event_end(buf *b, size_t at) { jw_var5_at(b, at, (uint32_t)(b->len - at)); }

/* The chunk's header (its figures set by jw_chunk_end) and the metadata event. */
static void jw_chunk_begin(buf *b, jw_meta *meta)
{
    buf_put(b, "FLR\0", 4);
    buf_put_u2(b, 2);
    buf_put_u2(b, 0);
    for (int i = 0; i < 7; i++)
        buf_put_u8(b, 0);
    buf_put_u4(b, 3); /* features: integers are LEB128 (1; JMC reads them fixed-width without it), final chunk (2) */
    jw_tree(meta);    /* a first pass collects the strings, written before the tree */
    size_t at = jw_event_begin(b, JT_METADATA);
    jw_long(b, 0);          /* start */
    jw_long(b, 0);          /* duration */
    jw_long(b, 0x7ffffff0); /* metadata id */
    jw_long(b, meta->n);
    for (size_t i = 0; i < meta->n; i++)
        jw_cstring(b, meta->strs[i]);
    meta->out = b;
    jw_tree(meta);
    jw_event_end(b, at);
}

/* The header's figures, big-endian: sizes, offsets, times; one tick a nanosecond from the start. */
static void jw_chunk_end(buf *b, size_t cpool_at, uint64_t start_ns, uint64_t duration_ns)
{
    if (b->failed)
        return;
    uint64_t figures[7] = { b->len, cpool_at, 68, start_ns, duration_ns, 0, 1000000000u };
    for (int i = 0; i < 7; i++)
        be_store_u8(b->data + 8 + 8 * i, figures[i]);
}

/* ---- the recording ---- */

typedef struct jw_ctx {
    const model *m;
    buf out;
    bool *trace_used, *method_used, *class_used, *thread_used, *monitor_used;
    uint32_t threads_max;         /* the highest thread serial a thread record or a trace names */
    uint32_t nsymbols;                 /* symbol ids: model string ids; packages: their own */
    uint64_t ticks_end;
} jw_ctx;

/* Thread ids: the trace's thread serial, or 1 ("all threads") when traces are not per thread. */
static uint32_t jw_thread_of(jw_ctx *c, model_trace tr)
{
    uint32_t t = tr.thread ? tr.thread : 0;
    c->thread_used[t] = true;
    return t + 1;
}

static uint32_t jw_trace(jw_ctx *c, trace_id t)
{
    c->trace_used[t.v] = true;
    return t.v;
}

/* A monitor row of the time virtual threads spent pinned to their carrier (collect_monitor.c's class "<pinned>"). */
static bool jw_monitor_pinned(const model *m, const model_monitor *mo)
{
    size_t n = 0;
    const char *name = mo->class_name.v ? model_string_get(m, mo->class_name, &n) : NULL;
    return name && n == 8 && !memcmp(name, "<pinned>", 8);
}

/* A row of pinned time as jdk.VirtualThreadPinned events, one a wait (at most JFR_PINNED_MAX a row), each
 * the row's mean time, one after the other from the recording's start (the report keeps no times): the
 * virtual thread (thread=y) and the carrier it was pinned to, when the report names them. */
#define JFR_PINNED_MAX 100000u
static void jw_pinned(jw_ctx *c, const model_monitor *mo, model_trace tr)
{
    const model *m = c->m;
    uint32_t carrier = tr.thread && tr.thread <= m->threads_cap ? m->threads[tr.thread - 1].carrier : 0;
    uint64_t carrier_id = 0;
    if (carrier && carrier <= c->threads_max) {
        c->thread_used[carrier] = true;
        carrier_id = (uint64_t)carrier + 1;
    }
    uint64_t n = mo->count < JFR_PINNED_MAX ? mo->count : JFR_PINNED_MAX, when = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t d = mo->time_ns / n + (k < mo->time_ns % n ? 1 : 0);
        size_t at = jw_event_begin(&c->out, JT_VTHREAD_PINNED);
        jw_long(&c->out, when);
        jw_long(&c->out, d);
        jw_long(&c->out, jw_thread_of(c, tr));
        jw_long(&c->out, jw_trace(c, mo->trace));
        jw_long(&c->out, carrier_id);
        jw_event_end(&c->out, at);
        when += d;
    }
}

static void jw_events(jw_ctx *c, const report_opts *o)
{
    const model *m = c->m;
    buf *b = &c->out;
    uint64_t total = m->total_samples, k = 0, span = c->ticks_end, start_ns = m->start_time_ms * 1000000u;
    /* jfr= in the agent: the samples kept with their times, at those times; the rest (past the bound, or a
     * report read back) spread evenly over the recording */
    uint32_t ntraces = model_trace_count(m), nstates = m->wall ? SAMPLE_STATES : 1;
    uint64_t *timed = o->cpu_samples && total && m->sample_times_len
                          ? calloc(((size_t)ntraces + 1) * nstates, sizeof *timed)
                          : NULL;
    for (uint32_t i = 0; timed && i < m->sample_times_len; i++) {
        const model_sample_time *e = &m->sample_times[i];
        uint32_t st = m->wall && e->state < SAMPLE_STATES ? e->state : 0;
        if (!e->trace || e->trace > ntraces)
            continue;
        uint64_t when = e->wall_ns > start_ns ? e->wall_ns - start_ns : 0;
        model_trace tr = model_trace_get(m, (trace_id){ e->trace });
        /* no more than the trace's count (a file's SAMPLE TIMES, record=y's recording, may hold samples a
         * reset=y report no longer counts) */
        uint64_t *done = &timed[(size_t)e->trace * nstates + st];
        uint64_t cap = m->wall ? model_trace_state_samples(m, (trace_id){ e->trace }, (sample_state)st)
                               : model_trace_samples(m, (trace_id){ e->trace });
        for (uint32_t w = 0; w < e->weight && *done < cap; w++, (*done)++) {
            size_t at = jw_event_begin(b, st == SAMPLE_NATIVE ? JT_NATIVE_SAMPLE : JT_EXECUTION_SAMPLE);
            jw_long(b, when < span ? when : span);
            jw_long(b, jw_thread_of(c, tr));
            jw_long(b, jw_trace(c, (trace_id){ e->trace }));
            jw_long(b, (uint64_t)st + 1);
            jw_event_end(b, at);
        }
    }
    for (uint32_t i = 1; o->cpu_samples && total && i <= ntraces; i++) {
        trace_id t = { i };
        model_trace tr = model_trace_get(m, t);
        for (int st = 0; st < (int)nstates; st++) {
            uint64_t n = m->wall ? model_trace_state_samples(m, t, (sample_state)st) : model_trace_samples(m, t);
            uint64_t done = timed ? timed[(size_t)i * nstates + (size_t)st] : 0;
            n = n > done ? n - done : 0;
            for (uint64_t s = 0; s < n; s++, k++) {
                size_t at = jw_event_begin(b, st == SAMPLE_NATIVE ? JT_NATIVE_SAMPLE : JT_EXECUTION_SAMPLE);
                jw_long(b, span * k / total);
                jw_long(b, jw_thread_of(c, tr));
                jw_long(b, jw_trace(c, t));
                jw_long(b, (uint64_t)st + 1);
                jw_event_end(b, at);
            }
        }
    }
    free(timed);
    for (uint32_t i = 1; o->sites && i <= model_site_count(m); i++) {
        const model_site *si = model_site_get(m, (site_id){ i });
        if (!si || si->alloc_bytes <= 0 || si->counted != m->sites_counted) /* alloc_count=site: the exact sites */
            continue;
        model_trace tr = model_trace_get(m, si->trace);
        size_t at = jw_event_begin(b, JT_ALLOCATION_SAMPLE);
        jw_long(b, span * i / (model_site_count(m) + 1));
        jw_long(b, jw_thread_of(c, tr));
        jw_long(b, jw_trace(c, si->trace));
        c->class_used[si->cls.v] = true;
        jw_long(b, si->cls.v);
        jw_long(b, (uint64_t)(si->alloc_bytes + 0.5));
        jw_event_end(b, at);
    }
    for (uint32_t i = 1; o->monitor && i <= model_monitor_count(m); i++) {
        const model_monitor *mo = model_monitor_get(m, (monitor_id){ i });
        if (!mo || !mo->count)
            continue;
        model_trace tr = model_trace_get(m, mo->trace);
        if (jw_monitor_pinned(m, mo)) {
            jw_pinned(c, mo, tr);
            continue;
        }
        bool wait = mo->kind == MONITOR_WAITING;
        size_t at = jw_event_begin(b, wait ? JT_MONITOR_WAIT : JT_MONITOR_ENTER);
        jw_long(b, 0);
        jw_long(b, mo->time_ns);
        jw_long(b, jw_thread_of(c, tr));
        jw_long(b, jw_trace(c, mo->trace));
        c->monitor_used[i] = true; /* its class, named: a class of its own after the model's */
        jw_long(b, (uint64_t)model_class_count(m) + i);
        jw_long(b, 0); /* previous owner / notifier: unknown */
        if (wait) {
            jw_long(b, 0);          /* timeout */
            buf_put_u1(b, 0);      /* timed out */
        }
        jw_long(b, 0); /* address */
        jw_event_end(b, at);
    }
}

/* A class's package: its dotted name up to the last '.', as a symbol id (0: the unnamed package). */
static void jw_pools(jw_ctx *c)
{
    const model *m = c->m;
    buf *b = &c->out;
    uint32_t ntraces = model_trace_count(m), nmethods = intern_count(&m->methods), nclasses = model_class_count(m);
    /* the frames' methods and the methods' classes are used too */
    for (uint32_t i = 1; i <= ntraces; i++) {
        if (!c->trace_used[i])
            continue;
        model_trace tr = model_trace_get(m, (trace_id){ i });
        for (uint32_t f = 0; f < tr.nframes; f++) {
            const model_frame *fr = model_frame_get(m, tr.frames[f]);
            c->method_used[fr->method.v] = true;
            const model_method *mm = model_method_get(m, fr->method);
            if (mm)
                c->class_used[mm->cls.v] = true;
        }
    }
    uint32_t counts[6] = { 0 };
    for (uint32_t i = 1; i <= ntraces; i++)
        counts[0] += c->trace_used[i];
    for (uint32_t i = 1; i <= nmethods; i++)
        counts[1] += c->method_used[i];
    for (uint32_t i = 1; i <= nclasses; i++)
        counts[2] += c->class_used[i];
    for (uint32_t i = 1; i <= model_monitor_count(m); i++)
        counts[2] += c->monitor_used[i];
    for (uint32_t i = 0; i <= c->threads_max; i++)
        counts[3] += c->thread_used[i];
    size_t at = jw_event_begin(b, JT_CPOOL);
    jw_long(b, 0); /* start */
    jw_long(b, 0); /* duration */
    jw_long(b, 0); /* delta to the next checkpoint: none */
    jw_long(b, 1); /* flush */
    uint32_t pools = 4 + (counts[0] > 0) + (counts[1] > 0) + (counts[2] > 0) + (counts[3] > 0);
    jw_long(b, pools);
    /* frame types and thread states */
    static const char *const frame_types[] = { "Interpreted", "JIT compiled", "Inlined", "Native" };
    jw_long(b, JT_FRAME_TYPE);
    jw_long(b, 4);
    for (int i = 0; i < 4; i++) {
        jw_long(b, (uint64_t)i + 1);
        jw_cstring(b, frame_types[i]);
    }
    static const char *const states[SAMPLE_STATES] = { "STATE_RUNNABLE", "STATE_IN_NATIVE", "STATE_SLEEPING",
                                                       "STATE_WAITING", "STATE_BLOCKED" };
    jw_long(b, JT_THREAD_STATE);
    jw_long(b, SAMPLE_STATES);
    for (int i = 0; i < SAMPLE_STATES; i++) {
        jw_long(b, (uint64_t)i + 1);
        jw_cstring(b, states[i]);
    }
    if (counts[3]) {
        jw_long(b, JT_THREAD);
        jw_long(b, counts[3]);
        for (uint32_t i = 0; i <= c->threads_max; i++) {
            if (!c->thread_used[i])
                continue;
            size_t n = 0;
            const char *name = i && i <= m->threads_cap && m->threads[i - 1].name.v
                                   ? model_string_get(m, m->threads[i - 1].name, &n)
                                   : NULL;
            char fallback[48];
            if (!name) {
                snprintf(fallback, sizeof fallback, i ? "thread %u" : "(all threads)", i);
                name = fallback;
                n = strlen(fallback);
            }
            /* a virtual thread has no OS thread (JFR: osName null, osThreadId 0); JFR does not name its carrier */
            bool virt = i && i <= m->threads_cap && m->threads[i - 1].virtual_thread;
            /* a thread of the JVM's own (GC, compiler) has no Java thread: javaName null, javaThreadId 0 */
            bool jvm = i && i <= m->threads_cap && m->threads[i - 1].jvm_internal;
            jw_long(b, (uint64_t)i + 1);
            if (virt)
                buf_put_u1(b, 0); /* null */
            else
                jw_string(b, name, n);
            jw_long(b, virt ? 0 : (uint64_t)i + 1);
            if (jvm)
                buf_put_u1(b, 0); /* null */
            else
                jw_string(b, name, n);
            jw_long(b, jvm ? 0 : i);
            buf_put_u1(b, virt ? 1 : 0);
        }
    }
    if (counts[0]) {
        jw_long(b, JT_STACK_TRACE);
        jw_long(b, counts[0]);
        for (uint32_t i = 1; i <= ntraces; i++) {
            if (!c->trace_used[i])
                continue;
            model_trace tr = model_trace_get(m, (trace_id){ i });
            jw_long(b, i);
            buf_put_u1(b, tr.nframes >= m->depth && m->depth ? 1 : 0); /* cut at depth= */
            jw_long(b, tr.nframes);
            for (uint32_t f = 0; f < tr.nframes; f++) {
                const model_frame *fr = model_frame_get(m, tr.frames[f]);
                jw_long(b, fr->method.v);
                jw_long(b, fr->line > 0 ? (uint64_t)fr->line : 0);
                jw_long(b, 0);
                jw_long(b, fr->line == FRAME_LINE_NATIVE ? 4 : fr->line == FRAME_LINE_COMPILED ? 2 : 1);
            }
        }
    }
    if (counts[1]) {
        jw_long(b, JT_METHOD);
        jw_long(b, counts[1]);
        for (uint32_t i = 1; i <= nmethods; i++) {
            if (!c->method_used[i])
                continue;
            const model_method *mm = model_method_get(m, (method_id){ i });
            size_t sn = 0;
            if (mm->sig.v)
                model_string_get(m, mm->sig, &sn);
            jw_long(b, i);
            jw_long(b, mm->cls.v);
            jw_long(b, mm->name.v);
            /* a native frame's method has no descriptor: "()V" (symbol id after the model's strings), as the
             * jfr tool parses one for every frame */
            jw_long(b, sn ? mm->sig.v : (uint64_t)model_string_count(m) + 1);
            jw_long(b, 0);
            buf_put_u1(b, 0);
        }
    }
    if (counts[2]) {
        jw_long(b, JT_CLASS);
        jw_long(b, counts[2]);
        for (uint32_t i = 1; i <= nclasses; i++) {
            if (!c->class_used[i])
                continue;
            const model_class *mc = model_class_get(m, (class_id){ i });
            jw_long(b, i);
            jw_long(b, 0);                /* class loader: unknown */
            jw_long(b, mc->name.v);
            jw_long(b, mc->code != MODEL_CODE_JAVA ? i : 0); /* package: in its name; a library's: its path */
            jw_long(b, 0);
        }
        for (uint32_t i = 1; i <= model_monitor_count(m); i++) {
            if (!c->monitor_used[i])
                continue;
            jw_long(b, (uint64_t)nclasses + i);
            jw_long(b, 0);
            jw_long(b, model_monitor_get(m, (monitor_id){ i })->class_name.v);
            jw_long(b, 0);
            jw_long(b, 0);
        }
    }
    /* the symbols: every model string (names, descriptors), as JFR wants them: internal class names with '/' */
    jw_long(b, JT_SYMBOL);
    jw_long(b, (uint64_t)model_string_count(m) + 1);
    for (uint32_t i = 1; i <= model_string_count(m); i++) {
        size_t n = 0;
        const char *s = model_string_get(m, (str_id){ i }, &n);
        jw_long(b, i);
        jw_string(b, s, n);
    }
    jw_long(b, (uint64_t)model_string_count(m) + 1); /* the descriptor of methods without one (never empty) */
    jw_cstring(b, "()V");
    /* an empty package pool would be refused: one entry for the unnamed package; then a package for each
     * library (its id the class's), named by its path */
    uint32_t npackages = 1;
    for (uint32_t i = 1; i <= nclasses; i++)
        npackages += c->class_used[i] && model_class_get(m, (class_id){ i })->code != MODEL_CODE_JAVA;
    jw_long(b, JT_PACKAGE);
    jw_long(b, npackages);
    jw_long(b, 0);
    jw_long(b, 0);
    for (uint32_t i = 1; i <= nclasses; i++) {
        const model_class *mc = model_class_get(m, (class_id){ i });
        if (!c->class_used[i] || mc->code == MODEL_CODE_JAVA)
            continue;
        jw_long(b, i);
        jw_long(b, mc->path.v ? mc->path.v : mc->name.v);
    }
    jw_event_end(b, at);
}

static jp_status jw_write(const model *m, const report_opts *o, sink *s)
{
    jw_ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    buf_init(&c.out);
    c.trace_used = calloc((size_t)model_trace_count(m) + 1, 1);
    c.method_used = calloc((size_t)intern_count(&m->methods) + 1, 1);
    c.class_used = calloc((size_t)model_class_count(m) + 1, 1);
    /* a trace may name a thread no START THREAD record did (the reader bounds serials by the file's size) */
    c.threads_max = m->threads_cap;
    for (uint32_t i = 1; i <= model_trace_count(m); i++) {
        uint32_t t = model_trace_get(m, (trace_id){ i }).thread;
        c.threads_max = t > c.threads_max ? t : c.threads_max;
    }
    c.thread_used = calloc((size_t)c.threads_max + 2, 1);
    c.monitor_used = calloc((size_t)model_monitor_count(m) + 1, 1);
    jw_meta meta = { 0 };
    jp_status st = JP_ERR_ARG;
    if (o->cpu_samples && m->total_samples > JFR_SAMPLES_MAX)
        goto out;
    st = JP_ERR_NOMEM;
    if (!c.trace_used || !c.method_used || !c.class_used || !c.thread_used || !c.monitor_used)
        goto out;
    uint64_t start_ns = m->start_time_ms * 1000000u, dur_ns = m->dump_time_ms > m->start_time_ms
                                                                   ? (m->dump_time_ms - m->start_time_ms) * 1000000u
                                                                   : 1;
    c.ticks_end = dur_ns; /* one tick a nanosecond, from the recording's start */
    buf *b = &c.out;
    jw_chunk_begin(b, &meta);
    jw_events(&c, o);
    size_t cpool_at = b->len;
    jw_pools(&c);
    jw_chunk_end(b, cpool_at, start_ns, dur_ns);
    if (b->failed)
        goto out;
    sink_write(s, b->data, b->len);
    st = sink_status(s);
out:
    free(meta.strs);
    free(c.trace_used);
    free(c.method_used);
    free(c.class_used);
    free(c.thread_used);
    free(c.monitor_used);
    buf_free(&c.out);
    return st;
}

static void jw_summary(const model *m, char *out, size_t len) { hprof_summary(m, out, len); }

const jp_format_ops jfr_format = {
    "jfr", "jfr=", "a JDK Flight Recorder file",
    FMT_CPU_SAMPLES | FMT_WALL_SAMPLES | FMT_MONITORS | FMT_SITES, jw_write, jw_summary,
};

/* ---- a trace file as a recording (jvmprof convert TRACE --jfr) ----
 * The trace times what the report counts: its collections (jdk.GarbageCollection, from each gc-start to
 * its gc-end, with the collector and cause of its gc record), thread starts and ends, CPU samples
 * (cpu=samples in the same run: their stacks are method names, without lines), allocations (with their
 * thread, without a stack) and monitor contention and waits (from each contended/wait to its
 * entered/waited). Symbols: every name, interned; classes and methods: by name. */

typedef struct jt_ctx {
    arena mem;
    intern_table symbols, classes, methods, stacks; /* keys: bytes; class: symbol id; method: class id, name id;
                                                    * stack: method ids */
    /* by the trace's ids, any 64-bit number: sized by how many the file holds, not by its largest id */
    id_table str;                     /* struct jt_str: the trace's strings */
    id_table class_name;              /* uint64_t: a class's name's string id */
    id_table thread_name;             /* uint64_t: a thread's name's string id */
    id_table gcs;                     /* struct jt_gc: each collection's times and what it was */
    id_table waiting_since;           /* uint64_t by thread: a contended enter or wait begun (0: none) */
    id_table threads;                 /* uint8_t: the threads the events name (0 is null, not one) */
    bool failed;
} jt_ctx;

struct jt_str { const char *p; size_t n; };
struct jt_gc { uint64_t start, end, collector, cause; };

/* id's record in t, added if new (out of memory: NULL, and the conversion fails). */
static void *jt_at(jt_ctx *c, id_table *t, uint64_t id)
{
    void *p = id_table_at(t, id);
    c->failed |= p == NULL;
    return p;
}

static const struct jt_str *jt_str_of(const jt_ctx *c, uint64_t id)
{
    const struct jt_str *s = id ? id_table_get(&c->str, id) : NULL;
    return s && s->p ? s : NULL;
}

/* the string id a table of names gives id, 0 if none */
static uint64_t jt_name_of(const id_table *t, uint64_t id)
{
    const uint64_t *name = id_table_get(t, id);
    return name ? *name : 0;
}

/* The thread an event names, as the constant-pool key the event refers to (its id: JFR's
 * are Java longs, so one past INT64_MAX is written as 0, null), noted for the pool. */
static uint64_t jt_thread(jt_ctx *c, uint64_t thread)
{
    if (thread > INT64_MAX)
        return 0;
    if (thread)
        jt_at(c, &c->threads, thread);
    return thread;
}

static uint32_t jt_symbol(jt_ctx *c, const char *s, size_t n)
{
    uint32_t id = intern_put(&c->symbols, s, (uint32_t)n, NULL);
    c->failed |= id == 0;
    return id;
}

static uint32_t jt_trace_string(jt_ctx *c, uint64_t id)
{
    const struct jt_str *s = jt_str_of(c, id);
    return s ? jt_symbol(c, s->p, s->n) : 0;
}

/* A class by its name's symbol. */
static uint32_t jt_class(jt_ctx *c, uint32_t name_sym)
{
    uint32_t id = intern_put(&c->classes, &name_sym, sizeof name_sym, NULL);
    c->failed |= id == 0;
    return id;
}

/* A stack "pkg.Class.method;..." (root first) as a stack trace id (frames top first). */
static uint32_t jt_stack(jt_ctx *c, const char *s, size_t n)
{
    uint32_t frames[512], nf = 0;
    for (size_t at = 0; at < n && nf < 512;) {
        size_t end = at;
        while (end < n && s[end] != ';')
            end++;
        size_t dot = end;
        while (dot > at && s[dot - 1] != '.')
            dot--;
        uint32_t cls = dot > at + 1 ? jt_class(c, jt_symbol(c, s + at, dot - 1 - at)) : jt_class(c, jt_symbol(c, "", 0));
        uint32_t key[2] = { cls, jt_symbol(c, s + dot, end - dot) };
        frames[nf++] = intern_put(&c->methods, key, sizeof key, NULL);
        at = end + 1;
    }
    for (uint32_t i = 0; i < nf / 2; i++) { /* top first */
        uint32_t t = frames[i];
        frames[i] = frames[nf - 1 - i];
        frames[nf - 1 - i] = t;
    }
    uint32_t id = nf ? intern_put(&c->stacks, frames, nf * (uint32_t)sizeof frames[0], NULL) : 0;
    c->failed |= nf && id == 0;
    return id;
}

/* Pass 1: the names, the threads' names, each collection's times and what it was. */
static void jt_names(jt_ctx *c, const void *data, size_t len)
{
    trace_reader r;
    trace_event e;
    if (trace_reader_open(&r, data, len) != JP_OK)
        return;
    while (trace_reader_next(&r, &e) && !c->failed) {
        if (e.type == TRACE_EV_STRING) {
            struct jt_str *str = jt_at(c, &c->str, e.f[0]);
            if (str)
                *str = (struct jt_str){ e.text, e.text_len };
        } else if (e.type == TRACE_EV_CLASS || e.type == TRACE_EV_THREAD) {
            uint64_t *name = jt_at(c, e.type == TRACE_EV_CLASS ? &c->class_name : &c->thread_name, e.f[0]);
            if (name)
                *name = e.f[1];
        } else if (e.type == TRACE_EV_GC || e.type == TRACE_EV_GC_START || e.type == TRACE_EV_GC_END) {
            struct jt_gc *g = jt_at(c, &c->gcs, e.f[0]);
            if (!g)
                break;
            if (e.type == TRACE_EV_GC_START)
                g->start = e.time_ns;
            else if (e.type == TRACE_EV_GC_END)
                g->end = e.time_ns;
            else {
                g->collector = e.f[2];
                g->cause = e.f[3];
            }
        }
    }
}

static void jt_string_of(jt_ctx *c, buf *b, uint64_t trace_sid, const char *fallback)
{
    const struct jt_str *s = jt_str_of(c, trace_sid);
    if (s)
        jw_string(b, s->p, s->n);
    else
        jw_cstring(b, fallback);
}

/* Pass 2: the events. */
static void jt_events(jt_ctx *c, const void *data, size_t len, buf *b)
{
    trace_reader r;
    trace_event e;
    if (trace_reader_open(&r, data, len) != JP_OK)
        return;
    while (trace_reader_next(&r, &e) && !c->failed) {
        uint64_t t = e.thread;
        size_t at;
        switch (e.type) {
        case TRACE_EV_SAMPLE: {
            const struct jt_str *stack = jt_str_of(c, e.f[1]);
            if (!stack)
                break;
            at = jw_event_begin(b, JT_EXECUTION_SAMPLE);
            jw_long(b, e.time_ns);
            jw_long(b, jt_thread(c, e.f[0]));
            jw_long(b, jt_stack(c, stack->p, stack->n));
            jw_long(b, 1);
            jw_event_end(b, at);
            break;
        }
        case TRACE_EV_THREAD_START:
        case TRACE_EV_THREAD_END: {
            uint64_t thread = jt_thread(c, e.f[0]);
            at = jw_event_begin(b, e.type == TRACE_EV_THREAD_START ? JT_THREAD_START : JT_THREAD_END);
            jw_long(b, e.time_ns);
            jw_long(b, thread);
            jw_long(b, thread);
            if (e.type == TRACE_EV_THREAD_START)
                jw_long(b, 0); /* parent: not traced */
            jw_event_end(b, at);
            break;
        }
        case TRACE_EV_GC_END: {
            const struct jt_gc *g = id_table_get(&c->gcs, e.f[0]);
            if (!g || g->end < g->start)
                break;
            uint64_t d = g->end - g->start;
            at = jw_event_begin(b, JT_GARBAGE_COLLECTION);
            jw_long(b, g->start);
            jw_long(b, d);
            jw_long(b, e.f[0]);
            jt_string_of(c, b, g->collector, "pause");
            jt_string_of(c, b, g->cause, "unknown");
            jw_long(b, d);
            jw_long(b, d);
            jw_event_end(b, at);
            break;
        }
        case TRACE_EV_ALLOC: {
            uint64_t name = jt_name_of(&c->class_name, e.f[1]);
            at = jw_event_begin(b, JT_ALLOCATION_SAMPLE);
            jw_long(b, e.time_ns);
            jw_long(b, jt_thread(c, t));
            jw_long(b, 0); /* no stack */
            jw_long(b, jt_class(c, jt_trace_string(c, name)));
            jw_long(b, e.f[2]);
            jw_event_end(b, at);
            break;
        }
        case TRACE_EV_MONITOR: {
            uint64_t *since = jt_at(c, &c->waiting_since, t);
            if (!since)
                break;
            if (e.f[0] == TRACE_MONITOR_CONTENDED || e.f[0] == TRACE_MONITOR_WAIT) {
                *since = e.time_ns + 1; /* + 1: 0 means none */
                break;
            }
            if (!*since)
                break;
            bool wait = e.f[0] == TRACE_MONITOR_WAITED;
            uint64_t name = jt_name_of(&c->class_name, e.f[2]);
            at = jw_event_begin(b, wait ? JT_MONITOR_WAIT : JT_MONITOR_ENTER);
            jw_long(b, *since - 1);
            jw_long(b, e.time_ns + 1 - *since);
            jw_long(b, jt_thread(c, t));
            jw_long(b, 0);
            jw_long(b, jt_class(c, jt_trace_string(c, name)));
            jw_long(b, 0);
            if (wait) {
                jw_long(b, 0);
                buf_put_u1(b, 0);
            }
            jw_long(b, e.f[1]); /* the monitor's object id, as its address */
            jw_event_end(b, at);
            *since = 0;
            break;
        }
        default:
            break;
        }
    }
}

static int jt_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void jt_pools(jt_ctx *c, buf *b)
{
    size_t at = jw_event_begin(b, JT_CPOOL);
    jw_long(b, 0);
    jw_long(b, 0);
    jw_long(b, 0);
    jw_long(b, 1);
    uint32_t nstacks = intern_count(&c->stacks), nmethods = intern_count(&c->methods);
    uint32_t nclasses = intern_count(&c->classes);
    if (!intern_count(&c->symbols))
        jt_symbol(c, "", 0); /* JFR refuses an empty pool (a trace of thread starts only names nothing) */
    /* the symbols last: the pools before them may still add some */
    jw_long(b, 5 + (nstacks > 0) + (nmethods > 0) + (nclasses > 0));
    jw_long(b, JT_FRAME_TYPE);
    jw_long(b, 1);
    jw_long(b, 1);
    jw_cstring(b, "Unknown");
    jw_long(b, JT_THREAD_STATE);
    jw_long(b, 1);
    jw_long(b, 1);
    jw_cstring(b, "STATE_RUNNABLE");
    /* the threads the events name, in order (none: thread 1); 0 stays null (an unknown parent) */
    size_t nthreads = id_table_count(&c->threads);
    uint64_t one = 1, *ids = nthreads ? malloc(nthreads * sizeof *ids) : &one;
    if (!ids) {
        c->failed = true;
        return;
    }
    for (size_t i = 0; i < nthreads; i++)
        id_table_nth(&c->threads, i, &ids[i]);
    qsort(ids, nthreads, sizeof *ids, jt_cmp_u64);
    jw_long(b, JT_THREAD);
    jw_long(b, nthreads ? nthreads : 1);
    for (size_t k = 0; k < (nthreads ? nthreads : 1); k++) {
        uint64_t i = ids[k], name = jt_name_of(&c->thread_name, i);
        char fallback[32];
        snprintf(fallback, sizeof fallback, "thread %llu", (unsigned long long)i);
        jw_long(b, i);
        jt_string_of(c, b, name, fallback);
        jw_long(b, i);
        jt_string_of(c, b, name, fallback);
        jw_long(b, i);
        buf_put_u1(b, 0); /* virtual */
    }
    if (nthreads)
        free(ids);
    if (nstacks) {
        jw_long(b, JT_STACK_TRACE);
        jw_long(b, nstacks);
        for (uint32_t i = 1; i <= nstacks; i++) {
            uint32_t klen;
            const uint32_t *frames = intern_key(&c->stacks, i, &klen);
            jw_long(b, i);
            buf_put_u1(b, 0);
            jw_long(b, klen / sizeof *frames);
            for (uint32_t f = 0; f < klen / sizeof *frames; f++) {
                jw_long(b, frames[f]);
                jw_long(b, 0);
                jw_long(b, 0);
                jw_long(b, 1);
            }
        }
    }
    if (nmethods) {
        jw_long(b, JT_METHOD);
        jw_long(b, nmethods);
        for (uint32_t i = 1; i <= nmethods; i++) {
            uint32_t klen;
            const uint32_t *key = intern_key(&c->methods, i, &klen);
            jw_long(b, i);
            jw_long(b, key[0]);
            jw_long(b, key[1]);
            jw_long(b, jt_symbol(c, "()V", 3)); /* unknown: the trace's samples name methods only; JMC needs a whole descriptor */
            jw_long(b, 0);
            buf_put_u1(b, 0);
        }
    }
    if (nclasses) {
        jw_long(b, JT_CLASS);
        jw_long(b, nclasses);
        for (uint32_t i = 1; i <= nclasses; i++) {
            uint32_t klen;
            const uint32_t *name = intern_key(&c->classes, i, &klen);
            jw_long(b, i);
            jw_long(b, 0);
            jw_long(b, *name);
            jw_long(b, 0);
            jw_long(b, 0);
        }
    }
    jw_long(b, JT_PACKAGE);
    jw_long(b, 1);
    jw_long(b, 0);
    jw_long(b, 0);
    jw_long(b, JT_SYMBOL);
    jw_long(b, intern_count(&c->symbols));
    for (uint32_t i = 1; i <= intern_count(&c->symbols); i++) {
        uint32_t klen;
        const char *s = intern_key(&c->symbols, i, &klen);
        jw_long(b, i);
        jw_string(b, s, klen);
    }
    jw_event_end(b, at);
}

jp_status jfr_write_trace(const void *data, size_t len, sink *s, char *why, size_t cap)
{
    trace_reader r;
    if (trace_reader_open(&r, data, len) != JP_OK) {
        snprintf(why, cap, "%s", r.why);
        return JP_ERR_FORMAT;
    }
    jt_ctx c;
    memset(&c, 0, sizeof c);
    arena_init(&c.mem);
    intern_init(&c.symbols, &c.mem);
    intern_init(&c.classes, &c.mem);
    intern_init(&c.methods, &c.mem);
    intern_init(&c.stacks, &c.mem);
    id_table_init(&c.str, sizeof(struct jt_str));
    id_table_init(&c.class_name, sizeof(uint64_t));
    id_table_init(&c.thread_name, sizeof(uint64_t));
    id_table_init(&c.gcs, sizeof(struct jt_gc));
    id_table_init(&c.waiting_since, sizeof(uint64_t));
    id_table_init(&c.threads, sizeof(uint8_t));
    buf out;
    buf_init(&out);
    jw_meta meta = { 0 };
    jt_names(&c, data, len);
    uint64_t end_ns = 0;
    trace_event e;
    trace_reader_open(&r, data, len);
    while (trace_reader_next(&r, &e))
        end_ns = e.time_ns > end_ns ? e.time_ns : end_ns;
    jw_chunk_begin(&out, &meta);
    jt_events(&c, data, len, &out);
    size_t cpool_at = out.len;
    jt_pools(&c, &out);
    jw_chunk_end(&out, cpool_at, r.start_wall_ns, end_ns ? end_ns : 1);
    jp_status st = JP_ERR_NOMEM;
    if (!out.failed && !c.failed) {
        sink_write(s, out.data, out.len);
        st = sink_status(s);
    } else {
        snprintf(why, cap, "out of memory");
    }
    free(meta.strs);
    id_table_free(&c.str);
    id_table_free(&c.class_name);
    id_table_free(&c.thread_name);
    id_table_free(&c.gcs);
    id_table_free(&c.waiting_since);
    id_table_free(&c.threads);
    intern_free(&c.symbols);
    intern_free(&c.classes);
    intern_free(&c.methods);
    intern_free(&c.stacks);
    arena_free(&c.mem);
    buf_free(&out);
    return st;
}
