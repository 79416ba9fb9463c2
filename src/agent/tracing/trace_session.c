/* trace_session.c — see trace_session.h. A trace session's state is its
 * part JP_PART_TRACE_SESSION (tss_part), reached by the hot paths through
 * trace_session_live. Metadata is written under names_lock before the chunk
 * that names it is handed over: a method's bit in the described bitmap is
 * set (release) after its metadata, and a thread that sees it (acquire)
 * hands its chunk over after that. */
#include "trace_session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/arena.h"
#include "../../common/intern.h"
#include "../../trace/trace_file.h"
#include "../../options/options.h"
#include "../core/agent_env.h"
#include "../core/session_ctx.h"
#include "../instrument/bci.h"
#include "../core/thread_registry.h"

#define TS_CHUNK_BYTES (64u * 1024u)

/* The session's part JP_PART_TRACE_SESSION: the state the hot paths read
 * (trace_state, first: its address is the part's), then this file's own. */
#define TSS_CLASS_CHUNK 4096u
#define TSS_CLASS_CHUNKS 1024u
typedef struct tss_class_name { const char *p; uint32_t n; } tss_class_name;
typedef struct tss_part {
    trace_state pub;
    _Atomic(trace_thread *) threads;  /* the producers of its Java threads */
    bool made;                        /* the locks below initialised (its open) */
    pthread_mutex_t write_lock;       /* the writer: the agent thread's writes, the end */
    /* Events of no Java thread (collections, deaths: trace_vm_events.c), on the
     * chunks of thread 0, under vm_lock; never held across a JVMTI or JNI
     * call, since a collection's callback takes it with the world stopped. */
    pthread_mutex_t vm_lock;
    trace_producer vm;
    bool vm_made;
    uint64_t vm_last_ns;           /* thread 0's last event time, under vm_lock */
    /* cpu=samples' samples, in time order, on chunks of their own (TRACE_SAMPLES_THREAD), also under vm_lock */
    trace_producer samples;
    bool samples_made;
    /* Names written once: strings and classes interned under names_lock (a
     * method's first call only; intern ids are the file's), methods marked in a
     * bitmap by id. */
    pthread_mutex_t names_lock;
    arena keys;
    intern_table strings, classes;    /* by text / by class name */
    bool names_made;
    trace_stream *stream_locked;      /* the session's stream, read and set under names_lock */
    /* class id -> its name (the intern table's key, which never moves), for
     * readers without the lock (trace_session_class_name): chunks made as ids come */
    _Atomic(tss_class_name *) class_names[TSS_CLASS_CHUNKS];
} tss_part;

/* see trace_session.h: the hot paths' one pointer to the running trace's part */
trace_state *_Atomic trace_session_live;

/* What outlives a trace session, for the JVM's life: the sessions' numbers
 * (a thread's record keeps its producer from an earlier one, told apart by
 * its number), and the methods' bitmap (BCI_IDS bits, 8 MB of address space
 * zeroed as used): made at the first session, reused by each (cleared at its
 * close), never freed, since a thread that entered a describe before the
 * stop may still set a bit in it. */
static struct {
    uint32_t gens;
    _Atomic uint64_t *described;
} tss_jvm;

/* The running trace's part, or NULL. */
static tss_part *tss_live(void) { return (tss_part *)trace_live(); }

/* s's part, if its trace was opened. */
static tss_part *tss_of(jp_session *s) { return session_part_if(s, JP_PART_TRACE_SESSION); }

static void tss_names_init(tss_part *ps)
{
    if (ps->names_made)
        return;
    arena_init(&ps->keys);
    intern_init(&ps->strings, &ps->keys);
    intern_init(&ps->classes, &ps->keys);
    ps->names_made = true;
}

/* The id of a string (n bytes), written as metadata the first time; 0 if out of memory. Under names_lock. */
static uint32_t tss_string(tss_part *ps, const char *s, size_t n)
{
    if (!ps->stream_locked)
        return 0; /* the session has ended */
    tss_names_init(ps);
    bool added = false;
    uint32_t id = intern_put(&ps->strings, s, (uint32_t)n, &added);
    if (added)
        trace_stream_meta(ps->stream_locked, TRACE_EV_STRING, (uint64_t[]){ id }, s, n);
    return id;
}

