/* alloc_floor.c — what exact allocation counting costs the JVM before
 * jvmprof does anything: a minimal JVMTI agent (not jvmprof) that sets the
 * allocation sampler to interval 0 and, in its callback, does
 *   mode 0: nothing (the JVM's slow allocation path and the event alone),
 *   mode 1: takes a 4-frame stack (JVMTI GetStackTrace),
 *   mode 2: takes the stack and tags the object (JVMTI SetTag, ObjectFree on).
 * bench/alloc_floor.sh runs javac with each mode, side by side with no agent
 * and with jvmprof's exact mode; the differences give the cost of each step.
 * Usage: -agentpath:alloc_floor.so=<mode>; prints the allocations seen at exit. */
#include <jvmti.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int floor_mode;
static _Atomic long floor_allocs;

static void JNICALL floor_alloc(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                                jlong size)
{
    (void)jni, (void)thread, (void)klass, (void)size;
    long n = atomic_fetch_add_explicit(&floor_allocs, 1, memory_order_relaxed) + 1;
    if (floor_mode >= 1) {
        jvmtiFrameInfo frames[4];
        jint count = 0;
        (*jv)->GetStackTrace(jv, NULL, 0, 4, frames, &count);
    }
    if (floor_mode >= 2)
        (*jv)->SetTag(jv, object, n);
}

static void JNICALL floor_free(jvmtiEnv *jv, jlong tag) { (void)jv, (void)tag; }

static void JNICALL floor_death(jvmtiEnv *jv, JNIEnv *jni)
{
    (void)jv, (void)jni;
    fprintf(stderr, "alloc_floor: mode %d, %ld allocations seen\n", floor_mode, (long)atomic_load(&floor_allocs));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    floor_mode = options ? atoi(options) : 0;
    jvmtiEnv *jv = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jv, JVMTI_VERSION_11) != JNI_OK)
        return JNI_ERR;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    caps.can_tag_objects = 1;
    caps.can_generate_object_free_events = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.SampledObjectAlloc = floor_alloc;
    cb.ObjectFree = floor_free;
    cb.VMDeath = floor_death;
    if ((*jv)->AddCapabilities(jv, &caps) != JVMTI_ERROR_NONE ||
        (*jv)->SetEventCallbacks(jv, &cb, sizeof cb) != JVMTI_ERROR_NONE ||
        (*jv)->SetHeapSamplingInterval(jv, 0) != JVMTI_ERROR_NONE ||
        (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL) != JVMTI_ERROR_NONE ||
        (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    if (floor_mode >= 2 &&
        (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, NULL) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    return JNI_OK;
}
