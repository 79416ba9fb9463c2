/* collect_alloc_sampled.c — the heap=sites collector, sampled (see collect_alloc_sampled.h).
 *
 * A sampled allocation of `size` bytes stands for 1/p allocations like it,
 * p = 1 - exp(-size / interval) being the chance that the sampler picks an
 * object of that size (the sampler fires when an exponentially distributed
 * byte count runs out). So a site's counts are estimates: objects += 1/p,
 * bytes += size/p.
 *
 * Each sampled object is tagged with a sequence number. ObjectFree runs in a
 * restricted mode and may be called on any thread, so it only pushes the tag
 * into a preallocated ring (a bounded multi-producer queue, one sequence
 * number per slot); the agent thread takes the tags and subtracts what the
 * sample added from its site's live counts. A free may be taken before its
 * allocation event (the two travel by different queues), so each tag's
 * record remembers "freed early".
 *
 * The callback captures the object's class as a JNI weak global reference;
 * the agent thread names it when it applies the event (a class unloaded by
 * then is named as an unknown class: "?").
 *
 * What a session gathers (the ring, the table of live samples, the counts)
 * is its part (JP_PART_ALLOC_SAMPLED, as_state); the callbacks reach it
 * through as_live. Only the tags' sequence outlives a session. */
#include "collect_alloc_sampled.h"

#include <math.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/id_map.h"
#include "../../common/jp_log.h"
#include "../../format/format.h"
#include "../../model/recording.h"
#include "../core/agent_env.h"
#include "alloc_common.h"
#include "../core/collector.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../core/symbols.h"
#include "../core/thread_registry.h"
#include "../heap/heap_dump_sites.h"

#define AS_RING_SIZE (1u << 18)

typedef struct as_slot {
    _Atomic uint64_t seq;
    uint64_t tag;
    uint64_t ns;             /* lifetimes=y: when the free was reported, and the collections by then */
    uint64_t gcs;
} as_slot;

/* The tags given to sampled objects, for the JVM's life: the objects keep
 * them after their session ends (tags outlive a session), so numbering goes
 * on from one session to the next, and tags up to floor were given in
 * earlier sessions: their deaths are not this session's. */
static struct {
    _Atomic uint64_t next;
    _Atomic uint64_t floor;
} as_tags;

/* The calling thread's CPU clock: the callback's cost without the time the
 * thread spent descheduled in it (4 busy threads on 2 cores tripled a wall
 * clock's figure). */
static uint64_t as_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Agent thread: what each live sampled object added to which site, by tag,
 * in an open-addressing table that forgets an object when it dies: 32 bytes
 * an entry, rebuilt 65% full whenever it gets 80% full (counting removed
 * entries) or falls under half full, so past its 32 KiB minimum it takes 40
 * to 64 bytes a live object. */
enum { AS_UNSEEN = 0, AS_LIVE, AS_FREED_EARLY };
typedef struct as_record {
    site_id site;
    uint8_t state;
    float objs, bytes;       /* the estimate the sample added */
    uint32_t gcs;            /* collections finished before the allocation (or, freed early, before the free) */
    uint32_t ms;             /* agent_now_ns() / 1e6 then, mod 2^32 (ages are differences) */
} as_record;
typedef struct as_entry {
    uint64_t tag;            /* 0 = empty, AS_GONE = removed */
    as_record rec;
} as_entry;
#define AS_GONE UINT64_MAX

/* A session's part. */
typedef struct as_state {
    const agent_options *opts;            /* the session's */
    alloc_gc gc;                          /* its collections */
    _Atomic uint64_t head;                /* the ring's next slot to claim (ObjectFree) */
    uint64_t tail;                        /* the ring's next slot to take: agent thread only */
    _Atomic uint64_t samples, frees_dropped, sample_errors;
    _Atomic uint64_t callback_ns;         /* CPU time spent in the allocation callback, for the cost line */
    /* agent thread only: the live samples by tag */
    as_entry *table;
    uint64_t table_cap, table_used, table_gone, frees_seen;
    as_slot ring[AS_RING_SIZE];           /* the frees ObjectFree reported, for the agent thread */
} as_state;

/* The running session's part, for the allocation and ObjectFree callbacks
 * (one acquire load each, behind the gate): set at its start once the ring is
 * ready, cleared at its end, before the part is freed. */
static as_state *_Atomic as_live;

/* A sampled allocation: the object's size, the tag it got (ObjectFree
 * reports it), when (agent_now_ns) and after how many finished collections,
 * its class (a weak global reference the event owns) and where, top first. */
