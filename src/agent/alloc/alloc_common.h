/* alloc_common.h — what the two allocation collectors share (heap=sites:
 * collect_alloc_sampled.c samples, collect_alloc_exact.c counts every allocation): the count
 * and time of garbage collections (the GC callbacks run in JVMTI's restricted
 * mode: atomics only), the capabilities and events both need, telling
 * jvmprof's own allocations apart, and an allocation's site in the model. */
#ifndef ALLOC_COMMON_H
#define ALLOC_COMMON_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"

/* Capabilities: tags, ObjectFree and the GC events. */
void alloc_common_capabilities(jvmtiCapabilities *caps);
/* The GC start/finish callbacks; on_gc_finish (may be NULL) runs after each
 * collection is counted, in the restricted mode (atomics, no locks beyond a
 * condition broadcast). */
void alloc_common_callbacks(jvmtiEventCallbacks *cb, void (*on_gc_finish)(void));
/* Agent_OnLoad: JVMTI's allocation sampler's mean interval in bytes. */
jp_status alloc_common_set_interval(uint64_t bytes);
/* VM init / death: ObjectFree and the GC events on and off. */
jp_status alloc_common_events(bool on);
/* After a session (its GC events off): the collections counted so far are forgotten. */
void alloc_common_reset(void);
/* Garbage collections finished so far. */
uint64_t alloc_common_gc_count(void);
/* Agent thread: the GC counters into the model (and, with lifetimes=y, a
 * collection seen: each site notes its floor). */
void alloc_common_drain(model *m);
/* True when the captured stack passes through jvmprof's own Java code
 * (jvmprof.Control, its natives, and what they call): what it allocates is
 * never counted. */
bool alloc_common_own_code(JNIEnv *jni, const jvmtiFrameInfo *frames, jint n);
/* Agent thread: the site of an allocation of the class with JVM signature
 * sig (NULL: unknown) at trace. */
site_id alloc_common_site_of(model *m, trace_id trace, const char *sig);

#endif
