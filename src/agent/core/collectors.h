/* collectors.h — the list of the agent's collectors (collector.h) and the
 * loops a session's life (session.h) runs over those its options turn on:
 * chosen by collectors_choose when a session begins, and called in the
 * list's order. */
#ifndef COLLECTORS_H
#define COLLECTORS_H

#include "collector.h"

struct heap_dump_sites;

/* The collectors s's options turn on; from now until collectors_end every hook gets s. */
void collectors_choose(jp_session *s);
jp_status collectors_capabilities(jvmtiCapabilities *caps);
void collectors_callbacks(jvmtiEventCallbacks *cb);
/* Each chosen collector's load; on failure its status and, if it gave one, the line in err ("" if not:
 * it logged its own). */
jp_status collectors_load(char *err, size_t errlen);
/* A collector the options turn on that can only run in the session given at
 * load (collector.h's at_load_only), or NULL. */
const collector *collectors_at_load_only(const agent_options *o);
/* From now on (until collectors_end) the chosen collectors' thread_start
 * and thread_end run for threads that start and end: only once their
 * capabilities and load have succeeded (a session being prepared has not
 * installed what thread_start arms, e.g. the sampler's signal handler). */
void collectors_admit_threads(void);
void collectors_start(JNIEnv *jni);
void collectors_thread_start(JNIEnv *jni, uint32_t serial);
void collectors_thread_end(JNIEnv *jni);
/* Whether a chosen collector has a vthread_* hook (it needs virtual threads told apart). */
bool collectors_want_vthreads(void);
/* The chosen collectors' vthread_* hooks (vthreads.c, on the carrier; only between
 * collectors_admit_threads and collectors_end, as thread_start). */
void collectors_vthread_start(JNIEnv *jni, struct vthread *v);
void collectors_vthread_mount(JNIEnv *jni, struct vthread *v);
void collectors_vthread_unmount(JNIEnv *jni, struct vthread *v);
void collectors_vthread_end(JNIEnv *jni, struct vthread *v);
/* the agent thread's period: the shortest any collector asks for, else 100 ms */
unsigned collectors_period_ms(void);
void collectors_tick(JNIEnv *jni);
void collectors_poll(JNIEnv *jni);
void collectors_drain(JNIEnv *jni);
void collectors_before_report(JNIEnv *jni);
/* Each chosen collector's report hook, in order; the first failure's status (the others still run). */
jp_status collectors_report(JNIEnv *jni, struct jp_report *r);
/* Each chosen collector's dump_sites hook (where the model may be touched: the agent thread, or VM death
 * after it stopped), into out; false when no chosen collector has one (out untouched). */
bool collectors_dump_sites(JNIEnv *jni, struct heap_dump_sites *out);
void collectors_describe(void);
/* The chosen collectors' parts of the cost line, each after "; ", in out ("" if none has one). */
void collectors_cost(char *out, size_t len);
void collectors_interval_reset(void);
/* The chosen collectors' stop: sources, those that gather into buffers the agent thread drains (the
 * samplers), which are stopped first so that one last drain can hand what they took to those still
 * running (a trace= open takes the samples inside its calls); else the others. */
void collectors_stop(JNIEnv *jni, bool sources);
/* Each chosen collector's end, then none is chosen until collectors_choose. */
void collectors_end(JNIEnv *jni);
void collectors_unload(void);

#endif
