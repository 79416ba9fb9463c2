/* collect_alloc_exact.c — heap=sites, alloc_interval=0 (see collect_alloc_exact.h).
 *
 * Ids. Sites ("entries": one stack and class as one thread saw them) and
 * record pages get ids from global counters, and a two-level directory maps
 * an id back to its memory without a lock (chunks are added by CAS), so
 * ObjectFree can find a record and its entry from a tag alone.
 *
 * Records. An object's tag is its record's number + 1: page id * 512 + slot.
 * The record says which entry allocated it, its size, and the collections
 * finished and the millisecond clock at its birth. ObjectFree adds the death
 * to the entry's counters and pushes the slot onto its page's stack of freed
 * slots (multi-producer CAS push); the owning thread takes a page's whole
 * stack at once with an atomic exchange, so there is no ABA.
 *
 * Nursery (the sampler's hook only). A JVMTI tag costs about 1 us, in the
 * JVM's tag table, and most objects die before their first collection. So a
 * new object first gets a JNI weak reference (about 0.1 us), kept with its
 * record number in its thread's nursery. After a collection the nursery is
 * swept: an object whose reference was cleared died in it and is counted
 * dead there and then; one still alive gets its tag, and ObjectFree reports
 * its death as above. The owning thread sweeps its nursery at its first
 * allocation after a collection; the agent thread sweeps those of threads
 * that did not allocate since (and of ended ones) before it reads the
 * counters. A flag per table says who holds the nursery: a thread that finds
 * it held (the agent sweeping it) tags at once, so nobody ever waits.
 *
 * Tables. The allocating thread finds its entry in a hash table of its own,
 * held in its record (thread_record.h), by frames compared, then the class
 * by IsSameObject on a weak reference. A new entry's stack goes to the agent
 * thread once, as an ax_site_event, and the agent thread names its class from
 * that weak reference (a class unloaded by then is named as an unknown one,
 * "?"); its counters are read by the agent thread (died before allocated, so
 * it never sees more dead than allocated). A thread's table outlives it: at
 * ThreadEnd it is left for the next thread that allocates, with its pages
 * (one mutex, taken once per thread, never per allocation).
 *
 * All of it is the session's part (JP_PART_ALLOC_EXACT, ax_state), freed at
 * its end; the callbacks and the Tracker's natives reach it through ax_live. */
#include "collect_alloc_exact.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/jp_log.h"
#include "../core/agent_env.h"
#include "alloc_common.h"
#include "../instrument/bci.h"
#include "../core/collector.h"
#include "../core/eventq.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../core/profiler.h"
#include "../core/symbols.h"
#include "../core/thread_record.h"
#include "../core/thread_registry.h"


/* A new site for the agent thread: its entry's id (the entry holds its
 * class's weak reference) and its stack, top first. */
typedef struct ax_site_event {
    eventq_event head;
    struct ax_state *x;              /* the session's part (the events are applied before it ends) */
    uint32_t entry;
    uint32_t nframes;
    jvmtiFrameInfo frames[];
} ax_site_event;

static bool ax_apply(model *m, JNIEnv *jni, eventq_event *e);
/* ---------------------------------------------------------------- directory */

#define AX_DIR_BITS 12
#define AX_DIR_SIZE (1u << AX_DIR_BITS)

typedef struct ax_dir {
    _Atomic(_Atomic(void *) *) chunk[AX_DIR_SIZE];
} ax_dir;

static bool ax_dir_put(ax_dir *d, uint64_t id, void *p)
{
    uint64_t hi = id >> AX_DIR_BITS;
    if (hi >= AX_DIR_SIZE)
        return false;
    _Atomic(void *) *c = atomic_load_explicit(&d->chunk[hi], memory_order_acquire);
    if (!c) {
        _Atomic(void *) *fresh = calloc(AX_DIR_SIZE, sizeof *fresh);
        if (!fresh)
            return false;
        _Atomic(void *) *expected = NULL;
        if (atomic_compare_exchange_strong_explicit(&d->chunk[hi], &expected, fresh, memory_order_acq_rel,
                                                    memory_order_acquire)) {
            c = fresh;
        } else {
            free(fresh);
            c = expected;
        }
    }
    atomic_store_explicit(&c[id & (AX_DIR_SIZE - 1)], p, memory_order_release);
    return true;
}

static void *ax_dir_get(ax_dir *d, uint64_t id)
{
    uint64_t hi = id >> AX_DIR_BITS;
    if (hi >= AX_DIR_SIZE)
        return NULL;
    _Atomic(void *) *c = atomic_load_explicit(&d->chunk[hi], memory_order_acquire);
    return c ? atomic_load_explicit(&c[id & (AX_DIR_SIZE - 1)], memory_order_acquire) : NULL;
}

/* ---------------------------------------------------------------- entries and records */

typedef struct ax_entry {
    uint32_t id;
    uint32_t hash;
    jweak cls;
    bool own;                        /* its stack passes through jvmprof's Java code: not counted */
    /* written by the owning thread only */
    _Atomic uint64_t alloc_objs, alloc_bytes;
    /* in a nursery now: written by whoever holds the nursery */
    _Atomic uint64_t young_objs;
    /* written by ObjectFree, on any thread */
    _Atomic uint64_t died_objs, died_bytes;
    _Atomic uint64_t died_gcs[LIFE_GC_BUCKETS], died_ms[LIFE_MS_BUCKETS];
    /* agent thread only */
    site_id site;
    uint64_t seen_alloc_objs, seen_alloc_bytes, seen_died_objs, seen_died_bytes, seen_young;
    uint64_t seen_gcs[LIFE_GC_BUCKETS], seen_ms[LIFE_MS_BUCKETS];
    uint32_t nframes;
    jvmtiFrameInfo frames[];
} ax_entry;

typedef struct ax_rec {
    uint32_t entry;
    uint32_t size8;                  /* size / 8 (objects are 8-byte aligned) */
    uint32_t gcs;                    /* collections finished at birth; while freed: the next freed slot + 1 */
    uint32_t ms;                     /* lifetimes=y: agent_now_ns() / 1e6 at birth, mod 2^32 */
} ax_rec;

