/* times.c — cpu=times' engine (see times.h; the collector that runs it is
 * collect_times.c). Each Java thread owns a shadow stack
 * of the instrumented methods it is in and a table of call paths (the top
 * depth= methods, top first) with their calls and self time, made at its
 * first entry and reached through its record (thread_record.h: one
 * initial-exec load per entry and exit); the tables outlive their threads on
 * their session's times_run, for the session's reports (a stopped session's are freed
 * at the end of the next one; a new session's calls go to new tables). Only the
 * owning thread writes its table: counters are relaxed atomics written with
 * plain load+store (no locked instruction), new paths are filled in and then
 * published with a release store of the count, chunks never move, so the
 * agent thread can read any table at any time without a lock.
 *
 * Time is the thread's elapsed time between entry and exit (ticks.h), less
 * the time it spent waiting in between: after each wait (blocking.h) the
 * open frames' starts move on by it, and it goes to the top frame's path as
 * time waiting; see docs/cpu-times.md for why not the thread CPU clock. A method left by an exception is closed by the
 * injected catch-all handler; a frame whose exit never came (a constructor
 * that threw) is closed when an exit further down the stack arrives. */
#include "times.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bci.h"
#include "../sampling/sampler_vthreads.h"
#include "../core/thread_record.h"
#include "../core/ticks.h"
#include "../core/thread_registry.h"
#include "../core/vthreads.h"

#define TIMES_CHUNK 512u     /* paths per chunk */
#define TIMES_CHUNKS 2048u   /* chunks per thread: 1M paths */
#define TIMES_NO_KEY UINT64_MAX
#define TIMES_ROOT UINT32_MAX        /* the path of the sentinel frame under everything */
#define TIMES_NO_PATH (UINT32_MAX - 1) /* a path that could not be stored */
#define TIMES_UNWIND_MAX 256u        /* how far down an exit looks for its frame */

typedef struct times_counts {
    _Atomic uint64_t calls, ticks, waited;   /* ticks: self time running; waited: self time waiting */
} times_counts;

typedef struct times_chunk {
    times_counts counts[TIMES_CHUNK];
    uint64_t base[TIMES_CHUNK][3];   /* reset=y: calls, ticks, waited at the last report (agent thread only) */
    uint32_t owner[TIMES_CHUNK];     /* thread=y: the virtual thread whose path it is (serial); 0: the table's thread's */
    uint16_t len[TIMES_CHUNK];
    uint64_t keys[]; /* TIMES_CHUNK * depth; path i's keys, top first */
} times_chunk;

typedef struct times_frame {
    uint64_t key;       /* the method's number (bci.h) */
    uint64_t start;     /* ticks at entry */
    uint64_t child;     /* ticks instrumented callees ran */
    uint64_t last_key;  /* the callee entered last, and its path: most calls repeat it */
    uint32_t path, last_path;
} times_frame;

/* One step of the call graph: the path a callee's call gets under its
 * caller's path (the top depth= keys of the callee's path are its key and
 * the caller's first depth-1 ones, so the pair decides it). Looked up by one
 * 64-bit compare where finding the path by its keys takes a hash over them. */
typedef struct times_edge {
    uint64_t edge;    /* caller's path << 32 | callee's key */
    uint32_t path1;   /* callee's path + 1; 0: empty */
} times_edge;

/* A shadow stack: the frames of the calls a thread is in. One assignment
 * lends a virtual thread's to its carrier's table, one gives it back. */
typedef struct times_stack {
    times_frame *frames;           /* frames[0] is the root sentinel */
    uint32_t sp, cap;
} times_stack;

typedef struct times_thread {
    struct times_thread *next;
    uint32_t serial;
    uint32_t depth;                /* its session's depth=: the keys a path holds */
    times_stack stack;             /* by value: the calls reach its frames with one load, as before */
    _Atomic uint32_t npaths;
    times_chunk *_Atomic chunks[TIMES_CHUNKS];
    uint32_t *index;               /* open addressing, path + 1; owner only */
    uint32_t index_cap;
    struct times_edge *edges;      /* (caller's path, callee) -> callee's path; owner only */
    uint32_t edges_cap, edges_used;
    _Atomic uint64_t unmatched, unwound, dropped;
    /* a carrier's: while a virtual thread is mounted on it, stack is that thread's (lent_to) and
     * its own waits in own (times_run_mount) */
    struct times_vstack *lent_to;
    times_stack own;
} times_thread;

