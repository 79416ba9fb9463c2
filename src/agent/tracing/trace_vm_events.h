/* trace_vm_events.h — the events of trace= that the JVM reports through
 * JVMTI (trace_vm_events.c): collections, object deaths, allocations, class
 * loads and unloads, monitor contention and waits. collect_trace.c drives it
 * through its session. */
#ifndef TRACE_VM_EVENTS_H
#define TRACE_VM_EVENTS_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "trace_session.h"

/* At a session's load (Agent_OnLoad for the one given there), its trace
 * open: the trace's own JVMTI environment with what `what`
 * (OPTIONS_TRACE_*) and trace=exec's receivers (the collections' epoch)
 * need. */
jp_status trace_vm_events_load(unsigned what, bool receivers);
/* Before a session with trace=alloc is set up: JP_OK if the trace's
 * environment can have JVMTI's allocation sampler; else why not (who holds
 * it) in one line. */
jp_status trace_vm_events_sampler_check(char *why, size_t len);
/* The session's start (its trace open: trace_live) and stop: the events on
 * and off (the start of the first that traces collections registers
 * jvmprof.GcEvents). */
jp_status trace_vm_events_start(JNIEnv *jni, unsigned what);
void trace_vm_events_stop(JNIEnv *jni);
/* After a stopped session's last report, no callback in flight: what the
 * session held that another may need (JVMTI's allocation sampler) given back. */
void trace_vm_events_end(void);
/* Before a session that traces collections stops (its events still on):
 * waits (up to 2 s) for the JVM's notifications of its last collections,
 * and writes what is known of those that never came. */
void trace_vm_events_settle(void);
/* An instance method's receiver (trace=exec): its object id, from the
 * cache when no collection can have moved it since, else its tag (given one
 * if it has none). 0 if it cannot be named. */
uint64_t trace_receiver_id(const trace_state *ts, jobject self, trace_receivers *c);

/* jvmprof.Control.objectReferences, on the calling thread: every object
 * reachable from the roots, with its references, into the trace. false if
 * no trace runs (or it was cut short: out of memory, tracelimit=). */
bool trace_object_references(JNIEnv *jni);

#endif