#define AX_PAGE_RECS 512u
#define AX_CTOR_FRAMES 16   /* alloc_hook=bci: constructor frames looked past above the allocating one */

typedef struct ax_page {
    _Atomic uint32_t freed;          /* stack of slots ObjectFree handed back: slot + 1, 0 = empty */
    uint32_t id;
    struct ax_page *next;            /* the owning table's pages */
    ax_rec rec[AX_PAGE_RECS];
} ax_page;

/* alloc_hook=bci: whether a method is a constructor, and of which class */
typedef struct ax_method {
    jmethodID m;
    jclass decl;                     /* global ref; NULL: not a constructor */
} ax_method;
#define AX_METHOD_CACHE 256u

/* an object followed by weak reference until its first collection */
typedef struct ax_young {
    jweak ref;
    uint64_t rid;                    /* its record's number (its tag - 1) */
} ax_young;
#define AX_YOUNG_MAX (1u << 20)      /* per thread (16 MiB); past it, objects are tagged at once */
#define AX_SWEEP_DELAY_NS 20000000u  /* the agent thread leaves a nursery to its thread this long after a collection */

typedef struct ax_table {
    struct ax_table *next_orphan;
    struct ax_table *next_all;       /* every table the session made (freed at its end) */
    _Atomic bool young_held;         /* someone is using the nursery below */
    ax_young *young;
    uint32_t young_n, young_cap;
    uint64_t young_gcs;              /* collections finished when the nursery was last swept */
    ax_entry **index;                /* open addressing, at most half full */
    uint32_t index_cap, entries;
    ax_page *pages, *scan;           /* all pages (newest first); where the next look for freed slots starts */
    ax_page *bump;                   /* the newest page; bump_next: its first never-used slot */
    uint32_t bump_next;
    ax_page *fpage;                  /* freed slots taken from fpage, chained through rec.gcs */
    uint32_t fhead;
    uint32_t serial;                 /* thread=y: the owning thread's serial */
    bool agent;                      /* the agent's own thread: nothing counted */
    ax_method *methods;              /* alloc_hook=bci: AX_METHOD_CACHE of them */
    uint8_t vm_uninit;               /* alloc_hook=bci: Object.<init>s still to look at for an object the VM
                                      * allocated and counted before its constructor ran (see ax_tracked) */
    jvmtiFrameInfo frames[];         /* depth= + AX_CTOR_FRAMES of them: the stack being looked up */
} ax_table;

/* A session's part (JP_PART_ALLOC_EXACT): the directories of entries and
 * pages, the counters, every table made and those waiting for a thread. */
typedef struct ax_state {
    const agent_options *opts;       /* the session's */
    bool bci;                        /* alloc_hook=bci */
    alloc_gc gc;                     /* its collections */
    ax_dir entries, pages;
    _Atomic uint64_t next_entry, next_page;
    _Atomic uint64_t untracked, pages_bytes, entries_bytes;
    _Atomic uint64_t young_bytes, young_died, young_tagged;
    _Atomic(ax_table *) all;
    uint64_t allocs, frees, live_peak;   /* agent thread: sums over the entries at the last drain */
    bool primed;
    pthread_mutex_t orphans_lock;
    ax_table *orphans;
    uint64_t swept_gcs, seen_gcs, seen_ns;   /* alloc_exact_sweep's: agent thread only (or a report, the agent stopped) */
} ax_state;

/* The running session's part, for the allocation, VMObjectAlloc and
 * ObjectFree callbacks and the Tracker's natives (one acquire load each,
 * behind the gate): set at its start, cleared at its end, before the part is
 * freed. */
static ax_state *_Atomic ax_live;