typedef struct as_event {
    eventq_event head;
    as_state *st;            /* the session's part (the events are applied before it ends) */
    uint64_t size, tag, ns, gcs;
    jweak cls;
    uint32_t nframes;
    jvmtiFrameInfo frames[];
} as_event;

static bool as_apply(model *m, JNIEnv *jni, eventq_event *e);

static void as_sampled(as_state *st, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size)
{
    jvmtiEnv *jv = agent_jvmti;
    if (agent_is_own_thread(jni, thread))
        return;   /* jvmprof's own allocations are never tracked */
    uint64_t t0 = as_thread_cpu_ns();
    const agent_options *o = st->opts;
    uint32_t serial = o->thread ? thread_registry_serial(thread) : 0;
    as_event *e = (as_event *)eventq_new(sizeof(as_event) + (size_t)o->depth * sizeof(jvmtiFrameInfo),
                                         as_apply, serial);
    if (!e) {
        atomic_fetch_add_explicit(&st->sample_errors, 1, memory_order_relaxed);
        return;
    }
    e->st = st;
    jint n = 0;
    if (o->depth > 0 &&
        (*jv)->GetStackTrace(jv, thread, 0, (jint)o->depth, e->frames, &n) != JVMTI_ERROR_NONE)
        n = 0;
    e->nframes = (uint32_t)n;
    if (alloc_common_own_code(jni, e->frames, n)) {
        free(e);
        return;
    }
    e->cls = (*jni)->NewWeakGlobalRef(jni, klass);
    if (!e->cls) {   /* out of memory */
        if ((*jni)->ExceptionCheck(jni))
            (*jni)->ExceptionClear(jni);
        free(e);
        atomic_fetch_add_explicit(&st->sample_errors, 1, memory_order_relaxed);
        return;
    }
    e->size = (uint64_t)size;
    e->ns = agent_now_ns();
    e->gcs = alloc_common_gc_count(&st->gc);
    e->tag = atomic_fetch_add_explicit(&as_tags.next, 1, memory_order_relaxed) + 1;
    if ((*jv)->SetTag(jv, object, (jlong)e->tag) != JVMTI_ERROR_NONE)
        e->tag = 0;   /* its death will not be seen: counted as allocated and live */
    atomic_fetch_add_explicit(&st->samples, 1, memory_order_relaxed);
    eventq_push(&e->head);
    atomic_fetch_add_explicit(&st->callback_ns, as_thread_cpu_ns() - t0, memory_order_relaxed);
}

/* Restricted mode: no allocation, no JNI; one CAS to claim a slot. */
static void as_object_free(as_state *st, jlong tag)
{
    if ((uint64_t)tag <= atomic_load_explicit(&as_tags.floor, memory_order_relaxed))
        return;
    uint64_t pos = atomic_load_explicit(&st->head, memory_order_relaxed);
    for (;;) {
        as_slot *s = &st->ring[pos & (AS_RING_SIZE - 1)];
        uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&st->head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                s->tag = (uint64_t)tag;
                s->ns = agent_now_ns();   /* clock_gettime: no allocation */
                s->gcs = alloc_common_gc_count(&st->gc);
                atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
                return;
            }
        } else if (dif < 0) {
            atomic_fetch_add_explicit(&st->frees_dropped, 1, memory_order_relaxed);   /* full */
            return;
        } else {
            pos = atomic_load_explicit(&st->head, memory_order_relaxed);
        }
    }
}

/* Collections an object survived: those finished after its allocation,
 * less the one that freed it (ObjectFree comes after that one finished). */
static uint64_t as_survived(uint64_t alloc_gcs, uint64_t free_gcs)
{
    return free_gcs > alloc_gcs ? free_gcs - alloc_gcs - 1 : 0;
}

#define AS_TABLE_MIN 1024u

static size_t as_slot_of(uint64_t tag, uint64_t cap) { return (size_t)(id_map_hash(tag) % cap); }

/* Rebuilds the table 65% full for `live` entries, without removed ones. */
static bool as_table_rebuild(as_state *st, uint64_t live)
{
    uint64_t cap = live * 20 / 13 + 1;
    if (cap < AS_TABLE_MIN)
        cap = AS_TABLE_MIN;
    as_entry *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (uint64_t i = 0; i < st->table_cap; i++) {
        uint64_t tag = st->table[i].tag;
        if (tag == 0 || tag == AS_GONE)
            continue;
        size_t j = as_slot_of(tag, cap);
        while (t[j].tag)
            j = j + 1 == cap ? 0 : j + 1;
        t[j] = st->table[i];
    }
    free(st->table);
    st->table = t;
    st->table_cap = cap;
    st->table_gone = 0;
    return true;
}

