/* thread_record.h — the one record of what the agent keeps per Java thread:
 * its serial and OS thread id, and each collector's part. The thread reaches
 * its own record through one initial-exec thread-local, thread_record_self:
 * a %fs-relative load, no __tls_get_addr, no lazy allocation, so it is safe
 * in a signal handler and costs the Tracker natives (cpu=times runs them on
 * every call) one load.
 *
 * Life cycle (the rules every part follows):
 *   storage  static TLS: it exists, zeroed, for as long as the OS thread does
 *            (for threads already running when the library is loaded, glibc
 *            sets up their static TLS at dlopen). Nothing allocates or frees
 *            the record itself.
 *   begin    thread_registry_start, on the thread itself (ThreadStart, or the
 *            VMInit thread), sets serial and tid, then collectors' thread_start
 *            fill their parts. Threads running before VM init other than the
 *            VMInit thread are registered from the VMInit thread: their serial
 *            is filled in the first time they ask for it (thread_registry_serial
 *            (NULL)). Parts a collector needs only on use (cpu=times' tables,
 *            alloc_exact's table) it makes on first use, on the thread.
 *   end      thread_registry_end, on the thread itself (ThreadEnd): each
 *            collector's thread_end releases its part (what a signal handler
 *            reads it clears first, behind a signal fence), then the whole
 *            record is zeroed. What a collector's part points to and must
 *            outlive the thread (cpu=times' tables, alloc_exact's table) the
 *            collector keeps on a list of its own; the record only forgets it.
 *   readers  only the thread itself, and its signal handlers, read or write its
 *            record. Another thread (the agent thread, a sampler) never does:
 *            a record lives in its thread's TLS block, freed with the thread.
 *            What other threads need goes elsewhere: the serial and tid in the
 *            thread's JVMTI thread-local storage (thread_registry.c), as a
 *            value, not a pointer here, so a reader never races with the
 *            thread's exit; tables on the collector's own lists.
 *
 * Each part belongs to one collector, which alone reads and writes it; the
 * types of the parts held by pointer stay private to their files. The record
 * is in static TLS, which a dlopen'ed library takes from glibc's small
 * surplus: keep it small (thread_record.c asserts a bound). */
#ifndef THREAD_RECORD_H
#define THREAD_RECORD_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* collect_alloc_exact.c's part */
typedef struct thread_record_alloc {
    struct ax_table *table;   /* the thread's table, made or adopted on its first allocation */
    bool priming;             /* the main thread's allocations in alloc_exact_prime */
} thread_record_alloc;

/* blocking.c's part: when the thread's pending monitor contention and wait
 * began, in ticks (ticks.h); 0: none. */
typedef struct thread_record_blocking {
    uint64_t enter_at, wait_at;
} thread_record_blocking;

typedef struct thread_record {
    uint32_t serial;                /* 0: not registered (yet) */
    uint32_t tid;                   /* OS thread id; 0 if registered from another thread */
    JNIEnv *jni;                    /* the thread's JNIEnv, for the async sampler's handler; NULL: not begun */
    struct times_thread *times;     /* times.c: shadow stack and call paths, made on first entry */
    uint32_t times_gen;             /* times.c: the session they belong to */
    struct trace_thread *trace;     /* collect_trace.c: the thread's trace producer, made at its first event */
    thread_record_alloc alloc;
    thread_record_blocking blocking;
    struct vthread *vthread;        /* vthreads.c: the virtual thread mounted on it now (a carrier); NULL: none */
    bool adopted;                   /* serial, tid and jni filled by thread_record_adopt, not begun */
    bool ended;                     /* thread_record_end ran: the thread is past its end (until a begin) */
} thread_record;

/* The calling thread's record. */
extern _Thread_local thread_record thread_record_self __attribute__((tls_model("initial-exec")));

/* thread_registry.c, on the thread itself: the record's serial, tid and
 * JNIEnv, before the collectors' thread_start (whatever collectors run: a
 * session started later samples the thread through them). */
void thread_record_begin(uint32_t serial, uint32_t tid, JNIEnv *jni);
/* thread_registry.c, on the thread itself, after the collectors' thread_end: the record zeroed, ended set. */
void thread_record_end(void);

/* Threads already running when the agent registered them from another thread
 * (the JDK's own, started before VM init, or before the ThreadStart events
 * were on) never begin their record themselves. The registering thread
 * leaves what their record needs here, by OS thread id (found through
 * vmstructs.h): thread_record_foreign (false when the table is full). */
bool thread_record_foreign(uint32_t tid, uint32_t serial, JNIEnv *jni);
/* The thread with that OS thread id ended: its entry goes. */
void thread_record_foreign_forget(uint32_t tid);
/* On the thread itself, async-signal-safe (the sampler's handler, finding no
 * JNIEnv in the record): fills serial, tid and jni from the thread's entry,
 * marked adopted (its ThreadStart, if it comes, still begins the record).
 * False when there is none. */
bool thread_record_adopt(void);

#endif