static uint32_t ax_hash(const jvmtiFrameInfo *f, jint n)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
    for (jint i = 0; i < n; i++) {
        h = (h ^ (uint64_t)(uintptr_t)f[i].method) * 1099511628211ull;
        h = (h ^ (uint64_t)f[i].location) * 1099511628211ull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

static bool ax_index_put(ax_table *t, ax_entry *e)
{
    if ((t->entries + 1) * 2 > t->index_cap) {
        uint32_t cap = t->index_cap ? t->index_cap * 2 : 64;
        ax_entry **ix = calloc(cap, sizeof *ix);
        if (!ix)
            return false;
        for (uint32_t i = 0; i < t->index_cap; i++) {
            ax_entry *o = t->index[i];
            if (!o)
                continue;
            uint32_t j = o->hash & (cap - 1);
            while (ix[j])
                j = (j + 1) & (cap - 1);
            ix[j] = o;
        }
        free(t->index);
        t->index = ix;
        t->index_cap = cap;
    }
    uint32_t j = e->hash & (t->index_cap - 1);
    while (t->index[j])
        j = (j + 1) & (t->index_cap - 1);
    t->index[j] = e;
    t->entries++;
    return true;
}

/* A new entry: registered, and (unless it is jvmprof's own) sent to the
 * agent thread with its stack, which names its class from the entry's weak
 * reference. NULL when out of memory or ids. */
static ax_entry *ax_entry_new(ax_state *x, JNIEnv *jni, ax_table *t, jclass klass, const jvmtiFrameInfo *frames, jint n,
                              uint32_t hash)
{
    ax_entry *e = calloc(1, sizeof *e + (size_t)n * sizeof e->frames[0]);
    ax_site_event *ev = NULL;
    if (!e)
        goto fail;
    e->hash = hash;
    e->nframes = (uint32_t)n;
    memcpy(e->frames, frames, (size_t)n * sizeof e->frames[0]);
    e->own = alloc_common_own_code(jni, frames, n);
    e->cls = (*jni)->NewWeakGlobalRef(jni, klass);
    if (!e->cls)
        goto fail;
    if (!e->own) {
        size_t bytes = (size_t)n * sizeof ev->frames[0];
        ev = (ax_site_event *)eventq_new(sizeof *ev + bytes, ax_apply, t->serial);
        if (!ev)
            goto fail;
        memcpy(ev->frames, frames, bytes);
        ev->nframes = (uint32_t)n;
        ev->x = x;
    }
    uint64_t id = atomic_fetch_add_explicit(&x->next_entry, 1, memory_order_relaxed) + 1;
    if (id > UINT32_MAX || !ax_dir_put(&x->entries, id, e))
        goto fail;   /* an id left unused: harmless */
    e->id = (uint32_t)id;   /* in the directory from here on: freed at the session's end */
    if (!ax_index_put(t, e))
        goto fail;   /* never registered, so never counted */
    if (ev) {
        ev->entry = (uint32_t)id;
        eventq_push(&ev->head);
    }
    atomic_fetch_add_explicit(&x->entries_bytes, sizeof *e + (size_t)n * sizeof e->frames[0], memory_order_relaxed);
    return e;
fail:
    free(ev);
    if (e && !e->id) {
        if (e->cls)
            (*jni)->DeleteWeakGlobalRef(jni, e->cls);
        free(e);
    }
    return NULL;
}

static ax_entry *ax_entry_of(ax_state *x, JNIEnv *jni, ax_table *t, jclass klass, const jvmtiFrameInfo *frames, jint n)
{
    uint32_t hash = ax_hash(frames, n);
    if (t->index_cap) {
        for (uint32_t j = hash & (t->index_cap - 1); t->index[j]; j = (j + 1) & (t->index_cap - 1)) {
            ax_entry *e = t->index[j];
            if (e->hash == hash && e->nframes == (uint32_t)n &&
                memcmp(e->frames, frames, (size_t)n * sizeof frames[0]) == 0 &&
                (*jni)->IsSameObject(jni, klass, e->cls))
                return e;
        }
    }
    return ax_entry_new(x, jni, t, klass, frames, n, hash);
}

/* A free record slot of t's pages: a freed one, a never-used one, or a new page. */
static bool ax_slot(ax_state *x, ax_table *t, ax_page **pp, uint32_t *slot)
{
    if (!t->fhead && !(t->bump && t->bump_next < AX_PAGE_RECS)) {
        /* look at up to 8 pages (round robin) for slots ObjectFree handed back */
        for (int k = 0; k < 8 && t->pages; k++) {
            ax_page *p = t->scan ? t->scan : t->pages;
            t->scan = p->next;
            uint32_t h = atomic_exchange_explicit(&p->freed, 0, memory_order_acquire);
            if (h) {
                t->fpage = p;
                t->fhead = h;
                break;
            }
        }
    }
    if (t->fhead) {
        *pp = t->fpage;
        *slot = t->fhead - 1;
        t->fhead = t->fpage->rec[*slot].gcs;
        return true;
    }
    if (!t->bump || t->bump_next >= AX_PAGE_RECS) {
        uint64_t id = atomic_fetch_add_explicit(&x->next_page, 1, memory_order_relaxed) + 1;
        if (id > UINT64_MAX / AX_PAGE_RECS - 1)
            return false;
        ax_page *p = calloc(1, sizeof *p);
        if (!p)
            return false;
        if (!ax_dir_put(&x->pages, id, p)) {
            free(p);
            return false;
        }
        p->id = (uint32_t)id;
        p->next = t->pages;
        t->pages = p;
        t->bump = p;
        t->bump_next = 0;
        atomic_fetch_add_explicit(&x->pages_bytes, sizeof *p, memory_order_relaxed);
    }
    *pp = t->bump;
    *slot = t->bump_next++;
    return true;
}

/* Hands a slot back (ObjectFree, or a tag that could not be set). */
static void ax_slot_free(ax_page *p, uint32_t slot)
{
    p->rec[slot].entry = 0;
    uint32_t old = atomic_load_explicit(&p->freed, memory_order_relaxed);
    do {
        p->rec[slot].gcs = old;
    } while (!atomic_compare_exchange_weak_explicit(&p->freed, &old, slot + 1, memory_order_release,
                                                    memory_order_relaxed));
}

static ax_table *ax_table_for(ax_state *x, JNIEnv *jni, jthread thread)
{
    pthread_mutex_lock(&x->orphans_lock);
    ax_table *t = x->orphans;
    if (t)
        x->orphans = t->next_orphan;
    pthread_mutex_unlock(&x->orphans_lock);
    if (!t) {
        t = calloc(1, sizeof *t + (x->opts->depth + AX_CTOR_FRAMES) * sizeof t->frames[0]);
        if (!t)
            return NULL;
        t->young_gcs = alloc_common_gc_count(&x->gc);
        t->next_all = atomic_load_explicit(&x->all, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&x->all, &t->next_all, t, memory_order_release,
                                                      memory_order_relaxed))
            ;
    } else if (x->opts->thread && t->index) {
        /* its entries carry the old thread's serial: found no more (they still count) */
        memset(t->index, 0, t->index_cap * sizeof t->index[0]);
        t->entries = 0;
    }
    if (!t->methods && x->opts->alloc_hook == 'b' && !(t->methods = calloc(AX_METHOD_CACHE, sizeof *t->methods))) {
        free(t->index);
        free(t);   /* a fresh one: an adopted table has its cache */
        return NULL;
    }
    t->next_orphan = NULL;
    t->serial = x->opts->thread ? thread_registry_serial(NULL) : 0;
    jthread self = NULL;
    if (!thread && (*agent_jvmti)->GetCurrentThread(agent_jvmti, &self) == JVMTI_ERROR_NONE)
        thread = self;
    t->agent = thread && agent_is_own_thread(jni, thread);
    if (self)
        (*jni)->DeleteLocalRef(jni, self);
    return t;
}