/* The id of a class by its name in internal form (n bytes), written the
 * first time. Call with names_lock held. Two loaders' classes of one name
 * share an id. */
static uint32_t tss_class_locked(tss_part *ps, const char *internal, size_t n)
{
    if (!ps->stream_locked)
        return 0;
    tss_names_init(ps);
    uint32_t id = intern_find(&ps->classes, internal, (uint32_t)n);
    if (id)
        return id;
    uint32_t name = tss_string(ps, internal, n);
    bool added = false;
    id = intern_put(&ps->classes, internal, (uint32_t)n, &added);
    if (added) {
        trace_stream_meta(ps->stream_locked, TRACE_EV_CLASS, (uint64_t[]){ id, name }, NULL, 0);
        tss_class_name *chunk = id / TSS_CLASS_CHUNK < TSS_CLASS_CHUNKS
                                    ? atomic_load(&ps->class_names[id / TSS_CLASS_CHUNK])
                                    : NULL;
        if (!chunk && id / TSS_CLASS_CHUNK < TSS_CLASS_CHUNKS) {
            chunk = calloc(TSS_CLASS_CHUNK, sizeof *chunk);
            if (chunk)
                atomic_store_explicit(&ps->class_names[id / TSS_CLASS_CHUNK], chunk, memory_order_release);
        }
        if (chunk) {
            uint32_t len;
            const char *key = intern_key(&ps->classes, id, &len);
            chunk[id % TSS_CLASS_CHUNK].n = len;
            atomic_store_explicit((_Atomic(const char *) *)&chunk[id % TSS_CLASS_CHUNK].p, key, memory_order_release);
        }
    }
    return id;
}

/* ... of a class the rewriter saw (its record's name is dotted) */
static uint32_t tss_class(tss_part *ps, const bci_class *c)
{
    if (!c)
        return 0;
    char internal[1024];
    size_t n = strlen(c->name) < sizeof internal ? strlen(c->name) : sizeof internal - 1;
    for (size_t i = 0; i < n; i++)
        internal[i] = c->name[i] == '.' ? '/' : c->name[i];
    return tss_class_locked(ps, internal, n);
}

bool trace_session_class_name(uint32_t id, const char **p, size_t *n)
{
    tss_part *ps = tss_live();
    tss_class_name *chunk = ps && id / TSS_CLASS_CHUNK < TSS_CLASS_CHUNKS
                                ? atomic_load_explicit(&ps->class_names[id / TSS_CLASS_CHUNK], memory_order_acquire)
                                : NULL;
    const char *name = chunk ? atomic_load_explicit((_Atomic(const char *) *)&chunk[id % TSS_CLASS_CHUNK].p,
                                                    memory_order_acquire)
                             : NULL;
    if (!name)
        return false;
    *p = name;
    *n = chunk[id % TSS_CLASS_CHUNK].n;
    return true;
}

bool trace_session_string(uint32_t id, char *out, size_t cap, size_t *n)
{
    tss_part *ps = tss_live();
    if (!ps)
        return false;
    bool ok = false;
    pthread_mutex_lock(&ps->names_lock);
    if (ps->names_made && id && id <= intern_count(&ps->strings)) {
        uint32_t len;
        const char *key = intern_key(&ps->strings, id, &len);
        *n = len < cap ? len : cap;
        memcpy(out, key, *n);
        ok = true;
    }
    pthread_mutex_unlock(&ps->names_lock);
    return ok;
}

uint32_t trace_class_id(const char *internal, size_t n)
{
    tss_part *ps = tss_live();
    if (!ps || !ps->pub.stream)
        return 0;
    pthread_mutex_lock(&ps->names_lock);
    uint32_t id = tss_class_locked(ps, internal, n);
    pthread_mutex_unlock(&ps->names_lock);
    return id;
}

