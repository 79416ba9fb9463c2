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
 * then is named as an unknown class: "?"). */
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
#include "../core/agent_env.h"
#include "alloc_common.h"
#include "../core/collector.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../core/symbols.h"
#include "../core/thread_registry.h"

#define AS_RING_SIZE (1u << 18)

typedef struct as_slot {
    _Atomic uint64_t seq;
    uint64_t tag;
    uint64_t ns;             /* lifetimes=y: when the free was reported, and the collections by then */
    uint64_t gcs;
} as_slot;

static as_slot as_ring[AS_RING_SIZE];
static _Atomic uint64_t as_head;
static uint64_t as_tail;              /* agent thread only */
static atomic_bool as_ring_ready;
static _Atomic uint64_t as_next_tag, as_samples, as_frees_dropped, as_sample_errors;
static _Atomic uint64_t as_callback_ns;   /* CPU time spent in the allocation callback, for the cost line */
/* Tags up to this one were given in earlier sessions: the objects keep them
 * (tags outlive a session), and their deaths are not this session's. */
static _Atomic uint64_t as_tag_floor;

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
static as_entry *as_table;
static uint64_t as_table_cap, as_table_used, as_table_gone, as_frees_seen;

/* A sampled allocation: the object's size, the tag it got (ObjectFree
 * reports it), when (agent_now_ns) and after how many finished collections,
 * its class (a weak global reference the event owns) and where, top first. */
typedef struct as_event {
    eventq_event head;
    uint64_t size, tag, ns, gcs;
    jweak cls;
    uint32_t nframes;
    jvmtiFrameInfo frames[];
} as_event;

static bool as_apply(model *m, JNIEnv *jni, eventq_event *e);

static void as_sampled(JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size)
{
    jvmtiEnv *jv = agent_jvmti;
    if (agent_is_own_thread(jni, thread))
        return;   /* jvmprof's own allocations are never tracked */
    uint64_t t0 = as_thread_cpu_ns();
    uint32_t serial = agent_opts->thread ? thread_registry_serial(thread) : 0;
    as_event *e = (as_event *)eventq_new(sizeof(as_event) + (size_t)agent_opts->depth * sizeof(jvmtiFrameInfo),
                                         as_apply, serial);
    if (!e) {
        atomic_fetch_add_explicit(&as_sample_errors, 1, memory_order_relaxed);
        return;
    }
    jint n = 0;
    if (agent_opts->depth > 0 &&
        (*jv)->GetStackTrace(jv, thread, 0, (jint)agent_opts->depth, e->frames, &n) != JVMTI_ERROR_NONE)
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
        atomic_fetch_add_explicit(&as_sample_errors, 1, memory_order_relaxed);
        return;
    }
    e->size = (uint64_t)size;
    e->ns = agent_now_ns();
    e->gcs = alloc_common_gc_count();
    e->tag = atomic_fetch_add_explicit(&as_next_tag, 1, memory_order_relaxed) + 1;
    if ((*jv)->SetTag(jv, object, (jlong)e->tag) != JVMTI_ERROR_NONE)
        e->tag = 0;   /* its death will not be seen: counted as allocated and live */
    atomic_fetch_add_explicit(&as_samples, 1, memory_order_relaxed);
    eventq_push(&e->head);
    atomic_fetch_add_explicit(&as_callback_ns, as_thread_cpu_ns() - t0, memory_order_relaxed);
}

