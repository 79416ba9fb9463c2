/* trace_session.c — see trace_session.h. Metadata is written under
 * tss_names_lock before the chunk that names it is handed over: a method's
 * bit in trace_session_described is set (release) after its metadata, and a
 * thread that sees it (acquire) hands its chunk over after that. */
#include "trace_session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/arena.h"
#include "../../common/intern.h"
#include "../../trace/trace_file.h"
#include "../../options/options.h"
#include "../core/agent_env.h"
#include "../instrument/bci.h"
#include "../core/thread_registry.h"

#define TS_CHUNK_BYTES (64u * 1024u)

trace_stream *trace_session_stream;
uint32_t trace_session_gen;
atomic_bool trace_session_on;
unsigned trace_session_what;
uint64_t trace_session_t0;
uint64_t trace_session_mult;
_Atomic uint64_t *trace_session_described;

static _Atomic(trace_thread *) tss_threads;
static pthread_mutex_t tss_write_lock = PTHREAD_MUTEX_INITIALIZER; /* the writer: the agent thread's writes, the end */
/* Events of no Java thread (collections, deaths: trace_vm_events.c), on the
 * chunks of thread 0, under tss_vm_lock; never held across a JVMTI or JNI
 * call, since a collection's callback takes it with the world stopped. */
static pthread_mutex_t tss_vm_lock = PTHREAD_MUTEX_INITIALIZER;
static trace_producer tss_vm;
static bool tss_vm_made;
/* cpu=samples' samples, in time order, on chunks of their own (TRACE_SAMPLES_THREAD), also under tss_vm_lock */
static trace_producer tss_samples;
static bool tss_samples_made;
/* Names written once: strings and classes interned under tss_names_lock (a
 * method's first call only; intern ids are the file's), methods marked in a
 * bitmap by id. */
static pthread_mutex_t tss_names_lock = PTHREAD_MUTEX_INITIALIZER;
static arena tss_keys;
static intern_table tss_strings, tss_classes; /* by text / by class name */
static bool tss_names_made;
static trace_stream *tss_stream_locked;     /* the session's stream, read and set under tss_names_lock */
/* class id -> its name (the intern table's key, which never moves), for
 * readers without the lock (trace_session_class_name): chunks made as ids come */
#define TSS_CLASS_CHUNK 4096u
#define TSS_CLASS_CHUNKS 1024u
typedef struct tss_class_name { const char *p; uint32_t n; } tss_class_name;
static _Atomic(tss_class_name *) tss_class_names[TSS_CLASS_CHUNKS];

trace_consumer_fn trace_session_consumer;


static void tss_names_init(void)
{
    if (tss_names_made)
        return;
    arena_init(&tss_keys);
    intern_init(&tss_strings, &tss_keys);
    intern_init(&tss_classes, &tss_keys);
    tss_names_made = true;
}

/* The id of a string (n bytes), written as metadata the first time; 0 if out of memory. */
static uint32_t tss_string(const char *s, size_t n)
{
    if (!tss_stream_locked)
        return 0; /* the session has ended */
    tss_names_init();
    bool added = false;
    uint32_t id = intern_put(&tss_strings, s, (uint32_t)n, &added);
    if (added)
        trace_stream_meta(tss_stream_locked, TRACE_EV_STRING, (uint64_t[]){ id }, s, n);
    return id;
}

/* The id of a class by its name in internal form (n bytes), written the
 * first time. Call with tss_names_lock held. Two loaders' classes of one name
 * share an id. */
static uint32_t tss_class_locked(const char *internal, size_t n)
{
    if (!tss_stream_locked)
        return 0;
    tss_names_init();
    uint32_t id = intern_find(&tss_classes, internal, (uint32_t)n);
    if (id)
        return id;
    uint32_t name = tss_string(internal, n);
    bool added = false;
    id = intern_put(&tss_classes, internal, (uint32_t)n, &added);
    if (added) {
        trace_stream_meta(tss_stream_locked, TRACE_EV_CLASS, (uint64_t[]){ id, name }, NULL, 0);
        tss_class_name *chunk = id / TSS_CLASS_CHUNK < TSS_CLASS_CHUNKS ? atomic_load(&tss_class_names[id / TSS_CLASS_CHUNK])
                                                                         : NULL;
        if (!chunk && id / TSS_CLASS_CHUNK < TSS_CLASS_CHUNKS) {
            chunk = calloc(TSS_CLASS_CHUNK, sizeof *chunk);
            if (chunk)
                atomic_store_explicit(&tss_class_names[id / TSS_CLASS_CHUNK], chunk, memory_order_release);
        }
        if (chunk) {
            uint32_t len;
            const char *key = intern_key(&tss_classes, id, &len);
            chunk[id % TSS_CLASS_CHUNK].n = len;
            atomic_store_explicit((_Atomic(const char *) *)&chunk[id % TSS_CLASS_CHUNK].p, key, memory_order_release);
        }
    }
    return id;
}

