/* vm_allocs.c — see vm_allocs.h. The table: VM_ALLOCS_CLASSES entries by
 * a 64-bit hash of the class signature, claimed with a compare-and-swap
 * (the signature copied in just after), counted with atomic adds: no lock
 * on any callback. The table is the session's part (JP_PART_VM_ALLOCS,
 * va_state), which the callbacks reach through va_live; JNI's function
 * table, once intercepted, stays so for the JVM's life (va_jvm). */
#include "vm_allocs.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../core/agent_env.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../../common/jp_log.h"

typedef struct va_vm_entry {
    _Atomic uint64_t hash;     /* of the class signature and the caller, | 1; 0: free */
    _Atomic uint64_t objs, bytes;
    jmethodID method;          /* the caller (the top Java frame), NULL none; set before sig */
    jlocation location;
    char *_Atomic sig;         /* set just after the hash is claimed */
} va_vm_entry;

/* A session's part. */
typedef struct va_state {
    jmethodID skip[8];         /* the natives whose allocations VMObjectAlloc does not count */
    int nskip;
    atomic_ullong lost;        /* objects not counted: the table full */
    va_vm_entry vm[VM_ALLOCS_CLASSES];
} va_state;

/* The running session's part, for VMObjectAlloc and the intercepted JNI
 * functions (one acquire load each, behind the gate): set at its start,
 * cleared at its end, before the part is freed. */
static va_state *_Atomic va_live;

/* JNI's function table as the JVM made it (the interception calls these),
 * and String's value field: the interception is never undone (other code
 * may have copied the table since), so they are kept for the JVM's life. */
static struct {
    struct JNINativeInterface_ jni;
    jfieldID string_value;
    bool intercepted;
} va_jvm;

/* Per thread, for its life (a thread-local: no other way to it from a callback):
 * kind: 0 not known yet, 1 the program's, 2 jvmprof's own;
 * in_jni: >0 while the thread is inside an intercepted JNI allocation (counted there). */
static _Thread_local struct {
    int kind;
    int in_jni;
} va_thread;

static uint64_t va_fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h | 1;
}

