/* monitor.h — monitor=y: contended monitor enter/entered and wait/waited.
 * The "begin" callbacks stamp the time in the thread's record
 * (thread_record.h); the "end" callbacks capture the stack and the
 * monitor's class and queue one event with the time spent. No global lock;
 * names are resolved later by the agent thread. */
#ifndef MONITOR_H
#define MONITOR_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

void monitor_contended_enter(void);
void monitor_contended_entered(JNIEnv *jni, jthread thread, jobject object);
void monitor_wait(void);
void monitor_waited(JNIEnv *jni, jthread thread, jobject object);
/* Time spent recording events, summed over all threads (for the cost line). */
uint64_t monitor_cost_ns(void);

#endif
