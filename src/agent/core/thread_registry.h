/* thread_registry.h — gives each Java thread a serial number when it starts
 * (in its own record, thread_record.h, for the thread itself; and in its
 * JVMTI thread-local storage as an integer together with the thread's OS
 * thread id, for the others: nothing needs freeing and a sampler reading it
 * races with nothing), queues THREAD START / THREAD END events with the
 * thread's name and group, and begins and ends the thread's record around
 * the collectors' thread_start and thread_end. */
#ifndef THREAD_REGISTRY_H
#define THREAD_REGISTRY_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* A virtual thread's storage word (vthreads.h) has this bit set: its serial
 * in the low 32 bits, its record's index in bits 32 to 62, no OS thread id. */
#define THREAD_REGISTRY_VTHREAD (1ull << 63)

/* A new serial, from the counter platform threads' come from (vthreads.c). */
uint32_t thread_registry_new_serial(void);
/* Queues a START event for serial into the model (names NULL: ""), as a
 * platform thread's start does; for a thread registered elsewhere (vthreads.c). */
void thread_registry_announce(uint32_t serial, const char *name, const char *group);
/* ... and its END event. */
void thread_registry_announce_end(uint32_t serial);

/* on_thread: the caller is `thread` itself (ThreadStart, VMInit), so its OS
 * thread id is known, its record is filled and the collectors' thread_start
 * run. */
void thread_registry_start(JNIEnv *jni, jthread thread, bool on_thread);
/* ThreadEnd, on `thread` itself (the current thread): its end event, the
 * collectors' thread_end, then its record zeroed. */
void thread_registry_end(JNIEnv *jni, jthread thread);
/* A session's start: registers the threads running now that are not yet
 * (they started before events were enabled) and queues every running
 * thread's START event, for the session's new model. */
void thread_registry_existing(JNIEnv *jni);
/* The serial of thread, 0 if it never registered. NULL: the current thread's,
 * from its record (no JVMTI call once it is known). */
uint32_t thread_registry_serial(jthread thread);
/* The OS thread id of thread, 0 if not known (threads that started before VM init, virtual threads). */
uint32_t thread_registry_tid(jthread thread);

#endif