/* A virtual thread's shadow stack (vthreads.h: its record's part), lent to
 * the table of the carrier it is mounted on. Its frames' paths are that
 * table's: mounted on another carrier, they are looked up again in its
 * table. */
typedef struct times_vstack {
    times_stack stack;
    times_thread *table;   /* the table its frames' paths are in */
    uint32_t gen;          /* the session it belongs to; another's is begun again */
} times_vstack;

/* thread=y: a virtual thread's name, kept from its first mount in the
 * session to the session's end (its record goes at its own end, the
 * report's rows may come later). Pushed by its carrier, read by reports. */
typedef struct times_vname {
    struct times_vname *next;
    uint32_t serial;
    uint64_t java_id;
    char name[];
} times_vname;
/* A session's tables (times.h): made at its load, retired at its end. */
struct times_run {
    uint32_t depth;                       /* depth= */
    bool thread;                          /* thread=y */
    _Atomic(times_thread *) threads;      /* the threads' tables, pushed by each at its first call */
    _Atomic(times_vname *) vnames;        /* thread=y: the virtual threads' names */
};

/* The session's number: a thread's table is the session's when its record
 * says so (thread_record_self.times_gen): the one value the Tracker natives
 * load on every call. An earlier session's table is replaced at the
 * thread's first call in this one, and freed at the end of the session
 * after (a Tracker call in flight at a stop may still touch it). Global, for
 * the JVM's life: the threads' records keep the number of their last table,
 * so a number is never used twice. */
static _Atomic uint32_t times_gen = 1;
/* The running session's tables, for a Tracker call that makes its thread's
 * first table in the session (the natives get no session; they load this
 * only then, not per call): set at the load, cleared at the end. */
static times_run *_Atomic times_live;
/* The last session's tables, kept until the next session's end: a Tracker
 * call in flight at its stop may still touch them (the natives pass no gate). */
static times_run *times_retired;

static inline void relaxed_add(_Atomic uint64_t *p, uint64_t v)
{
    atomic_store_explicit(p, atomic_load_explicit(p, memory_order_relaxed) + v, memory_order_relaxed);
}

/* A table with its stack's root frame, on no list. */
static times_thread *times_thread_make(uint32_t depth)
{
    times_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->depth = depth;
    t->stack.cap = 256;
    t->stack.frames = malloc(t->stack.cap * sizeof *t->stack.frames);
    t->index_cap = 1024;
    t->index = calloc(t->index_cap, sizeof *t->index);
    t->edges_cap = 1024;
    t->edges = calloc(t->edges_cap, sizeof *t->edges);
    if (!t->stack.frames || !t->index || !t->edges) {
        free(t->stack.frames);
        free(t->index);
        free(t->edges);
        free(t);
        return NULL;
    }
    t->stack.frames[0] = (times_frame){ .key = TIMES_NO_KEY, .last_key = TIMES_NO_KEY, .path = TIMES_ROOT };
    t->stack.sp = 1;
    return t;
}

/* The calling thread's table for this session, on its run; NULL when none runs (a call after its end). */
static times_thread *times_thread_new(void)
{
    times_run *r = atomic_load_explicit(&times_live, memory_order_acquire);
    times_thread *t = r ? times_thread_make(r->depth) : NULL;
    if (!t)
        return NULL;
    t->serial = thread_registry_serial(NULL);
    times_thread *head = atomic_load(&r->threads);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&r->threads, &head, t));
    thread_record_self.times = t;
    thread_record_self.times_gen = atomic_load_explicit(&times_gen, memory_order_relaxed);
    return t;
}

static inline times_chunk *chunk_of(times_thread *t, uint32_t path)
{
    return atomic_load_explicit(&t->chunks[path / TIMES_CHUNK], memory_order_acquire);
}

