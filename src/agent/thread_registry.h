/* thread_registry.h — gives each Java thread a serial number when it starts
 * (kept in its JVMTI thread-local storage as an integer together with the
 * thread's OS thread id, so nothing needs freeing and a sampler reading it
 * races with nothing), and queues THREAD START / THREAD END events with the
 * thread's name and group. */
#ifndef THREAD_REGISTRY_H
#define THREAD_REGISTRY_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* on_thread: the caller is `thread` itself (ThreadStart, VMInit), so its OS
 * thread id is known and the async sampler can set it up. */
void thread_registry_start(JNIEnv *jni, jthread thread, bool on_thread);
void thread_registry_end(JNIEnv *jni, jthread thread);
/* A session's start: registers the threads running now that are not yet
 * (they started before events were enabled) and queues every running
 * thread's START event, for the session's new model. */
void thread_registry_existing(JNIEnv *jni);
/* The serial of thread (NULL = current), 0 if it never registered. */
uint32_t thread_registry_serial(jthread thread);
/* The OS thread id of thread, 0 if not known (threads that started before VM init). */
uint32_t thread_registry_tid(jthread thread);

#endif