uint32_t trace_string_id(const char *s, size_t n)
{
    tss_part *ps = tss_live();
    if (!ps || !ps->pub.stream)
        return 0;
    pthread_mutex_lock(&ps->names_lock);
    uint32_t id = tss_string(ps, s, n);
    pthread_mutex_unlock(&ps->names_lock);
    return id;
}

void trace_meta(unsigned type, const uint64_t *fields)
{
    trace_state *ts = trace_live();
    trace_stream *st = ts ? ts->stream : NULL; /* an ended session's stays allocated (retired) */
    if (!st)
        return;
    if (type == TRACE_EV_GC) /* what a collection was: its consumers hear it too */
        trace_session_tap(ts, 0, type, trace_session_now(ts), fields, NULL, 0);
    trace_stream_meta(st, type, fields, NULL, 0);
}

/* The method's metadata, once (two threads may race to write it twice; a reader keeps either). */
void trace_session_describe(trace_state *ts, uint32_t id, bool receivers)
{
    tss_part *ps = (tss_part *)ts;
    const bci_method *m = bci_method_get(id);
    if (!m || !ts->described)
        return;
    pthread_mutex_lock(&ps->names_lock);
    if (!ps->stream_locked) { /* the session has ended */
        pthread_mutex_unlock(&ps->names_lock);
        return;
    }
    uint64_t flags = (m->access & 0x0008 ? TRACE_METHOD_STATIC : 0) | (m->access & 0x0100 ? TRACE_METHOD_NATIVE : 0) |
                     (m->access & 0x0020 ? TRACE_METHOD_SYNCHRONIZED : 0) |
                     (receivers && !(m->access & 0x0008) && strcmp(m->name, "<init>") != 0 ? TRACE_METHOD_RECEIVER
                                                                                             : 0);
    uint64_t cls = tss_class(ps, m->cls);
    uint64_t name = tss_string(ps, m->name, strlen(m->name)), sig = tss_string(ps, m->sig, strlen(m->sig));
    trace_stream_meta(ps->stream_locked, TRACE_EV_METHOD, (uint64_t[]){ id, cls, name, sig, flags }, NULL, 0);
    pthread_mutex_unlock(&ps->names_lock);
    /* after the metadata: a thread that sees the bit (acquire) hands its chunk over after it */
    atomic_fetch_or_explicit(&ts->described[id / 64], 1ull << (id % 64), memory_order_release);
}

/* The carrier a virtual thread runs on, on that carrier (JDK 21 and later: the JDK's own
 * Thread.currentCarrierThread(), a native), as a local reference; NULL if it cannot be had. */
static jthread tss_carrier_thread(JNIEnv *jni)
{
    static _Atomic(jmethodID) mid;
    static jclass thread_class;   /* a global reference, made once */
    jmethodID m = atomic_load_explicit(&mid, memory_order_acquire);
    if (!m) {
        jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
        m = tc ? (*jni)->GetStaticMethodID(jni, tc, "currentCarrierThread", "()Ljava/lang/Thread;") : NULL;
        if (m && !thread_class)
            thread_class = (*jni)->NewGlobalRef(jni, tc);
        if (tc)
            (*jni)->DeleteLocalRef(jni, tc);
        if (!m || !thread_class) {
            (*jni)->ExceptionClear(jni);
            return NULL;
        }
        atomic_store_explicit(&mid, m, memory_order_release);
    }
    jobject carrier = (*jni)->CallStaticObjectMethod(jni, thread_class, m);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    return carrier;
}

