/* jvm_threads.c — threads=all: the JVM's own threads and their timers (see
 * jvm_threads.h).
 *
 * One fixed table of JT_MAX entries (never moved, so the handler may read an
 * entry while the agent thread adds others), indexed from the signal: a perf
 * event's fd through jvt_all.by_fd, a POSIX timer's by the value it carries
 * (JT_TAG << 24 | index). An entry's timer is closed before the entry is
 * reused; its ring is unmapped only by jvm_threads_free, after the sampler
 * waited for the handlers inside, or when the thread is gone (no signal can
 * be on its way to a thread that no longer exists, and a closed event sends
 * none). */
#include "jvm_threads.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include "../../common/jp_log.h"
#include "../core/thread_registry.h"

#define JT_MAX 1024u
#define JT_FDS 65536u
#define JT_TAG 0x6bu

typedef struct jvt_thread {
    uint32_t tid;
    _Atomic uint32_t serial;      /* 0: not (or no longer) sampled */
    uint32_t seen_scan;           /* the last scan that saw it */
    bool java;                    /* seen as a Java thread: never sampled here */
    bool named;                   /* its start is in the model */
    bool armed;
    perf_thread perf;             /* fd -1: none */
    timer_t timer;
    bool has_timer;
    char name[20];
} jvt_thread;

static struct {
    bool on;
    perf_spec spec;
    uint64_t period;
    bool use_perf, kernel;
    int signo;
    unsigned interval_ms;
    uint32_t scan;                /* scans so far */
    uint64_t scanned_at_ns;
    uint32_t n;                   /* entries used */
    jvt_thread threads[JT_MAX];
    _Atomic uint16_t by_fd[JT_FDS]; /* fd -> index + 1 */
    uint32_t armed, failed;
    bool kernel_refused_said;
} jvt_all;

static uint64_t jvt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void jvm_threads_begin(const perf_spec *spec, uint64_t period, bool use_perf, bool kernel, int signo,
                       unsigned interval_ms)
{
    jvt_all.on = true;
    if (spec)
        jvt_all.spec = *spec;
    jvt_all.period = period;
    jvt_all.use_perf = use_perf;
    jvt_all.kernel = kernel;
    jvt_all.signo = signo;
    jvt_all.interval_ms = interval_ms;
    jvt_all.scanned_at_ns = 0;
}

