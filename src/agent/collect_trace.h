/* collect_trace.h — trace= (collect_trace.c): the entry points other parts
 * of the agent call: jvmprof.Control.userEvent (control.c). The Tracker's
 * enter and exit natives are bound to the tracer by its session's start. */
#ifndef COLLECT_TRACE_H
#define COLLECT_TRACE_H

#include <jni.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A user event with this message; false if trace=user is off. */
bool trace_user_event(JNIEnv *jni, jstring message);

/* For trace_vm_events.c, the events the JVM reports to the trace's own
 * JVMTI environment: */
/* Whether a session traces and any of what (OPTIONS_TRACE_*) is on. */
bool trace_wants(unsigned what);
/* The trace's clock: ns since it began. */
uint64_t trace_now_ns(void);
/* Whether the calling thread is one the trace follows (a Java thread of the
 * program: not the agent's, not the JVM's hidden ones). */
bool trace_thread_followed(JNIEnv *jni);
/* A timed event of the calling Java thread, now (false: dropped, or not a
 * thread the trace follows). */
bool trace_thread_event(JNIEnv *jni, unsigned type, const uint64_t *fields);
/* A timed event of no thread (thread 0), at time_ns: any thread, even a
 * collection's callback with the world stopped (a mutex, no JVMTI, no JNI). */
bool trace_vm_event(unsigned type, uint64_t time_ns, const uint64_t *fields);
/* The ids of a class (by its name in internal form) and of a string, their
 * metadata written the first time; 0 between sessions. */
uint32_t trace_class_id(const char *internal, size_t n);
uint32_t trace_string_id(const char *s, size_t n);
/* cpu=samples in the same run: whether a trace takes samples, and one
 * sample (agent thread): the sampled thread, when (ticks.h), its stack as
 * "pkg.Class.method;..." from the root. */
bool trace_samples_wanted(void);
void trace_sample(uint32_t thread, uint64_t ticks, const char *stack, size_t n);
/* A metadata event (type < TRACE_EV_TIMED, no text). */
void trace_meta(unsigned type, const uint64_t *fields);

#endif