static void alloc_exact_thread_end(ax_state *x)
{
    ax_table *t = thread_record_self.alloc.table;
    if (!t)
        return;
    thread_record_self.alloc.table = NULL;
    pthread_mutex_lock(&x->orphans_lock);
    t->next_orphan = x->orphans;
    x->orphans = t;
    pthread_mutex_unlock(&x->orphans_lock);
}

static void alloc_exact_prime(ax_state *x, JNIEnv *jni)
{
    bool *priming = &thread_record_self.alloc.priming;
    *priming = true;
    for (int i = 0; i < 256 && *priming; i++) {   /* 16 MiB at most */
        jbyteArray a = (*jni)->NewByteArray(jni, 64 * 1024);
        if (!a) {
            (*jni)->ExceptionClear(jni);
            break;
        }
        (*jni)->DeleteLocalRef(jni, a);
    }
    x->primed = !*priming;
    *priming = false;
}

/* The calling thread's table (made or adopted on its first allocation). */
static ax_table *ax_table_here(ax_state *x, JNIEnv *jni, jthread thread)
{
    ax_table *t = thread_record_self.alloc.table;
    if (!t && !(t = thread_record_self.alloc.table = ax_table_for(x, jni, thread)))
        atomic_fetch_add_explicit(&x->untracked, 1, memory_order_relaxed);
    return t;
}

static bool ax_tag(ax_state *x, jobject object, ax_page *p, uint32_t slot);
static void ax_young_add(ax_state *x, JNIEnv *jni, ax_table *t, jobject object, ax_page *p, uint32_t slot);

/* Counts one allocation whose stack is t->frames[skip .. skip + n) and tags
 * the object, or with `young` (the caller holds t's nursery) puts it there. */
static void ax_count(ax_state *x, JNIEnv *jni, ax_table *t, jclass klass, jobject object, jlong size, jint skip, jint n,
                     bool young)
{
    ax_entry *e = ax_entry_of(x, jni, t, klass, t->frames + skip, n);
    if (!e) {
        atomic_fetch_add_explicit(&x->untracked, 1, memory_order_relaxed);
        return;
    }
    if (e->own)
        return;
    /* owner-only counters: a plain read-modify-write, atomic only for the agent's reads */
    atomic_store_explicit(&e->alloc_objs, atomic_load_explicit(&e->alloc_objs, memory_order_relaxed) + 1,
                          memory_order_release);
    atomic_store_explicit(&e->alloc_bytes,
                          atomic_load_explicit(&e->alloc_bytes, memory_order_relaxed) + (uint64_t)size,
                          memory_order_release);
    ax_page *p;
    uint32_t slot;
    if (!ax_slot(x, t, &p, &slot)) {
        atomic_fetch_add_explicit(&x->untracked, 1, memory_order_relaxed);   /* counted live for good */
        return;
    }
    p->rec[slot] = (ax_rec){ e->id, (uint32_t)((uint64_t)size / 8u > UINT32_MAX ? UINT32_MAX : (uint64_t)size / 8u),
                             (uint32_t)alloc_common_gc_count(&x->gc), x->opts->lifetimes ? (uint32_t)(agent_now_ns() / 1000000u) : 0 };
    if (young)
        ax_young_add(x, jni, t, object, p, slot);
    else
        ax_tag(x, object, p, slot);
}

/* The calling thread's stack from `skip` frames down, up to `max` frames, into t->frames. */
static jint ax_stack(ax_table *t, jint skip, jint max)
{
    jint n = 0;
    if (max > 0 && (*agent_jvmti)->GetStackTrace(agent_jvmti, NULL, skip, max, t->frames, &n) != JVMTI_ERROR_NONE)
        n = 0;
    return n;
}

static void alloc_exact_allocated(ax_state *x, JNIEnv *jni, jthread thread, jclass klass, jobject object, jlong size)
{
    if (thread_record_self.alloc.priming) {
        thread_record_self.alloc.priming = false;   /* the sampler is at interval 0 on this thread from now on */
        return;
    }
    ax_table *t = ax_table_here(x, jni, thread);
    if (!t || t->agent)
        return;   /* out of memory, or jvmprof's own thread */
    bool young = !atomic_exchange_explicit(&t->young_held, true, memory_order_acquire);
    ax_count(x, jni, t, klass, object, size, 0, ax_stack(t, 0, (jint)x->opts->depth), young);
    if (young)
        atomic_store_explicit(&t->young_held, false, memory_order_release);
}

/* ---------------------------------------------------------------- alloc_hook=bci */

/* True if frame method m is a constructor of cls or of one of its superclasses
 * (the chain that runs for `new cls`), from a small per-thread cache. */
static bool ax_is_ctor_of(JNIEnv *jni, ax_table *t, jmethodID m, jclass cls)
{
    ax_method *c = &t->methods[((uintptr_t)m >> 3) % AX_METHOD_CACHE];
    if (c->m != m) {
        char *name = NULL;
        jclass decl = NULL;
        if (c->decl)
            (*jni)->DeleteGlobalRef(jni, c->decl);
        c->m = NULL;
        c->decl = NULL;
        if ((*agent_jvmti)->GetMethodName(agent_jvmti, m, &name, NULL, NULL) != JVMTI_ERROR_NONE)
            return false;
        bool init = strcmp(name, "<init>") == 0;
        jvmti_free(name);
        if (init && (*agent_jvmti)->GetMethodDeclaringClass(agent_jvmti, m, &decl) == JVMTI_ERROR_NONE && decl) {
            c->decl = (*jni)->NewGlobalRef(jni, decl);
            (*jni)->DeleteLocalRef(jni, decl);
        }
        c->m = m;
    }
    return c->decl && (*jni)->IsAssignableFrom(jni, cls, c->decl);
}

/* The stack above a Tracker call: objectInit0, objectInit, Object.<init>,
 * then the constructors of the object's class chain, then the method that
 * said `new`; or newArray0, newArray, then the method that allocated the
 * array. Counted from that method down. */
