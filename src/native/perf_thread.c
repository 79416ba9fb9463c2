/* perf_thread.c — owns one thread's perf_event (its open, with the fallbacks when the kernel refuses kernel
 * callchains or kernel mode, and its close), the parse of its mmap ring in the signal handler, and the table from
 * a signal's si_fd to its perf_thread. */
#include "perf_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

/* Data pages of a ring (a power of two): 8 KiB holds 7 samples of the longest callchain. */
#define PT_DATA_PAGES 2
/* The longest sample record: header, nr, the frames and a few PERF_CONTEXT_* markers. */
#define PT_MAX_RECORD (8 + 8 + 8 * (PERF_THREAD_MAX_FRAMES + 8))

static _Atomic(perf_thread *) pt_by_fd[PERF_THREADS_BY_FD_MAX];

static int pt_open_attr(struct perf_event_attr *a, pid_t tid)
{
    return (int)syscall(SYS_perf_event_open, a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int perf_thread_open(perf_thread *t, pid_t tid, const perf_spec *spec, uint64_t period, int signo, bool kernel_chain,
                     int *kernel_refused)
{
    memset(t, 0, sizeof *t);
    t->fd = -1;
    t->tid = tid;
    if (kernel_refused)
        *kernel_refused = 0;
    struct perf_event_attr a;
    perf_spec_attr(spec, period, &a);
    int fd = -1, chain_err = 0;
    if (kernel_chain) {
        a.sample_type = PERF_SAMPLE_CALLCHAIN;
        a.exclude_callchain_user = 1;
        a.sample_max_stack = PERF_THREAD_MAX_FRAMES;
        fd = pt_open_attr(&a, tid);
        if (fd < 0) {
            chain_err = errno;
        } else {
            long page = sysconf(_SC_PAGESIZE);
            size_t bytes = (size_t)page * (1 + PT_DATA_PAGES);
            void *ring = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (ring == MAP_FAILED) {
                chain_err = errno; /* EPERM: past perf_event_mlock_kb and RLIMIT_MEMLOCK */
                close(fd);
                fd = -1;
            } else {
                t->ring = ring;
                t->ring_bytes = bytes;
                t->kernel_chain = true;
            }
        }
    }
    if (fd < 0) {
        a.sample_type = 0;
        a.exclude_callchain_user = 0;
        a.sample_max_stack = 0;
        fd = pt_open_attr(&a, tid);
        if (fd < 0 && (errno == EACCES || errno == EPERM) && perf_spec_user_only_ok(spec)) {
            a.exclude_kernel = 1;
            fd = pt_open_attr(&a, tid);
            t->user_only = fd >= 0;
        }
        if (fd < 0)
            return -errno;
        if (kernel_chain && kernel_refused)
            *kernel_refused = chain_err;
    }
    struct f_owner_ex owner = { F_OWNER_TID, tid };
    if (fcntl(fd, F_SETFL, O_ASYNC) != 0 || fcntl(fd, F_SETSIG, signo) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        int e = errno;
        t->fd = fd;
        perf_thread_close(t);
        t->tid = tid;
        return -e;
    }
    t->fd = fd;
    return 0;
}

void perf_thread_close(perf_thread *t)
{
    if (t->fd >= 0) {
        ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0);
        if (t->ring)
            munmap(t->ring, t->ring_bytes);
        close(t->fd);
    }
    t->fd = -1;
    t->ring = NULL;
    t->ring_bytes = 0;
    t->kernel_chain = false;
}

/* n bytes at pos (a running offset) of the data area of size (a power of two), wrapping at its end. */
static void pt_copy(const unsigned char *data, uint64_t size, uint64_t pos, void *dst, size_t n)
{
    uint64_t at = pos & (size - 1);
    size_t first = n < size - at ? n : (size_t)(size - at);
    memcpy(dst, data + at, first);
    if (first < n)
        memcpy((unsigned char *)dst + first, data, n - first);
}

static uint64_t pt_u64(const unsigned char *data, uint64_t size, uint64_t pos)
{
    uint64_t v;
    pt_copy(data, size, pos, &v, sizeof v);
    return v;
}

int perf_ring_take_chain(void *ring, size_t ring_bytes, size_t page_size, perf_ring_stats *stats, uint64_t *out,
                         int max)
{
    perf_ring_stats none;
    if (!stats) {
        memset(&none, 0, sizeof none);
        stats = &none;
    }
    struct perf_event_mmap_page *pg = ring;
    if (!ring || ring_bytes < sizeof *pg)
        return 0;
    uint64_t off = __atomic_load_n(&pg->data_offset, __ATOMIC_RELAXED);
    uint64_t size = __atomic_load_n(&pg->data_size, __ATOMIC_RELAXED);
    if (off == 0 && size == 0) { /* a kernel older than 4.1 */
        off = page_size;
        size = ring_bytes > page_size ? ring_bytes - page_size : 0;
    }
    if (off < sizeof *pg || off > ring_bytes || size > ring_bytes - off || size < 8 || (size & (size - 1))) {
        atomic_fetch_add_explicit(&stats->bad, 1, memory_order_relaxed);
        return 0;
    }
    const unsigned char *data = (const unsigned char *)ring + off;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
    uint64_t last = 0, last_size = 0, samples = 0;
    bool have = false;
    if (head - tail > size) {
        atomic_fetch_add_explicit(&stats->bad, 1, memory_order_relaxed);
    } else {
        uint64_t pos = tail;
        while (head - pos >= sizeof(struct perf_event_header)) {
            struct perf_event_header h;
            pt_copy(data, size, pos, &h, sizeof h);
            if (h.size < sizeof h || h.size > head - pos) {
                atomic_fetch_add_explicit(&stats->bad, 1, memory_order_relaxed);
                break;
            }
            if (h.type == PERF_RECORD_SAMPLE) {
                last = pos;
                last_size = h.size;
                have = true;
                samples++;
            } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
                atomic_fetch_add_explicit(&stats->lost, pt_u64(data, size, pos + sizeof h + 8), memory_order_relaxed);
            } else if (h.type == PERF_RECORD_THROTTLE) {
                atomic_fetch_add_explicit(&stats->throttles, 1, memory_order_relaxed);
            }
            pos += h.size;
        }
        if (pos != head && head - pos < sizeof(struct perf_event_header))
            atomic_fetch_add_explicit(&stats->bad, 1, memory_order_relaxed);
    }
    uint64_t room = size - (head - tail), need = PT_MAX_RECORD < size / 2 ? PT_MAX_RECORD : size / 2;
    if (have && head - tail <= size && room < need) {
        atomic_fetch_add_explicit(&stats->overrun, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&stats->samples, samples, memory_order_relaxed);
        atomic_fetch_add_explicit(&stats->skipped, samples, memory_order_relaxed);
        have = false;
    }
    int n = 0;
    if (have) {
        atomic_fetch_add_explicit(&stats->samples, samples, memory_order_relaxed);
        atomic_fetch_add_explicit(&stats->skipped, samples - 1, memory_order_relaxed);
        uint64_t nr = last_size >= 16 ? pt_u64(data, size, last + 8) : 0;
        if (last_size < 16 || nr > (last_size - 16) / 8) {
            atomic_fetch_add_explicit(&stats->bad, 1, memory_order_relaxed);
            nr = 0;
        }
        /* one copy (two where it wraps), then the kernel's entries picked out */
        uint64_t chain[PERF_THREAD_MAX_FRAMES + 8];
        size_t take = nr < sizeof chain / sizeof chain[0] ? (size_t)nr : sizeof chain / sizeof chain[0];
        pt_copy(data, size, last + 16, chain, take * sizeof chain[0]);
        uint64_t context = 0;
        for (size_t i = 0; i < take && n < max; i++) {
            if (chain[i] >= (uint64_t)PERF_CONTEXT_MAX)
                context = chain[i];
            else if (context == (uint64_t)PERF_CONTEXT_KERNEL)
                out[n++] = chain[i];
        }
    }
    /* the records are read: the kernel may write over them */
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return n;
}

int perf_thread_kernel_frames(perf_thread *t, uint64_t *out, int max)
{
    if (!t->ring || !t->kernel_chain)
        return 0;
    return perf_ring_take_chain(t->ring, t->ring_bytes, t->ring_bytes / (1 + PT_DATA_PAGES), &t->stats, out, max);
}

bool perf_threads_by_fd_set(int fd, perf_thread *t)
{
    if (fd < 0 || fd >= PERF_THREADS_BY_FD_MAX)
        return false;
    atomic_store_explicit(&pt_by_fd[fd], t, memory_order_release);
    return true;
}

void perf_threads_by_fd_clear(int fd, perf_thread *t)
{
    if (fd < 0 || fd >= PERF_THREADS_BY_FD_MAX)
        return;
    perf_thread *cur = t;
    atomic_compare_exchange_strong(&pt_by_fd[fd], &cur, NULL);
}

perf_thread *perf_threads_by_fd_get(int fd, pid_t tid)
{
    if (fd < 0 || fd >= PERF_THREADS_BY_FD_MAX)
        return NULL;
    perf_thread *t = atomic_load_explicit(&pt_by_fd[fd], memory_order_acquire);
    return t && t->tid == tid ? t : NULL;
}