/* The calling thread's producer in this session, made (and the thread named) at its first event. */
trace_thread *trace_session_self_slow(trace_state *ts, JNIEnv *jni)
{
    tss_part *ps = (tss_part *)ts;
    trace_thread *t = thread_record_self.trace;
    if (t && t->gen == ts->gen && ts->stream)
        return t;
    /* a thread past its thread-end (the JVM still runs some of its code: the join's notify) is not
     * named again: its group is gone by then, and its events would follow its end */
    if (thread_record_self.ended)
        return NULL;
    uint32_t serial = thread_registry_serial(NULL);
    trace_stream *st = ts->stream; /* an ended session's stays allocated (retired) */
    if (!serial || !st)
        return NULL;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    trace_producer_init(&t->p, st, serial);
    t->gen = ts->gen;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    /* with a virtual thread mounted the current thread is that one: this carrier is Thread.currentCarrierThread() */
    jthread self = thread_record_self.vthread && jni ? tss_carrier_thread(jni) : NULL;
    if ((self || !thread_record_self.vthread) &&
        (*agent_jvmti)->GetThreadInfo(agent_jvmti, self, &info) == JVMTI_ERROR_NONE) {
        jvmtiThreadGroupInfo group;
        memset(&group, 0, sizeof group);
        if (info.thread_group &&
            (*agent_jvmti)->GetThreadGroupInfo(agent_jvmti, info.thread_group, &group) != JVMTI_ERROR_NONE)
            memset(&group, 0, sizeof group);
        pthread_mutex_lock(&ps->names_lock);
        uint32_t name = info.name ? tss_string(ps, info.name, strlen(info.name)) : 0;
        uint32_t gname = group.name ? tss_string(ps, group.name, strlen(group.name)) : 0;
        if (ps->stream_locked)
            trace_stream_meta(ps->stream_locked, TRACE_EV_THREAD,
                          (uint64_t[]){ serial, name, gname, (uint64_t)(info.priority > 0 ? info.priority : 0),
                                        info.is_daemon ? TRACE_THREAD_DAEMON : 0 }, NULL, 0);
        pthread_mutex_unlock(&ps->names_lock);
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)info.name);
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)group.name);
        if (jni && group.parent)
            (*jni)->DeleteLocalRef(jni, group.parent);
        if (jni && info.thread_group)
            (*jni)->DeleteLocalRef(jni, info.thread_group);
        if (jni && info.context_class_loader)
            (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    }
    if (self)
        (*jni)->DeleteLocalRef(jni, self);
    trace_thread *head = atomic_load(&ps->threads);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&ps->threads, &head, t));
    thread_record_self.trace = t;
    return t;
}

void trace_session_set_consumer(trace_consumer_fn fn)
{
    trace_state *ts = trace_live();
    if (ts)
        ts->consumer = fn;
}

bool trace_wants(unsigned what)
{
    trace_state *ts = trace_live();
    return ts && atomic_load_explicit(&ts->on, memory_order_acquire) && (ts->what & what);
}

uint64_t trace_now_ns(void)
{
    trace_state *ts = trace_live();
    return ts ? trace_session_now(ts) : 0;
}

bool trace_thread_followed(JNIEnv *jni)
{
    trace_state *ts = trace_live();
    return ts && atomic_load_explicit(&ts->on, memory_order_relaxed) && trace_session_self(ts, jni);
}

bool trace_thread_event(JNIEnv *jni, unsigned type, const uint64_t *fields)
{
    trace_state *ts = trace_live();
    trace_thread *t = ts && atomic_load_explicit(&ts->on, memory_order_relaxed) ? trace_session_self(ts, jni) : NULL;
    if (!t)
        return false;
    uint64_t now = trace_session_now(ts);
    trace_session_tap(ts, trace_thread_id(t), type, now, fields, NULL, 0);
    return trace_emit(&t->p, type, now, fields, NULL, 0);
}