static void ax_tracked(JNIEnv *jni, jobject object, bool array)
{
    if (!gate_enter())
        return;
    ax_state *x = atomic_load_explicit(&ax_live, memory_order_acquire);
    ax_table *t = x ? ax_table_here(x, jni, NULL) : NULL;
    /* An object Unsafe.allocateInstance made (the method handles behind Constructor.newInstance from JDK
     * 18, MethodHandles' constructors) was counted at the VM's event, before its constructor ran: its
     * Object.<init>, on the same thread soon after, finds it tagged and counts it no more. Other
     * objects' constructors may run first (a superclass constructor's arguments): a few are looked at. */
    if (t && !array && t->vm_uninit) {
        jlong tag = 0;
        t->vm_uninit--;
        if ((*agent_jvmti)->GetTag(agent_jvmti, object, &tag) == JVMTI_ERROR_NONE && tag != 0) {
            t->vm_uninit = 0;
            t = NULL;
        }
    }
    if (t && !t->agent) {
        jclass cls = (*jni)->GetObjectClass(jni, object);
        jlong size = 0;
        (*agent_jvmti)->GetObjectSize(agent_jvmti, object, &size);
        jint depth = (jint)x->opts->depth, n = 0, skip = 0;
        if (array) {
            n = ax_stack(t, 2, depth);
        } else {
            /* most constructor chains are short: 4 frames past them first, more only if all 4 were constructors */
            for (jint extra = 4;; extra = AX_CTOR_FRAMES) {
                n = ax_stack(t, 3, depth + extra);
                skip = 0;
                while (skip < n && skip < extra && ax_is_ctor_of(jni, t, t->frames[skip].method, cls))
                    skip++;
                if (skip < extra || n < depth + extra || extra == AX_CTOR_FRAMES)
                    break;
            }
            n = n - skip < depth ? n - skip : depth;
        }
        ax_count(x, jni, t, cls, object, size, skip, n, false);
        (*jni)->DeleteLocalRef(jni, cls);
    }
    gate_leave();
}

void JNICALL alloc_exact_object_init(JNIEnv *jni, jclass tracker, jobject object)
{
    (void)tracker;
    ax_tracked(jni, object, false);
}

void JNICALL alloc_exact_new_array(JNIEnv *jni, jclass tracker, jobject array)
{
    (void)tracker;
    ax_tracked(jni, array, true);
}

static void alloc_exact_vm_object(ax_state *x, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size)
{
    jlong tag = 0;
    if ((*agent_jvmti)->GetTag(agent_jvmti, object, &tag) == JVMTI_ERROR_NONE && tag != 0)
        return;   /* its constructor ran first: counted at Object.<init> */
    ax_table *t = ax_table_here(x, jni, thread);
    if (!t || t->agent)
        return;
    ax_count(x, jni, t, klass, object, size, 0, ax_stack(t, 0, (jint)x->opts->depth), false);
    if (x->opts->alloc_hook == 'b')
        t->vm_uninit = 16; /* its constructor may be still to run (ax_tracked) */
}

/* The object of record `slot` of page p died, seen with `gcs` collections
 * finished: counted on its entry, the slot handed back. Atomics only. */
