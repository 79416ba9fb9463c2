/* sampler_vthreads.c — virtual threads for the CPU and wall samplers (see
 * sampler_vthreads.h).
 *
 * Each virtual thread's record (vthreads.h) has a sampler part: with wall= a
 * JNI weak global reference to the virtual thread, made on its carrier at
 * its start (or at its first mount seen, for one running before the events
 * came on) and deleted at its end; without wall= only a mark that the part
 * is there. The agent thread reads a record another thread may end at any
 * moment (its name, its reference) under one word, svt_reading (the record's
 * index + 1): it sets the word, then checks the part is still there and the
 * serial still the one it looks for; the end hook takes the part out, then
 * waits while the word names its record (a few instructions of the agent
 * thread: a copy of the name or a NewLocalRef), and only then deletes the
 * reference (and the foundation frees the name). Both sides use sequentially
 * consistent accesses, so one of them always sees the other's.
 *
 * The pairs table and that word are global (svt_shared: monitor=y and
 * cpu=times use them too, with only the model in hand); wall='s turn through
 * the unmounted ones is the session's part (svt_state). */
#include "sampler_vthreads.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/agent_env.h"
#include "../core/collector.h"
#include "../core/thread_registry.h"
#include "../core/vthreads.h"

#define SVT_MARK ((void *)1)   /* a sampler part without a reference (no wall=) */

/* the agent thread's (virtual thread, carrier) -> model thread table, open addressed */
typedef struct svt_pair {
    uint64_t key;                      /* serial << 32 | carrier, + 1 (0: empty) */
    uint32_t serial;
} svt_pair;

/* Global, not the session's: monitor=y and cpu=times name their virtual threads' model threads here
 * too (sampler_vthreads_serial, given only the model), in sessions that may not have this collector,
 * and a record's reader (the agent thread) and its end (on its carrier) meet on the word reading.
 * The pairs follow the model they were made in (model) and go at each user's end. */
static struct {
    _Atomic uint32_t reading;          /* the record the agent thread reads now: index + 1; 0 none */
    svt_pair *pairs;
    uint32_t cap, len;
    const model *model;                /* the model the pairs were made in */
} svt_shared;

/* The session's part (JP_PART_SAMPLED_VTHREADS): wall='s unmounted virtual threads, one tick's */
typedef struct svt_state {
    uint32_t *candidates;              /* the agent thread: unmounted records' indexes, one wall tick */
    uint32_t candidates_cap, turn;     /* ... and where the previous tick stopped */
} svt_state;

static void *svt_part(vthread *v) { return __atomic_load_n(&v->sampler, __ATOMIC_SEQ_CST); }

/* Starts a read of v as the virtual thread `serial`: its part, or NULL (ended, or another one's now). */
static void *svt_read_begin(vthread *v, uint32_t serial)
{
    __atomic_store_n(&svt_shared.reading, v->index + 1, __ATOMIC_SEQ_CST);
    void *p = svt_part(v);
    if (!p || atomic_load_explicit(&v->serial, memory_order_seq_cst) != serial) {
        __atomic_store_n(&svt_shared.reading, 0, __ATOMIC_SEQ_CST);
        return NULL;
    }
    return p;
}

static void svt_read_end(void) { __atomic_store_n(&svt_shared.reading, 0, __ATOMIC_SEQ_CST); }

/* On the carrier, v mounted: v's part made. */
static void svt_attach(jp_session *session, JNIEnv *jni, vthread *v)
{
    void *part = SVT_MARK;
    jthread self = NULL;
    bool refs = session->opts->wall_ms > 0; /* wall=: each virtual thread's weak reference is kept */
    if (refs && (*agent_jvmti)->GetCurrentThread(agent_jvmti, &self) == JVMTI_ERROR_NONE && self) {
        jweak w = (*jni)->NewWeakGlobalRef(jni, self);
        (*jni)->DeleteLocalRef(jni, self);
        if (w)
            part = w;
    }
    __atomic_store_n(&v->sampler, part, __ATOMIC_SEQ_CST);
}

static void svt_start(jp_session *session, JNIEnv *jni, vthread *v)
{
    if (!svt_part(v))
        svt_attach(session, jni, v);
}

/* a virtual thread running before the events came on gets its part at its first mount seen */
static void svt_mount(jp_session *session, JNIEnv *jni, vthread *v)
{
    if (!svt_part(v))
        svt_attach(session, jni, v);
}

static void svt_end(jp_session *session, JNIEnv *jni, vthread *v)
{
    (void)session;
    void *part = __atomic_exchange_n(&v->sampler, NULL, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&svt_shared.reading, __ATOMIC_SEQ_CST) == v->index + 1)
        sched_yield();
    if (part && part != SVT_MARK)
        (*jni)->DeleteWeakGlobalRef(jni, (jweak)part);
}

