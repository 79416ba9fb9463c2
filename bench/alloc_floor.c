/* alloc_floor.c — what exact allocation counting costs the JVM before
 * jvmprof does anything: a minimal JVMTI agent (not jvmprof) that sets the
 * allocation sampler to interval 0 and, in its callback, does
 *   mode 0: nothing (the JVM's slow allocation path and the event alone),
 *   mode 1: takes a 4-frame stack (JVMTI GetStackTrace),
 *   mode 2: takes the stack and tags the object (JVMTI SetTag, ObjectFree on),
 *   mode 3: takes the stack and follows the object by JNI weak reference in
 *           a per-thread nursery, swept at the thread's first allocation
 *           after a collection: the dead are forgotten, the live tagged
 *           (what jvmprof's exact mode does since the nursery),
 *   mode 4: calls HotSpot's AsyncGetCallTrace for a 4-frame stack and, where
 *           it gives one, GetStackTrace too, timing both; prints the mean
 *           time of each over those calls at exit (a measurement, not a
 *           floor: the cheapest stack walk HotSpot has),
 *   mode 5: takes a 5-frame stack and counts the allocations made in the
 *           same method, called from the same callers, as the thread's
 *           previous one: about what a cache of stacks per method
 *           invocation could save (it would still need a walk for the rest).
 * bench/alloc_floor.sh runs javac with each mode, side by side with no agent
 * and with jvmprof's exact mode; the differences give the cost of each step.
 * Usage: -agentpath:alloc_floor.so=<mode>; prints the allocations seen at exit. */
#include <dlfcn.h>
#include <jvmti.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int floor_mode;
static _Atomic long floor_allocs, floor_gcs, floor_young_died, floor_young_tagged;

/* mode 3: this thread's nursery */
typedef struct floor_young {
    jweak ref;
    jlong tag;
} floor_young;
static __thread floor_young *young;
static __thread long young_n, young_cap, young_gcs;

static void floor_sweep(jvmtiEnv *jv, JNIEnv *jni)
{
    for (long i = 0; i < young_n; i++) {
        jobject o = (*jni)->NewLocalRef(jni, young[i].ref);
        if (o) {
            (*jv)->SetTag(jv, o, young[i].tag);
            (*jni)->DeleteLocalRef(jni, o);
            atomic_fetch_add_explicit(&floor_young_tagged, 1, memory_order_relaxed);
        } else {
            atomic_fetch_add_explicit(&floor_young_died, 1, memory_order_relaxed);
        }
        (*jni)->DeleteWeakGlobalRef(jni, young[i].ref);
    }
    young_n = 0;
}

static void floor_nursery(jvmtiEnv *jv, JNIEnv *jni, jobject object, jlong tag)
{
    long gcs = atomic_load_explicit(&floor_gcs, memory_order_relaxed);
    if (gcs != young_gcs) {
        floor_sweep(jv, jni);
        young_gcs = gcs;
    }
    if (young_n == young_cap) {
        floor_young *y = realloc(young, (young_cap ? young_cap * 2 : 1024) * sizeof *y);
        if (!y) {
            (*jv)->SetTag(jv, object, tag);
            return;
        }
        young = y;
        young_cap = young_cap ? young_cap * 2 : 1024;
    }
    young[young_n].ref = (*jni)->NewWeakGlobalRef(jni, object);
    young[young_n++].tag = tag;
}

static void JNICALL floor_gc_finish(jvmtiEnv *jv) { (void)jv, atomic_fetch_add(&floor_gcs, 1); }

/* mode 4: AsyncGetCallTrace (exported by libjvm.so, not a JVMTI function) */
typedef struct agct_frame {
    jint bci;
    jmethodID method;
} agct_frame;
typedef struct agct_trace {
    JNIEnv *env;
    jint num_frames;
    agct_frame *frames;
} agct_trace;
static void (*agct)(agct_trace *, jint, void *);
static _Atomic long agct_calls, agct_ok, agct_ns, gst_ns;

static long floor_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void floor_agct(jvmtiEnv *jv, JNIEnv *jni)
{
    agct_frame f[4];
    agct_trace t = { jni, 0, f };
    long t0 = floor_ns();
    agct(&t, 4, NULL);
    long t1 = floor_ns();
    atomic_fetch_add_explicit(&agct_calls, 1, memory_order_relaxed);
    if (t.num_frames != 4)
        return;
    jvmtiFrameInfo frames[4];
    jint count = 0;
    long t2 = floor_ns();
    (*jv)->GetStackTrace(jv, NULL, 0, 4, frames, &count);
    long t3 = floor_ns();
    atomic_fetch_add_explicit(&agct_ok, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&agct_ns, t1 - t0, memory_order_relaxed);
    atomic_fetch_add_explicit(&gst_ns, t3 - t2, memory_order_relaxed);
}