static void ax_died(ax_state *x, ax_page *p, uint32_t slot, uint64_t gcs)
{
    ax_rec r = p->rec[slot];
    ax_entry *e = r.entry ? ax_dir_get(&x->entries, r.entry) : NULL;
    if (e) {
        if (x->opts->lifetimes) {
            uint32_t d = (uint32_t)gcs - r.gcs;   /* mod 2^32, as stored; the collection that freed it is one */
            uint64_t survived = d ? d - 1u : 0;
            uint32_t age = (uint32_t)(agent_now_ns() / 1000000u) - r.ms;
            atomic_fetch_add_explicit(&e->died_gcs[life_gc_bucket(survived)], 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&e->died_ms[life_ms_bucket(age)], 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&e->died_bytes, (uint64_t)r.size8 * 8u, memory_order_relaxed);
        atomic_fetch_add_explicit(&e->died_objs, 1, memory_order_release);
    }
    ax_slot_free(p, slot);
}

static void alloc_exact_freed(ax_state *x, jlong tag)
{
    uint64_t rid = (uint64_t)tag - 1;
    ax_page *p = ax_dir_get(&x->pages, rid / AX_PAGE_RECS);
    if (p)
        ax_died(x, p, (uint32_t)(rid % AX_PAGE_RECS), alloc_common_gc_count(&x->gc));
}

/* ---------------------------------------------------------------- nursery */

/* Tags record rid's object; false (the record handed back, the object
 * counted live for good) if the JVM would not. */
static bool ax_tag(ax_state *x, jobject object, ax_page *p, uint32_t slot)
{
    jlong tag = (jlong)((uint64_t)p->id * AX_PAGE_RECS + slot + 1);
    if ((*agent_jvmti)->SetTag(agent_jvmti, object, tag) == JVMTI_ERROR_NONE)
        return true;
    ax_slot_free(p, slot);
    atomic_fetch_add_explicit(&x->untracked, 1, memory_order_relaxed);
    return false;
}

/* By whoever holds the nursery: record `slot` of page p's object came in
 * (+1) or left (-1); load and store, as only the holder writes. */
static void ax_young_count(ax_state *x, ax_page *p, uint32_t slot, int delta)
{
    ax_entry *e = p && p->rec[slot].entry ? ax_dir_get(&x->entries, p->rec[slot].entry) : NULL;
    if (e)
        atomic_store_explicit(&e->young_objs,
                              atomic_load_explicit(&e->young_objs, memory_order_relaxed) + (uint64_t)(int64_t)delta,
                              memory_order_relaxed);
}

/* By whoever holds t's nursery, `gcs` collections finished: each object in
 * it is dead (counted so) or tagged. */
static void ax_young_sweep(ax_state *x, JNIEnv *jni, ax_table *t, uint64_t gcs)
{
    uint64_t died = 0, tagged = 0;
    for (uint32_t i = 0; i < t->young_n; i++) {
        ax_young *y = &t->young[i];
        ax_page *p = ax_dir_get(&x->pages, y->rid / AX_PAGE_RECS);
        uint32_t slot = (uint32_t)(y->rid % AX_PAGE_RECS);
        jobject o = (*jni)->NewLocalRef(jni, y->ref);
        ax_young_count(x, p, slot, -1);   /* before ax_died hands the slot back */
        if (!o) {
            if (p)
                ax_died(x, p, slot, gcs);
            died++;
        } else {
            if (p && ax_tag(x, o, p, slot))
                tagged++;
            (*jni)->DeleteLocalRef(jni, o);
        }
        (*jni)->DeleteWeakGlobalRef(jni, y->ref);
    }
    if (t->young_cap > 4096 && t->young_cap / 4 > t->young_n) {   /* give back what a burst took */
        uint32_t cap = t->young_cap / 2;
        ax_young *y = realloc(t->young, cap * sizeof *y);
        if (y) {
            atomic_fetch_sub_explicit(&x->young_bytes, (t->young_cap - cap) * sizeof *y, memory_order_relaxed);
            t->young = y;
            t->young_cap = cap;
        }
    }
    t->young_n = 0;
    t->young_gcs = gcs;
    atomic_fetch_add_explicit(&x->young_died, died, memory_order_relaxed);
    atomic_fetch_add_explicit(&x->young_tagged, tagged, memory_order_relaxed);
}

/* Follows record `slot` of page p's new object by weak reference, or (the
 * nursery full, or no memory) tags it at once. The caller holds t's nursery. */
static void ax_young_add(ax_state *x, JNIEnv *jni, ax_table *t, jobject object, ax_page *p, uint32_t slot)
{
    uint64_t gcs = alloc_common_gc_count(&x->gc);
    if (gcs != t->young_gcs)
        ax_young_sweep(x, jni, t, gcs);
    if (t->young_n == t->young_cap && t->young_cap < AX_YOUNG_MAX) {
        uint32_t cap = t->young_cap ? t->young_cap * 2 : 1024;
        ax_young *y = realloc(t->young, cap * sizeof *y);
        if (y) {
            atomic_fetch_add_explicit(&x->young_bytes, (cap - t->young_cap) * sizeof *y, memory_order_relaxed);
            t->young = y;
            t->young_cap = cap;
        }
    }
    jweak ref = t->young_n < t->young_cap ? (*jni)->NewWeakGlobalRef(jni, object) : NULL;
    if (!ref) {
        if ((*jni)->ExceptionCheck(jni))
            (*jni)->ExceptionClear(jni);   /* out of memory for the handle: tagged instead */
        ax_tag(x, object, p, slot);
        return;
    }
    t->young[t->young_n++] = (ax_young){ ref, (uint64_t)p->id * AX_PAGE_RECS + slot };
    ax_young_count(x, p, slot, 1);
}

static void alloc_exact_sweep(ax_state *x, JNIEnv *jni, bool now)
{
    uint64_t gcs = alloc_common_gc_count(&x->gc);
    if (gcs == x->swept_gcs)
        return;
    if (!now) {
        /* an allocating thread sweeps its own nursery at once; while the
         * agent thread holds it, the thread would tag its new objects */
        if (gcs != x->seen_gcs) {
            x->seen_gcs = gcs;
            x->seen_ns = agent_now_ns();
            return;
        }
        if (agent_now_ns() - x->seen_ns < AX_SWEEP_DELAY_NS)
            return;
    }
    bool all = true;
    for (ax_table *t = atomic_load_explicit(&x->all, memory_order_acquire); t; t = t->next_all) {
        if (atomic_exchange_explicit(&t->young_held, true, memory_order_acquire)) {
            all = false;   /* its thread is allocating: it sweeps it itself, or next time */
            continue;
        }
        if (t->young_n && t->young_gcs != gcs)
            ax_young_sweep(x, jni, t, gcs);
        atomic_store_explicit(&t->young_held, false, memory_order_release);
    }
    if (all)
        x->swept_gcs = gcs;
}

/* ---------------------------------------------------------------- agent thread */

/* The entry's site; its class named now (NULL, unknown, if it has been
 * unloaded since). */
static void ax_register(ax_state *x, model *m, JNIEnv *jni, trace_id trace, const ax_site_event *e)
{
    ax_entry *en = ax_dir_get(&x->entries, e->entry);
    if (!en)
        return;
    char *sig = symbols_class_signature(jni, en->cls);
    en->site = alloc_common_site_of(m, trace, sig);
    jvmti_free(sig);
}

static void alloc_exact_drain(ax_state *x, model *m)
{
    uint64_t n = atomic_load_explicit(&x->next_entry, memory_order_acquire), allocs = 0, frees = 0;
    for (uint64_t id = 1; id <= n; id++) {
        ax_entry *e = ax_dir_get(&x->entries, id);
        if (!e || !e->site.v)
            continue;
        /* deaths first: every death read here had its allocation counted before it */
        uint64_t dobjs = atomic_load_explicit(&e->died_objs, memory_order_acquire);
        uint64_t dbytes = atomic_load_explicit(&e->died_bytes, memory_order_relaxed);
        double by_gcs[LIFE_GC_BUCKETS], by_ms[LIFE_MS_BUCKETS];
        bool died_any = false;
        if (m->lifetimes) {
            for (int i = 0; i < LIFE_GC_BUCKETS; i++) {
                uint64_t v = atomic_load_explicit(&e->died_gcs[i], memory_order_relaxed);
                by_gcs[i] = (double)(v - e->seen_gcs[i]);
                died_any |= v != e->seen_gcs[i];
                e->seen_gcs[i] = v;
            }
            for (int i = 0; i < LIFE_MS_BUCKETS; i++) {
                uint64_t v = atomic_load_explicit(&e->died_ms[i], memory_order_relaxed);
                by_ms[i] = (double)(v - e->seen_ms[i]);
                e->seen_ms[i] = v;
            }
        }
        uint64_t aobjs = atomic_load_explicit(&e->alloc_objs, memory_order_acquire);
        uint64_t abytes = atomic_load_explicit(&e->alloc_bytes, memory_order_relaxed);
        if (aobjs != e->seen_alloc_objs)
            model_site_alloc(m, e->site, (double)(aobjs - e->seen_alloc_objs),
                             (double)(abytes - e->seen_alloc_bytes), true);
        if (dobjs != e->seen_died_objs)
            model_site_free(m, e->site, (double)(dobjs - e->seen_died_objs), (double)(dbytes - e->seen_died_bytes));
        if (died_any)
            model_site_died_counts(m, e->site, by_gcs, by_ms);
        uint64_t young = atomic_load_explicit(&e->young_objs, memory_order_relaxed);
        if (young != e->seen_young)
            model_site_young(m, e->site, (double)(int64_t)(young - e->seen_young));
        e->seen_young = young;
        e->seen_alloc_objs = aobjs;
        e->seen_alloc_bytes = abytes;
        e->seen_died_objs = dobjs;
        e->seen_died_bytes = dbytes;
        allocs += aobjs;
        frees += dobjs;
    }
    x->allocs = allocs;
    x->frees = frees;
    if (allocs - frees > x->live_peak)
        x->live_peak = allocs - frees;
    if (m->sites_young)
        model_sites_floor(m);
}

static void ax_describe_counts(ax_state *x)
{
    uint64_t recs = atomic_load(&x->pages_bytes) + atomic_load(&x->young_bytes);
    jp_log_info("heap=sites: %llu allocations counted (exact%s), %llu seen freed (%llu of them before their "
             "first collection was swept, %llu tagged), %llu not followed to their death; %llu sites (%llu KiB); "
             "%llu objects tracked live (%llu at most) in %llu KiB of records (%.0f bytes each at the most)",
             (unsigned long long)x->allocs,
             x->primed || x->opts->alloc_hook == 'b' ? "" : "; the main thread's first allocations may be missing",
             (unsigned long long)x->frees, (unsigned long long)atomic_load(&x->young_died),
             (unsigned long long)atomic_load(&x->young_tagged), (unsigned long long)atomic_load(&x->untracked),
             (unsigned long long)atomic_load(&x->next_entry), (unsigned long long)(atomic_load(&x->entries_bytes) / 1024),
             (unsigned long long)(x->allocs - x->frees), (unsigned long long)x->live_peak,
             (unsigned long long)(recs / 1024), x->live_peak ? (double)recs / (double)x->live_peak : 0.0);
}

/* Agent thread: a new site's stack, into the model. */
static bool ax_apply(model *m, JNIEnv *jni, eventq_event *e)
{
    const ax_site_event *s = (const ax_site_event *)e;
    ax_state *x = s->x;
    trace_id t;
    if (symbols_trace(m, jni, s->frames, s->nframes, x->opts->thread ? e->thread : 0, x->opts->lineno, &t))
        ax_register(x, m, jni, t, s);
    return false;
}

/* ---- the heap=sites,alloc_interval=0 collector ---- */

static void JNICALL ax_cb_sampled(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size)
{
    (void)jv;
    if (!gate_enter())
        return;
    ax_state *x = atomic_load_explicit(&ax_live, memory_order_acquire);
    if (x)
        alloc_exact_allocated(x, jni, thread, klass, object, size);
    gate_leave();
}

static void JNICALL ax_cb_vm_object(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                                    jlong size)
{
    (void)jv;
    if (!gate_enter())
        return;
    ax_state *x = atomic_load_explicit(&ax_live, memory_order_acquire);
    if (x)
        alloc_exact_vm_object(x, jni, thread, object, klass, size);
    gate_leave();
}

static void JNICALL ax_cb_free(jvmtiEnv *jv, jlong tag)
{
    (void)jv;
    if (!gate_enter())
        return;
    ax_state *x = atomic_load_explicit(&ax_live, memory_order_acquire);
    if (x)
        alloc_exact_freed(x, tag);
    gate_leave();
}

static bool ax_wanted(const agent_options *o) { return options_alloc_exact(o); }

static bool ax_bci(const agent_options *o) { return o->alloc_hook == 'b'; }

static jp_status ax_capabilities(jp_session *session, jvmtiCapabilities *caps)
{
    alloc_common_capabilities(caps);
    if (ax_bci(session->opts)) {
        caps->can_retransform_classes = 1;
        caps->can_retransform_any_class = 1;
        caps->can_generate_vm_object_alloc_events = 1;
    } else {
        caps->can_generate_sampled_object_alloc_events = 1;
    }
    return JP_OK;
}

/* after each collection: the agent thread sweeps the nurseries of the threads that are not allocating */
static void ax_gc_finished(void) { profiler_wake(); }

/* Both hooks' callbacks (this hook is given no session): the events of the
 * hook the session chose are the only ones turned on (ax_vm_init), and the
 * other's capability is not even asked for. */
static void ax_callbacks(jvmtiEventCallbacks *cb)
{
    alloc_common_callbacks(cb);
    cb->ObjectFree = ax_cb_free;
    cb->VMObjectAlloc = ax_cb_vm_object;               /* alloc_hook=bci */
    cb->ClassFileLoadHook = bci_class_file_load_hook;  /* alloc_hook=bci */
    cb->SampledObjectAlloc = ax_cb_sampled;            /* alloc_hook=sampler */
}

/* JVMTI's sampler at interval 0 reports every allocation (alloc_hook=bci uses no sampler) */
static jp_status ax_load(jp_session *session, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    return ax_bci(session->opts) ? JP_OK : alloc_common_set_interval(0);
}

static jp_status ax_vm_init(jp_session *session, JNIEnv *jni)
{
    alloc_common_model(session);
    ax_state *x = session_part(session, JP_PART_ALLOC_EXACT, sizeof(ax_state));
    if (!x)
        return jp_error(JP_ERR_NOMEM, "heap=sites: out of memory");
    x->opts = session->opts;
    x->bci = ax_bci(session->opts);
    x->gc.on_finish = x->bci ? NULL : ax_gc_finished;
    pthread_mutex_init(&x->orphans_lock, NULL);
    atomic_store_explicit(&ax_live, x, memory_order_release);
    jp_status st = alloc_common_events_on(&x->gc);
    if (st == JP_OK && x->bci) {
        st = jvmti_event(JVMTI_EVENT_VM_OBJECT_ALLOC, true);
        return st == JP_OK ? bci_vm_init(session, jni) : st; /* the Tracker calls, and the classes loaded so far retransformed */
    }
    if (st == JP_OK)
        st = jvmti_event(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, true);
    if (st == JP_OK)
        alloc_exact_prime(x, jni);
    return st;
}

static void ax_thread_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    ax_state *x = session_part_if(session, JP_PART_ALLOC_EXACT);
    if (x)
        alloc_exact_thread_end(x);
}

