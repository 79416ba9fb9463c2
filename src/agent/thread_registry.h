/* thread_registry.h — gives each Java thread a serial number when it starts
 * (kept in its JVMTI thread-local storage as an integer, so nothing needs
 * freeing and a sampler reading it races with nothing), and queues THREAD
 * START / THREAD END events with the thread's name and group. */
#ifndef THREAD_REGISTRY_H
#define THREAD_REGISTRY_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

void thread_registry_start(JNIEnv *jni, jthread thread);
void thread_registry_end(JNIEnv *jni, jthread thread);
/* Registers threads that were running before events were enabled. */
void thread_registry_existing(JNIEnv *jni);
/* The serial of thread (NULL = current), 0 if it never registered. */
uint32_t thread_registry_serial(jthread thread);

#endif
