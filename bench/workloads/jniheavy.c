/* jniheavy.c — the native half of the benchmark workload bench/workloads/JniHeavy.java
 * (bench/run.sh builds it into bench/out/libjniheavy.so): a hash over a Java byte[] held with
 * GetPrimitiveArrayCritical (the CPU in this library), a sort of pseudo-random ints by libc's
 * qsort with a comparator here (libc and this library), and block copies and fills by libc's
 * memcpy, memmove and memset (libc). Every result is a checksum the Java side folds in. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* one word at a time, each step depending on the one before: no vectorising it away */
static __attribute__((noinline)) uint64_t jh_hash(const uint8_t *p, size_t n, int rounds)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (int r = 0; r < rounds; r++) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            h = (h ^ w) * 0x100000001B3ULL;
            h ^= h >> 29;
        }
        for (; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ULL;
        h += (uint64_t)r;
    }
    return h;
}

static int jh_compare(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

JNIEXPORT jlong JNICALL Java_JniHeavy_hash(JNIEnv *env, jclass cls, jbyteArray data, jint rounds)
{
    (void)cls;
    jsize n = (*env)->GetArrayLength(env, data);
    uint8_t *p = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
    if (p == NULL) return 0;
    uint64_t h = jh_hash(p, (size_t)n, rounds);
    (*env)->ReleasePrimitiveArrayCritical(env, data, p, JNI_ABORT);
    return (jlong)h;
}

/* n pseudo-random ints from seed, sorted by qsort: a checksum of the sorted order */
JNIEXPORT jlong JNICALL Java_JniHeavy_sort(JNIEnv *env, jclass cls, jint n, jlong seed)
{
    (void)env;
    (void)cls;
    if (n <= 0) return 0;
    int32_t *a = malloc((size_t)n * sizeof *a);
    if (a == NULL) return -1;
    uint64_t x = (uint64_t)seed | 1;
    for (jint i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        a[i] = (int32_t)(x >> 32);
    }
    qsort(a, (size_t)n, sizeof *a, jh_compare);
    uint64_t sum = 0;
    for (jint i = 0; i < n; i += 7) sum = sum * 31 + (uint32_t)a[i];
    free(a);
    return (jlong)sum;
}

/* copies a buffer of kib KiB rounds times back and forth (memcpy, and memmove by half a block
 * within one), refilling a slice of it with memset each time: a checksum of the end state */
JNIEXPORT jlong JNICALL Java_JniHeavy_copy(JNIEnv *env, jclass cls, jint kib, jint rounds, jlong seed)
{
    (void)env;
    (void)cls;
    size_t n = (size_t)(kib > 0 ? kib : 1) * 1024;
    uint8_t *a = malloc(n), *b = malloc(n);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return -1;
    }
    for (size_t i = 0; i < n; i++) a[i] = (uint8_t)((uint64_t)seed + i * 131);
    for (jint r = 0; r < rounds; r++) {
        memcpy(b, a, n);
        memmove(b + n / 4, b, n / 2);
        memset(b + (size_t)r % (n / 2), (int)r, n / 8);
        memcpy(a, b, n);
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i += 4093) sum = sum * 31 + a[i];
    free(a);
    free(b);
    return (jlong)sum;
}