/* Restricted mode: no allocation, no JNI; one CAS to claim a slot. */
static void as_object_free(jlong tag)
{
    if (!atomic_load_explicit(&as_ring_ready, memory_order_acquire) ||
        (uint64_t)tag <= atomic_load_explicit(&as_tag_floor, memory_order_relaxed))
        return;
    uint64_t pos = atomic_load_explicit(&as_head, memory_order_relaxed);
    for (;;) {
        as_slot *s = &as_ring[pos & (AS_RING_SIZE - 1)];
        uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&as_head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                s->tag = (uint64_t)tag;
                s->ns = agent_now_ns();   /* clock_gettime: no allocation */
                s->gcs = alloc_common_gc_count();
                atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
                return;
            }
        } else if (dif < 0) {
            atomic_fetch_add_explicit(&as_frees_dropped, 1, memory_order_relaxed);   /* full */
            return;
        } else {
            pos = atomic_load_explicit(&as_head, memory_order_relaxed);
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
static bool as_table_rebuild(uint64_t live)
{
    uint64_t cap = live * 20 / 13 + 1;
    if (cap < AS_TABLE_MIN)
        cap = AS_TABLE_MIN;
    as_entry *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (uint64_t i = 0; i < as_table_cap; i++) {
        uint64_t tag = as_table[i].tag;
        if (tag == 0 || tag == AS_GONE)
            continue;
        size_t j = as_slot_of(tag, cap);
        while (t[j].tag)
            j = j + 1 == cap ? 0 : j + 1;
        t[j] = as_table[i];
    }
    free(as_table);
    as_table = t;
    as_table_cap = cap;
    as_table_gone = 0;
    return true;
}

/* The entry of tag, added (UNSEEN) if absent and add is set; NULL if absent
 * (or out of memory). */
static as_record *as_lookup(uint64_t tag, bool add)
{
    if (tag == 0 || tag == AS_GONE)
        return NULL;
    if (add && (as_table_used + as_table_gone + 1) * 5 > as_table_cap * 4 && !as_table_rebuild(as_table_used + 1))
        return NULL;
    if (!as_table_cap)
        return NULL;
    size_t j = as_slot_of(tag, as_table_cap), gone = SIZE_MAX;
    while (as_table[j].tag) {
        if (as_table[j].tag == tag)
            return &as_table[j].rec;
        if (as_table[j].tag == AS_GONE && gone == SIZE_MAX)
            gone = j;
        j = j + 1 == as_table_cap ? 0 : j + 1;
    }
    if (!add)
        return NULL;
    if (gone != SIZE_MAX) {
        j = gone;
        as_table_gone--;
    }
    as_table[j].tag = tag;
    as_table[j].rec = (as_record){ 0 };
    as_table_used++;
    return &as_table[j].rec;
}

static void as_forget(as_record *r)
{
    as_entry *e = (as_entry *)((char *)r - offsetof(as_entry, rec));
    e->tag = AS_GONE;
    as_table_used--;
    as_table_gone++;
    if (as_table_cap > AS_TABLE_MIN && as_table_used * 2 < as_table_cap)
        as_table_rebuild(as_table_used);   /* on failure the bigger table stays */
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
    site_id site = alloc_common_site_of(m, trace, sig);
    double size = (double)e->size, interval = (double)agent_opts->alloc_interval;
    double p = -expm1(-size / interval);   /* chance an object of this size is sampled */
    double objs = as_coarse(p > 0 ? 1.0 / p : 1.0), bytes = as_coarse(size * objs);
    as_record *r = as_lookup(e->tag, true);
    bool freed = r && r->state == AS_FREED_EARLY;
    model_site_alloc(m, site, objs, bytes, !freed);
    if (!r)
        return;   /* untagged, or no memory: counted as live for good */
    uint32_t ms = (uint32_t)(e->ns / 1000000u);
    if (freed) {   /* r holds when it was freed */
        if (m->lifetimes)
            model_site_died_at(m, site, objs, as_survived(e->gcs, r->gcs), (uint32_t)(r->ms - ms));
        as_forget(r);
        return;
    }
    *r = (as_record){ site, AS_LIVE, (float)objs, (float)bytes, (uint32_t)e->gcs, ms };
}

static void as_drain(jp_session *session, JNIEnv *jni)
{
    model *m = session->model;
    (void)jni;
    model_count_set(m, "heap=sites: frees dropped (queue full)", atomic_load_explicit(&as_frees_dropped, memory_order_relaxed));
    model_count_set(m, "heap=sites: samples lost", atomic_load_explicit(&as_sample_errors, memory_order_relaxed));
    if (atomic_load_explicit(&as_ring_ready, memory_order_acquire)) {
        for (;;) {
            as_slot *s = &as_ring[as_tail & (AS_RING_SIZE - 1)];
            if (atomic_load_explicit(&s->seq, memory_order_acquire) != as_tail + 1)
                break;
            uint64_t tag = s->tag, free_ns = s->ns, free_gcs = s->gcs;
            atomic_store_explicit(&s->seq, as_tail + AS_RING_SIZE, memory_order_release);
            as_tail++;
            as_frees_seen++;
            as_record *r = as_lookup(tag, false);
            if (r && r->state == AS_LIVE) {
                model_site_free(m, r->site, r->objs, r->bytes);
                if (m->lifetimes)
                    model_site_died_at(m, r->site, r->objs, as_survived(r->gcs, free_gcs),
                                       (uint32_t)((uint32_t)(free_ns / 1000000u) - r->ms));
                as_forget(r);
            } else if (!r && (r = as_lookup(tag, true)) != NULL) {
                /* before its allocation event: keep when it died for it */
                *r = (as_record){ .state = AS_FREED_EARLY, .gcs = (uint32_t)free_gcs,
                                  .ms = (uint32_t)(free_ns / 1000000u) };
            }
        }
    }
    alloc_common_drain(m);
}

static void as_describe(jp_session *session)
{
    (void)session;
    jp_log_info("heap=sites: %llu allocations sampled (every %llu bytes on average), %llu of them seen "
                "freed; %llu frees dropped (queue full), %llu samples lost; %llu sampled objects tracked live in "
                "%llu KiB (%.0f bytes each); allocation callbacks %.1f ms",
                (unsigned long long)atomic_load(&as_samples), (unsigned long long)agent_opts->alloc_interval,
                (unsigned long long)as_frees_seen, (unsigned long long)atomic_load(&as_frees_dropped),
                (unsigned long long)atomic_load(&as_sample_errors), (unsigned long long)as_table_used,
                (unsigned long long)(as_table_cap * sizeof(as_entry) / 1024),
                as_table_used ? (double)(as_table_cap * sizeof(as_entry)) / (double)as_table_used : 0.0,
                (double)atomic_load(&as_callback_ns) / 1e6);
}

/* Agent thread: a sampled allocation, into the model. */
static bool as_apply(model *m, JNIEnv *jni, eventq_event *e)
{
    const as_event *a = (const as_event *)e;
    char *sig = symbols_class_signature(jni, a->cls);
    if (jni)
        (*jni)->DeleteWeakGlobalRef(jni, a->cls);
    trace_id t;
    if (symbols_trace(m, jni, a->frames, a->nframes, agent_opts->thread ? e->thread : 0, agent_opts->lineno, &t))
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
    as_sampled(jni, thread, object, klass, size);
    gate_leave();
}

static void JNICALL as_cb_free(jvmtiEnv *jv, jlong tag)
{
    (void)jv;
    if (!gate_enter())
        return;
    as_object_free(tag);
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
    alloc_common_callbacks(cb, NULL);
    cb->SampledObjectAlloc = as_cb_sampled;
    cb->ObjectFree = as_cb_free;
}

/* the interval now, before the program's threads draw their first sampling
 * point from the default 512 KiB */
static jp_status as_load(jp_session *session, char *err, size_t errlen)
{
    (void)session;
    (void)err, (void)errlen;
    return alloc_common_set_interval(agent_opts->alloc_interval);
}

static jp_status as_vm_init(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    for (uint64_t i = 0; i < AS_RING_SIZE; i++)
        atomic_store_explicit(&as_ring[i].seq, i, memory_order_relaxed);
    atomic_store(&as_ring_ready, true);
    jp_status st = alloc_common_events(true);
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
    alloc_common_events(false);
}

/* After the session's last report: its records and counts go, the ring is
 * empty, the tags given so far are below the floor, and JVMTI's allocation
 * sampler is given back. */
static void as_end(jp_session *session, JNIEnv *jni)
{
    (void)session;
    (void)jni;
    jvmti_event(JVMTI_EVENT_OBJECT_FREE, false);
    atomic_store(&as_ring_ready, false);
    atomic_store(&as_tag_floor, atomic_load(&as_next_tag));
    atomic_store(&as_head, 0);
    as_tail = 0;
    atomic_store(&as_samples, 0);
    atomic_store(&as_frees_dropped, 0);
    atomic_store(&as_sample_errors, 0);
    atomic_store(&as_callback_ns, 0);
    free(as_table);
    as_table = NULL;
    as_table_cap = as_table_used = as_table_gone = as_frees_seen = 0;
    alloc_common_reset();
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
    .describe = as_describe,
    .stop = as_stop,
    .end = as_end,
};
