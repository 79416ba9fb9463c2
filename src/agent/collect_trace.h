/* collect_trace.h — trace= (collect_trace.c): the entry points other parts
 * of the agent call: the Tracker's natives when trace=exec is on
 * (tracker.c), and jvmprof.Control.userEvent (control.c). */
#ifndef COLLECT_TRACE_H
#define COLLECT_TRACE_H

#include <jni.h>
#include <stdbool.h>

/* Whether trace=exec (or exec:light) is on in this session. */
bool trace_exec_on(void);
/* A method's entry and exit, on the calling thread (the Tracker's enter0 and exit0). */
void trace_exec_enter(JNIEnv *jni, jint id);
void trace_exec_exit(JNIEnv *jni, jint id, bool thrown);
/* A user event with this message; false if trace=user is off. */
bool trace_user_event(JNIEnv *jni, jstring message);

#endif
