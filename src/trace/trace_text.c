/* trace_text.c — a trace file (trace_file.h) as text, one event per line in
 * time order: a first pass reads the metadata and notes each thread's
 * chunks; then one cursor per thread walks its chunks in file order, and
 * each line is the earliest event among the cursors. What a line says:
 *
 *   <seconds since the trace began> <thread> <event> <what it names>
 *        0.000101200 main        enter       demo.Calls.fib(I)I depth=1 this=42
 *
 * Stops where the reader stops (a file cut short or damaged) and says so. */
#include "trace_text.h"

#include "../common/id_table.h"
#include "probe_args.h"
#include "trace_tree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tt_string { const char *p; size_t n; } tt_string;
typedef struct tt_method { uint64_t cls, name, sig, flags; } tt_method;
typedef struct tt_thread_name { uint64_t name, group, priority, flags; } tt_thread_name;
typedef struct tt_gc { uint64_t kind, collector, cause, before, after; bool known; } tt_gc;
typedef struct tt_provider { uint64_t name, module, attributes; } tt_provider;
typedef struct tt_probe { uint64_t provider, name, function, kinds; } tt_probe;


typedef struct tt_thread {
    uint32_t id;
    size_t *chunks;             /* offsets, in file order */
    size_t nchunks, cap, next;  /* next: the chunk after the one the cursor is in */
    trace_reader r;
    trace_event ev;             /* an exit's method and depth, and an entry's depth, filled in from stack */
    bool has;                   /* ev is the cursor's next event */
    uint64_t *stack;            /* the methods entered and not left */
    uint64_t *starts;           /* ... and when each was entered */
    size_t depth, stack_cap;
    uint64_t last_duration;     /* the call the last exit closed: its duration (ns) */
    uint64_t this_id;           /* the receiver the last enter-this named */
    /* --flame: each open entry's node in the call tree and the time of its callees so far */
    uint32_t *nodes;
    uint64_t *child_ns;
    size_t tree_cap;
    uint32_t root;              /* the thread's node */
    struct tt_span *spans;      /* whole calls (mintime=), nested at the end */
    size_t nspans, spans_cap;
} tt_thread;

typedef struct tt_span { uint64_t start, duration, depth, method; } tt_span;

typedef struct tt_ctx {
    const uint8_t *data;
    size_t len;
    /* the metadata by id (any 64-bit number), sized by how many ids the file holds (arrays
     * indexed by id made a small file naming one large id ask for gigabytes) */
    id_table strings, classes, methods, thread_names, gcs; /* tt_string, uint64_t (name), tt_method,
                                                           * tt_thread_name, tt_gc */
    id_table providers, probes;                            /* tt_provider, tt_probe */
    tt_thread *threads;
    size_t nthreads, threads_cap;
    id_map thread_at;   /* a thread's id -> its index in threads */
} tt_ctx;

static void tt_put_probe(sink *s, const tt_ctx *c, const trace_event *e, bool json);

static tt_thread *tt_thread_of(tt_ctx *c, uint32_t id)
{
    uint64_t at;
    if (id_map_get(&c->thread_at, id, &at))
        return &c->threads[at];
    if (c->nthreads == c->threads_cap) {
        size_t cap = c->threads_cap ? 2 * c->threads_cap : 16;
        tt_thread *t = realloc(c->threads, cap * sizeof *t);
        if (!t)
            return NULL;
        c->threads = t;
        c->threads_cap = cap;
    }
    if (!id_map_put(&c->thread_at, id, c->nthreads))
        return NULL;
    tt_thread *t = &c->threads[c->nthreads++];
    memset(t, 0, sizeof *t);
    t->id = id;
    return t;
}

/* Room for one more of n elements of elem bytes in the array whose pointer
 * is at v (capacity *cap, doubled from first). */
static bool tt_room(void *v, size_t n, size_t *cap, size_t elem, size_t first)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? 2 * *cap : first;
    void *old;
    memcpy(&old, v, sizeof old);
    void *p = realloc(old, c * elem);
    if (!p)
        return false;
    memcpy(v, &p, sizeof p);
    *cap = c;
    return true;
}

static bool tt_add_chunk(tt_thread *t, size_t off)
{
    if (!tt_room(&t->chunks, t->nchunks, &t->cap, sizeof *t->chunks, 16))
        return false;
    t->chunks[t->nchunks++] = off;
    return true;
}

static void tt_ctx_free(tt_ctx *c)
{
    id_table_free(&c->strings);
    id_table_free(&c->classes);
    id_table_free(&c->methods);
    id_table_free(&c->thread_names);
    id_table_free(&c->gcs);
    id_table_free(&c->providers);
    id_table_free(&c->probes);
    for (size_t i = 0; i < c->nthreads; i++) {
        free(c->threads[i].chunks);
        free(c->threads[i].stack);
        free(c->threads[i].starts);
        free(c->threads[i].nodes);
        free(c->threads[i].child_ns);
        free(c->threads[i].spans);
    }
    free(c->threads);
    id_map_free(&c->thread_at);
}

