/* collectors.c — the list of the agent's collectors (collector.h) and the
 * loops a session's life (session.h) runs over the ones its options turn on. The
 * order of the rows is the order they are called in: at VM init, for each
 * report, and for their lines in the verbose log. */
#include "collectors.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../common/jp_log.h"

#ifdef JP_TEST_COLLECTORS
extern const collector thread_count_collector; /* tests/collectors/collect_thread_count.c */
#endif

static const collector *const collectors_all[] = {
    &cpu_async_collector,
    &wall_collector,
    &sampled_vthreads_collector,
    &cpu_jvmti_collector,
    &monitor_collector,
    &alloc_sampled_collector,
    &alloc_exact_collector,
    &alloc_counts_collector,
    &heap_dump_collector,
    &times_collector,
    &trace_collector,
    &trigger_collector,
#ifdef JP_TEST_COLLECTORS
    &thread_count_collector,
#endif
};

#define COLLECTORS_MAX (sizeof collectors_all / sizeof collectors_all[0])

/* The collectors the current session chose (collectors_choose), in the list's order: global with
 * collectors_session below, for the callbacks that reach them */
static const collector *collectors_on[COLLECTORS_MAX];
static size_t collectors_n;
/* The session whose collectors are chosen (collectors_choose to collectors_end): global because the
 * JVMTI callbacks that reach the collectors (thread start and end, virtual threads) have no other way
 * to it; the loops below hand it to every hook. */
static jp_session *_Atomic collectors_session;
/* Between collectors_admit_threads and collectors_end: only then do the threads'
 * own callbacks (ThreadStart, ThreadEnd: on from the first attach for the
 * JVM's life) reach the collectors. A thread starting while a session is
 * being prepared must not arm a sampler whose signal handler is not yet
 * installed (a JVM just started starts many threads). */
static atomic_bool collectors_started;

#define COLLECTORS_EACH(c) \
    for (size_t collectors_i_ = 0; collectors_i_ < collectors_n; collectors_i_++) \
        for (const collector *c = collectors_on[collectors_i_]; c; c = NULL)

void collectors_choose(jp_session *s)
{
    atomic_store(&collectors_started, false);
    collectors_n = 0;
    for (size_t i = 0; i < COLLECTORS_MAX; i++)
        if (collectors_all[i]->wanted(s->opts))
            collectors_on[collectors_n++] = collectors_all[i];
    atomic_store(&collectors_session, s);
}

#define COLLECTORS_S atomic_load_explicit(&collectors_session, memory_order_relaxed)

jp_status collectors_capabilities(jvmtiCapabilities *caps)
{
    COLLECTORS_EACH(c) {
        if (c->capabilities) {
            jp_status st = c->capabilities(COLLECTORS_S, caps);
            if (st != JP_OK)
                return st;
        }
    }
    return JP_OK;
}

void collectors_callbacks(jvmtiEventCallbacks *cb)
{
    COLLECTORS_EACH(c) {
        if (c->callbacks)
            c->callbacks(cb);
    }
}

jp_status collectors_load(char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    COLLECTORS_EACH(c) {
        if (c->load) {
            jp_status st = c->load(COLLECTORS_S, err, errlen);
            if (st != JP_OK)
                return st;
        }
    }
    return JP_OK;
}

const collector *collectors_at_load_only(const agent_options *o)
{
    for (size_t i = 0; i < COLLECTORS_MAX; i++)
        if (collectors_all[i]->at_load_only && collectors_all[i]->wanted(o))
            return collectors_all[i];
    return NULL;
}

void collectors_admit_threads(void)
{
    atomic_store(&collectors_started, true);
}

void collectors_start(JNIEnv *jni)
{
    COLLECTORS_EACH(c) {
        if (c->start && c->start(COLLECTORS_S, jni) != JP_OK)
            jp_log_error("%s disabled: %s could not start", c->name, c->engine ? c->engine : "it");
    }
}

void collectors_thread_start(JNIEnv *jni, uint32_t serial)
{
    if (!atomic_load(&collectors_started))
        return;
    COLLECTORS_EACH(c) {
        if (c->thread_start)
            c->thread_start(COLLECTORS_S, jni, serial);
    }
}

