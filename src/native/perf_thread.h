/* perf_thread.h — one thread's perf_event: opened on an OS thread to signal it at each overflow, and, with
 * kernel callchains, the mmap ring the kernel writes each sample's callchain into, read in the signal handler
 * (async-signal-safe: no malloc, no lock). Also the table from a signal's si_fd to its perf_thread. */
#ifndef JP_NATIVE_PERF_THREAD_H
#define JP_NATIVE_PERF_THREAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf_spec.h"

/* The most kernel frames a sample carries (the kernel's sample_max_stack). */
#define PERF_THREAD_MAX_FRAMES 127

/* What a thread's ring has held: written only by perf_thread_kernel_frames (the thread's signal handler), read
 * anywhere (relaxed: figures for a report). */
typedef struct perf_ring_stats {
    _Atomic uint64_t samples;   /* PERF_RECORD_SAMPLE records read */
    _Atomic uint64_t skipped;   /* samples read but older than the newest one of their read (signals merged) */
    _Atomic uint64_t lost;      /* samples the kernel dropped, the ring being full (PERF_RECORD_LOST's counts) */
    _Atomic uint64_t throttles; /* PERF_RECORD_THROTTLE records: the kernel slowed the event down */
    _Atomic uint64_t bad;       /* reads that found the ring inconsistent (a record past data_head, a bad size) */
    _Atomic uint64_t overrun;   /* reads that found the ring (nearly) full: the kernel may have dropped the sample
                                   of this signal, so the newest one there may be older; none was taken */
} perf_ring_stats;

typedef struct perf_thread {
    int fd;
    void *ring;        /* the mmap'ed control page and data pages, or NULL */
    size_t ring_bytes;
    bool kernel_chain; /* samples carry the kernel's callchain, read from ring */
    /* added to the task's fields: */
    pid_t tid;         /* the OS thread the event counts and signals */
    bool user_only;    /* the kernel refused to count kernel mode: exclude_kernel = 1 (see perf_thread_open) */
    perf_ring_stats stats;
} perf_thread;

/* Opens spec on OS thread tid with the given period (ns for time_based, else events), sending signo to that
 * thread at each overflow (O_ASYNC, F_SETSIG, F_SETOWN_EX) and enables it. kernel_chain: asks for
 * PERF_SAMPLE_CALLCHAIN with exclude_callchain_user = 1 and maps a ring of 1 + 2 pages (callchains of at most
 * PERF_THREAD_MAX_FRAMES entries) to read it. When the kernel refuses (EACCES/EPERM: perf_event_paranoid > 1
 * without CAP_PERFMON, or the locked-memory limit for the ring), it retries without kernel callchains and sets
 * *kernel_refused to that errno (else 0), so the caller can print one line. When even counting kernel mode is
 * refused (unprivileged, paranoid > 1), the event is opened for user mode only (t->user_only, not for an
 * event of the kernel's: perf_spec_user_only_ok): the task clock then takes no sample while the thread runs in the kernel, its system time is not
 * sampled, and a caller that wants it should close t and use another timer. Returns 0 or -errno (t->fd = -1). */
int perf_thread_open(perf_thread *t, pid_t tid, const perf_spec *spec, uint64_t period, int signo, bool kernel_chain,
                     int *kernel_refused);

/* Async-signal-safe, no malloc or lock: the kernel frames (addresses, leaf first, PERF_CONTEXT_* markers dropped)
 * of the newest sample in t's ring, consuming the ring up to it (data_tail = data_head); returns how many (0 if
 * none, or t has no ring). Call it only on t's own thread (in its signal handler): the ring has one reader.
 * The newest sample is this signal's: the kernel writes the record at the overflow, before it queues the signal,
 * which the thread takes at its next return to user mode. SIGPROF is not queued twice, so when two overflows come
 * before the handler runs (a long stretch in the kernel), one signal stands for both: the older sample is consumed
 * unreturned and counted in stats.skipped (a caller may weigh its sample by 1 + what the call added to it). */
int perf_thread_kernel_frames(perf_thread *t, uint64_t *out, int max);

/* Disables, unmaps and closes; t->fd becomes -1. Not while t's thread may be in perf_thread_kernel_frames. */
void perf_thread_close(perf_thread *t);

/* The ring's parser, apart for tests: ring is a mapping of ring_bytes laid out as perf's (struct
 * perf_event_mmap_page, then data_size bytes of records at data_offset; both read from the page and checked to lie
 * within ring_bytes, else page size and ring_bytes - page size). Reads the records from data_tail to data_head
 * (wrapping at the data's end; a record that is truncated, overruns data_head or has a size below 8 ends the read
 * and counts in stats->bad), copies the newest PERF_RECORD_SAMPLE's kernel callchain (sample_type =
 * PERF_SAMPLE_CALLCHAIN alone) into out, sets data_tail = data_head, and returns how many frames. When less room
 * than the longest sample (or half the data) was left free, the kernel may have dropped the newest samples: none is
 * taken (stats->overrun). So call it at every signal of the event, also for a sample the caller discards, or the
 * ring fills. Never reads outside [ring, ring + ring_bytes). */
int perf_ring_take_chain(void *ring, size_t ring_bytes, size_t page_size, perf_ring_stats *stats, uint64_t *out,
                         int max);

/* si_fd to perf_thread, for the signal handler: a fixed table indexed by fd (PERF_THREADS_BY_FD_MAX entries),
 * set and cleared by the agent, read with atomics. set returns false when fd is out of the table's range (that
 * thread's samples then get no kernel frames). clear clears the entry only if it still holds t. get returns the
 * entry only if its thread is tid (a signal of an fd closed meanwhile and its number reused by another thread's
 * event must not read that thread's ring), else NULL. */
#define PERF_THREADS_BY_FD_MAX 65536
bool perf_threads_by_fd_set(int fd, perf_thread *t);
void perf_threads_by_fd_clear(int fd, perf_thread *t);
perf_thread *perf_threads_by_fd_get(int fd, pid_t tid);

#endif