/* Pass 1: the metadata, and each thread's chunks. */
static jp_status tt_first_pass(tt_ctx *c, trace_reader *r)
{
    trace_event e;
    size_t last_chunk = 0;
    while (trace_reader_next(r, &e)) {
        if (r->chunk_start != last_chunk) { /* (its thread: a virtual thread's events name their carrier) */
            tt_thread *t = tt_thread_of(c, e.carrier ? e.carrier : e.thread);
            if (!t || !tt_add_chunk(t, r->chunk_start))
                return JP_ERR_NOMEM;
            last_chunk = r->chunk_start;
        }
        void *slot = NULL;
        switch (e.type) {
        case TRACE_EV_STRING:
            if ((slot = id_table_at(&c->strings, e.f[0])))
                *(tt_string *)slot = (tt_string){ e.text, e.text_len };
            break;
        case TRACE_EV_CLASS:
            if ((slot = id_table_at(&c->classes, e.f[0])))
                *(uint64_t *)slot = e.f[1];
            break;
        case TRACE_EV_METHOD:
            if ((slot = id_table_at(&c->methods, e.f[0])))
                *(tt_method *)slot = (tt_method){ e.f[1], e.f[2], e.f[3], e.f[4] };
            break;
        case TRACE_EV_THREAD:
            if ((slot = id_table_at(&c->thread_names, e.f[0])))
                *(tt_thread_name *)slot = (tt_thread_name){ e.f[1], e.f[2], e.f[3], e.f[4] };
            break;
        case TRACE_EV_VTHREAD: /* its Java thread id kept as its priority */
            if ((slot = id_table_at(&c->thread_names, e.f[0])))
                *(tt_thread_name *)slot = (tt_thread_name){ e.f[1], 0, e.f[2], TRACE_THREAD_VIRTUAL };
            break;
        case TRACE_EV_MOUNT: /* a virtual thread: its calls are followed on its own (no chunks of its own) */
            if (!(slot = tt_thread_of(c, (uint32_t)e.f[0])))
                return JP_ERR_NOMEM;
            continue;
        case TRACE_EV_GC:
            if ((slot = id_table_at(&c->gcs, e.f[0])))
                *(tt_gc *)slot = (tt_gc){ e.f[1], e.f[2], e.f[3], e.f[4], e.f[5], true };
            break;
        case TRACE_EV_PROVIDER:
            if ((slot = id_table_at(&c->providers, e.f[0])))
                *(tt_provider *)slot = (tt_provider){ e.f[1], e.f[2], e.f[3] };
            break;
        case TRACE_EV_PROBE_INFO:
            if ((slot = id_table_at(&c->probes, e.f[0])))
                *(tt_probe *)slot = (tt_probe){ e.f[1], e.f[2], e.f[3], e.f[4] };
            break;
        default:
            continue; /* timed: read again in time order */
        }
        if (!slot)
            return JP_ERR_NOMEM;
    }
    return JP_OK;
}

/* An entry's depth (and receiver), and an exit's method and depth, from the thread's open entries. */
static void tt_follow(const tt_ctx *c, tt_thread *t, trace_event *e)
{
    if (e->type == TRACE_EV_SAMPLE) { /* on the samples' chunks: the thread it names */
        e->thread = (uint32_t)e->f[0];
        return;
    }
    if (e->type == TRACE_EV_ENTER_THIS) { /* an entry on a receiver named now */
        t->this_id = e->f[1];
        e->type = TRACE_EV_ENTER;
    }
    if (e->type == TRACE_EV_ENTER) {
        const tt_method *m = id_table_get(&c->methods, e->f[0]);
        e->f[2] = m && (m->flags & TRACE_METHOD_RECEIVER) ? t->this_id : 0;
        if (t->depth == t->stack_cap) {
            size_t cap = t->stack_cap ? 2 * t->stack_cap : 64;
            uint64_t *s = realloc(t->stack, cap * sizeof *s);
            if (s)
                t->stack = s;
            uint64_t *st = s ? realloc(t->starts, cap * sizeof *st) : NULL;
            if (st) {
                t->starts = st;
                t->stack_cap = cap;
            }
        }
        if (t->depth < t->stack_cap) {
            t->stack[t->depth] = e->f[0];
            t->starts[t->depth] = e->time_ns;
        }
        e->f[1] = ++t->depth;
    } else if (e->type == TRACE_EV_EXIT || e->type == TRACE_EV_EXIT_THROW) {
        e->f[1] = t->depth;
        bool known = t->depth && t->depth <= t->stack_cap;
        e->f[0] = known ? t->stack[t->depth - 1] : 0;
        t->last_duration = known && e->time_ns > t->starts[t->depth - 1] ? e->time_ns - t->starts[t->depth - 1] : 0;
        if (t->depth)
            t->depth--;
    } else if (e->type == TRACE_EV_ENTER_AT) {
        e->type = TRACE_EV_ENTER; /* prints as one; its depth is its own */
        e->f[2] = 0;
    }
}

/* Whose calls a cursor's event is in: its chunk's thread's, or the virtual thread's it ran (made in pass 1). */
static tt_thread *tt_who(tt_ctx *c, tt_thread *cursor, const trace_event *e)
{
    uint64_t at;
    return e->carrier && id_map_get(&c->thread_at, e->thread, &at) ? &c->threads[at] : cursor;
}

static bool tt_cursor_advance(tt_ctx *c, tt_thread *t)
{
    for (;;) {
        if (t->r.data && trace_reader_next(&t->r, &t->ev)) {
            if (t->ev.type < TRACE_EV_TIMED)
                continue; /* metadata: read in the first pass */
            tt_follow(c, tt_who(c, t, &t->ev), &t->ev);
            return t->has = true;
        }
        if (t->next >= t->nchunks)
            return t->has = false;
        if (!t->r.data && trace_reader_open(&t->r, c->data, c->len) != JP_OK)
            return t->has = false;
        if (!trace_reader_chunk(&t->r, t->chunks[t->next++]))
            return t->has = false;
    }
}

/* n bytes of text from the file (a user event's message, a thread's or a
 * method's name: whatever the program chose), so that it stays on its line
 * and sends a terminal nothing: a backslash as \\, a newline, tab and carriage
 * return as \n, \t, \r, and every other control character (C0, DEL, and C1
 * in UTF-8: U+0080..U+009F) as \xNN, one per byte. */