static inline const uint64_t *path_keys(times_thread *t, uint32_t path, uint32_t *len)
{
    if (path == TIMES_ROOT || path == TIMES_NO_PATH) {
        *len = 0;
        return NULL;
    }
    times_chunk *c = chunk_of(t, path);
    *len = c->len[path % TIMES_CHUNK];
    return c->keys + (size_t)(path % TIMES_CHUNK) * t->depth;
}

static inline uint64_t times_mix(uint64_t h, uint64_t k)
{
    h = (h ^ k) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

static uint64_t path_hash(uint64_t key, const uint64_t *pk, uint32_t len, uint32_t owner)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    if (owner)
        h = times_mix(h, (uint64_t)owner << 32);
    if (len == 0)
        return h;
    h = times_mix(h, key);
    for (uint32_t i = 0; i + 1 < len; i++)
        h = times_mix(h, pk[i]);
    return h;
}

static inline uint32_t path_owner(times_thread *t, uint32_t path)
{
    return path < TIMES_NO_PATH ? chunk_of(t, path)->owner[path % TIMES_CHUNK] : 0;
}

static bool index_grow(times_thread *t)
{
    uint32_t cap = t->index_cap * 2;
    uint32_t *ix = cap ? calloc(cap, sizeof *ix) : NULL;
    if (!ix)
        return false;
    uint32_t n = atomic_load_explicit(&t->npaths, memory_order_relaxed);
    for (uint32_t p = 0; p < n; p++) {
        uint32_t len;
        const uint64_t *k = path_keys(t, p, &len);
        uint64_t h = path_hash(len ? k[0] : 0, len ? k + 1 : NULL, len, path_owner(t, p));
        uint32_t i = (uint32_t)h & (cap - 1);
        while (ix[i])
            i = (i + 1) & (cap - 1);
        ix[i] = p + 1;
    }
    free(t->index);
    t->index = ix;
    t->index_cap = cap;
    return true;
}

/* The path whose keys are key and then pk's first len - 1 (none when len
 * is 0), of owner (a virtual thread's serial, thread=y; 0: the table's
 * thread's): found, or added. */
static uint32_t path_find(times_thread *t, uint64_t key, const uint64_t *pk, uint32_t len, uint32_t owner)
{
    uint64_t h = path_hash(key, pk, len, owner);
    uint32_t mask = t->index_cap - 1, i = (uint32_t)h & mask;
    for (uint32_t p; (p = t->index[i]) != 0; i = (i + 1) & mask) {
        uint32_t l;
        const uint64_t *k = path_keys(t, p - 1, &l);
        if (l == len && path_owner(t, p - 1) == owner &&
            (len == 0 || (k[0] == key && memcmp(k + 1, pk, (size_t)(len - 1) * sizeof *k) == 0)))
            return p - 1;
    }
    uint32_t n = atomic_load_explicit(&t->npaths, memory_order_relaxed);
    if (n >= TIMES_CHUNK * TIMES_CHUNKS)
        return TIMES_NO_PATH;
    times_chunk *c = chunk_of(t, n);
    if (!c) {
        c = calloc(1, sizeof *c + (size_t)TIMES_CHUNK * t->depth * sizeof(uint64_t));
        if (!c)
            return TIMES_NO_PATH;
        atomic_store_explicit(&t->chunks[n / TIMES_CHUNK], c, memory_order_release);
    }
    uint64_t *k = c->keys + (size_t)(n % TIMES_CHUNK) * t->depth;
    if (len) {
        k[0] = key;
        memcpy(k + 1, pk, (size_t)(len - 1) * sizeof *k);
    }
    c->len[n % TIMES_CHUNK] = (uint16_t)len;
    c->owner[n % TIMES_CHUNK] = owner;
    atomic_store_explicit(&t->npaths, n + 1, memory_order_release);
    t->index[i] = n + 1;
    if ((uint64_t)(n + 1) * 2 >= t->index_cap)
        index_grow(t); /* on failure the index just gets fuller */
    return n;
}

/* The path of `key` called from a frame whose path is parent (its owner's too). */
static uint32_t path_of(times_thread *t, uint32_t parent, uint64_t key)
{
    uint32_t plen;
    const uint64_t *pk = path_keys(t, parent, &plen);
    uint32_t len = t->depth == 0 ? 0 : (plen + 1 < t->depth ? plen + 1 : t->depth);
    return path_find(t, key, pk, len, path_owner(t, parent));
}

