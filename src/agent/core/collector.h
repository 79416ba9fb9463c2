/* collector.h — one capability of the agent (CPU sampling, wall-clock
 * sampling, monitors, exact times, allocation sites, heap dumps ...) as one
 * table of functions, so that the agent's life (load, VM init, threads
 * starting and ending, the agent thread's rounds, reports, VM death) is a loop
 * over one list (collectors.h) instead of a chain of ifs in every file.
 * Adding a capability is one file that defines its `collector` and one row in
 * collectors.c.
 *
 * Every member but name and wanted may be NULL. Every hook but wanted,
 * callbacks and unload is given the session (session_ctx.h): its options,
 * its model (s->model, which the agent thread alone touches: tick, drain,
 * before_report) and the collector's part of it. When each one runs:
 *   wanted         at load: whether the options turn the collector on
 *   capabilities   Agent_OnLoad, before AddCapabilities: the JVMTI capabilities it needs
 *   callbacks      Agent_OnLoad: sets the JVMTI callbacks it owns (each passes the gate, gate.h)
 *   load           once the capabilities are there: for the session given at load, in Agent_OnLoad
 *                  (what must happen before VM init); for a later one, in session_start. On failure,
 *                  either the line that says why in err (not logged: the session prints or throws it;
 *                  JP_ERR_ARG for an output that cannot be written, which force=y survives at load), or
 *                  err left empty and the line logged itself
 *   start          the session's start, once the running threads are registered: its events on; for the
 *                  session given at load in VMInit (on that thread), for a later one in session_start
 *   thread_start   on a Java thread itself as it starts (and the VMInit thread), with its serial:
 *                  sets up the collector's part of the thread's record (thread_record.h), if any
 *   thread_end     on a Java thread itself as it ends: releases that part (the record is then zeroed)
 *   vthread_start, vthread_mount, vthread_unmount, vthread_end
 *                  a virtual thread's start, mount, unmount and end (vthreads.h says in what order), on
 *                  its carrier with it mounted: the collector's part of its record (struct vthread). A
 *                  collector with any of them turns virtual-thread support on (JDK 21 and later); mount
 *                  and unmount run on every park and unpark: O(1), no lock, no allocation but the first
 *   period_ms      how often the agent thread calls tick and drains (the shortest asked for wins;
 *                  100 ms when none asks)
 *   tick           agent thread, once a period, before the drain (a sampling round)
 *   poll           agent thread, each time it wakes (at least every 50 ms)
 *   drain          agent thread, once a period and before a report: what it gathered, into the model
 *   before_report  agent thread (or VM death), before a report is written: brings the model up to date
 *   report         agent thread (or VM death), once file='s output of the report is made (outputs.h's
 *                  jp_report: written, or kept in memory for a collector that writes the file), before the
 *                  other outputs: what the collector adds to the report (heap=dump: the heap dump is the
 *                  file; heap=all: the dump after the report, in the same file). On failure it has logged
 *                  why and returns the status: the report failed
 *   dump_sites     agent thread (or VM death), before a heap dump of a session that runs it: the live
 *                  objects it tagged and their trace serials, with those traces' frames
 *                  (heap_dump_sites.h), so that the dump gives each its allocation trace
 *   describe       after a report: its lines for the verbose log (jp_log_info)
 *   cost           after a report's describe lines: the collector's part of the "cost:" line ("monitor
 *                  callbacks 1.2 ms"), put in out (joined with "; " after the agent thread's own)
 *   interval_reset reset=y, agent thread, after a report (the model's counts are reset by the
 *                  model): what it counts outside the model starts again from 0
 *   stop           the session's stop (session_stop, VM death), before its last report: its events off
 *   end            after a stopped session's last report (not at VM death), once its events are off and
 *                  no callback is in flight: frees or resets what the session gathered and what its
 *                  options set, so that a later session, with other options, starts clean
 *   unload         Agent_OnUnload, for every collector of the list (whether or not a session chose it):
 *                  what must not outlive the library (a signal handler)
 *
 * at_load_only: the collector must see the JVM from its start (before VM init), so it can only be in
 * the session given at load (-agentpath); session_start refuses it with a line naming why.
 */
#ifndef COLLECTOR_H
#define COLLECTOR_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"
#include "../../options/options.h"
#include "session_ctx.h"

struct vthread;
struct jp_report;
struct heap_dump_sites;

typedef struct collector {
    const char *name;          /* the option that turns it on: "cpu=times" */
    const char *engine;        /* what its VM init starts, for "cpu=times disabled: bytecode
                                * instrumentation could not start"; NULL: "it" */
    bool (*wanted)(const agent_options *o);
    jp_status (*capabilities)(jp_session *s, jvmtiCapabilities *caps);
    void (*callbacks)(jvmtiEventCallbacks *cb);
    jp_status (*load)(jp_session *s, char *err, size_t errlen);
    const char *at_load_only;  /* NULL, or why it can only run in the session given at load */
    jp_status (*start)(jp_session *s, JNIEnv *jni);
    void (*thread_start)(jp_session *s, JNIEnv *jni, uint32_t serial);
    void (*thread_end)(jp_session *s, JNIEnv *jni);
    void (*vthread_start)(jp_session *s, JNIEnv *jni, struct vthread *v);
    void (*vthread_mount)(jp_session *s, JNIEnv *jni, struct vthread *v);
    void (*vthread_unmount)(jp_session *s, JNIEnv *jni, struct vthread *v);
    void (*vthread_end)(jp_session *s, JNIEnv *jni, struct vthread *v);
    unsigned (*period_ms)(const jp_session *s);
    void (*tick)(jp_session *s, JNIEnv *jni);
    void (*poll)(jp_session *s, JNIEnv *jni);
    void (*drain)(jp_session *s, JNIEnv *jni);
    void (*before_report)(jp_session *s, JNIEnv *jni);
    jp_status (*report)(jp_session *s, JNIEnv *jni, struct jp_report *r);
    void (*dump_sites)(jp_session *s, JNIEnv *jni, struct heap_dump_sites *out);
    void (*describe)(jp_session *s);
    void (*cost)(jp_session *s, char *out, size_t len);
    void (*interval_reset)(jp_session *s);
    void (*stop)(jp_session *s, JNIEnv *jni);
    void (*end)(jp_session *s, JNIEnv *jni);
    void (*unload)(void);
} collector;

/* The collectors, one per file (collect_*.c and the modules that own them). */
extern const collector cpu_async_collector;   /* cpu=samples (sampler=async) */
extern const collector cpu_jvmti_collector;   /* cpu=samples,sampler=jvmti */
extern const collector wall_collector;        /* wall= */
extern const collector sampled_vthreads_collector; /* their virtual threads (sampler_vthreads.c) */
extern const collector monitor_collector;     /* monitor=y */
extern const collector times_collector;       /* cpu=times */
extern const collector trace_collector;       /* trace= */
extern const collector alloc_sampled_collector; /* heap=sites */
extern const collector alloc_exact_collector; /* heap=sites,alloc_interval=0 */
extern const collector alloc_counts_collector; /* heap=sites,alloc_count=site (collect_alloc_counts.c) */
extern const collector heap_dump_collector;   /* heap=dump, heap=all (heap/collect_heap_dump.c) */
extern const collector trigger_collector;     /* trigger= (core/triggers.c) */

#endif