/* The entry of tag, added (UNSEEN) if absent and add is set; NULL if absent
 * (or out of memory). */
static as_record *as_lookup(as_state *st, uint64_t tag, bool add)
{
    if (tag == 0 || tag == AS_GONE)
        return NULL;
    if (add && (st->table_used + st->table_gone + 1) * 5 > st->table_cap * 4 &&
        !as_table_rebuild(st, st->table_used + 1))
        return NULL;
    if (!st->table_cap)
        return NULL;
    as_entry *table = st->table;
    size_t j = as_slot_of(tag, st->table_cap), gone = SIZE_MAX;
    while (table[j].tag) {
        if (table[j].tag == tag)
            return &table[j].rec;
        if (table[j].tag == AS_GONE && gone == SIZE_MAX)
            gone = j;
        j = j + 1 == st->table_cap ? 0 : j + 1;
    }
    if (!add)
        return NULL;
    if (gone != SIZE_MAX) {
        j = gone;
        st->table_gone--;
    }
    table[j].tag = tag;
    table[j].rec = (as_record){ 0 };
    st->table_used++;
    return &table[j].rec;
}

static void as_forget(as_state *st, as_record *r)
{
    as_entry *e = (as_entry *)((char *)r - offsetof(as_entry, rec));
    e->tag = AS_GONE;
    st->table_used--;
    st->table_gone++;
    if (st->table_cap > AS_TABLE_MIN && st->table_used * 2 < st->table_cap)
        as_table_rebuild(st, st->table_used);   /* on failure the bigger table stays */
}

/* An estimate cut to 17 significant bits. Estimates are at least 1 (bytes at
 * least 8), so each is then a multiple of 2^-16 and fits a float exactly: the
 * same value is added at the allocation and taken away at the death, and the
 * model's double sums of them are exact whatever their order (up to 2^36),
 * so a site whose objects all died shows as many dead as allocated. */
static double as_coarse(double v)
{
    int e;
    double f = frexp(v, &e);
    return ldexp(nearbyint(ldexp(f, 17)), e - 17);
}

/* sig: the class's signature, NULL when unknown */
static void as_record_site(model *m, trace_id trace, const as_event *e, const char *sig)
{
    as_state *st = e->st;
    site_id site = alloc_common_site_of(m, trace, sig);
    double size = (double)e->size, interval = (double)st->opts->alloc_interval;
    double p = -expm1(-size / interval);   /* chance an object of this size is sampled */
    double objs = as_coarse(p > 0 ? 1.0 / p : 1.0), bytes = as_coarse(size * objs);
    as_record *r = as_lookup(st, e->tag, true);
    bool freed = r && r->state == AS_FREED_EARLY;
    model_site_alloc(m, site, objs, bytes, !freed);
    if (m->recording) {
        recording_event rec = { agent_wall_ns_of(e->ns), (uint64_t)bytes, e->head.thread, trace.v, site.v,
                                objs >= UINT16_MAX ? UINT16_MAX : (uint16_t)(objs + 0.5), RECORDING_ALLOC, 0 };
        recording_add(m->recording, &rec);
    }
    if (!r)
        return;   /* untagged, or no memory: counted as live for good */
    uint32_t ms = (uint32_t)(e->ns / 1000000u);
    if (freed) {   /* r holds when it was freed */
        if (m->lifetimes)
            model_site_died_at(m, site, objs, as_survived(e->gcs, r->gcs), (uint32_t)(r->ms - ms));
        as_forget(st, r);
        return;
    }
    *r = (as_record){ site, AS_LIVE, (float)objs, (float)bytes, (uint32_t)e->gcs, ms };
}