static void tt_put_text(sink *s, const char *p, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)p[i];
        bool c1 = b == 0xc2 && i + 1 < n && (unsigned char)p[i + 1] >= 0x80 && (unsigned char)p[i + 1] <= 0x9f;
        if (b >= 0x20 && b != 0x7f && b != '\\' && !c1)
            continue;
        sink_write(s, p + from, i - from);
        if (b == '\\')
            sink_printf(s, "\\\\");
        else if (b == '\n')
            sink_printf(s, "\\n");
        else if (b == '\t')
            sink_printf(s, "\\t");
        else if (b == '\r')
            sink_printf(s, "\\r");
        else if (c1)
            sink_printf(s, "\\x%02x\\x%02x", b, (unsigned char)p[++i]);
        else
            sink_printf(s, "\\x%02x", b);
        from = i + 1;
    }
    sink_write(s, p + from, n - from);
}

/* "name" of string id (escaped: tt_put_text), or "<string N>" */
static void tt_put_string(sink *s, const tt_ctx *c, uint64_t id)
{
    const tt_string *str = id_table_get(&c->strings, id);
    if (str && str->p)
        tt_put_text(s, str->p, str->n);
    else
        sink_printf(s, "<string %" PRIu64 ">", id);
}

/* A thread's name, or thread-N */
static void tt_put_thread(sink *s, const tt_ctx *c, uint64_t id)
{
    const tt_thread_name *t = id ? id_table_get(&c->thread_names, id) : NULL;
    if (t && t->name)
        tt_put_string(s, c, t->name);
    else if (t && (t->flags & TRACE_THREAD_VIRTUAL)) /* unnamed: by its Java id */
        sink_printf(s, "virtual-%" PRIu64, t->priority);
    else if (id)
        sink_printf(s, "thread-%" PRIu64, id);
    else
        sink_printf(s, "-");
}

/* A class's name, dotted. */
static void tt_put_class(sink *s, const tt_ctx *c, uint64_t id)
{
    const uint64_t *name = id_table_get(&c->classes, id);
    const tt_string *str = name ? id_table_get(&c->strings, *name) : NULL;
    if (!str || !str->p) {
        sink_printf(s, "<class %" PRIu64 ">", id);
        return;
    }
    for (size_t i = 0; i < str->n; i++)
        sink_printf(s, "%c", str->p[i] == '/' ? '.' : str->p[i]);
}

static void tt_put_method(sink *s, const tt_ctx *c, uint64_t id)
{
    const tt_method *m = id_table_get(&c->methods, id);
    if (!m || !m->name) {
        sink_printf(s, "<method %" PRIu64 ">", id);
        return;
    }
    tt_put_class(s, c, m->cls);
    sink_printf(s, ".");
    tt_put_string(s, c, m->name);
    tt_put_string(s, c, m->sig);
}

static bool tt_filtered_out(const tt_ctx *c, const trace_event *e, const trace_text_filter *f)
{
    if (f->thread && e->thread != f->thread)
        return true;
    if (f->types && !(f->types & (1ull << e->type)))
        return true;
    if (e->time_ns < f->from_ns || (f->to_ns && e->time_ns > f->to_ns))
        return true;
    if (f->method && *f->method) {
        if (e->type != TRACE_EV_ENTER && e->type != TRACE_EV_EXIT && e->type != TRACE_EV_EXIT_THROW &&
            e->type != TRACE_EV_CALL)
            return true;
        const tt_method *m = id_table_get(&c->methods, e->f[0]);
        const uint64_t *cname = m ? id_table_get(&c->classes, m->cls) : NULL;
        const tt_string *cs = cname ? id_table_get(&c->strings, *cname) : NULL;
        const tt_string *ms = m ? id_table_get(&c->strings, m->name) : NULL;
        char full[512];
        int n = snprintf(full, sizeof full, "%.*s.%.*s", cs && cs->p ? (int)cs->n : 0, cs && cs->p ? cs->p : "",
                         ms && ms->p ? (int)ms->n : 0, ms && ms->p ? ms->p : "");
        for (int i = 0; i < n && i < (int)sizeof full; i++)
            if (full[i] == '/')
                full[i] = '.';
        if (!strstr(full, f->method))
            return true;
    }
    return false;
}