/* ... of a class the rewriter saw (its record's name is dotted) */
static uint32_t tss_class(const bci_class *c)
{
    if (!c)
        return 0;
    char internal[1024];
    size_t n = strlen(c->name) < sizeof internal ? strlen(c->name) : sizeof internal - 1;
    for (size_t i = 0; i < n; i++)
        internal[i] = c->name[i] == '.' ? '/' : c->name[i];
    return tss_class_locked(internal, n);
}

bool trace_session_class_name(uint32_t id, const char **p, size_t *n)
{
    tss_class_name *chunk = id / TSS_CLASS_CHUNK < TSS_CLASS_CHUNKS
                                ? atomic_load_explicit(&tss_class_names[id / TSS_CLASS_CHUNK], memory_order_acquire)
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
    bool ok = false;
    pthread_mutex_lock(&tss_names_lock);
    if (tss_names_made && id && id <= intern_count(&tss_strings)) {
        uint32_t len;
        const char *key = intern_key(&tss_strings, id, &len);
        *n = len < cap ? len : cap;
        memcpy(out, key, *n);
        ok = true;
    }
    pthread_mutex_unlock(&tss_names_lock);
    return ok;
}

uint32_t trace_class_id(const char *internal, size_t n)
{
    if (!trace_session_stream)
        return 0;
    pthread_mutex_lock(&tss_names_lock);
    uint32_t id = tss_class_locked(internal, n);
    pthread_mutex_unlock(&tss_names_lock);
    return id;
}

uint32_t trace_string_id(const char *s, size_t n)
{
    if (!trace_session_stream)
        return 0;
    pthread_mutex_lock(&tss_names_lock);
    uint32_t id = tss_string(s, n);
    pthread_mutex_unlock(&tss_names_lock);
    return id;
}

void trace_meta(unsigned type, const uint64_t *fields)
{
    trace_stream *st = trace_session_stream; /* an ended session's stays allocated (retired) */
    if (!st)
        return;
    if (type == TRACE_EV_GC) /* what a collection was: its consumers hear it too */
        trace_session_tap(0, type, trace_session_now(), fields, NULL, 0);
    trace_stream_meta(st, type, fields, NULL, 0);
}