static uint32_t edge_slot(uint64_t edge, uint32_t mask)
{
    return (uint32_t)((edge * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static void edges_grow(times_thread *t)
{
    uint32_t cap = t->edges_cap * 2;
    times_edge *e = cap ? calloc(cap, sizeof *e) : NULL;
    if (!e)
        return; /* the table just gets fuller; a full one adds no more edges */
    for (uint32_t i = 0; i < t->edges_cap; i++)
        if (t->edges[i].path1) {
            uint32_t j = edge_slot(t->edges[i].edge, cap - 1);
            while (e[j].path1)
                j = (j + 1) & (cap - 1);
            e[j] = t->edges[i];
        }
    free(t->edges);
    t->edges = e;
    t->edges_cap = cap;
}

/* The path of `key` called from a frame whose path is parent, through the
 * edge table, and path_of on the first call of that pair. */
static uint32_t child_of(times_thread *t, uint32_t parent, uint64_t key)
{
    uint64_t edge = (uint64_t)parent << 32 | (uint32_t)key;
    uint32_t mask = t->edges_cap - 1, i = edge_slot(edge, mask);
    for (; t->edges[i].path1; i = (i + 1) & mask)
        if (t->edges[i].edge == edge)
            return t->edges[i].path1 - 1;
    uint32_t path = path_of(t, parent, key);
    if (path >= TIMES_NO_PATH || (t->edges_used + 1) * 4 >= t->edges_cap * 3)
        return path; /* not stored, or the table is full: looked up by its keys next time too */
    t->edges[i] = (times_edge){ edge, path + 1 };
    if (++t->edges_used * 2 >= t->edges_cap)
        edges_grow(t);
    return path;
}

/* Closes the top frame at `now`. Its start was moved on by every wait it
 * saw (times_waited), so its elapsed time is its running time. */
static inline void times_pop(times_thread *t, uint64_t now)
{
    times_frame *f = &t->stack.frames[--t->stack.sp];
    uint64_t elapsed = now > f->start ? now - f->start : 0;
    if (f->path < TIMES_NO_PATH)
        relaxed_add(&chunk_of(t, f->path)->counts[f->path % TIMES_CHUNK].ticks,
                    elapsed > f->child ? elapsed - f->child : 0);
    t->stack.frames[t->stack.sp - 1].child += elapsed;
}

/* blocking.c, on the thread itself, after it waited `ticks` (blocked,
 * waiting, parked, sleeping): the wait is no frame's running time, so every
 * open frame's start moves on by it, and it is the top frame's self time
 * waiting. Waits are rare and slow next to calls: the walk over the open
 * frames costs nothing the Tracker calls would pay. */
void times_waited(uint64_t ticks)
{
    times_thread *t = thread_record_self.times;
    if (!t || thread_record_self.times_gen != atomic_load_explicit(&times_gen, memory_order_relaxed) || t->stack.sp < 2)
        return;
    for (uint32_t i = 1; i < t->stack.sp; i++)
        t->stack.frames[i].start += ticks;
    uint32_t path = t->stack.frames[t->stack.sp - 1].path;
    if (path < TIMES_NO_PATH)
        relaxed_add(&chunk_of(t, path)->counts[path % TIMES_CHUNK].waited, ticks);
}

void JNICALL times_enter_this(JNIEnv *jni, jclass cls, jobject self, jint id)
{
    (void)self;
    times_enter(jni, cls, id);
}

void JNICALL times_enter(JNIEnv *jni, jclass cls, jint id)
{
    /* first, as the exit's is last: the bookkeeping between is the callee's
     * (the calibration says how much), and the read overlaps it. Read last,
     * after the stores below, it stalled until they were done: on H2 (475M
     * calls) 19.0 s against 16.6 s */
    uint64_t start = ticks_now();
    (void)jni, (void)cls;
    times_thread *t = thread_record_self.times;
    if ((!t || thread_record_self.times_gen != atomic_load_explicit(&times_gen, memory_order_relaxed)) &&
        !(t = times_thread_new()))
        return;
    if (t->stack.sp == t->stack.cap) {
        uint32_t cap = t->stack.cap * 2;
        times_frame *s = cap > t->stack.cap ? realloc(t->stack.frames, cap * sizeof *s) : NULL;
        if (!s) {
            relaxed_add(&t->dropped, 1); /* its exit will find no frame and be ignored */
            return;
        }
        t->stack.frames = s;
        t->stack.cap = cap;
        if (t->lent_to) /* a virtual thread's stack: it follows (so it is never freed twice) */
            t->lent_to->stack = t->stack;
    }
    uint64_t key = (uint32_t)id;
    times_frame *parent = &t->stack.frames[t->stack.sp - 1];
    uint32_t path;
    if (parent->last_key == key) {
        path = parent->last_path;
    } else {
        path = child_of(t, parent->path, key);
        parent->last_key = key;
        parent->last_path = path;
    }
    if (path < TIMES_NO_PATH)
        relaxed_add(&chunk_of(t, path)->counts[path % TIMES_CHUNK].calls, 1);
    else
        relaxed_add(&t->dropped, 1);
    times_frame *f = &t->stack.frames[t->stack.sp++];
    f->key = key;
    f->path = path;
    f->child = 0;
    f->last_key = TIMES_NO_KEY;
    f->start = start;
}

void JNICALL times_exit(JNIEnv *jni, jclass cls, jint id)
{
    uint64_t now = ticks_now(); /* first, for the same reason */
    (void)jni, (void)cls;
    times_thread *t = thread_record_self.times;
    if (!t || thread_record_self.times_gen != atomic_load_explicit(&times_gen, memory_order_relaxed))
        return;   /* no table yet in this session: nothing entered to close */
    uint64_t key = (uint32_t)id;
    if (t->stack.sp > 1 && t->stack.frames[t->stack.sp - 1].key == key) {
        times_pop(t, now);
        return;
    }
    /* frames above ours whose exit never came: close them now */
    for (uint32_t i = t->stack.sp - 1; i >= 1 && t->stack.sp - i <= TIMES_UNWIND_MAX; i--)
        if (t->stack.frames[i].key == key) {
            while (t->stack.sp > i + 1) {
                times_pop(t, now);
                relaxed_add(&t->unwound, 1);
            }
            times_pop(t, now);
            return;
        }
    relaxed_add(&t->unmatched, 1); /* entered before tracking began, or dropped */
}

method_id times_method_of(model *m, uint64_t key)
{
    const bci_method *me0 = bci_method_get((uint32_t)key);
    const bci_class *c = me0 ? me0->cls : NULL;
    const char *cname = c ? c->name : "<unknown class>";
    const char *mname = me0 ? me0->name : "<unknown method>";
    const char *msig = me0 ? me0->sig : "()V";
    str_id src = c && c->source_file ? model_cstring(m, c->source_file) : (str_id){ 0 };
    class_id cl = model_class_intern(m, model_cstring(m, cname), src);
    return model_method_intern(m, cl, model_cstring(m, mname), model_cstring(m, msig));
}

static frame_id times_frame_of(model *m, uint64_t key)
{
    return model_frame_intern(m, times_method_of(m, key), FRAME_LINE_UNKNOWN);
}

/* thread=y: the session's virtual threads' names by serial, open addressed (the agent thread's, for one collect) */
typedef struct times_vname_index {
    const times_vname **slots;
    uint32_t cap;
} times_vname_index;

static uint32_t vname_slot(uint32_t serial, uint32_t mask) { return (uint32_t)((serial * 0x9E3779B97F4A7C15ull) >> 32) & mask; }

static bool vname_index_make(times_run *r, times_vname_index *ix)
{
    uint32_t n = 0;
    for (const times_vname *v = atomic_load(&r->vnames); v; v = v->next)
        n++;
    ix->cap = 16;
    while (ix->cap < 2 * n)
        ix->cap *= 2;
    if (!(ix->slots = calloc(ix->cap, sizeof *ix->slots)))
        return false;
    for (const times_vname *v = atomic_load(&r->vnames); v; v = v->next) {
        uint32_t i = vname_slot(v->serial, ix->cap - 1);
        while (ix->slots[i] && ix->slots[i]->serial != v->serial)
            i = (i + 1) & (ix->cap - 1);
        ix->slots[i] = v;
    }
    return true;
}

static const times_vname *vname_of(const times_vname_index *ix, uint32_t serial)
{
    for (uint32_t i = vname_slot(serial, ix->cap - 1); ix->slots[i]; i = (i + 1) & (ix->cap - 1))
        if (ix->slots[i]->serial == serial)
            return ix->slots[i];
    return NULL;
}

/* thread=y: the model thread of the virtual thread `owner` as it ran on the carrier whose table t is:
 * the one cpu=samples' thread=y counts that pair's samples in (sampler_vthreads.h) */
static uint32_t times_vthread_serial(model *m, const times_vname_index *ix, uint32_t owner, const times_thread *t)
{
    const times_vname *v = vname_of(ix, owner);
    sampler_vthread who = { owner, 0, t->serial, v ? v->java_id : 0 };
    return sampler_vthreads_serial(m, &who, v ? v->name : NULL);
}

void times_collect(times_run *r, model *m)
{
    model_times_reset(m);
    double ns_per_tick = ticks_ns_per_tick();
    frame_id *frames = calloc(r->depth + 1, sizeof *frames);
    times_vname_index vnames = { 0 };
    if (!frames || (r->thread && !vname_index_make(r, &vnames))) {
        free(frames);
        m->oom = true;
        return;
    }
    for (times_thread *t = atomic_load(&r->threads); t; t = t->next) {
        uint32_t n = atomic_load_explicit(&t->npaths, memory_order_acquire);
        for (uint32_t p = 0; p < n; p++) {
            times_counts *c = &chunk_of(t, p)->counts[p % TIMES_CHUNK];
            const uint64_t *base = chunk_of(t, p)->base[p % TIMES_CHUNK];
            uint64_t calls = atomic_load_explicit(&c->calls, memory_order_relaxed) - base[0];
            uint64_t ticks = atomic_load_explicit(&c->ticks, memory_order_relaxed) - base[1];
            uint64_t waited = atomic_load_explicit(&c->waited, memory_order_relaxed) - base[2];
            if (!calls && !ticks && !waited)
                continue;
            uint32_t len;
            const uint64_t *k = path_keys(t, p, &len);
            for (uint32_t i = 0; i < len; i++)
                frames[i] = times_frame_of(m, k[i]);
            uint32_t owner = chunk_of(t, p)->owner[p % TIMES_CHUNK], thread = 0;
            if (r->thread)
                thread = owner ? times_vthread_serial(m, &vnames, owner, t) : t->serial;
            trace_id tr = model_trace_intern(m, thread, frames, len);
            model_trace_add_time(m, tr, (uint64_t)((double)ticks * ns_per_tick), calls);
            model_trace_add_wait(m, tr, (uint64_t)((double)waited * ns_per_tick));
        }
    }
    free(frames);
    free(vnames.slots);
}

void times_run_rebase(times_run *r)
{
    for (times_thread *t = atomic_load(&r->threads); t; t = t->next) {
        uint32_t n = atomic_load_explicit(&t->npaths, memory_order_acquire);
        for (uint32_t p = 0; p < n; p++) {
            times_chunk *ch = chunk_of(t, p);
            times_counts *c = &ch->counts[p % TIMES_CHUNK];
            uint64_t *base = ch->base[p % TIMES_CHUNK];
            base[0] = atomic_load_explicit(&c->calls, memory_order_relaxed);
            base[1] = atomic_load_explicit(&c->ticks, memory_order_relaxed);
            base[2] = atomic_load_explicit(&c->waited, memory_order_relaxed);
        }
    }
}

void times_get_stats(times_run *r, times_stats *o)
{
    memset(o, 0, sizeof *o);
    o->clock = ticks_clock_name();
    for (times_thread *t = atomic_load(&r->threads); t; t = t->next) {
        uint32_t n = atomic_load_explicit(&t->npaths, memory_order_acquire);
        o->threads++;
        o->paths += n;
        for (uint32_t p = 0; p < n; p++)
            o->calls += atomic_load_explicit(&chunk_of(t, p)->counts[p % TIMES_CHUNK].calls, memory_order_relaxed);
        o->unmatched_exits += atomic_load_explicit(&t->unmatched, memory_order_relaxed);
        o->unwound += atomic_load_explicit(&t->unwound, memory_order_relaxed);
        o->dropped += atomic_load_explicit(&t->dropped, memory_order_relaxed);
    }
}
static void times_free(times_thread *t)
{
    while (t) {
        times_thread *next = t->next;
        for (uint32_t c = 0; c < TIMES_CHUNKS; c++)
            free(atomic_load(&t->chunks[c]));
        free(t->lent_to ? t->own.frames : t->stack.frames);  /* a lent stack is its virtual thread's to free */
        free(t->index);
        free(t->edges);
        free(t);
        t = next;
    }
}

static void times_vnames_free(times_vname *v)
{
    while (v) {
        times_vname *next = v->next;
        free(v);
        v = next;
    }
}
times_run *times_run_new(uint32_t depth, bool thread)
{
    times_run *r = calloc(1, sizeof *r);
    if (r) {
        r->depth = depth;
        r->thread = thread;
    }
    return r;
}

void times_run_begin(times_run *r) { atomic_store_explicit(&times_live, r, memory_order_release); }

static void times_run_free(times_run *r)
{
    if (!r)
        return;
    times_free(atomic_load(&r->threads));
    times_vnames_free(atomic_load(&r->vnames));
    free(r);
}

void times_run_retire(times_run *r)
{
    atomic_store(&times_live, NULL);
    times_run_free(times_retired);
    times_retired = r;
    atomic_fetch_add(&times_gen, 1); /* the threads make new tables at their next call */
}

void times_calibrate(times_run *run, double *calls_ns, double *empty_ns)
{
    times_thread *scratch = times_thread_make(run->depth), *was = thread_record_self.times;
    uint32_t gen_was = thread_record_self.times_gen;
    if (!scratch)
        return;
    thread_record_self.times = scratch;
    thread_record_self.times_gen = atomic_load_explicit(&times_gen, memory_order_relaxed);
    enum { ROUNDS = 5, CALLS = 20000 };
    double best = 0, best_empty = 0;
    uint64_t recorded_before = 0;
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t t0 = ticks_now();
        for (int i = 0; i < CALLS; i++) {
            times_enter(NULL, NULL, 1);
            times_exit(NULL, NULL, 1);
        }
        uint64_t spent = ticks_now() - t0;
        uint32_t path = scratch->stack.frames[0].last_path;
        uint64_t recorded = path < TIMES_NO_PATH
                                ? atomic_load(&chunk_of(scratch, path)->counts[path % TIMES_CHUNK].ticks)
                                : 0;
        double ns = (double)spent * ticks_ns_per_tick() / CALLS;
        if (r == 0 || ns < best) {
            best = ns;
            best_empty = (double)(recorded - recorded_before) * ticks_ns_per_tick() / CALLS;
        }
        recorded_before = recorded;
    }
    *calls_ns = best;
    *empty_ns = best_empty;
    thread_record_self.times = was;
    thread_record_self.times_gen = gen_was;
    times_free(scratch);
}
/* ---- virtual threads: one shadow stack each, lent to the carrier's table while mounted ---- */

/* The calling carrier's table for this session, or NULL (out of memory). */
static times_thread *times_carrier(void)
{
    times_thread *t = thread_record_self.times;
    if (t && thread_record_self.times_gen == atomic_load_explicit(&times_gen, memory_order_relaxed))
        return t;
    return times_thread_new();
}

/* The carrier's own stack back in place, the virtual thread's kept in vs. */
static void times_unlend(times_thread *t)
{
    times_vstack *vs = t->lent_to;
    vs->stack = t->stack;
    vs->table = t;
    t->stack = t->own;
    t->lent_to = NULL;
}

/* thread=y: the root of v's paths in the table t (a path of no keys, owned by v), under which
 * they are v's, not t's thread's. TIMES_NO_PATH when out of memory: then they are t's. */
static uint32_t times_vroot(times_thread *t, vthread *v)
{
    return path_find(t, 0, NULL, 0, atomic_load_explicit(&v->serial, memory_order_relaxed));
}

/* thread=y, at v's first mount in the session: its name kept for the reports (on failure it is virtual-<id>) */
static void times_vname_keep(times_run *r, vthread *v)
{
    char buf[64];
    const char *name = vthreads_name(v, buf, sizeof buf);
    size_t n = strlen(name);
    times_vname *k = malloc(sizeof *k + n + 1);
    if (!k)
        return;
    k->serial = atomic_load_explicit(&v->serial, memory_order_relaxed);
    k->java_id = v->java_id;
    memcpy(k->name, name, n + 1);
    times_vname *head = atomic_load(&r->vnames);
    do
        k->next = head;
    while (!atomic_compare_exchange_weak(&r->vnames, &head, k));
}

void times_run_mount(times_run *r, vthread *v)
{
    uint32_t gen = atomic_load_explicit(&times_gen, memory_order_relaxed);
    times_thread *t = times_carrier();
    if (!t)
        return;
    if (t->lent_to)
        times_unlend(t); /* (vthreads.c unmounts before it mounts another: never, but kept safe) */
    times_vstack *vs = v->times;
    if (!vs) {
        vs = calloc(1, sizeof *vs);
        if (!vs || !(vs->stack.frames = malloc(16 * sizeof *vs->stack.frames))) {
            free(vs);
            return;
        }
        vs->stack.cap = 16;
        v->times = vs;
    }
    if (vs->gen != gen) { /* new, or left from an earlier session: begun again */
        vs->stack.frames[0] = (times_frame){ .key = TIMES_NO_KEY, .last_key = TIMES_NO_KEY,
                                             .path = r->thread ? times_vroot(t, v) : TIMES_ROOT };
        vs->stack.sp = 1;
        vs->table = t;
        vs->gen = gen;
        if (r->thread)
            times_vname_keep(r, v);
    }
    uint64_t now = v->mounted_at ? v->mounted_at : ticks_now(); /* vthreads.c's, just taken: one clock read less */
    /* unmounted, it waited: no frame's running time, the top frame's time waiting (as times_waited) */
    uint64_t waited = v->unmounted_at && now > v->unmounted_at ? now - v->unmounted_at : 0;
    bool moved = vs->table != t;
    if (waited || moved) {
        /* the open frames' starts on by the wait; on another carrier, their paths in its table */
        vs->stack.frames[0].last_key = TIMES_NO_KEY;
        if (moved && r->thread)
            vs->stack.frames[0].path = times_vroot(t, v);
        for (uint32_t i = 1; i < vs->stack.sp; i++) {
            times_frame *f = &vs->stack.frames[i];
            f->start += waited;
            if (moved) {
                f->path = child_of(t, vs->stack.frames[i - 1].path, f->key);
                f->last_key = TIMES_NO_KEY;
            }
        }
        uint32_t path = vs->stack.frames[vs->stack.sp - 1].path;
        if (waited && vs->stack.sp > 1 && path < TIMES_NO_PATH)
            relaxed_add(&chunk_of(t, path)->counts[path % TIMES_CHUNK].waited, waited);
        vs->table = t;
    }
    t->own = t->stack;
    t->stack = vs->stack;
    t->lent_to = vs;
}

void times_run_unmount(vthread *v)
{
    times_thread *t = thread_record_self.times;
    if (!t || thread_record_self.times_gen != atomic_load_explicit(&times_gen, memory_order_relaxed) ||
        !v->times || t->lent_to != v->times)
        return;
    times_unlend(t);
    /* the time it was mounted is the virtual thread's, not the carrier frame's that mounted it: a callee's */
    if (v->mounted_at && v->unmounted_at > v->mounted_at)
        t->stack.frames[t->stack.sp - 1].child += v->unmounted_at - v->mounted_at;
}

void times_vthread_free(vthread *v)
{
    times_vstack *vs = v->times;
    if (!vs)
        return;
    /* its unmount gave it back; or it is lent to a table of an earlier session that no thread uses
     * any more, which times_free leaves it to us */
    free(vs->stack.frames);
    free(vs);
    v->times = NULL;
}