static void tt_put_event(sink *s, const tt_ctx *c, const trace_event *e)
{
    sink_printf(s, "%6" PRIu64 ".%09" PRIu64 " ", e->time_ns / 1000000000u, e->time_ns % 1000000000u);
    tt_put_thread(s, c, e->thread);
    if (e->carrier) { /* a virtual thread's event: @ the carrier it ran on */
        sink_printf(s, "@");
        tt_put_thread(s, c, e->carrier);
    }
    sink_printf(s, " %s", trace_event_name(e->type));
    switch (e->type) {
    case TRACE_EV_ENTER: {
        sink_printf(s, " ");
        tt_put_method(s, c, e->f[0]);
        sink_printf(s, " depth=%" PRIu64, e->f[1]);
        const tt_method *m = id_table_get(&c->methods, e->f[0]);
        if (m && (m->flags & TRACE_METHOD_SYNCHRONIZED))
            sink_printf(s, " synchronized");
        if (m && (m->flags & TRACE_METHOD_NATIVE))
            sink_printf(s, " native");
        if (e->f[2])
            sink_printf(s, " this=%" PRIu64, e->f[2]);
        break;
    }
    case TRACE_EV_EXIT:
    case TRACE_EV_EXIT_THROW:
        sink_printf(s, " ");
        tt_put_method(s, c, e->f[0]);
        sink_printf(s, " depth=%" PRIu64, e->f[1]);
        break;
    case TRACE_EV_ALLOC:
        sink_printf(s, " object=%" PRIu64 " ", e->f[0]);
        tt_put_class(s, c, e->f[1]);
        sink_printf(s, " bytes=%" PRIu64, e->f[2]);
        if (e->f[3])
            sink_printf(s, " length=%" PRIu64, e->f[3] - 1);
        break;
    case TRACE_EV_FREE:
        sink_printf(s, " object=%" PRIu64, e->f[0]);
        break;
    case TRACE_EV_GC_START:
    case TRACE_EV_GC_END: {
        const tt_gc *g = id_table_get(&c->gcs, e->f[0]);
        sink_printf(s, " #%" PRIu64, e->f[0]);
        if (!g || !g->known) {
            sink_printf(s, " pause"); /* a collection the JVM did not report (a G1 remark or cleanup) */
            break;
        }
        /* what was not known when the trace ended: "unknown" (unquoted) */
        sink_printf(s, " %s", g->kind == TRACE_GC_YOUNG ? "young" : g->kind == TRACE_GC_FULL ? "full" : "unknown");
        uint64_t used = e->type == TRACE_EV_GC_START ? g->before : g->after;
        if (e->type == TRACE_EV_GC_START) {
            if (g->collector) {
                sink_printf(s, " \"");
                tt_put_string(s, c, g->collector);
                sink_printf(s, "\"");
            } else {
                sink_printf(s, " unknown");
            }
            if (g->cause) {
                sink_printf(s, " cause=\"");
                tt_put_string(s, c, g->cause);
                sink_printf(s, "\"");
            } else {
                sink_printf(s, " cause=unknown");
            }
        }
        sink_printf(s, e->type == TRACE_EV_GC_START ? " used-before=" : " used-after=");
        if (used == TRACE_GC_USED_UNKNOWN)
            sink_printf(s, "unknown");
        else
            sink_printf(s, "%" PRIu64, used);
        break;
    }
    case TRACE_EV_THREAD_START:
    case TRACE_EV_THREAD_END: {
        sink_printf(s, " ");
        tt_put_thread(s, c, e->f[0]);
        const tt_thread_name *t = id_table_get(&c->thread_names, e->f[0]);
        if (t && (t->flags & TRACE_THREAD_VIRTUAL)) {
            sink_printf(s, " virtual id=%" PRIu64 " thread=%" PRIu64, t->priority, e->f[0]);
        } else if (e->type == TRACE_EV_THREAD_START && t && t->name) {
            sink_printf(s, " group=");
            if (t->group)
                tt_put_string(s, c, t->group);
            else
                sink_printf(s, "-");
            sink_printf(s, " priority=%" PRIu64 "%s", t->priority, t->flags & TRACE_THREAD_DAEMON ? " daemon" : "");
        }
        break;
    }
    case TRACE_EV_CALL:
        sink_printf(s, " ");
        tt_put_method(s, c, e->f[0]);
        sink_printf(s, " depth=%" PRIu64 " duration=%" PRIu64 ".%06" PRIu64 "ms%s", e->f[1], e->f[2] / 1000000u,
                    e->f[2] % 1000000u, e->f[3] ? " thrown" : "");
        break;
    case TRACE_EV_CLASS_LOAD:
    case TRACE_EV_CLASS_UNLOAD:
        sink_printf(s, " ");
        tt_put_class(s, c, e->f[0]);
        break;
    case TRACE_EV_MONITOR:
        sink_printf(s, " %s object=%" PRIu64 " ",
                    e->f[0] == TRACE_MONITOR_CONTENDED ? "contended" : e->f[0] == TRACE_MONITOR_ENTERED ? "entered"
                    : e->f[0] == TRACE_MONITOR_WAIT ? "wait" : "waited", e->f[1]);
        tt_put_class(s, c, e->f[2]);
        break;
    case TRACE_EV_USER:
        sink_printf(s, " ");
        tt_put_text(s, e->text, e->text_len);
        break;
    case TRACE_EV_PROBE:
        sink_printf(s, " ");
        tt_put_probe(s, c, e, false);
        break;
    case TRACE_EV_SAMPLE:
        sink_printf(s, " ");
        tt_put_string(s, c, e->f[1]);
        break;
    case TRACE_EV_REFERENCES:
        sink_printf(s, " objects=%" PRIu64 " references=%" PRIu64, e->f[0], e->f[1]);
        break;
    case TRACE_EV_OBJECT:
        sink_printf(s, " object=%" PRIu64 " ", e->f[0]);
        tt_put_class(s, c, e->f[2]);
        sink_printf(s, " %s bytes=%" PRIu64, e->f[1] == TRACE_OBJECT_ARRAY ? "array" : e->f[1] == TRACE_OBJECT_CLASS
                                                                                 ? "class" : "object", e->f[3]);
        if (e->f[4])
            sink_printf(s, " length=%" PRIu64, e->f[4] - 1);
        break;
    case TRACE_EV_REFERENCE: {
        static const char *const kinds[] = { "?", "class", "field", "array-element", "class-loader", "signers",
                                             "protection-domain", "interface", "static-field", "constant-pool",
                                             "superclass" };
        sink_printf(s, " object=%" PRIu64 " %s", e->f[0], e->f[1] < sizeof kinds / sizeof kinds[0] ? kinds[e->f[1]]
                                                                                                   : "other");
        if (e->f[1] == 2 || e->f[1] == 3 || e->f[1] == 8 || e->f[1] == 9)
            sink_printf(s, " index=%" PRIu64, e->f[2]);
        break;
    }
    default:
        break;
    }
    sink_printf(s, "\n");
}

/* s: JSON string contents of n bytes (quotes and backslashes escaped, control bytes as \u00XX) */
static void tt_json_chars(sink *s, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == '"' || ch == '\\')
            sink_printf(s, "\\%c", ch);
        else if (ch < 0x20)
            sink_printf(s, "\\u%04x", ch);
        else
            sink_write(s, &ch, 1);
    }
}

/* A probe firing: provider:module:function:name(arguments), as DTrace names
 * probes; json: escaped for a JSON string. */
