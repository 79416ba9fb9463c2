/* trace_vm_events.h — the events of trace= that the JVM reports through
 * JVMTI (trace_vm_events.c): collections, object deaths, allocations, class
 * loads and unloads, monitor contention and waits. collect_trace.c drives it
 * through its session. */
#ifndef TRACE_VM_EVENTS_H
#define TRACE_VM_EVENTS_H

#include <jni.h>

#include "../common/jp_error.h"

/* At a session's load (Agent_OnLoad for the one given there): the trace's
 * own JVMTI environment with what `what` (OPTIONS_TRACE_*) needs. */
jp_status trace_vm_events_load(unsigned what);
/* The session's start and stop: the events on and off (the start of the
 * first that traces collections registers jvmprof.GcEvents). */
jp_status trace_vm_events_start(JNIEnv *jni, unsigned what);
void trace_vm_events_stop(JNIEnv *jni);

#endif