/* The method's metadata, once (two threads may race to write it twice; a reader keeps either). */
void trace_session_describe(uint32_t id, bool receivers)
{
    const bci_method *m = bci_method_get(id);
    if (!m || !trace_session_described)
        return;
    pthread_mutex_lock(&tss_names_lock);
    if (!tss_stream_locked) { /* the session has ended */
        pthread_mutex_unlock(&tss_names_lock);
        return;
    }
    uint64_t flags = (m->access & 0x0008 ? TRACE_METHOD_STATIC : 0) | (m->access & 0x0100 ? TRACE_METHOD_NATIVE : 0) |
                     (m->access & 0x0020 ? TRACE_METHOD_SYNCHRONIZED : 0) |
                     (receivers && !(m->access & 0x0008) && strcmp(m->name, "<init>") != 0 ? TRACE_METHOD_RECEIVER
                                                                                             : 0);
    uint64_t cls = tss_class(m->cls);
    uint64_t name = tss_string(m->name, strlen(m->name)), sig = tss_string(m->sig, strlen(m->sig));
    trace_stream_meta(tss_stream_locked, TRACE_EV_METHOD, (uint64_t[]){ id, cls, name, sig, flags }, NULL, 0);
    pthread_mutex_unlock(&tss_names_lock);
    /* after the metadata: a thread that sees the bit (acquire) hands its chunk over after it */
    atomic_fetch_or_explicit(&trace_session_described[id / 64], 1ull << (id % 64), memory_order_release);
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
trace_thread *trace_session_self_slow(JNIEnv *jni)
{
    trace_thread *t = thread_record_self.trace;
    if (t && t->gen == trace_session_gen && trace_session_stream)
        return t;
    /* a thread past its thread-end (the JVM still runs some of its code: the join's notify) is not
     * named again: its group is gone by then, and its events would follow its end */
    if (thread_record_self.ended)
        return NULL;
    uint32_t serial = thread_registry_serial(NULL);
    trace_stream *st = trace_session_stream; /* an ended session's stays allocated (retired) */
    if (!serial || !st)
        return NULL;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    trace_producer_init(&t->p, st, serial);
    t->gen = trace_session_gen;
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
        pthread_mutex_lock(&tss_names_lock);
        uint32_t name = info.name ? tss_string(info.name, strlen(info.name)) : 0;
        uint32_t gname = group.name ? tss_string(group.name, strlen(group.name)) : 0;
        if (tss_stream_locked)
            trace_stream_meta(tss_stream_locked, TRACE_EV_THREAD,
                          (uint64_t[]){ serial, name, gname, (uint64_t)(info.priority > 0 ? info.priority : 0),
                                        info.is_daemon ? TRACE_THREAD_DAEMON : 0 }, NULL, 0);
        pthread_mutex_unlock(&tss_names_lock);
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
    trace_thread *head = atomic_load(&tss_threads);
    do
        t->next = head;
    while (!atomic_compare_exchange_weak(&tss_threads, &head, t));
    thread_record_self.trace = t;
    return t;
}

bool trace_wants(unsigned what)
{
    return atomic_load_explicit(&trace_session_on, memory_order_acquire) && (trace_session_what & what);
}

uint64_t trace_now_ns(void) { return trace_session_now(); }

bool trace_thread_followed(JNIEnv *jni)
{
    return atomic_load_explicit(&trace_session_on, memory_order_relaxed) && trace_session_self(jni);
}

bool trace_thread_event(JNIEnv *jni, unsigned type, const uint64_t *fields)
{
    trace_thread *t = atomic_load_explicit(&trace_session_on, memory_order_relaxed) ? trace_session_self(jni) : NULL;
    if (!t)
        return false;
    uint64_t now = trace_session_now();
    trace_session_tap(trace_thread_id(t), type, now, fields, NULL, 0);
    return trace_emit(&t->p, type, now, fields, NULL, 0);
}

bool trace_vm_event(unsigned type, const uint64_t *fields)
{
    bool ok = false;
    pthread_mutex_lock(&tss_vm_lock);
    /* the time taken under the lock: thread 0's events come from several threads, and a chunk's times only grow */
    uint64_t time_ns = trace_session_now();
    if (atomic_load_explicit(&trace_session_on, memory_order_acquire) && trace_session_stream) {
        if (!tss_vm_made) {
            memset(&tss_vm, 0, sizeof tss_vm);
            trace_producer_init(&tss_vm, trace_session_stream, 0);
            tss_vm_made = true;
        }
        ok = trace_emit(&tss_vm, type, time_ns, fields, NULL, 0);
    }
    pthread_mutex_unlock(&tss_vm_lock);
    if (atomic_load_explicit(&trace_session_on, memory_order_acquire))
        trace_session_tap(0, type, time_ns, fields, NULL, 0);
    return ok;
}

bool trace_samples_wanted(void) { return atomic_load_explicit(&trace_session_on, memory_order_acquire) && trace_session_stream; }

void trace_sample(uint32_t thread, uint64_t ticks, const char *stack, size_t n)
{
    uint64_t stack_str = trace_string_id(stack, n);
    uint64_t at = trace_session_ns(ticks);
    if (stack_str && atomic_load_explicit(&trace_session_on, memory_order_acquire))
        trace_session_tap(thread, TRACE_EV_SAMPLE, at, (uint64_t[]){ thread, stack_str }, stack, n);
    pthread_mutex_lock(&tss_vm_lock);
    if (stack_str && atomic_load_explicit(&trace_session_on, memory_order_acquire) && trace_session_stream) {
        if (!tss_samples_made) {
            memset(&tss_samples, 0, sizeof tss_samples);
            trace_producer_init(&tss_samples, trace_session_stream, TRACE_SAMPLES_THREAD);
            tss_samples_made = true;
        }
        trace_emit(&tss_samples, TRACE_EV_SAMPLE, at, (uint64_t[]){ thread, stack_str }, NULL, 0);
    }
    pthread_mutex_unlock(&tss_vm_lock);
}


/* ---- the session's life ---- */

jp_status trace_session_open(int fd, uint64_t limit, unsigned what)
{
    if (!trace_session_described)
        trace_session_described = calloc(BCI_IDS / 64, sizeof *trace_session_described);
    if (!trace_session_described)
        return JP_ERR_NOMEM;
    trace_stream *st = trace_stream_open(fd, limit, agent_wall_ms() * 1000000ull, TS_CHUNK_BYTES);
    if (!st)
        return JP_ERR_IO;
    pthread_mutex_lock(&tss_names_lock);
    tss_stream_locked = trace_session_stream = st;
    pthread_mutex_unlock(&tss_names_lock);
    trace_session_what = what;
    trace_session_gen++;
    trace_session_t0 = ticks_now();
    return JP_OK;
}

void trace_session_start(void)
{
    /* the clock's rate, measured from the agent's load to now (VM init, for the session given at load) */
    trace_session_mult = (uint64_t)(ticks_ns_per_tick_settled(10000000u) * (double)(1u << 24) + 0.5);
    atomic_store(&trace_session_on, true);
}

void trace_session_write(void)
{
    pthread_mutex_lock(&tss_write_lock);
    if (trace_session_stream)
        trace_stream_write(trace_session_stream);
    pthread_mutex_unlock(&tss_write_lock);
}

void trace_session_stats(trace_stream_stats *out)
{
    pthread_mutex_lock(&tss_write_lock);
    if (trace_session_stream)
        trace_stream_stats_get(trace_session_stream, out);
    pthread_mutex_unlock(&tss_write_lock);
}

void trace_session_thread_end(void)
{
    trace_thread *t = thread_record_self.trace;
    if (!t || t->gen != trace_session_gen || !trace_session_stream)
        return;
    trace_producer_flush(&t->p);
    atomic_store(&t->ended, true);
}

/* The end: no more events; each thread's last chunk handed over (a thread
 * still inside an emit as tracing stops may leave its last chunk damaged:
 * the reader stops there), the rest written, the stream closed. */
void trace_session_close(trace_stream_stats *out)
{
    atomic_store(&trace_session_on, false);
    pthread_mutex_lock(&tss_names_lock); /* no more names for it: a late describe finds none */
    tss_stream_locked = NULL;
    pthread_mutex_unlock(&tss_names_lock);
    pthread_mutex_lock(&tss_write_lock);
    pthread_mutex_lock(&tss_vm_lock);
    if (tss_vm_made)
        trace_producer_flush(&tss_vm);
    if (tss_samples_made)
        trace_producer_flush(&tss_samples);
    tss_vm_made = tss_samples_made = false;
    pthread_mutex_unlock(&tss_vm_lock);
    if (trace_session_stream) {
        for (trace_thread *t = atomic_exchange(&tss_threads, NULL), *next; t; t = next) {
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
        trace_stream *st = trace_session_stream;
        trace_session_stream = NULL;
        trace_stream_retire(st, out);
    }
    pthread_mutex_unlock(&tss_write_lock);
    pthread_mutex_lock(&tss_names_lock); /* a later session names everything afresh */
    for (uint32_t i = 0; i < TSS_CLASS_CHUNKS; i++) { /* the names go with the arena: forgotten first */
        tss_class_name *chunk = atomic_load(&tss_class_names[i]);
        if (chunk)
            memset(chunk, 0, TSS_CLASS_CHUNK * sizeof *chunk);
    }
    if (tss_names_made) {
        intern_free(&tss_strings);
        intern_free(&tss_classes);
        arena_free(&tss_keys);
        tss_names_made = false;
    }
    if (trace_session_described)
        memset((void *)trace_session_described, 0, BCI_IDS / 64 * sizeof *trace_session_described);
    pthread_mutex_unlock(&tss_names_lock);
}