static bool jvt_is_java(uint32_t tid, const uint32_t *java_tids, uint32_t n)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (java_tids[mid] == tid)
            return true;
        if (java_tids[mid] < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static jvt_thread *jvt_find(uint32_t tid)
{
    for (uint32_t i = 0; i < jvt_all.n; i++)
        if (jvt_all.threads[i].tid == tid)
            return &jvt_all.threads[i];
    return NULL;
}

static void jvt_read_name(uint32_t tid, char *out, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%u/comm", tid);
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(out, (int)len, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

/* Stops sampling t: its timer closed (a perf event's ring stays until the thread is gone or the end). */
static void jvt_disarm(jvt_thread *t, bool unmap)
{
    atomic_store(&t->serial, 0);
    if (t->perf.fd >= 0) {
        if ((unsigned)t->perf.fd < JT_FDS)
            atomic_store(&jvt_all.by_fd[t->perf.fd], 0);
        if (unmap) {
            perf_thread_close(&t->perf);
            t->perf.fd = -1;
        } else {
            ioctl(t->perf.fd, PERF_EVENT_IOC_DISABLE, 0); /* no more signals; the ring stays mapped */
        }
    }
    if (t->has_timer) {
        timer_delete(t->timer);
        t->has_timer = false;
    }
    if (t->armed && jvt_all.armed)
        jvt_all.armed--;
    t->armed = false;
}

static void jvt_arm(jvt_thread *t, uint32_t serial)
{
    uint32_t index = (uint32_t)(t - jvt_all.threads);
    t->perf.fd = -1;
    if (jvt_all.use_perf) {
        int refused = 0;
        int rc = perf_thread_open(&t->perf, (pid_t)t->tid, &jvt_all.spec, jvt_all.period, jvt_all.signo, jvt_all.kernel, &refused);
        if (rc == 0 && (unsigned)t->perf.fd < JT_FDS) {
            atomic_store(&t->serial, serial);
            atomic_store(&jvt_all.by_fd[t->perf.fd], (uint16_t)(index + 1));
            t->armed = true;
            jvt_all.armed++;
            return;
        }
        if (rc == 0)
            perf_thread_close(&t->perf);
        t->perf.fd = -1;
    }
    /* a POSIX timer on the thread's CPU clock (glibc's pthread_getcpuclockid for another thread) */
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = jvt_all.signo;
    sev.sigev_value.sival_int = (int)(JT_TAG << 24 | index);
    sev._sigev_un._tid = (pid_t)t->tid;
    clockid_t clock = (clockid_t)((~(clockid_t)t->tid << 3) | 6);
    atomic_store(&t->serial, serial);
    if (timer_create(clock, &sev, &t->timer) != 0) {
        atomic_store(&t->serial, 0);
        if (jvt_all.failed++ == 0)
            jp_log_info("threads=all: cannot make a CPU timer for the JVM's thread %u (%s): it is not sampled", t->tid,
                        strerror(errno));
        return;
    }
    unsigned ms = jvt_all.interval_ms ? jvt_all.interval_ms : 10;
    struct itimerspec its;
    its.it_interval.tv_sec = ms / 1000;
    its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000L;
    its.it_value = its.it_interval;
    if (timer_settime(t->timer, 0, &its, NULL) != 0) {
        timer_delete(t->timer);
        atomic_store(&t->serial, 0);
        return;
    }
    t->has_timer = true;
    t->armed = true;
    jvt_all.armed++;
}

bool jvm_threads_due(void)
{
    return jvt_all.on && (!jvt_all.scanned_at_ns || jvt_now_ns() - jvt_all.scanned_at_ns >= 1000000000u);
}

void jvm_threads_scan(model *m, const uint32_t *java_tids, uint32_t n)
{
    if (!jvt_all.on)
        return;
    jvt_all.scanned_at_ns = jvt_now_ns();
    uint32_t scan = ++jvt_all.scan;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return;
    uint32_t self = (uint32_t)gettid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        unsigned long tid = strtoul(e->d_name, &end, 10);
        if (*end || tid == 0 || tid == self)
            continue;
        jvt_thread *t = jvt_find((uint32_t)tid);
        if (!t) {
            if (jvt_all.n == JT_MAX)
                continue;
            t = &jvt_all.threads[jvt_all.n++];
            memset(t, 0, sizeof *t);
            t->perf.fd = -1;
            t->tid = (uint32_t)tid;
        }
        t->seen_scan = scan;
        if (t->java)
            continue;
        if (jvt_is_java(t->tid, java_tids, n)) {
            t->java = true;
            jvt_disarm(t, false);
            continue;
        }
        if (t->armed)
            continue;
        jvt_read_name(t->tid, t->name, sizeof t->name);
        if (strncmp(t->name, "jvmprof", 7) == 0) { /* the agent's own threads */
            t->java = true;
            continue;
        }
        uint32_t serial = thread_registry_new_serial();
        model_thread_start_jvm(m, serial, model_cstring(m, t->name));
        jvt_arm(t, serial);
    }
    closedir(d);
    /* threads gone: their timers went with them; their rings are unmapped now */
    for (uint32_t i = 0; i < jvt_all.n; i++) {
        jvt_thread *t = &jvt_all.threads[i];
        if (t->seen_scan != scan && t->tid) {
            uint32_t serial = atomic_load(&t->serial);
            jvt_disarm(t, true);
            if (serial)
                model_thread_end(m, serial);
            t->tid = 0;
            t->java = true; /* the entry is dead; kept, never reused (the table only grows) */
        }
    }
}

uint32_t jvm_threads_of_signal(const siginfo_t *si, perf_thread **pt)
{
    *pt = NULL;
    if (si->si_code == SI_TIMER) {
        unsigned v = (unsigned)si->si_value.sival_int;
        if ((v >> 24) != JT_TAG || (v & 0xffffffu) >= JT_MAX)
            return 0;
        return atomic_load_explicit(&jvt_all.threads[v & 0xffffffu].serial, memory_order_relaxed);
    }
    if ((si->si_code == POLL_IN || si->si_code == POLL_HUP) && si->si_fd >= 0 && (unsigned)si->si_fd < JT_FDS) {
        uint16_t i = atomic_load_explicit(&jvt_all.by_fd[si->si_fd], memory_order_acquire);
        if (!i || i > JT_MAX)
            return 0;
        jvt_thread *t = &jvt_all.threads[i - 1];
        *pt = &t->perf;
        return atomic_load_explicit(&t->serial, memory_order_relaxed);
    }
    return 0;
}

void jvm_threads_stop(void)
{
    for (uint32_t i = 0; i < jvt_all.n; i++)
        jvt_disarm(&jvt_all.threads[i], false);
    jvt_all.on = false;
}

void jvm_threads_free(void)
{
    for (uint32_t i = 0; i < jvt_all.n; i++)
        if (jvt_all.threads[i].perf.fd >= 0) {
            perf_thread_close(&jvt_all.threads[i].perf);
            jvt_all.threads[i].perf.fd = -1;
        }
    jvt_all.n = 0;
    jvt_all.armed = 0;
}

void jvm_threads_counts(uint32_t *seen, uint32_t *armed)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < jvt_all.n; i++)
        s += !jvt_all.threads[i].java;
    *seen = s;
    *armed = jvt_all.armed;
}
