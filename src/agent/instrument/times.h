/* times.h — cpu=times' engine: the Tracker natives behind every instrumented
 * method's entry and exit, per-thread shadow stacks and per-thread tables of
 * (call path -> calls, self time), and collecting those tables into the
 * model. Entry and exit take no lock and allocate only when a thread's
 * stack or table outgrows what it has. A session's tables are one
 * times_run, which the collector (collect_times.c) makes at its load and
 * retires at its end. */
#ifndef TIMES_H
#define TIMES_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"

struct vthread;

typedef struct times_run times_run;

/* A session's tables: its threads' paths of at most depth methods, and with thread=y its virtual
 * threads' names. NULL: out of memory. */
times_run *times_run_new(uint32_t depth, bool thread);
/* The natives record into r's tables from now on. */
void times_run_begin(times_run *r);
/* The session's end: the natives record no more (a thread's next call in a later session makes it a
 * new table); r is freed at the next retire, with what it holds (a Tracker call in flight at the
 * stop may still touch it), and the run retired before is freed now. r may be NULL. */
void times_run_retire(times_run *r);

void JNICALL times_enter(JNIEnv *jni, jclass cls, jint id);
/* Tracker.enterThis0 (classes a trace=exec session rewrote): times_enter, the receiver unused */
void JNICALL times_enter_this(JNIEnv *jni, jclass cls, jobject self, jint id);
void JNICALL times_exit(JNIEnv *jni, jclass cls, jint id);
/* blocking.c's wait callback (blocking_on_wait), on the thread that waited `ticks`. */
void times_waited(uint64_t ticks);

/* What the agent's own part of one timed call costs, measured on the
 * calling thread: enter and exit of one key, on a table of their own (r's
 * depth), many times over (the JNI calls around them, a few ns each, are
 * not in it). calls_ns: per call, the best of the rounds; empty_ns: what
 * such an empty call records as its own time. */
void times_calibrate(times_run *r, double *calls_ns, double *empty_ns);

/* Agent thread: replaces the model's cpu=times totals with r's current ones. */
void times_collect(times_run *r, model *m);
/* reset=y, after a report: the counts so far become the base the next times_collect subtracts. */
void times_run_rebase(times_run *r);
/* The model's method of an instrumented method's number (bci.h). */
method_id times_method_of(model *m, uint64_t key);

typedef struct times_stats {
    uint64_t threads, paths, calls, unmatched_exits, unwound, dropped;
    const char *clock;
} times_stats;
void times_get_stats(times_run *r, times_stats *o);

/* Virtual threads (on the carrier): a mount lends v's shadow stack to the
 * carrier's table in r, an unmount gives it back, free releases it at v's end. */
void times_run_mount(times_run *r, struct vthread *v);
void times_run_unmount(struct vthread *v);
void times_vthread_free(struct vthread *v);

#endif