static void tt_put_probe(sink *s, const tt_ctx *c, const trace_event *e, bool json)
{
    const tt_probe *p = id_table_get(&c->probes, e->f[0]);
    const tt_provider *v = p ? id_table_get(&c->providers, p->provider) : NULL;
    const tt_string *kinds = p ? id_table_get(&c->strings, p->kinds) : NULL;
    char kbuf[PROBE_ARGS_MAX + 1] = "";
    if (!p || !v || !kinds || !kinds->p || kinds->n > PROBE_ARGS_MAX) {
        sink_printf(s, "<probe %" PRIu64 ">", e->f[0]);
        return;
    }
    uint64_t parts[4] = { v->name, v->module, p->function, p->name };
    for (int i = 0; i < 4; i++) {
        const tt_string *str = id_table_get(&c->strings, parts[i]);
        if (i)
            sink_printf(s, ":");
        if (str && str->p)
            tt_put_text(s, str->p, str->n);
    }
    memcpy(kbuf, kinds->p, kinds->n);
    probe_arg args[PROBE_ARGS_MAX];
    if (!probe_kinds_valid(kbuf) || !probe_args_decode(kbuf, (const uint8_t *)e->text, e->text_len, args)) {
        sink_printf(s, "(<damaged arguments>)");
        return;
    }
    sink_printf(s, "(");
    for (size_t i = 0; i < kinds->n; i++) {
        char text[256];
        int n = probe_arg_format(&args[i], text, sizeof text);
        size_t len = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
        if (i)
            sink_printf(s, ", ");
        if (json)
            tt_json_chars(s, text, len);
        else
            sink_write(s, text, len);
        if ((size_t)n >= sizeof text)
            sink_printf(s, "...");
    }
    sink_printf(s, ")");
}

static void tt_json_string_id(sink *s, const tt_ctx *c, uint64_t id)
{
    const tt_string *str = id_table_get(&c->strings, id);
    if (str && str->p)
        tt_json_chars(s, str->p, str->n);
    else
        sink_printf(s, "<string %" PRIu64 ">", id);
}

/* "pkg.Class.method" of a method id, JSON-escaped */
static void tt_json_method(sink *s, const tt_ctx *c, uint64_t id)
{
    const tt_method *m = id_table_get(&c->methods, id);
    const uint64_t *cname = m ? id_table_get(&c->classes, m->cls) : NULL;
    const tt_string *cs = cname ? id_table_get(&c->strings, *cname) : NULL;
    if (!m || !m->name || !cs || !cs->p) {
        sink_printf(s, "<method %" PRIu64 ">", id);
        return;
    }
    for (size_t i = 0; i < cs->n; i++) {
        char ch = cs->p[i] == '/' ? '.' : cs->p[i];
        tt_json_chars(s, &ch, 1);
    }
    sink_printf(s, ".");
    tt_json_string_id(s, c, m->name);
}

/* One event in Chrome's Trace Event Format: calls as B/E pairs on their
 * thread's track, the rest as instant events; ts in microseconds. */
static void tt_put_chrome(sink *s, const tt_ctx *c, const trace_event *e, bool *first)
{
    char ts[48];
    uint64_t t = e->time_ns; /* a whole call's: its start */
    if (e->type == TRACE_EV_CALL)
        t -= e->f[2] < t ? e->f[2] : t;
    snprintf(ts, sizeof ts, "%" PRIu64 ".%03" PRIu64, t / 1000u, t % 1000u);
    sink_printf(s, "%s\n{\"pid\":1,\"tid\":%u,\"ts\":%s,", *first ? "" : ",", e->thread, ts);
    *first = false;
    switch (e->type) {
    case TRACE_EV_ENTER: {
        const tt_method *m = id_table_get(&c->methods, e->f[0]);
        sink_printf(s, "\"ph\":\"B\",\"name\":\"");
        tt_json_method(s, c, e->f[0]);
        sink_printf(s, "\",\"args\":{\"signature\":\"");
        if (m && m->sig)
            tt_json_string_id(s, c, m->sig);
        sink_printf(s, "\",\"depth\":%" PRIu64 "}}", e->f[1]);
        break;
    }
    case TRACE_EV_EXIT:
    case TRACE_EV_EXIT_THROW:
        sink_printf(s, "\"ph\":\"E\",\"name\":\"");
        tt_json_method(s, c, e->f[0]);
        sink_printf(s, "\"%s}", e->type == TRACE_EV_EXIT_THROW ? ",\"args\":{\"exception\":true}" : "");
        break;
    case TRACE_EV_CALL: /* a whole call (mintime=): one complete event, from its start */
        sink_printf(s, "\"ph\":\"X\",\"name\":\"");
        tt_json_method(s, c, e->f[0]);
        sink_printf(s, "\",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"args\":{\"depth\":%" PRIu64 "%s}}", e->f[2] / 1000u,
                    e->f[2] % 1000u, e->f[1], e->f[3] ? ",\"exception\":true" : "");
        break;
    case TRACE_EV_USER:
        sink_printf(s, "\"ph\":\"i\",\"s\":\"t\",\"name\":\"");
        tt_json_chars(s, e->text, e->text_len);
        sink_printf(s, "\"}");
        break;
    case TRACE_EV_PROBE:
        sink_printf(s, "\"ph\":\"i\",\"s\":\"t\",\"cat\":\"probe\",\"name\":\"");
        tt_put_probe(s, c, e, true);
        sink_printf(s, "\"}");
        break;
    case TRACE_EV_GC_START:
    case TRACE_EV_GC_END: {
        const tt_gc *g = id_table_get(&c->gcs, e->f[0]);
        bool known = g && g->known;
        sink_printf(s, "\"ph\":\"i\",\"s\":\"g\",\"name\":\"%s #%" PRIu64 " %s\"}", trace_event_name(e->type),
                    e->f[0], !known ? "pause" : g->kind == TRACE_GC_YOUNG ? "young" : g->kind == TRACE_GC_FULL ? "full"
                                                                                            : "unknown");
        if (known && (e->type == TRACE_EV_GC_START ? g->before : g->after) != TRACE_GC_USED_UNKNOWN) /* as a counter */
            sink_printf(s, ",\n{\"pid\":1,\"tid\":0,\"ts\":%s,\"ph\":\"C\",\"name\":\"heap used\",\"args\":"
                        "{\"bytes\":%" PRIu64 "}}", ts, e->type == TRACE_EV_GC_START ? g->before : g->after);
        break;
    }
    default:
        sink_printf(s, "\"ph\":\"i\",\"s\":\"t\",\"name\":\"%s\"}", trace_event_name(e->type));
        break;
    }
}

