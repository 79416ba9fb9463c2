/* heap_dump_hotspot.c — heap=dump,dumper=hotspot (see heap_dump_hotspot.h).
 * The dump runs on the calling thread through JNI (the MXBean's dumpHeap
 * stops the world and writes the file); a helper thread, not attached to the
 * JVM, reports the objects written so far while verbose=y. HotSpot's file gets a
 * temporary name ending in .hprof (dumpHeap refuses any other suffix and any
 * existing file) beside the final one. */
#include "heap_dump_hotspot.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../common/file_map.h"
#include "../../common/out_file.h"
#include "../../common/jp_log.h"
#include "../../heapdump/hprof_heap_fixup.h"
#include "../../heapdump/hprof_heap_scan.h"
#include "../../heapdump/hprof_read.h"
#include "../../options/options.h"
#include "../core/agent_env.h"

/* ---- progress: what the file holds so far, once a second after the first ---- */

/* HotSpot writes a heap dump in segments of about 1 MiB, each with its length
 * (JDK 11 and later): the watcher reads every complete record again from the
 * page cache and counts the objects in it. If the file does not read as
 * expected, it reports the bytes written instead. */
typedef struct hh_watch {
    const char *tmp;
    uint64_t t0, heap_used;
    bool stop;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int fd;
    unsigned idsize;           /* 0 until the header was read */
    bool lost;                 /* not parsable: bytes only */
    uint64_t pos, objects;
    uint8_t *buf;
    size_t cap;
} hh_watch;

static bool hh_pread(int fd, void *to, size_t n, uint64_t at)
{
    uint8_t *p = to;
    while (n) {
        ssize_t got = pread(fd, p, n, (off_t)at);
        if (got <= 0)
            return false;
        p += got, n -= (size_t)got, at += (uint64_t)got;
    }
    return true;
}

/* Counts the objects of the complete records written since the last call. */
static void hh_watch_read(hh_watch *w, uint64_t size)
{
    static const char magic[] = "JAVA PROFILE 1.0.2"; /* then NUL, u4 id size, u8 time */
    if (!w->idsize) {
        uint8_t h[sizeof magic + 12];
        if (size < sizeof h)
            return;
        if (!hh_pread(w->fd, h, sizeof h, 0) || memcmp(h, magic, sizeof magic) != 0 ||
            (hprof_rd_u4(h + sizeof magic) != 4 && hprof_rd_u4(h + sizeof magic) != 8)) {
            w->lost = true;
            return;
        }
        w->idsize = hprof_rd_u4(h + sizeof magic);
        w->pos = sizeof h;
    }
    while (w->pos + 9 <= size) {
        uint8_t hdr[9];
        if (!hh_pread(w->fd, hdr, 9, w->pos)) {
            w->lost = true;
            return;
        }
        uint32_t len = hprof_rd_u4(hdr + 5);
        if (w->pos + 9 + len > size)
            return; /* not complete yet */
        if (hdr[0] == 0x0C || hdr[0] == 0x1C) {
            if (len > w->cap) {
                uint8_t *b = realloc(w->buf, len);
                if (!b) {
                    w->lost = true;
                    return;
                }
                w->buf = b;
                w->cap = len;
            }
            if (!hh_pread(w->fd, w->buf, len, w->pos + 9) ||
                !ht_count_body(w->buf, len, w->idsize, &w->objects)) {
                w->lost = true;
                return;
            }
        }
        w->pos += 9 + (uint64_t)len;
    }
}

