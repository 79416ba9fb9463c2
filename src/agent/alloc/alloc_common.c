/* alloc_common.c — see alloc_common.h. */
#include "alloc_common.h"

#include <stdatomic.h>
#include <string.h>

#include "../../model/recording.h"
#include "../core/agent_env.h"
#include "../core/jvmti_util.h"
#include "../core/symbols.h"

/* The running session's GC counters (its collector's part), for the GC
 * callbacks, which get no session: set as its events go on, cleared as they
 * go off. The callbacks pass no gate (restricted mode): one acquire load. */
static alloc_gc *_Atomic ac_gc;

void alloc_common_capabilities(jvmtiCapabilities *caps)
{
    caps->can_tag_objects = 1;
    caps->can_generate_object_free_events = 1;
    caps->can_generate_garbage_collection_events = 1;
}

/* The GC callbacks run in a restricted mode, while the world is stopped: atomics only, no gate. */
static void JNICALL ac_cb_gc_start(jvmtiEnv *jv)
{
    (void)jv;
    alloc_gc *g = atomic_load_explicit(&ac_gc, memory_order_acquire);
    if (g)
        atomic_store_explicit(&g->started, agent_now_ns(), memory_order_relaxed);
}

static void JNICALL ac_cb_gc_finish(jvmtiEnv *jv)
{
    (void)jv;
    alloc_gc *g = atomic_load_explicit(&ac_gc, memory_order_acquire);
    if (!g)
        return;
    uint64_t t0 = atomic_load_explicit(&g->started, memory_order_relaxed);
    atomic_fetch_add_explicit(&g->count, 1, memory_order_relaxed);
    if (t0)
        atomic_fetch_add_explicit(&g->ns, agent_now_ns() - t0, memory_order_relaxed);
    if (g->on_finish)
        g->on_finish();
}

void alloc_common_callbacks(jvmtiEventCallbacks *cb)
{
    cb->GarbageCollectionStart = ac_cb_gc_start;
    cb->GarbageCollectionFinish = ac_cb_gc_finish;
}

jp_status alloc_common_set_interval(uint64_t bytes)
{
    return jvmti_check((*agent_jvmti)->SetHeapSamplingInterval(agent_jvmti,
                                                               (jint)(bytes > INT32_MAX ? INT32_MAX : bytes)),
                       "SetHeapSamplingInterval");
}

void alloc_common_model(jp_session *s)
{
    const agent_options *o = s->opts;
    model *m = s->model;
    m->alloc_interval = o->alloc_interval;
    m->sites_exact = o->alloc_interval == 0;
    /* exact mode's nursery (the sampler's hook) says which live objects no collection has seen */
    m->sites_young = m->sites_exact && o->alloc_hook != 'b';
    m->lifetimes = o->lifetimes;
}

jp_status alloc_common_events_on(alloc_gc *g)
{
    atomic_store_explicit(&ac_gc, g, memory_order_release);
    jp_status st = jvmti_event(JVMTI_EVENT_OBJECT_FREE, true);
    if (st == JP_OK)
        st = jvmti_event(JVMTI_EVENT_GARBAGE_COLLECTION_START, true);
    if (st == JP_OK)
        st = jvmti_event(JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, true);
    return st;
}

void alloc_common_events_off(void)
{
    jvmti_event(JVMTI_EVENT_GARBAGE_COLLECTION_START, false);
    jvmti_event(JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, false);
    atomic_store_explicit(&ac_gc, NULL, memory_order_release);
}

void alloc_common_drain(model *m, const alloc_gc *g)
{
    /* a collection seen: each site notes its floor since the previous one
     * (model_sites_gc: the frees come late, from the JVM's service thread) */
    uint64_t gcs = alloc_common_gc_count(g);
    if (m->lifetimes && gcs != m->gc_count)
        model_sites_gc(m);
    uint64_t ns = atomic_load_explicit(&g->ns, memory_order_relaxed);
    if (m->recording && gcs > m->gc_count) { /* record=y: the collections since the last drain, at its time */
        recording_event r = { agent_wall_ns_of(agent_now_ns()), ns > m->gc_ns ? ns - m->gc_ns : 0, 0, 0, 0,
                              gcs - m->gc_count > UINT16_MAX ? UINT16_MAX : (uint16_t)(gcs - m->gc_count),
                              RECORDING_GC, 0 };
        recording_add(m->recording, &r);
    }
    m->gc_count = gcs;
    m->gc_ns = ns;
}

bool alloc_common_own_code(JNIEnv *jni, const jvmtiFrameInfo *frames, jint n)
{
    jvmtiEnv *jv = agent_jvmti;
    for (jint i = 0; i < n; i++) {
        jclass decl = NULL;
        char *sig = NULL;
        if ((*jv)->GetMethodDeclaringClass(jv, frames[i].method, &decl) != JVMTI_ERROR_NONE || !decl)
            continue;
        bool own = (*jv)->GetClassSignature(jv, decl, &sig, NULL) == JVMTI_ERROR_NONE && sig &&
                   strncmp(sig, "Ljvmprof/", 9) == 0;
        jvmti_free(sig);
        (*jni)->DeleteLocalRef(jni, decl);
        if (own)
            return true;
    }
    return false;
}

site_id alloc_common_site_of(model *m, trace_id trace, const char *sig)
{
    char cname[1024];
    symbols_class_name(sig ? sig : "?", cname, sizeof cname);
    class_id cls = model_class_intern(m, model_cstring(m, cname), (str_id){ 0 });
    return model_site_intern(m, trace, cls, sig && sig[0] == '[');
}