static void as_drain(jp_session *session, JNIEnv *jni)
{
    model *m = session->model;
    as_state *st = session_part_if(session, JP_PART_ALLOC_SAMPLED);
    (void)jni;
    if (!st)
        return;   /* it did not start */
    model_count_set(m, "heap=sites: frees dropped (queue full)", atomic_load_explicit(&st->frees_dropped, memory_order_relaxed));
    model_count_set(m, "heap=sites: samples lost", atomic_load_explicit(&st->sample_errors, memory_order_relaxed));
    for (;;) {
        as_slot *s = &st->ring[st->tail & (AS_RING_SIZE - 1)];
        if (atomic_load_explicit(&s->seq, memory_order_acquire) != st->tail + 1)
            break;
        uint64_t tag = s->tag, free_ns = s->ns, free_gcs = s->gcs;
        atomic_store_explicit(&s->seq, st->tail + AS_RING_SIZE, memory_order_release);
        st->tail++;
        st->frees_seen++;
        as_record *r = as_lookup(st, tag, false);
        if (r && r->state == AS_LIVE) {
            model_site_free(m, r->site, r->objs, r->bytes);
            if (m->lifetimes)
                model_site_died_at(m, r->site, r->objs, as_survived(r->gcs, free_gcs),
                                   (uint32_t)((uint32_t)(free_ns / 1000000u) - r->ms));
            as_forget(st, r);
        } else if (!r && (r = as_lookup(st, tag, true)) != NULL) {
            /* before its allocation event: keep when it died for it */
            *r = (as_record){ .state = AS_FREED_EARLY, .gcs = (uint32_t)free_gcs,
                              .ms = (uint32_t)(free_ns / 1000000u) };
        }
    }
    alloc_common_drain(m, &st->gc);
}

static void as_describe(jp_session *session)
{
    as_state *st = session_part_if(session, JP_PART_ALLOC_SAMPLED);
    if (!st)
        return;
    jp_log_info("heap=sites: %llu allocations sampled (every %llu bytes on average), %llu of them seen "
                "freed; %llu frees dropped (queue full), %llu samples lost; %llu sampled objects tracked live in "
                "%llu KiB (%.0f bytes each); allocation callbacks %.1f ms",
                (unsigned long long)atomic_load(&st->samples), (unsigned long long)session->opts->alloc_interval,
                (unsigned long long)st->frees_seen, (unsigned long long)atomic_load(&st->frees_dropped),
                (unsigned long long)atomic_load(&st->sample_errors), (unsigned long long)st->table_used,
                (unsigned long long)(st->table_cap * sizeof(as_entry) / 1024),
                st->table_used ? (double)(st->table_cap * sizeof(as_entry)) / (double)st->table_used : 0.0,
                (double)atomic_load(&st->callback_ns) / 1e6);
}

/* Agent thread, before a heap dump (the events drained): every live sampled
 * object's tag with its site's trace serial, the number the report prints
 * (HPROF_SERIAL_TRACE + trace id), and each of those traces' frames. An
 * object sampled but not applied yet (its event still queued) is not among
 * them: the dump gives it the empty trace. */
static void as_dump_sites(jp_session *session, JNIEnv *jni, heap_dump_sites *out)
{
    (void)jni;
    const model *m = session->model;
    as_state *st = session_part_if(session, JP_PART_ALLOC_SAMPLED);
    out->given = true;
    if (!st || !st->table)
        return;
    uint32_t ntraces = model_trace_count(m);
    uint8_t *done = calloc((size_t)ntraces + 1, 1);
    heap_dump_frame *frames = calloc((size_t)session->opts->depth + 1, sizeof *frames);
    if (!done || !frames) {
        out->failed = true;
        free(done);
        free(frames);
        return;
    }
    for (uint64_t i = 0; i < st->table_cap; i++) {
        const as_entry *e = &st->table[i];
        if (e->tag == 0 || e->tag == AS_GONE || e->rec.state != AS_LIVE)
            continue;
        const model_site *site = model_site_get(m, e->rec.site);
        if (!site)
            continue;
        trace_id t = site->trace;
        heap_dump_sites_object(out, (int64_t)e->tag, HPROF_SERIAL_TRACE + t.v);
        if (t.v > ntraces || done[t.v])
            continue;
        done[t.v] = 1;
        model_trace tr = model_trace_get(m, t);
        uint32_t n = tr.nframes < session->opts->depth + 1 ? tr.nframes : session->opts->depth + 1;
        for (uint32_t f = 0; f < n; f++) {
            const model_frame *fr = model_frame_get(m, tr.frames[f]);
            const model_method *me = fr ? model_method_get(m, fr->method) : NULL;
            const model_class *c = me ? model_class_get(m, me->cls) : NULL;
            frames[f] = (heap_dump_frame){
                .method = me ? model_string_get(m, me->name, NULL) : "?",
                .sig = me ? model_string_get(m, me->sig, NULL) : "",
                .source = c && c->source_file.v ? model_string_get(m, c->source_file, NULL) : NULL,
                .class_name = c ? model_string_get(m, c->name, NULL) : "?",
                .line = fr ? fr->line : FRAME_LINE_UNKNOWN,
            };
        }
        heap_dump_sites_trace(out, HPROF_SERIAL_TRACE + t.v, frames, n);
    }
    free(done);
    free(frames);
}