static void *hh_watch_run(void *arg)
{
    hh_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
        if (w->stop)
            break;
        if (w->fd < 0 && (w->fd = open(w->tmp, O_RDONLY | O_CLOEXEC)) < 0)
            continue; /* not created yet: the full GC before the dump */
        struct stat st;
        if (fstat(w->fd, &st) != 0)
            continue;
        if (!w->lost)
            hh_watch_read(w, (uint64_t)st.st_size);
        double secs = (double)(agent_now_ns() - w->t0) / 1e9;
        if (w->lost) {
            jp_log_info("heap dump: HotSpot's dumper has written %llu MB in %.1f s (heap in use: %llu MB)",
                        (unsigned long long)(st.st_size >> 20), secs, (unsigned long long)(w->heap_used >> 20));
        } else {
            /* no share of a total: HotSpot does not say how many objects it will write, and
             * counting them first would cost a heap walk */
            jp_log_info("heap dump: %llu objects written in %.1f s (%llu MB of file; heap in use: %llu MB)",
                        (unsigned long long)w->objects, secs, (unsigned long long)(w->pos >> 20),
                        (unsigned long long)(w->heap_used >> 20));
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* ---- JNI ---- */

uint64_t heap_dump_heap_in_use(JNIEnv *jni)
{
    uint64_t used = 0;
    if ((*jni)->PushLocalFrame(jni, 8) != 0) {
        (*jni)->ExceptionClear(jni);
        return 0;
    }
    jclass rt = (*jni)->FindClass(jni, "java/lang/Runtime");
    jmethodID get = rt ? (*jni)->GetStaticMethodID(jni, rt, "getRuntime", "()Ljava/lang/Runtime;") : NULL;
    jobject r = get ? (*jni)->CallStaticObjectMethod(jni, rt, get) : NULL;
    jmethodID total = r ? (*jni)->GetMethodID(jni, rt, "totalMemory", "()J") : NULL;
    jmethodID free_ = r ? (*jni)->GetMethodID(jni, rt, "freeMemory", "()J") : NULL;
    if (total && free_)
        used = (uint64_t)((*jni)->CallLongMethod(jni, r, total) - (*jni)->CallLongMethod(jni, r, free_));
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    (*jni)->PopLocalFrame(jni, NULL);
    return used;
}


/* The pending exception as one line ("java.io.IOException: No space left on
 * device"), cleared. */
static void hh_exception(JNIEnv *jni, char *out, size_t len)
{
    jthrowable ex = (*jni)->ExceptionOccurred(jni);
    (*jni)->ExceptionClear(jni);
    snprintf(out, len, "an exception");
    if (!ex)
        return;
    jclass tc = (*jni)->FindClass(jni, "java/lang/Throwable");
    jmethodID ts = tc ? (*jni)->GetMethodID(jni, tc, "toString", "()Ljava/lang/String;") : NULL;
    jstring s = ts ? (*jni)->CallObjectMethod(jni, ex, ts) : NULL;
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    const char *c = s ? (*jni)->GetStringUTFChars(jni, s, NULL) : NULL;
    if (c) {
        snprintf(out, len, "%s", c);
        for (char *p = out; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        (*jni)->ReleaseStringUTFChars(jni, s, c);
    }
}

/* ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class) and its
 * dumpHeap(String, boolean); false with the reason in errbuf. */
static bool hh_bean(JNIEnv *jni, bool dumper_named, jobject *bean, jmethodID *dump, char *errbuf, size_t errlen)
{
    jclass mf = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jclass hs = mf ? (*jni)->FindClass(jni, "com/sun/management/HotSpotDiagnosticMXBean") : NULL;
    jmethodID get = hs ? (*jni)->GetStaticMethodID(jni, mf, "getPlatformMXBean",
                                                   "(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;")
                       : NULL;
    *dump = get ? (*jni)->GetMethodID(jni, hs, "dumpHeap", "(Ljava/lang/String;Z)V") : NULL;
    *bean = *dump ? (*jni)->CallStaticObjectMethod(jni, mf, get, hs) : NULL;
    if (*bean && !(*jni)->ExceptionCheck(jni))
        return true;
    char why[512] = "it is not there";
    if ((*jni)->ExceptionCheck(jni))
        hh_exception(jni, why, sizeof why);
    snprintf(errbuf, errlen, "HotSpot's dumper (HotSpotDiagnosticMXBean, module jdk.management) is not available "
             "in this JVM (%s)%s", why, dumper_named ? "; use dumper=jvmti" : "");
    return false;
}

jp_status heap_dump_hotspot(JNIEnv *jni, const agent_options *o, const char *base, const char *shown, char *tmp,
                            size_t tmplen, char *said, size_t saidlen, char *errbuf, size_t errlen)
{
    /* dumpHeap wants a name ending in .hprof that does not exist yet, and creates it exclusively, 0600 */
    out_file_remove_stale(base);
    out_file_temp_name(base, ".tmp.hprof", tmp, tmplen);
    if ((*jni)->PushLocalFrame(jni, 32) != 0) {
        (*jni)->ExceptionClear(jni);
        snprintf(errbuf, errlen, "out of memory (JNI local references)");
        return JP_ERR_NOMEM;
    }
    jp_status st = JP_OK;
    jobject bean;
    jmethodID dump;
    uint64_t t0 = agent_now_ns(), t1 = t0;
    if (!hh_bean(jni, o->dumper_named, &bean, &dump, errbuf, errlen)) {
        st = JP_ERR_JVMTI;
        goto out;
    }
    jstring name = (*jni)->NewStringUTF(jni, tmp);
    if (!name) {
        (*jni)->ExceptionClear(jni);
        snprintf(errbuf, errlen, "out of memory (the file name)");
        st = JP_ERR_NOMEM;
        goto out;
    }
    hh_watch w = { .tmp = tmp, .t0 = t0, .fd = -1 };
    pthread_t watcher;
    bool watching = false;
    if (o->verbose) {
        w.heap_used = heap_dump_heap_in_use(jni);
        pthread_mutex_init(&w.lock, NULL);
        pthread_cond_init(&w.wake, NULL);
        watching = pthread_create(&watcher, NULL, hh_watch_run, &w) == 0;
    }
    (*jni)->CallVoidMethod(jni, bean, dump, name, JNI_TRUE);
    t1 = agent_now_ns();
    if (watching) {
        pthread_mutex_lock(&w.lock);
        w.stop = true;
        pthread_cond_signal(&w.wake);
        pthread_mutex_unlock(&w.lock);
        pthread_join(watcher, NULL);
    }
    if (o->verbose) {
        pthread_mutex_destroy(&w.lock);
        pthread_cond_destroy(&w.wake);
    }
    if (w.fd >= 0)
        close(w.fd);
    free(w.buf);
    if ((*jni)->ExceptionCheck(jni)) {
        char why[512];
        hh_exception(jni, why, sizeof why);
        snprintf(errbuf, errlen, "HotSpot's dumper could not write %s: %s", tmp, why);
        st = JP_ERR_IO;
        goto out;
    }
    /* HotSpot's file, checked and mended in place; if that cannot be done, the
     * dump is still HotSpot's and is kept, with a warning */
    size_t len = 0;
    char why[512];
    hprof_fixup_stats fs = { 0 };
    uint8_t *data = file_map_writable(tmp, &len, why, sizeof why);
    jp_status checked = data ? hprof_heap_fixup(data, len, &fs, why, sizeof why) : JP_ERR_IO;
    if (data)
        file_unmap(data, len);
    if (checked != JP_OK)
        jp_log_error("heap dump: %s is written as HotSpot wrote it, unchecked: references to objects it left out "
                     "(class data sharing's archived objects) stay in it (%s)", shown, why);
    if (o->verbose && checked == JP_OK) {
        heap_dump_said(said, saidlen,
                       "heap dump: wrote %s (%zu bytes, %llu objects and classes) in %.2f s: HotSpot's dumper %.2f s, "
                       "then %.2f s to check %llu references", shown, len, (unsigned long long)fs.objects,
                       (double)(agent_now_ns() - t0) / 1e9, (double)(t1 - t0) / 1e9,
                       (double)(agent_now_ns() - t1) / 1e9, (unsigned long long)fs.references);
        if (fs.nulled)
            heap_dump_said(said, saidlen,
                           "heap dump: %llu references named objects HotSpot's dumper left out (class data sharing's "
                           "archived objects%s): written as null", (unsigned long long)fs.nulled,
                           fs.roots_nulled ? "; some of them GC roots" : "");
    }
out:
    if (st != JP_OK)
        unlink(tmp);
    (*jni)->PopLocalFrame(jni, NULL);
    return st;
}