void collectors_thread_end(JNIEnv *jni)
{
    if (!atomic_load(&collectors_started))
        return;
    COLLECTORS_EACH(c) {
        if (c->thread_end)
            c->thread_end(COLLECTORS_S, jni);
    }
}

bool collectors_want_vthreads(void)
{
    COLLECTORS_EACH(c) {
        if (c->vthread_start || c->vthread_mount || c->vthread_unmount || c->vthread_end)
            return true;
    }
    return false;
}

#define COLLECTORS_VTHREAD_HOOK(hook) \
    void collectors_##hook(JNIEnv *jni, struct vthread *v) \
    { \
        if (!atomic_load_explicit(&collectors_started, memory_order_relaxed)) \
            return; \
        jp_session *s = COLLECTORS_S; \
        COLLECTORS_EACH(c) { \
            if (c->hook) \
                c->hook(s, jni, v); \
        } \
    }
COLLECTORS_VTHREAD_HOOK(vthread_start)
COLLECTORS_VTHREAD_HOOK(vthread_mount)
COLLECTORS_VTHREAD_HOOK(vthread_unmount)
COLLECTORS_VTHREAD_HOOK(vthread_end)

unsigned collectors_period_ms(void)
{
    unsigned period = 0;
    COLLECTORS_EACH(c) {
        unsigned p = c->period_ms ? c->period_ms(COLLECTORS_S) : 0;
        if (p && (!period || p < period))
            period = p;
    }
    return period ? period : 100;
}

void collectors_tick(JNIEnv *jni)
{
    COLLECTORS_EACH(c) {
        if (c->tick)
            c->tick(COLLECTORS_S, jni);
    }
}

void collectors_poll(JNIEnv *jni)
{
    COLLECTORS_EACH(c) {
        if (c->poll)
            c->poll(COLLECTORS_S, jni);
    }
}

void collectors_drain(JNIEnv *jni)
{
    COLLECTORS_EACH(c) {
        if (c->drain)
            c->drain(COLLECTORS_S, jni);
    }
}

void collectors_before_report(JNIEnv *jni)
{
    COLLECTORS_EACH(c) {
        if (c->before_report)
            c->before_report(COLLECTORS_S, jni);
    }
}

jp_status collectors_report(JNIEnv *jni, struct jp_report *r)
{
    jp_status st = JP_OK;
    COLLECTORS_EACH(c) {
        jp_status cst = c->report ? c->report(COLLECTORS_S, jni, r) : JP_OK;
        if (st == JP_OK)
            st = cst;
    }
    return st;
}

bool collectors_dump_sites(JNIEnv *jni, struct heap_dump_sites *out)
{
    bool any = false;
    COLLECTORS_EACH(c) {
        if (c->dump_sites) {
            c->dump_sites(COLLECTORS_S, jni, out);
            any = true;
        }
    }
    return any;
}

void collectors_describe(void)
{
    COLLECTORS_EACH(c) {
        if (c->describe)
            c->describe(COLLECTORS_S);
    }
}

void collectors_cost(char *out, size_t len)
{
    size_t used = 0;
    if (len)
        out[0] = '\0';
    COLLECTORS_EACH(c) {
        char part[128] = "";
        if (c->cost)
            c->cost(COLLECTORS_S, part, sizeof part);
        if (part[0] && used < len) {
            int n = snprintf(out + used, len - used, "; %s", part);
            used += n > 0 ? (size_t)n : 0;
        }
    }
}

void collectors_interval_reset(void)
{
    COLLECTORS_EACH(c) {
        if (c->interval_reset)
            c->interval_reset(COLLECTORS_S);
    }
}

void collectors_stop(JNIEnv *jni, bool sources)
{
    COLLECTORS_EACH(c) {
        if (c->stop && (c->drain != NULL) == sources)
            c->stop(COLLECTORS_S, jni);
    }
}

void collectors_end(JNIEnv *jni)
{
    atomic_store(&collectors_started, false);
    COLLECTORS_EACH(c) {
        if (c->end)
            c->end(COLLECTORS_S, jni);
    }
    collectors_n = 0;
    atomic_store(&collectors_session, NULL);
}

void collectors_unload(void)
{
    for (size_t i = 0; i < COLLECTORS_MAX; i++) /* every one: a session that ran before may have left a handler */
        if (collectors_all[i]->unload)
            collectors_all[i]->unload();
}