/* after a collection: idle threads' young objects */
static void ax_poll(jp_session *session, JNIEnv *jni)
{
    ax_state *x = session_part_if(session, JP_PART_ALLOC_EXACT);
    if (x)
        alloc_exact_sweep(x, jni, false);
}

static void ax_before_report(jp_session *session, JNIEnv *jni)
{
    ax_state *x = session_part_if(session, JP_PART_ALLOC_EXACT);
    if (x)
        alloc_exact_sweep(x, jni, true);
}

static void ax_drain(jp_session *session, JNIEnv *jni)
{
    model *m = session->model;
    ax_state *x = session_part_if(session, JP_PART_ALLOC_EXACT);
    (void)jni;
    if (!x)
        return;   /* it did not start */
    model_count_set(m, "heap=sites: allocations not followed to their death",
                    atomic_load_explicit(&x->untracked, memory_order_relaxed));
    alloc_exact_drain(x, m);
    alloc_common_drain(m, &x->gc);
}

static void ax_describe(jp_session *session)
{
    ax_state *x = session_part_if(session, JP_PART_ALLOC_EXACT);
    if (!x)
        return;
    ax_describe_counts(x);
    if (!x->bci)
        return;
    bci_stats b;
    bci_get_stats(session, &b);
    jp_log_info("alloc_hook=bci: %llu classes rewritten (%llu failed) in %.1f ms; %llu classes loaded before VM "
                "init retransformed (%llu could not be) in %.1f ms", (unsigned long long)b.classes_rewritten,
                (unsigned long long)b.classes_failed, (double)b.rewrite_ns / 1e6,
                (unsigned long long)b.retransformed, (unsigned long long)b.retransform_failed,
                (double)b.retransform_ns / 1e6);
}

