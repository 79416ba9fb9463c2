/* alloc_common.h — what the two allocation collectors share (heap=sites:
 * collect_alloc_sampled.c samples, collect_alloc_exact.c counts every allocation): the count
 * and time of garbage collections (the GC callbacks run in JVMTI's restricted
 * mode: atomics only), the capabilities and events both need, the model's
 * allocation settings, telling jvmprof's own allocations apart, and an
 * allocation's site in the model. */
#ifndef ALLOC_COMMON_H
#define ALLOC_COMMON_H

#include <jni.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"
#include "../core/session_ctx.h"

/* A session's garbage collections, in the part of the collector that runs
 * (zeroed with it): written by the GC callbacks, read with atomics. */
typedef struct alloc_gc {
    _Atomic uint64_t count, ns, started;
    void (*on_finish)(void); /* NULL, or run after each collection is counted, in the restricted mode
                              * (atomics, no locks beyond a condition broadcast) */
} alloc_gc;

/* Capabilities: tags, ObjectFree and the GC events. */
void alloc_common_capabilities(jvmtiCapabilities *caps);
/* The GC start/finish callbacks. */
void alloc_common_callbacks(jvmtiEventCallbacks *cb);
/* Agent_OnLoad: JVMTI's allocation sampler's mean interval in bytes. */
jp_status alloc_common_set_interval(uint64_t bytes);
/* The session's start: the model's allocation settings from its options. */
void alloc_common_model(jp_session *s);
/* The session's start: g counts the collections from now on; ObjectFree and the GC events on. */
jp_status alloc_common_events_on(alloc_gc *g);
/* The session's stop: the GC events off (ObjectFree stays on: the last frees
 * still reach their records); the collections are counted no more. */
void alloc_common_events_off(void);
/* Garbage collections finished so far. */
static inline uint64_t alloc_common_gc_count(const alloc_gc *g)
{
    return atomic_load_explicit(&g->count, memory_order_relaxed);
}
/* Agent thread: the GC counters into the model (and, with lifetimes=y, a
 * collection seen: each site notes its floor). */
void alloc_common_drain(model *m, const alloc_gc *g);
/* True when the captured stack passes through jvmprof's own Java code
 * (jvmprof.Control, its natives, and what they call): what it allocates is
 * never counted. */
bool alloc_common_own_code(JNIEnv *jni, const jvmtiFrameInfo *frames, jint n);
/* Agent thread: the site of an allocation of the class with JVM signature
 * sig (NULL: unknown) at trace. */
site_id alloc_common_site_of(model *m, trace_id trace, const char *sig);

#endif