bool trace_vm_event(unsigned type, const uint64_t *fields)
{
    tss_part *ps = tss_live();
    if (!ps)
        return false;
    trace_state *ts = &ps->pub;
    bool ok = false;
    pthread_mutex_lock(&ps->vm_lock);
    /* the time taken under the lock: thread 0's events come from several threads, and a chunk's times only grow;
     * one taken on another CPU may still read a little behind the last (a VM's vCPU clocks differ by tens of ns):
     * the last again, as the file would store it, so that a plugin is given the time the file holds */
    uint64_t time_ns = trace_session_now(ts);
    if (time_ns < ps->vm_last_ns)
        time_ns = ps->vm_last_ns;
    ps->vm_last_ns = time_ns;
    if (atomic_load_explicit(&ts->on, memory_order_acquire) && ts->stream) {
        if (!ps->vm_made) {
            memset(&ps->vm, 0, sizeof ps->vm);
            trace_producer_init(&ps->vm, ts->stream, 0);
            ps->vm_made = true;
        }
        ok = trace_emit(&ps->vm, type, time_ns, fields, NULL, 0);
    }
    pthread_mutex_unlock(&ps->vm_lock);
    if (atomic_load_explicit(&ts->on, memory_order_acquire))
        trace_session_tap(ts, 0, type, time_ns, fields, NULL, 0);
    return ok;
}

bool trace_samples_wanted(void)
{
    trace_state *ts = trace_live();
    return ts && atomic_load_explicit(&ts->on, memory_order_acquire) && ts->stream;
}

void trace_sample(uint32_t thread, uint64_t ticks, const char *stack, size_t n)
{
    tss_part *ps = tss_live();
    if (!ps)
        return;
    trace_state *ts = &ps->pub;
    uint64_t stack_str = trace_string_id(stack, n);
    uint64_t at = trace_session_ns(ts, ticks);
    if (stack_str && atomic_load_explicit(&ts->on, memory_order_acquire))
        trace_session_tap(ts, thread, TRACE_EV_SAMPLE, at, (uint64_t[]){ thread, stack_str }, stack, n);
    pthread_mutex_lock(&ps->vm_lock);
    if (stack_str && atomic_load_explicit(&ts->on, memory_order_acquire) && ts->stream) {
        if (!ps->samples_made) {
            memset(&ps->samples, 0, sizeof ps->samples);
            trace_producer_init(&ps->samples, ts->stream, TRACE_SAMPLES_THREAD);
            ps->samples_made = true;
        }
        trace_emit(&ps->samples, TRACE_EV_SAMPLE, at, (uint64_t[]){ thread, stack_str }, NULL, 0);
    }
    pthread_mutex_unlock(&ps->vm_lock);
}


/* ---- the session's life ---- */

jp_status trace_session_open(jp_session *s, int fd, uint64_t limit, unsigned what, uint64_t mintime_ns,
                             bool receivers)
{
    if (!tss_jvm.described)
        tss_jvm.described = calloc(BCI_IDS / 64, sizeof *tss_jvm.described);
    tss_part *ps = tss_jvm.described ? session_part(s, JP_PART_TRACE_SESSION, sizeof *ps) : NULL;
    if (!ps)
        return JP_ERR_NOMEM;
    if (!ps->made) {
        pthread_mutex_init(&ps->write_lock, NULL);
        pthread_mutex_init(&ps->vm_lock, NULL);
        pthread_mutex_init(&ps->names_lock, NULL);
        ps->made = true;
    }
    trace_stream *st = trace_stream_open(fd, limit, agent_wall_ms() * 1000000ull, TS_CHUNK_BYTES);
    if (!st)
        return JP_ERR_IO;
    trace_state *ts = &ps->pub;
    ts->described = tss_jvm.described;
    pthread_mutex_lock(&ps->names_lock);
    ps->stream_locked = ts->stream = st;
    pthread_mutex_unlock(&ps->names_lock);
    ts->what = what;
    ts->gen = ++tss_jvm.gens;
    ts->t0 = ticks_now();
    ts->mintime_ns = mintime_ns;
    ts->receivers = receivers;
    atomic_store_explicit(&trace_session_live, ts, memory_order_release); /* the hot paths find it from now on */
    return JP_OK;
}

bool trace_session_is_open(jp_session *s)
{
    tss_part *ps = tss_of(s);
    return ps && ps->made && ps->pub.stream;
}