/* The threads' names, as Trace Event metadata */
static void tt_put_chrome_threads(sink *s, const tt_ctx *c, bool *first)
{
    for (size_t i = 0; i < id_table_count(&c->thread_names); i++) {
        uint64_t id;
        const tt_thread_name *t = id_table_nth(&c->thread_names, i, &id);
        if (id == 0 || !t->name)
            continue;
        sink_printf(s, "%s\n{\"pid\":1,\"tid\":%" PRIu64 ",\"ph\":\"M\",\"name\":\"thread_name\",\"args\":{\"name\":\"",
                    *first ? "" : ",", id);
        tt_json_string_id(s, c, t->name);
        sink_printf(s, "\"}}");
        *first = false;
    }
}

/* --slowest: the N longest calls seen, shortest first (slot 0 is the one to replace) */
#define TT_SLOW_FRAMES 16
typedef struct tt_slow {
    uint64_t duration, end_ns, depth;
    uint32_t thread;
    uint32_t nframes;           /* the method, then its callers (0: a caller not known) */
    uint64_t frames[TT_SLOW_FRAMES];
} tt_slow;

static int tt_slow_cmp(const void *a, const void *b)
{
    const tt_slow *x = a, *y = b;
    return x->duration < y->duration ? -1 : x->duration > y->duration;
}

/* A call's end (an exit, or a whole call of mintime=): keeps it if it is
 * among the n slowest. After an exit t's stack still holds the call and its
 * callers; a whole call's callers end after it, and tt_slow_callers fills
 * them in as they come. */
static void tt_slow_offer(tt_slow *top, size_t n, size_t *have, const tt_thread *t, const trace_event *e)
{
    uint64_t duration = e->type == TRACE_EV_CALL ? e->f[2] : t->last_duration;
    if (*have == n && duration <= top[0].duration)
        return;
    tt_slow c = { duration, e->time_ns, e->f[1], e->thread, 0, { 0 } };
    if (e->type == TRACE_EV_CALL) {
        c.frames[0] = e->f[0];
        c.nframes = (uint32_t)(e->f[1] < TT_SLOW_FRAMES ? (e->f[1] ? e->f[1] : 1) : TT_SLOW_FRAMES);
    } else {
        for (size_t d = (size_t)e->f[1]; d > 0 && c.nframes < TT_SLOW_FRAMES; d--)
            c.frames[c.nframes++] = d <= t->stack_cap ? t->stack[d - 1] : 0;
    }
    if (*have < n)
        top[(*have)++] = c;
    else
        top[0] = c;
    qsort(top, *have, sizeof *top, tt_slow_cmp);
}

/* A whole call (mintime=): the caller, at its depth, of each kept call on its thread that it holds. */
static void tt_slow_callers(tt_slow *top, size_t have, const trace_event *e)
{
    uint64_t start = e->time_ns - (e->f[2] < e->time_ns ? e->f[2] : e->time_ns);
    for (size_t i = 0; i < have; i++) {
        tt_slow *k = &top[i];
        if (k->thread != e->thread || e->f[1] >= k->depth || k->depth - e->f[1] >= k->nframes)
            continue;
        if (start <= k->end_ns - k->duration && e->time_ns >= k->end_ns)
            k->frames[k->depth - e->f[1]] = e->f[0];
    }
}

/* --slowest: the CPU samples of the trace (cpu=samples in the same run), in time order */
typedef struct tt_sample { uint64_t time, stack; uint32_t thread; } tt_sample;
typedef struct tt_samples { tt_sample *v; size_t n, cap; } tt_samples;

static bool tt_samples_add(tt_samples *ss, const trace_event *e)
{
    if (!tt_room(&ss->v, ss->n, &ss->cap, sizeof *ss->v, 1024))
        return false;
    ss->v[ss->n++] = (tt_sample){ e->time_ns, e->f[1], e->thread };
    return true;
}

static int tt_count_cmp(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b; /* (count, stack) pairs, most first */
    return x[0] > y[0] ? -1 : x[0] < y[0];
}

/* The samples of k's thread inside k's call: how many, and its three most common stacks (their leaf end). */
#define TT_SLOW_STACKS 3
static void tt_put_samples_inside(sink *s, const tt_ctx *c, const tt_samples *ss, const tt_slow *k)
{
    uint64_t start = k->end_ns - k->duration;
    size_t lo = 0, hi = ss->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ss->v[mid].time < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t top[64][2]; /* (count, stack), the first 64 stacks seen */
    size_t ntop = 0, inside = 0;
    for (size_t i = lo; i < ss->n && ss->v[i].time <= k->end_ns; i++) {
        if (ss->v[i].thread != k->thread)
            continue;
        inside++;
        size_t j = 0;
        while (j < ntop && top[j][1] != ss->v[i].stack)
            j++;
        if (j < ntop)
            top[j][0]++;
        else if (ntop < 64)
            top[ntop][0] = 1, top[ntop++][1] = ss->v[i].stack;
    }
    if (!ss->n)
        return;
    sink_printf(s, "           %zu CPU sample%s inside%s\n", inside, inside == 1 ? "" : "s", inside ? ", most common:" : "");
    qsort(top, ntop, sizeof top[0], tt_count_cmp);
    for (size_t j = 0; j < ntop && j < TT_SLOW_STACKS; j++) {
        const tt_string *st = id_table_get(&c->strings, top[j][1]);
        size_t from = 0, frames = 0;
        for (size_t q = st && st->p ? st->n : 0; q-- > 0;) /* the last 4 frames: the leaf end */
            if (st->p[q] == ';' && ++frames == 4) {
                from = q + 1;
                break;
            }
        sink_printf(s, "           %6" PRIu64 "  %s", top[j][0], from ? "...;" : "");
        if (st && st->p)
            tt_put_text(s, st->p + from, st->n - from);
        sink_printf(s, "\n");
    }
}

