/* collect_trace.h — trace= (collect_trace.c): what other parts of the agent
 * call: jvmprof.Control.userEvent (control.c). The Tracker's
 * enter and exit natives are bound to the tracer by its session's start. */
#ifndef COLLECT_TRACE_H
#define COLLECT_TRACE_H

#include <jni.h>
#include <stdbool.h>

/* A user event with this message; false if trace=user is off. */
bool trace_user_event(JNIEnv *jni, jstring message);

#endif
