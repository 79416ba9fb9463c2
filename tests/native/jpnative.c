/* jpnative.c — the JNI library of tests/programs/NativeHot.java, which the native-frame tests
 * profile: Java_NativeHot_spin burns CPU in jp_hot_loop, Java_NativeHot_deep in jp_deep_c under
 * jp_deep_b under jp_deep_a, Java_NativeHot_callback calls Java back (NativeHot.javaBurn) from
 * jp_call_java, so that Java frames lie above and below C frames; Java_HeapPaths_keepGlobal (for
 * tests/programs/HeapPaths.java) keeps an object alive through a JNI global reference only.
 * The Makefile builds it twice from this one source into build/it/native/:
 * libjpnative_fp.so with frame pointers, libjpnative_nofp.so without (only .eh_frame to unwind by).
 * Every function here is a real frame: none is inlined, cloned or left by a tail call (each does
 * work with the result of its callee), and each is exported, so its name is in .dynsym too. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if defined(__clang__) /* clang clones no function GCC's way, and knows no noclone */
#define JP_FRAME __attribute__((noinline, visibility("default")))
#else
#define JP_FRAME __attribute__((noinline, noclone, visibility("default")))
#endif

/* written after each call, so that no caller ends in a tail call and no result is thrown away */
volatile uint64_t jp_sink;

static inline __attribute__((always_inline)) uint64_t jp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* burns the CPU for millis ms in the function it is inlined into (each caller's own frame): a
 * xorshift generator folded into a sum, whose every step depends on the one before */
static inline __attribute__((always_inline)) uint64_t jp_burn(int64_t millis, uint64_t seed)
{
    uint64_t end = jp_now_ns() + (uint64_t)(millis > 0 ? millis : 0) * 1000000u;
    uint64_t x = seed | 1, acc = 0;
    do {
        for (int i = 0; i < 100000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            acc += x * 0x2545F4914F6CDD1DULL;
        }
    } while (jp_now_ns() < end);
    return acc;
}

JP_FRAME uint64_t jp_hot_loop(int64_t millis)
{
    return jp_burn(millis, 0x9E3779B97F4A7C15ULL);
}

JP_FRAME uint64_t jp_deep_c(int64_t millis)
{
    return jp_burn(millis, 0xD1B54A32D192ED03ULL);
}

/* each level keeps a few words on its stack across the call and folds them into the result */
JP_FRAME uint64_t jp_deep_b(int64_t millis)
{
    volatile uint64_t local[4];
    for (int i = 0; i < 4; i++) local[i] = (uint64_t)millis * (uint64_t)(i + 3);
    uint64_t r = jp_deep_c(millis);
    return r ^ local[(uint64_t)r & 3];
}

JP_FRAME uint64_t jp_deep_a(int64_t millis)
{
    volatile uint64_t local[4];
    for (int i = 0; i < 4; i++) local[i] = (uint64_t)millis + (uint64_t)i * 0x100000001B3ULL;
    uint64_t r = jp_deep_b(millis);
    return r + local[(uint64_t)r & 3];
}

JNIEXPORT jlong JNICALL Java_NativeHot_spin(JNIEnv *env, jclass cls, jlong millis)
{
    (void)env;
    (void)cls;
    uint64_t r = jp_hot_loop((int64_t)millis);
    jp_sink = r;
    return (jlong)(r >> 1);
}

JNIEXPORT jlong JNICALL Java_NativeHot_deep(JNIEnv *env, jclass cls, jlong millis)
{
    (void)env;
    (void)cls;
    uint64_t r = jp_deep_a((int64_t)millis);
    jp_sink = r;
    return (jlong)(r >> 1);
}

/* n calls of malloc (and free), for event=malloc: each one a sample at interval=1 */
JP_FRAME uint64_t jp_mallocs(int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++) {
        volatile unsigned char *p = malloc((size_t)(16 + (i & 63)));
        if (p) {
            p[0] = (unsigned char)i;
            acc += p[0];
            free((void *)p);
        }
    }
    return acc;
}

JNIEXPORT jlong JNICALL Java_NativeHot_mallocs(JNIEnv *env, jclass cls, jint n)
{
    (void)env;
    (void)cls;
    uint64_t r = jp_mallocs((int)n);
    jp_sink = r;
    return (jlong)(r >> 1);
}

/* calls NativeHot.javaBurn(millis) back: the C frame between two Java ones */
JP_FRAME uint64_t jp_call_java(JNIEnv *env, jclass cls, int64_t millis)
{
    jmethodID burn = (*env)->GetStaticMethodID(env, cls, "javaBurn", "(J)J");
    if (!burn)
        return 0;
    jlong r = (*env)->CallStaticLongMethod(env, cls, burn, (jlong)millis);
    if ((*env)->ExceptionCheck(env))
        return 0;
    return (uint64_t)r * 3u + 1u;
}

JNIEXPORT jlong JNICALL Java_NativeHot_callback(JNIEnv *env, jclass cls, jlong millis)
{
    uint64_t r = jp_call_java(env, cls, (int64_t)millis);
    jp_sink = r;
    return (jlong)(r >> 1);
}

/* HeapPaths.keepGlobal(Object): a JNI global reference to o, never deleted, so that a heap dump
 * finds o as a GC root of kind JNI global (and through nothing else) */
JNIEXPORT void JNICALL Java_HeapPaths_keepGlobal(JNIEnv *env, jclass cls, jobject o)
{
    (void)cls;
    jobject global = (*env)->NewGlobalRef(env, o); /* kept for the JVM's life: nothing deletes it */
    jp_sink = global != NULL;
}