static void ax_stop(jp_session *session, JNIEnv *jni)
{
    if (ax_bci(session->opts)) {
        jvmti_event(JVMTI_EVENT_VM_OBJECT_ALLOC, false);
        bci_vm_death(jni);
    } else {
        jvmti_event(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, false);
    }
    alloc_common_events_off();
}

/* Frees a table made by ax_table_for, with its nursery's references, its
 * constructor cache's and its pages. */
static void ax_table_free(JNIEnv *jni, ax_table *t)
{
    for (uint32_t i = 0; i < t->young_n; i++)
        (*jni)->DeleteWeakGlobalRef(jni, t->young[i].ref);
    for (uint32_t i = 0; t->methods && i < AX_METHOD_CACHE; i++)
        if (t->methods[i].decl)
            (*jni)->DeleteGlobalRef(jni, t->methods[i].decl);
    for (ax_page *p = t->pages, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    free(t->young);
    free(t->index);
    free(t->methods);
    free(t);
}

/* Frees a directory's chunks and (with free_entries) the entries in them. */
static void ax_dir_free(JNIEnv *jni, ax_dir *d, bool free_entries)
{
    for (uint32_t hi = 0; hi < AX_DIR_SIZE; hi++) {
        _Atomic(void *) *c = atomic_load(&d->chunk[hi]);
        if (!c)
            continue;
        for (uint32_t lo = 0; free_entries && lo < AX_DIR_SIZE; lo++) {
            ax_entry *e = atomic_load(&c[lo]);
            if (e && e->cls)
                (*jni)->DeleteWeakGlobalRef(jni, e->cls);
            free(e);
        }
        free(c);
    }
}

/* After the session's last report (no callback in flight; exact counts run
 * only in the session given at load, so no thread's record is read for its
 * table again): the callbacks find no part, what it points to is freed (the
 * session frees the part), and JVMTI's allocation sampler is given back
 * (alloc_hook=sampler), so that trace=alloc in a later session may take it. */
static void ax_end(jp_session *session, JNIEnv *jni)
{
    atomic_store_explicit(&ax_live, NULL, memory_order_release);
    ax_state *x = session_part_if(session, JP_PART_ALLOC_EXACT);
    if (x) {
        thread_record_self.alloc.table = NULL;
        for (ax_table *t = atomic_load(&x->all), *next; t; t = next) {
            next = t->next_all;
            ax_table_free(jni, t);
        }
        ax_dir_free(jni, &x->entries, true);
        ax_dir_free(jni, &x->pages, false);   /* the pages went with their tables */
        pthread_mutex_destroy(&x->orphans_lock);
    }
    if (!ax_bci(session->opts))
        jvmti_sampler_give_back(agent_jvmti);
}

const collector alloc_exact_collector = {
    .name = "heap=sites",
    .engine = "allocation sampling",
    .at_load_only = "exact counts (alloc_interval=0) are set up once per JVM, at VM init, and cannot be set up again in a running "
                    "JVM yet",
    .wanted = ax_wanted,
    .capabilities = ax_capabilities,
    .callbacks = ax_callbacks,
    .load = ax_load,
    .start = ax_vm_init,
    .thread_end = ax_thread_end,
    .poll = ax_poll,
    .before_report = ax_before_report,
    .drain = ax_drain,
    .describe = ax_describe,
    .stop = ax_stop,
    .end = ax_end,
};