static void tt_put_slowest(sink *s, const tt_ctx *c, tt_slow *top, size_t have, uint64_t calls, const tt_samples *ss)
{
    sink_printf(s, "SLOWEST CALLS (%zu of %" PRIu64 " calls)\n", have, calls);
    sink_printf(s, "rank     duration ms       start s thread / method, then its callers\n");
    for (size_t i = have; i-- > 0;) {
        const tt_slow *k = &top[i];
        uint64_t start = k->end_ns - k->duration;
        sink_printf(s, "%4zu %15" PRIu64 ".%06" PRIu64 " %7" PRIu64 ".%06" PRIu64 " ", have - i,
                    k->duration / 1000000u, k->duration % 1000000u, start / 1000000000u, (start / 1000u) % 1000000u);
        tt_put_thread(s, c, k->thread);
        sink_printf(s, "\n");
        for (uint32_t f = 0; f < k->nframes; f++) {
            sink_printf(s, "%s", f ? "        <- " : "           ");
            if (k->frames[f])
                tt_put_method(s, c, k->frames[f]);
            else
                sink_printf(s, "<a caller not in the trace>"); /* mintime=: a caller still running at the end */
            sink_printf(s, "\n");
        }
        tt_put_samples_inside(s, c, ss, k);
    }
}

/* --flame: a call's entry and exit into the tree: its node under its
 * caller's, and at its exit its time less its callees' as its own. A whole
 * call (mintime=) is kept for tt_flame_spans. false if out of memory. */
#define TT_THREAD_KEY (1ull << 63)
static bool tt_flame_event(trace_tree *tree, tt_thread *t, const trace_event *e)
{
    if (e->type == TRACE_EV_CALL) {
        if (!tt_room(&t->spans, t->nspans, &t->spans_cap, sizeof *t->spans, 64))
            return false;
        uint64_t d = e->f[2] < e->time_ns ? e->f[2] : e->time_ns;
        t->spans[t->nspans++] = (tt_span){ e->time_ns - d, d, e->f[1], e->f[0] };
        return true;
    }
    if (e->type != TRACE_EV_ENTER && e->type != TRACE_EV_EXIT && e->type != TRACE_EV_EXIT_THROW)
        return true;
    if (t->tree_cap < t->stack_cap) {
        uint32_t *n = realloc(t->nodes, t->stack_cap * sizeof *n);
        if (n)
            t->nodes = n;
        uint64_t *c = n ? realloc(t->child_ns, t->stack_cap * sizeof *c) : NULL;
        if (!c)
            return false;
        t->child_ns = c;
        t->tree_cap = t->stack_cap;
    }
    if (!t->root && !(t->root = trace_tree_child(tree, 0, TT_THREAD_KEY | t->id)))
        return false;
    size_t d = (size_t)e->f[1]; /* 1 = outermost */
    if (d == 0 || d > t->tree_cap)
        return true;
    if (e->type == TRACE_EV_ENTER) {
        uint32_t parent = d > 1 ? t->nodes[d - 2] : t->root;
        t->nodes[d - 1] = parent ? trace_tree_child(tree, parent, e->f[0]) : 0;
        t->child_ns[d - 1] = 0;
        return t->nodes[d - 1] != 0 || !parent;
    }
    uint64_t took = t->last_duration;
    trace_tree_add(tree, t->nodes[d - 1], took > t->child_ns[d - 1] ? took - t->child_ns[d - 1] : 0);
    if (d > 1)
        t->child_ns[d - 2] += took;
    return true;
}

static int tt_span_cmp(const void *a, const void *b)
{
    const tt_span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth; /* a caller before a callee that starts with it */
}

/* The whole calls of a thread, nested by start and depth, into the tree. */
static bool tt_flame_spans(trace_tree *tree, tt_thread *t)
{
    if (!t->nspans)
        return true;
    qsort(t->spans, t->nspans, sizeof *t->spans, tt_span_cmp);
    uint32_t *nodes = malloc(t->nspans * sizeof *nodes);
    uint64_t *ends = malloc(t->nspans * sizeof *ends), *child = malloc(t->nspans * sizeof *child);
    size_t *at = malloc(t->nspans * sizeof *at);
    bool ok = nodes && ends && child && at &&
              (t->root || (t->root = trace_tree_child(tree, 0, TT_THREAD_KEY | t->id)));
    size_t open = 0;
    for (size_t i = 0; ok && i <= t->nspans; i++) {
        const tt_span *sp = i < t->nspans ? &t->spans[i] : NULL;
        while (open && (!sp || sp->start >= ends[open - 1])) { /* calls that ended before this one began */
            open--;
            uint64_t d = t->spans[at[open]].duration;
            trace_tree_add(tree, nodes[open], d > child[open] ? d - child[open] : 0);
            if (open)
                child[open - 1] += d;
        }
        if (!sp)
            break;
        nodes[open] = trace_tree_child(tree, open ? nodes[open - 1] : t->root, sp->method);
        ends[open] = sp->start + sp->duration;
        child[open] = 0;
        at[open++] = i;
        ok = nodes[open - 1] != 0;
    }
    free(nodes);
    free(ends);
    free(child);
    free(at);
    return ok;
}

typedef struct tt_flame_out { sink *s; const tt_ctx *c; } tt_flame_out;

