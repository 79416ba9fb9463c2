/* collectors.h — the list of the agent's collectors (collector.h) and the
 * loops its life cycle runs over those the options turn on: chosen once, by
 * collectors_choose, and called in the list's order. */
#ifndef COLLECTORS_H
#define COLLECTORS_H

#include "collector.h"

void collectors_choose(const agent_options *o);
jp_status collectors_capabilities(jvmtiCapabilities *caps);
void collectors_callbacks(jvmtiEventCallbacks *cb);
jp_status collectors_load(void);
void collectors_vm_init(JNIEnv *jni);
void collectors_thread_start(JNIEnv *jni, uint32_t serial);
void collectors_thread_end(JNIEnv *jni);
/* the agent thread's period: the shortest any collector asks for, else 100 ms */
unsigned collectors_period_ms(const agent_options *o);
void collectors_tick(model *m, JNIEnv *jni);
void collectors_poll(JNIEnv *jni);
void collectors_drain(model *m, JNIEnv *jni);
void collectors_before_report(model *m, JNIEnv *jni);
void collectors_describe(void);
void collectors_stop(JNIEnv *jni);
void collectors_unload(void);

#endif