static void va_vm_add(va_state *st, const char *sig, jlong size, jmethodID method, jlocation location)
{
    uint64_t h = (va_fnv(sig) ^ ((uint64_t)(uintptr_t)method * 0x9E3779B97F4A7C15ull)) | 1;
    for (uint32_t i = 0; i < 64; i++) {
        va_vm_entry *e = &st->vm[(h + i) & (VM_ALLOCS_CLASSES - 1)];
        uint64_t k = atomic_load_explicit(&e->hash, memory_order_acquire);
        if (k == 0) {
            uint64_t zero = 0;
            if (atomic_compare_exchange_strong(&e->hash, &zero, h)) {
                e->method = method;
                e->location = location;
                atomic_store_explicit(&e->sig, strdup(sig), memory_order_release);
                k = h;
            } else {
                k = zero;
            }
        }
        if (k == h) {
            atomic_fetch_add_explicit(&e->objs, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&e->bytes, (uint64_t)size, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&st->lost, 1, memory_order_relaxed);
}

/* Whether the current thread is one of the program's (jvmprof's own is never counted); asked once a thread. */
static bool va_program_thread(JNIEnv *env)
{
    if (!va_thread.kind) {
        jthread t = NULL;
        va_thread.kind = (*agent_jvmti)->GetCurrentThread(agent_jvmti, &t) == JVMTI_ERROR_NONE && t &&
                                 agent_is_own_thread(env, t) ? 2 : 1;
        if (t)
            (*env)->DeleteLocalRef(env, t);
    }
    return va_thread.kind == 1;
}

void JNICALL vm_allocs_object(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                                    jlong size)
{
    (void)object;
    if (va_thread.in_jni || !gate_enter())
        return;
    va_state *st = atomic_load_explicit(&va_live, memory_order_acquire);
    if (st && va_program_thread(jni)) {
        jmethodID m = NULL;
        jlocation loc = -1;
        bool skip = false;
        if ((*jv)->GetFrameLocation(jv, thread, 0, &m, &loc) == JVMTI_ERROR_NONE)
            for (int i = 0; i < st->nskip; i++)
                skip |= m && m == st->skip[i];
        else
            m = NULL;
        char *sig = NULL;
        if (!skip && (*jv)->GetClassSignature(jv, klass, &sig, NULL) == JVMTI_ERROR_NONE && sig)
            va_vm_add(st, sig, size, m, loc);
        jvmti_free(sig);
    }
    gate_leave();
}

/* JNI's allocations (NewObject, NewStringUTF, New<Type>Array ...), which
 * HotSpot posts no VMObjectAlloc for: its function table intercepted, as
 * JVMTI suggests; each new object counted per class with the VM's. */


static void va_jni_count(JNIEnv *env, jobject o)
{
    if (!o)
        return;
    if (!va_program_thread(env) || !gate_enter())
        return;
    va_state *st = atomic_load_explicit(&va_live, memory_order_acquire);
    if (!st) {
        gate_leave();
        return;
    }
    jclass c = va_jvm.jni.GetObjectClass(env, o);
    char *sig = NULL;
    jlong size = 0;
    jmethodID m = NULL; /* the native method that called JNI */
    jlocation loc = -1;
    if ((*agent_jvmti)->GetFrameLocation(agent_jvmti, NULL, 0, &m, &loc) != JVMTI_ERROR_NONE)
        m = NULL;
    if (c && (*agent_jvmti)->GetClassSignature(agent_jvmti, c, &sig, NULL) == JVMTI_ERROR_NONE && sig &&
        (*agent_jvmti)->GetObjectSize(agent_jvmti, o, &size) == JVMTI_ERROR_NONE) {
        va_vm_add(st, sig, size, m, loc);
        if (va_jvm.string_value && strcmp(sig, "Ljava/lang/String;") == 0) { /* and the array of its characters */
            jobject v = va_jvm.jni.GetObjectField(env, o, va_jvm.string_value);
            jlong vs = 0;
            if (v && (*agent_jvmti)->GetObjectSize(agent_jvmti, v, &vs) == JVMTI_ERROR_NONE)
                va_vm_add(st, "[B", vs, m, loc);
            if (v)
                va_jvm.jni.DeleteLocalRef(env, v);
        }
    }
    jvmti_free(sig);
    if (c)
        va_jvm.jni.DeleteLocalRef(env, c);
    gate_leave();
}

#define VA_JNI_COUNTED(call) \
    do { \
        va_thread.in_jni++; \
        r = call; \
        va_thread.in_jni--; \
        va_jni_count(env, r); \
        return r; \
    } while (0)

static jobject JNICALL va_jni_alloc_object(JNIEnv *env, jclass c)
{
    jobject r;
    VA_JNI_COUNTED(va_jvm.jni.AllocObject(env, c));
}
static jobject JNICALL va_jni_new_object_v(JNIEnv *env, jclass c, jmethodID m, va_list args)
{
    jobject r;
    VA_JNI_COUNTED(va_jvm.jni.NewObjectV(env, c, m, args));
}
static jobject JNICALL va_jni_new_object(JNIEnv *env, jclass c, jmethodID m, ...)
{
    va_list args;
    va_start(args, m);
    jobject r = va_jni_new_object_v(env, c, m, args);
    va_end(args);
    return r;
}
static jobject JNICALL va_jni_new_object_a(JNIEnv *env, jclass c, jmethodID m, const jvalue *args)
{
    jobject r;
    VA_JNI_COUNTED(va_jvm.jni.NewObjectA(env, c, m, args));
}
static jobjectArray JNICALL va_jni_new_object_array(JNIEnv *env, jsize n, jclass c, jobject init)
{
    jobjectArray r;
    VA_JNI_COUNTED(va_jvm.jni.NewObjectArray(env, n, c, init));
}
static jstring JNICALL va_jni_new_string(JNIEnv *env, const jchar *u, jsize n)
{
    jstring r;
    VA_JNI_COUNTED(va_jvm.jni.NewString(env, u, n));
}
static jstring JNICALL va_jni_new_string_utf(JNIEnv *env, const char *u)
{
    jstring r;
    VA_JNI_COUNTED(va_jvm.jni.NewStringUTF(env, u));
}
#define VA_JNI_NEW_ARRAY(fn, type, field) \
    static type JNICALL fn(JNIEnv *env, jsize n) \
    { \
        type r; \
        VA_JNI_COUNTED(va_jvm.jni.field(env, n)); \
    }
VA_JNI_NEW_ARRAY(va_jni_new_booleans, jbooleanArray, NewBooleanArray)
VA_JNI_NEW_ARRAY(va_jni_new_bytes, jbyteArray, NewByteArray)
VA_JNI_NEW_ARRAY(va_jni_new_chars, jcharArray, NewCharArray)
VA_JNI_NEW_ARRAY(va_jni_new_shorts, jshortArray, NewShortArray)
VA_JNI_NEW_ARRAY(va_jni_new_ints, jintArray, NewIntArray)
VA_JNI_NEW_ARRAY(va_jni_new_longs, jlongArray, NewLongArray)
VA_JNI_NEW_ARRAY(va_jni_new_floats, jfloatArray, NewFloatArray)
VA_JNI_NEW_ARRAY(va_jni_new_doubles, jdoubleArray, NewDoubleArray)

static void va_jni_intercept(JNIEnv *jni)
{
    jniNativeInterface *t = NULL;
    if ((*agent_jvmti)->GetJNIFunctionTable(agent_jvmti, &t) != JVMTI_ERROR_NONE || !t) {
        jp_log_info("alloc_count=site: JNI's functions cannot be intercepted; objects made by JNI are not counted");
        return;
    }
    va_jvm.jni = *t;
    jclass sc = (*jni)->FindClass(jni, "java/lang/String");
    va_jvm.string_value = sc ? (*jni)->GetFieldID(jni, sc, "value", "[B") : NULL;
    (*jni)->ExceptionClear(jni);
    t->AllocObject = va_jni_alloc_object;
    t->NewObject = va_jni_new_object;
    t->NewObjectV = va_jni_new_object_v;
    t->NewObjectA = va_jni_new_object_a;
    t->NewObjectArray = va_jni_new_object_array;
    t->NewString = va_jni_new_string;
    t->NewStringUTF = va_jni_new_string_utf;
    t->NewBooleanArray = va_jni_new_booleans;
    t->NewByteArray = va_jni_new_bytes;
    t->NewCharArray = va_jni_new_chars;
    t->NewShortArray = va_jni_new_shorts;
    t->NewIntArray = va_jni_new_ints;
    t->NewLongArray = va_jni_new_longs;
    t->NewFloatArray = va_jni_new_floats;
    t->NewDoubleArray = va_jni_new_doubles;
    if ((*agent_jvmti)->SetJNIFunctionTable(agent_jvmti, t) != JVMTI_ERROR_NONE)
        jp_log_info("alloc_count=site: JNI's functions cannot be intercepted; objects made by JNI are not counted");
    jvmti_free(t);
}

jp_status vm_allocs_start(jp_session *s, JNIEnv *jni, const jmethodID *skip, int nskip)
{
    va_state *st = session_part(s, JP_PART_VM_ALLOCS, sizeof(va_state));
    if (!st)
        return jp_error(JP_ERR_NOMEM, "alloc_count=site: out of memory");
    for (int i = 0; i < nskip && st->nskip < (int)(sizeof st->skip / sizeof st->skip[0]); i++)
        if (skip[i])
            st->skip[st->nskip++] = skip[i];
    atomic_store_explicit(&va_live, st, memory_order_release);
    if (!va_jvm.intercepted) { /* once: a second time would intercept the interception */
        va_jvm.intercepted = true;
        va_jni_intercept(jni);
    }
    return JP_OK;
}

void vm_allocs_end(jp_session *s)
{
    atomic_store_explicit(&va_live, NULL, memory_order_release);
    va_state *st = session_part_if(s, JP_PART_VM_ALLOCS);
    for (uint32_t i = 0; st && i < VM_ALLOCS_CLASSES; i++)
        free(atomic_load(&st->vm[i].sig));
}

const char *vm_allocs_entry(jp_session *s, uint32_t i, uint64_t *objs, uint64_t *bytes, jmethodID *method,
                            jlocation *location)
{
    const va_state *st = session_part_if(s, JP_PART_VM_ALLOCS);
    const char *sig = st && i < VM_ALLOCS_CLASSES ? atomic_load_explicit(&st->vm[i].sig, memory_order_acquire) : NULL;
    if (sig) {
        *objs = atomic_load_explicit(&st->vm[i].objs, memory_order_relaxed);
        *bytes = atomic_load_explicit(&st->vm[i].bytes, memory_order_relaxed);
        *method = st->vm[i].method;
        *location = st->vm[i].location;
    }
    return sig;
}

uint64_t vm_allocs_lost(jp_session *s)
{
    va_state *st = session_part_if(s, JP_PART_VM_ALLOCS);
    return st ? atomic_load(&st->lost) : 0;
}
