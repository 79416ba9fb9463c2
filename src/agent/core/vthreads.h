/* vthreads.h — virtual threads (JDK 21 and later) as threads of their own.
 *
 * When the JVM offers can_support_virtual_threads the agent asks for it, and
 * while a chosen collector has a vthread_* hook (collector.h) it turns on
 * VirtualThreadStart/End and HotSpot's VirtualThreadMount/Unmount extension
 * events. Each virtual thread then gets a record (struct vthread): a serial
 * from the same counter as platform threads, its Thread.threadId(), its name,
 * and one part per collector. A carrier knows which virtual thread it runs
 * now from its own record (thread_record_self.vthread, one initial-exec load:
 * vthreads_mounted), set at mount and cleared at unmount.
 *
 * The hooks, each on the carrier with the virtual thread mounted (so
 * vthreads_mounted() == v during all of them), in this order for a virtual
 * thread's life:
 *   vthread_start    first mount (VirtualThreadStart), then vthread_mount
 *   vthread_mount    each time it is mounted (also the first)
 *   vthread_unmount  each time it is unmounted (also the last), before
 *   vthread_end      its end (VirtualThreadEnd): the collector frees its part
 * A virtual thread already running when the events came on is registered at
 * its first mount or unmount seen (then with no vthread_start).
 *
 * Records never move and never go back to the C heap: an ended thread's
 * record is zeroed and reused for a later one, so reading one through a
 * stale reference is never a fault (its serial says whose it is). A record
 * is written only by the carrier it is mounted on (and the hooks' collector
 * parts only by their collector), so it needs no lock; mount and unmount are
 * O(1), no lock, no allocation. The JVMTI thread-local storage of the virtual
 * thread holds one word (thread_registry.h): THREAD_REGISTRY_VTHREAD | the
 * record's index << 32 | serial, so thread_registry_serial(jthread) works for
 * both kinds of thread. */
#ifndef VTHREADS_H
#define VTHREADS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "jvmti_vthreads.h"
#include "thread_record.h"

typedef struct vthread {
    _Atomic uint32_t serial;       /* 0: the record is free */
    uint32_t index;                /* the record's own place (vthreads_at) */
    uint64_t java_id;              /* Thread.threadId() */
    char *name;                    /* its name (malloc'ed) when it has one; NULL: unnamed ("") */
    uint32_t carrier;              /* serial of the carrier it is mounted on; 0: not mounted */
    bool started;                  /* its VirtualThreadStart was seen */
    bool ending;                   /* its VirtualThreadEnd came: the unmount hooks run for its last unmount */
    uint64_t mounted_at, unmounted_at; /* ticks (ticks.h) of its last mount and unmount; 0: none */
    /* each collector's part, made and freed by that collector */
    struct times_vstack *times;    /* times.c: its shadow stack */
    struct trace_vthread *trace;   /* collect_trace.c: its open calls */
    void *sampler;                 /* the CPU and wall samplers' */
    _Atomic uint32_t free_next;    /* on the free list: the next free record's index + 1 */
} vthread;

/* The virtual thread mounted on the calling thread (a carrier), or NULL. Safe in a signal handler. */
static inline struct vthread *vthreads_mounted(void) { return thread_record_self.vthread; }

/* Whether this JVM gave the agent can_support_virtual_threads (false on JDK 17, and until a session asked). */
bool vthreads_supported(void);
/* The record of a virtual thread (jthread), or NULL (a platform thread, or one never seen). */
vthread *vthreads_of(jthread thread);
/* The record at index (vthread.index, or from the thread's storage word), or NULL. */
vthread *vthreads_at(uint32_t index);
/* Its name for people: its own, else "virtual-<id>"; buf holds it when it is made here. */
const char *vthreads_name(const vthread *v, char *buf, size_t cap);
/* Records in use now, for the verbose log. */
uint32_t vthreads_live(void);

/* session.c: adds can_support_virtual_threads to caps when the JVM offers it. */
void vthreads_capabilities(jvmtiCapabilities *caps);
/* session.c, after AddCapabilities: whether caps were granted (reads the environment's). */
void vthreads_granted(void);
/* session.c: sets the two event callbacks in cb (when supported). */
void vthreads_callbacks(jvmti_vthreads_callbacks *cb);
/* A session's start (on: when a chosen collector has a vthread hook) and stop: the four events on or off. */
void vthreads_events(JNIEnv *jni, bool on);

#endif