/* One collapsed line: [thread];pkg.Class.method;... ns */
static bool tt_flame_line(const uint64_t *keys, uint32_t n, uint64_t ns, void *v)
{
    tt_flame_out *o = v;
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            sink_printf(o->s, ";");
        if (keys[i] & TT_THREAD_KEY) {
            sink_printf(o->s, "[");
            tt_put_thread(o->s, o->c, keys[i] & ~TT_THREAD_KEY);
            sink_printf(o->s, "]");
            continue;
        }
        const tt_method *m = id_table_get(&o->c->methods, keys[i]);
        if (!m || !m->name) {
            sink_printf(o->s, "method-%" PRIu64, keys[i]);
            continue;
        }
        tt_put_class(o->s, o->c, m->cls);
        sink_printf(o->s, ".");
        tt_put_string(o->s, o->c, m->name);
    }
    sink_printf(o->s, " %" PRIu64 "\n", ns);
    return sink_status(o->s) == JP_OK;
}

static jp_status tt_run(const void *data, size_t len, const trace_text_filter *f, bool chrome, size_t slowest,
                        bool flame, sink *s, trace_text_summary *sum, char *why, size_t whylen)
{
    memset(sum, 0, sizeof *sum);
    trace_reader r;
    if (trace_reader_open(&r, data, len) != JP_OK) {
        snprintf(why, whylen, "%s", r.why);
        return JP_ERR_FORMAT;
    }
    tt_ctx c = { .data = data, .len = len };
    id_table_init(&c.strings, sizeof(tt_string));
    id_table_init(&c.classes, sizeof(uint64_t));
    id_table_init(&c.methods, sizeof(tt_method));
    id_table_init(&c.thread_names, sizeof(tt_thread_name));
    id_table_init(&c.providers, sizeof(tt_provider));
    id_table_init(&c.probes, sizeof(tt_probe));
    id_table_init(&c.gcs, sizeof(tt_gc));
    jp_status st = tt_first_pass(&c, &r);
    sum->chunks = r.chunks;
    sum->stopped = r.stopped;
    if (r.stopped)
        snprintf(sum->why, sizeof sum->why, "%s", r.why);
    for (size_t i = 0; st == JP_OK && i < c.nthreads; i++)
        tt_cursor_advance(&c, &c.threads[i]);
    bool first = true;
    tt_slow *top = slowest ? calloc(slowest, sizeof *top) : NULL;
    size_t have = 0;
    uint64_t calls = 0;
    if (slowest && !top)
        st = JP_ERR_NOMEM;
    trace_tree *tree = flame ? trace_tree_new() : NULL;
    if (flame && !tree)
        st = JP_ERR_NOMEM;
    tt_samples samples = { NULL, 0, 0 };
    trace_text_filter where = *f; /* --flame: the thread and the time window choose calls, not types */
    where.types = 0;
    where.method = NULL;
    if (chrome) {
        sink_printf(s, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
        tt_put_chrome_threads(s, &c, &first);
    }
    while (st == JP_OK) {
        tt_thread *best = NULL;
        for (size_t i = 0; i < c.nthreads; i++)
            if (c.threads[i].has && (!best || c.threads[i].ev.time_ns < best->ev.time_ns))
                best = &c.threads[i];
        if (!best)
            break;
        sum->events++;
        tt_thread *who = tt_who(&c, best, &best->ev);
        if (flame) {
            if (!tt_filtered_out(&c, &best->ev, &where) && !tt_flame_event(tree, who, &best->ev))
                st = JP_ERR_NOMEM;
        } else if (slowest) {
            bool end = best->ev.type == TRACE_EV_EXIT || best->ev.type == TRACE_EV_EXIT_THROW ||
                       best->ev.type == TRACE_EV_CALL;
            if (best->ev.type == TRACE_EV_CALL)
                tt_slow_callers(top, have, &best->ev);
            if (best->ev.type == TRACE_EV_SAMPLE && !tt_samples_add(&samples, &best->ev))
                st = JP_ERR_NOMEM;
            if (end && !tt_filtered_out(&c, &best->ev, f)) {
                calls++;
                tt_slow_offer(top, slowest, &have, who, &best->ev);
            }
        } else if (!tt_filtered_out(&c, &best->ev, f)) {
            if (chrome)
                tt_put_chrome(s, &c, &best->ev, &first);
            else
                tt_put_event(s, &c, &best->ev);
            sum->printed++;
        }
        tt_cursor_advance(&c, best);
    }
    if (chrome)
        sink_printf(s, "\n]}\n");
    if (slowest && st == JP_OK) {
        tt_put_slowest(s, &c, top, have, calls, &samples);
        sum->printed = have;
    }
    for (size_t i = 0; flame && st == JP_OK && i < c.nthreads; i++)
        if (!tt_flame_spans(tree, &c.threads[i]))
            st = JP_ERR_NOMEM;
    if (flame && st == JP_OK) {
        tt_flame_out o = { s, &c };
        trace_tree_walk(tree, 2048, tt_flame_line, &o);
    }
    trace_tree_free(tree);
    free(samples.v);
    free(top);
    tt_ctx_free(&c);
    if (st != JP_OK)
        snprintf(why, whylen, "out of memory");
    return st != JP_OK ? st : sink_status(s);
}

jp_status trace_text_write(const void *data, size_t len, const trace_text_filter *f, sink *s,
                           trace_text_summary *sum, char *why, size_t whylen)
{
    return tt_run(data, len, f, false, 0, false, s, sum, why, whylen);
}

jp_status trace_chrome_write(const void *data, size_t len, const trace_text_filter *f, sink *s,
                             trace_text_summary *sum, char *why, size_t whylen)
{
    return tt_run(data, len, f, true, 0, false, s, sum, why, whylen);
}

jp_status trace_slowest_write(const void *data, size_t len, const trace_text_filter *f, size_t n, sink *s,
                              trace_text_summary *sum, char *why, size_t whylen)
{
    return tt_run(data, len, f, false, n ? n : 1, false, s, sum, why, whylen);
}

jp_status trace_collapsed_write(const void *data, size_t len, const trace_text_filter *f, sink *s,
                                trace_text_summary *sum, char *why, size_t whylen)
{
    return tt_run(data, len, f, false, 0, true, s, sum, why, whylen);
}
