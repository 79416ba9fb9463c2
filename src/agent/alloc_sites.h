/* alloc_sites.h — heap=sites: allocation sites from JVMTI's allocation
 * sampling (SampledObjectAlloc, one allocation every alloc_interval bytes on
 * average), with each sampled object tagged so that its ObjectFree moves
 * its estimate from live to dead, and the count and time of garbage
 * collections. The callbacks run on the program's threads (allocation) and
 * in JVMTI's restricted modes (ObjectFree, GC start/finish: preallocated
 * memory and atomics only); the agent thread aggregates into the model. */
#ifndef ALLOC_SITES_H
#define ALLOC_SITES_H

#include <jni.h>
#include <jvmti.h>

#include "../common/jp_error.h"
#include "../model/model.h"
#include "eventq.h"

/* Agent_OnLoad: the capabilities heap=sites needs (alloc_hook=bci: the
 * ones to retransform classes and see the JVM's own allocations instead of
 * the sampler). */
void alloc_sites_capabilities(jvmtiCapabilities *caps);
/* Agent_OnLoad: sets the sampling interval (the JVM's threads draw their
 * first sampling point from it; set at VMInit it would come after the main
 * thread had drawn one from the default 512 KiB). */
jp_status alloc_sites_set_interval(void);
/* VMInit: enables the events. */
jp_status alloc_sites_vm_init(JNIEnv *jni);
/* VM death: disables the events. */
void alloc_sites_stop(void);

/* Garbage collections finished so far. */
uint64_t alloc_sites_gc_count(void);

/* Callbacks. */
void alloc_sites_sampled(JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size);
void alloc_sites_object_free(jlong tag);
void alloc_sites_gc_start(void);
void alloc_sites_gc_finish(void);

/* True when the captured stack passes through jvmprof's own Java code
 * (jvmprof.Control, its natives, and what they call): what it allocates is
 * never counted. */
bool alloc_sites_own_code(JNIEnv *jni, const jvmtiFrameInfo *frames, jint n);

/* Agent thread: the site of an allocation of the class with JVM signature
 * sig (NULL: unknown) at trace. */
site_id alloc_sites_site_of(model *m, trace_id trace, const char *sig);

/* Agent thread: one sampled allocation (its stack already a trace). */
void alloc_sites_record(model *m, trace_id trace, const eventq_event *e);
/* Agent thread: applies the frees reported since the last call, and copies
 * the GC counters into the model. */
void alloc_sites_drain(model *m);
/* The verbose line: samples, frees, what was dropped. */
void alloc_sites_describe(char *out, size_t len);

#endif