void trace_session_start(jp_session *s)
{
    tss_part *ps = tss_of(s);
    if (!ps)
        return;
    /* the clock's rate, measured from the agent's load to now (VM init, for the session given at load) */
    ps->pub.mult = (uint64_t)(ticks_ns_per_tick_settled(10000000u) * (double)(1u << 24) + 0.5);
    atomic_store(&ps->pub.on, true);
}

void trace_session_pause(jp_session *s)
{
    tss_part *ps = tss_of(s);
    if (ps)
        atomic_store(&ps->pub.on, false);
}

void trace_session_write(jp_session *s)
{
    tss_part *ps = tss_of(s);
    if (!ps || !ps->made)
        return;
    pthread_mutex_lock(&ps->write_lock);
    if (ps->pub.stream)
        trace_stream_write(ps->pub.stream);
    pthread_mutex_unlock(&ps->write_lock);
}

void trace_session_stats(jp_session *s, trace_stream_stats *out)
{
    tss_part *ps = tss_of(s);
    if (!ps || !ps->made)
        return;
    pthread_mutex_lock(&ps->write_lock);
    if (ps->pub.stream)
        trace_stream_stats_get(ps->pub.stream, out);
    pthread_mutex_unlock(&ps->write_lock);
}

void trace_session_thread_end(void)
{
    trace_state *ts = trace_live();
    trace_thread *t = thread_record_self.trace;
    if (!trace_session_owns(ts, t))
        return;
    trace_producer_flush(&t->p);
    atomic_store(&t->ended, true);
}

/* The end: no more events; each thread's last chunk handed over (a thread
 * still inside an emit as tracing stops may leave its last chunk damaged:
 * the reader stops there), the rest written, the stream closed; the hot
 * paths' pointer cleared. What the part points to is freed here; the part
 * itself goes with the session. */
void trace_session_close(jp_session *s, trace_stream_stats *out)
{
    tss_part *ps = tss_of(s);
    if (!ps || !ps->made)
        return;
    trace_state *ts = &ps->pub;
    atomic_store(&ts->on, false);
    trace_state *mine = ts;
    atomic_compare_exchange_strong(&trace_session_live, &mine, NULL); /* the hot paths find none from now on */
    pthread_mutex_lock(&ps->names_lock); /* no more names for it: a late describe finds none */
    ps->stream_locked = NULL;
    pthread_mutex_unlock(&ps->names_lock);
    pthread_mutex_lock(&ps->write_lock);
    pthread_mutex_lock(&ps->vm_lock);
    if (ps->vm_made)
        trace_producer_flush(&ps->vm);
    if (ps->samples_made)
        trace_producer_flush(&ps->samples);
    ps->vm_made = ps->samples_made = false;
    pthread_mutex_unlock(&ps->vm_lock);
    if (ts->stream) {
        for (trace_thread *t = atomic_exchange(&ps->threads, NULL), *next; t; t = next) {
            next = t->next;
            if (!atomic_load(&t->ended))
                trace_producer_flush(&t->p);
            /* a live thread's record still points at it: kept (its session no longer matches) */
            if (atomic_load(&t->ended)) {
                trace_calls *own = t->lent_to ? &t->own : &t->calls;   /* lent calls are their virtual thread's */
                free(own->stack);
                free(own->starts);
                free(t);
            }
        }
        /* retired, not freed: a thread that was inside an emit as tracing stopped may still use it */
        trace_stream *st = ts->stream;
        ts->stream = NULL;
        trace_stream_retire(st, out);
    }
    pthread_mutex_unlock(&ps->write_lock);
    pthread_mutex_lock(&ps->names_lock);
    for (uint32_t i = 0; i < TSS_CLASS_CHUNKS; i++) /* the names go with the arena */
        free(atomic_exchange(&ps->class_names[i], NULL));
    if (ps->names_made) {
        intern_free(&ps->strings);
        intern_free(&ps->classes);
        arena_free(&ps->keys);
        ps->names_made = false;
    }
    /* the next session's (metadata written afresh) */
    memset((void *)tss_jvm.described, 0, BCI_IDS / 64 * sizeof *tss_jvm.described);
    pthread_mutex_unlock(&ps->names_lock);
}