/* mode 5 */
static _Atomic long ctx_same;
static __thread jvmtiFrameInfo ctx_prev[5];
static __thread jint ctx_prev_n;

static void floor_context(jvmtiEnv *jv)
{
    jvmtiFrameInfo f[5];
    jint n = 0;
    (*jv)->GetStackTrace(jv, NULL, 0, 5, f, &n);
    bool same = n > 0 && n == ctx_prev_n && f[0].method == ctx_prev[0].method;
    for (jint i = 1; same && i < n; i++)
        same = f[i].method == ctx_prev[i].method && f[i].location == ctx_prev[i].location;
    if (same)
        atomic_fetch_add_explicit(&ctx_same, 1, memory_order_relaxed);
    memcpy(ctx_prev, f, sizeof f);
    ctx_prev_n = n;
}

/* AsyncGetCallTrace needs ClassLoad on and every method's jmethodID made */
static void JNICALL floor_class(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jni, (void)thread;
    jint n = 0;
    jmethodID *m = NULL;
    if ((*jv)->GetClassMethods(jv, klass, &n, &m) == JVMTI_ERROR_NONE)
        (*jv)->Deallocate(jv, (unsigned char *)m);
}

static void JNICALL floor_alloc(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                                jlong size)
{
    (void)thread, (void)klass, (void)size;
    long n = atomic_fetch_add_explicit(&floor_allocs, 1, memory_order_relaxed) + 1;
    if (floor_mode == 4) {
        floor_agct(jv, jni);
        return;
    }
    if (floor_mode == 5) {
        floor_context(jv);
        return;
    }
    if (floor_mode >= 1) {
        jvmtiFrameInfo frames[4];
        jint count = 0;
        (*jv)->GetStackTrace(jv, NULL, 0, 4, frames, &count);
    }
    if (floor_mode == 2)
        (*jv)->SetTag(jv, object, n);
    else if (floor_mode == 3)
        floor_nursery(jv, jni, object, n);
}

static void JNICALL floor_free(jvmtiEnv *jv, jlong tag) { (void)jv, (void)tag; }

static void JNICALL floor_death(jvmtiEnv *jv, JNIEnv *jni)
{
    (void)jv, (void)jni;
    fprintf(stderr, "alloc_floor: mode %d, %ld allocations seen", floor_mode, (long)atomic_load(&floor_allocs));
    if (floor_mode == 3)
        fprintf(stderr, "; %ld died in a nursery, %ld tagged, after %ld collections", (long)atomic_load(&floor_young_died),
                (long)atomic_load(&floor_young_tagged), (long)atomic_load(&floor_gcs));
    long ok = atomic_load(&agct_ok);
    if (floor_mode == 4)
        fprintf(stderr, "; AsyncGetCallTrace gave 4 frames for %ld of %ld, in %.0f ns on average there, "
                "GetStackTrace %.0f ns for the same stacks", ok, (long)atomic_load(&agct_calls),
                ok ? (double)atomic_load(&agct_ns) / (double)ok : 0.0, ok ? (double)atomic_load(&gst_ns) / (double)ok : 0.0);
    if (floor_mode == 5)
        fprintf(stderr, "; %ld in the same method, from the same callers, as the thread's previous one",
                (long)atomic_load(&ctx_same));
    fputc('\n', stderr);
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
    caps.can_generate_garbage_collection_events = 1;
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.SampledObjectAlloc = floor_alloc;
    cb.ObjectFree = floor_free;
    cb.GarbageCollectionFinish = floor_gc_finish;
    cb.ClassLoad = floor_class;
    cb.ClassPrepare = floor_class;
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
    if (floor_mode == 4 &&
        (!(agct = (void (*)(agct_trace *, jint, void *))dlsym(RTLD_DEFAULT, "AsyncGetCallTrace")) ||
         (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_CLASS_LOAD, NULL) != JVMTI_ERROR_NONE ||
         (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_CLASS_PREPARE, NULL) != JVMTI_ERROR_NONE))
        return JNI_ERR;
    if (floor_mode == 3 &&
        (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL) != JVMTI_ERROR_NONE)
        return JNI_ERR;
    return JNI_OK;
}