/* Agent thread: a sampled allocation, into the model. */
static bool as_apply(model *m, JNIEnv *jni, eventq_event *e)
{
    const as_event *a = (const as_event *)e;
    char *sig = symbols_class_signature(jni, a->cls);
    if (jni)
        (*jni)->DeleteWeakGlobalRef(jni, a->cls);
    trace_id t;
    if (symbols_trace(m, jni, a->frames, a->nframes, a->st->opts->thread ? e->thread : 0, a->st->opts->lineno, &t))
        as_record_site(m, t, a, sig);
    jvmti_free(sig);
    return false;
}

/* ---- the heap=sites collector ---- */

static void JNICALL as_cb_sampled(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                                  jlong size)
{
    (void)jv;
    if (!gate_enter())
        return;
    as_state *st = atomic_load_explicit(&as_live, memory_order_acquire);
    if (st)
        as_sampled(st, jni, thread, object, klass, size);
    gate_leave();
}

static void JNICALL as_cb_free(jvmtiEnv *jv, jlong tag)
{
    (void)jv;
    if (!gate_enter())
        return;
    as_state *st = atomic_load_explicit(&as_live, memory_order_acquire);
    if (st)
        as_object_free(st, tag);
    gate_leave();
}

static bool as_wanted(const agent_options *o) { return o->heap_sites && !options_alloc_exact(o); }

static jp_status as_capabilities(jp_session *session, jvmtiCapabilities *caps)
{
    (void)session;
    alloc_common_capabilities(caps);
    caps->can_generate_sampled_object_alloc_events = 1;
    return JP_OK;
}

static void as_callbacks(jvmtiEventCallbacks *cb)
{
    alloc_common_callbacks(cb);
    cb->SampledObjectAlloc = as_cb_sampled;
    cb->ObjectFree = as_cb_free;
}

/* the interval now, before the program's threads draw their first sampling
 * point from the default 512 KiB */
static jp_status as_load(jp_session *session, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return alloc_common_set_interval(session->opts->alloc_interval);
}

static jp_status as_vm_init(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    alloc_common_model(session);
    as_state *p = session_part(session, JP_PART_ALLOC_SAMPLED, sizeof(as_state));
    if (!p)
        return jp_error(JP_ERR_NOMEM, "heap=sites: out of memory");
    p->opts = session->opts;
    for (uint64_t i = 0; i < AS_RING_SIZE; i++)
        atomic_store_explicit(&p->ring[i].seq, i, memory_order_relaxed);
    atomic_store_explicit(&as_live, p, memory_order_release);
    jp_status st = alloc_common_events_on(&p->gc);
    st = st == JP_OK ? jvmti_event(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, true) : st;
    /* started in a running JVM: each thread's allocation buffer in use now would go unsampled until
     * it is full (the sampler sets its next sample when a buffer begins), a few MB missed per thread;
     * a collection retires them all, so every allocation from here on is seen */
    if (st == JP_OK && agent_late_start)
        jvmti_check((*agent_jvmti)->ForceGarbageCollection(agent_jvmti), "ForceGarbageCollection");
    return st;
}

static void as_stop(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    jvmti_event(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, false);
    alloc_common_events_off();
}

/* After the session's last report (no callback in flight): the callbacks
 * find no part, the tags given so far are below the floor, the table of live
 * samples goes (the session frees the part), and JVMTI's allocation sampler
 * is given back. */
static void as_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    jvmti_event(JVMTI_EVENT_OBJECT_FREE, false);
    atomic_store_explicit(&as_live, NULL, memory_order_release);
    atomic_store(&as_tags.floor, atomic_load(&as_tags.next));
    as_state *st = session_part_if(session, JP_PART_ALLOC_SAMPLED);
    if (st) {
        free(st->table);
        st->table = NULL;
    }
    jvmti_sampler_give_back(agent_jvmti); /* trace=alloc in a later session may take it */
}

const collector alloc_sampled_collector = {
    .name = "heap=sites",
    .engine = "allocation sampling",
    .wanted = as_wanted,
    .capabilities = as_capabilities,
    .callbacks = as_callbacks,
    .load = as_load,
    .start = as_vm_init,
    .drain = as_drain,
    .dump_sites = as_dump_sites,
    .describe = as_describe,
    .stop = as_stop,
    .end = as_end,
};
