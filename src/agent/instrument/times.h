/* times.h — cpu=times: the Tracker natives behind every instrumented
 * method's entry and exit, per-thread shadow stacks and per-thread tables of
 * (call path -> calls, self time), and collecting those tables into the
 * model. Entry and exit take no lock and allocate only when a thread's
 * stack or table outgrows what it has. */
#ifndef TIMES_H
#define TIMES_H

#include <jni.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"

jp_status times_init(void);
void JNICALL times_enter(JNIEnv *jni, jclass cls, jint id);
/* Tracker.enterThis0 (classes a trace=exec session rewrote): times_enter, the receiver unused */
void JNICALL times_enter_this(JNIEnv *jni, jclass cls, jobject self, jint id);
void JNICALL times_exit(JNIEnv *jni, jclass cls, jint id);

/* Agent thread: replaces the model's cpu=times totals with the current ones. */
void times_collect(model *m);

typedef struct times_stats {
    uint64_t threads, paths, calls, unmatched_exits, unwound, dropped;
    const char *clock;
} times_stats;
void times_get_stats(times_stats *o);

#endif