static bool svt_grow_pairs(void)
{
    uint32_t cap = svt_shared.cap ? svt_shared.cap * 2 : 256;
    svt_pair *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return false;
    for (uint32_t i = 0; i < svt_shared.cap; i++) {
        if (!svt_shared.pairs[i].key)
            continue;
        uint32_t h = (uint32_t)(svt_shared.pairs[i].key * 0x9e3779b97f4a7c15ull >> 32);
        while (fresh[h & (cap - 1)].key)
            h++;
        fresh[h & (cap - 1)] = svt_shared.pairs[i];
    }
    free(svt_shared.pairs);
    svt_shared.pairs = fresh;
    svt_shared.cap = cap;
    return true;
}

uint32_t sampler_vthreads_serial(model *m, const sampler_vthread *who, const char *known)
{
    if (m != svt_shared.model) {
        sampler_vthreads_end();
        svt_shared.model = m;
    }
    if (svt_shared.len * 2 >= svt_shared.cap && !svt_grow_pairs())
        return 0;
    uint64_t key = ((uint64_t)who->serial << 32 | who->carrier) + 1;
    uint32_t h = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32);
    for (;; h++) {
        svt_pair *p = &svt_shared.pairs[h & (svt_shared.cap - 1)];
        if (p->key == key)
            return p->serial;
        if (p->key)
            continue;
        /* its first sample on that carrier: a model thread named by the virtual thread */
        char name[256], own[64];
        snprintf(name, sizeof name, "virtual-%llu", (unsigned long long)who->java_id);
        vthread *v = vthreads_at(who->index);
        if (known)
            snprintf(name, sizeof name, "%s", known);
        else if (v && svt_read_begin(v, who->serial)) {
            snprintf(name, sizeof name, "%s", vthreads_name(v, own, sizeof own));
            svt_read_end();
        }
        uint32_t serial = thread_registry_new_serial();
        model_thread_start(m, serial, who->java_id, model_cstring(m, name), model_cstring(m, "VirtualThreads"),
                           (str_id){ 0 });
        model_thread_set_virtual(m, serial, who->carrier);
        p->key = key;
        p->serial = serial;
        svt_shared.len++;
        return serial;
    }
}

uint32_t sampler_vthreads_unmounted(jp_session *session, JNIEnv *jni, uint32_t max, jthread *refs,
                                    sampler_vthread *who, uint32_t *live)
{
    uint32_t n = 0;
    *live = 0;
    svt_state *st = session_part(session, JP_PART_SAMPLED_VTHREADS, sizeof *st);
    if (!st)
        return 0;
    vthread *v;
    for (uint32_t i = 0; (v = vthreads_at(i)) != NULL; i++) {
        void *part = svt_part(v);
        if (!part || part == SVT_MARK || atomic_load_explicit(&v->serial, memory_order_relaxed) == 0 ||
            __atomic_load_n(&v->carrier, __ATOMIC_RELAXED) != 0)
            continue;
        if (n == st->candidates_cap) {
            uint32_t cap = st->candidates_cap ? st->candidates_cap * 2 : 1024;
            uint32_t *more = realloc(st->candidates, (size_t)cap * sizeof *more);
            if (!more)
                break;
            st->candidates = more;
            st->candidates_cap = cap;
        }
        st->candidates[n++] = i;
    }
    *live = n;
    uint32_t taken = 0;
    for (uint32_t k = 0; k < n && taken < max; k++) {
        v = vthreads_at(st->candidates[(st->turn + k) % n]);
        uint32_t serial = atomic_load_explicit(&v->serial, memory_order_relaxed);
        void *part = serial ? svt_read_begin(v, serial) : NULL;
        if (!part)
            continue;
        uint64_t java_id = v->java_id;
        jthread ref = part != SVT_MARK ? (*jni)->NewLocalRef(jni, (jweak)part) : NULL;
        svt_read_end();
        if (!ref)
            continue;   /* ended, or gone (no strong reference left: nothing would wake it) */
        refs[taken] = ref;
        who[taken++] = (sampler_vthread){ serial, v->index, 0, java_id };
    }
    st->turn = n ? (st->turn + max) % n : 0;
    return taken;
}

void sampler_vthreads_end(void)
{
    free(svt_shared.pairs);
    svt_shared.pairs = NULL;
    svt_shared.cap = svt_shared.len = 0;
    svt_shared.model = NULL;
}

/* After the session: wall='s candidates go (the session frees the part). */
static void svt_session_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    svt_state *st = session_part_if(session, JP_PART_SAMPLED_VTHREADS);
    if (st) {
        free(st->candidates);
        st->candidates = NULL;
        st->candidates_cap = 0;
    }
}

static bool svt_wanted(const agent_options *o)
{
    return (o->cpu == OPTIONS_CPU_SAMPLES && o->sampler == OPTIONS_SAMPLER_ASYNC && o->thread) || o->wall_ms > 0;
}

const collector sampled_vthreads_collector = {
    .name = "virtual threads of cpu=samples,thread=y and wall=",
    .wanted = svt_wanted,
    .vthread_start = svt_start,
    .vthread_mount = svt_mount,
    .vthread_end = svt_end,
    .end = svt_session_end,
};
