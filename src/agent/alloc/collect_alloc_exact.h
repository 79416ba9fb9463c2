/* collect_alloc_exact.h — heap=sites with alloc_interval=0: every allocation counted.
 *
 * JVMTI's allocation sampler with an interval of 0 reports every object the
 * JVM allocates, whoever allocates it: bytecode, reflection, clone(), JNI and
 * the VM itself. Each allocating thread counts what it allocates in a table
 * of its own (no lock, no queue per allocation), keyed by stack and class;
 * each object gets a 16-byte record (its site, size and birth) in pages the
 * thread owns. Until its first collection it is followed by a JNI weak
 * reference (cheap); if it survives, it is tagged with its record's index,
 * so that ObjectFree — restricted mode, any thread — adds the death to its
 * site's counters with atomics and hands the record back. The agent thread
 * reads the counters and moves what changed into the model. */
#ifndef COLLECT_ALLOC_EXACT_H
#define COLLECT_ALLOC_EXACT_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../core/eventq.h"

/* VMInit, on the main thread, once the sampler is on: the main thread drew
 * its first sampling point before the agent set the interval to 0 (at up to
 * several MiB, 512 KiB on average), and would not report an allocation until
 * it passed it. This allocates garbage arrays (64 KiB each, up to 16 MiB)
 * until the sampler reports one; its next point is then drawn at 0. */
void alloc_exact_prime(JNIEnv *jni);
/* The SampledObjectAlloc callback in exact mode. */
void alloc_exact_allocated(JNIEnv *jni, jthread thread, jclass klass, jobject object, jlong size);
/* alloc_hook=bci: the jvmprof.Tracker natives (objectInit0 at the start of
 * java.lang.Object.<init>, newArray0 after each array allocation), and
 * VMObjectAlloc for what the JVM allocates itself (clone(), reflection's and
 * JNI's arrays and objects; those whose constructor ran are tagged already). */
void JNICALL alloc_exact_object_init(JNIEnv *jni, jclass tracker, jobject object);
void JNICALL alloc_exact_new_array(JNIEnv *jni, jclass tracker, jobject array);
void alloc_exact_vm_object(JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size);
/* ObjectFree in exact mode (restricted: atomics only). */
void alloc_exact_freed(jlong tag);
/* ThreadEnd: the ending thread's table is left for the next new thread. */
void alloc_exact_thread_end(void);

/* Agent thread, from 20 ms after the end of each collection (now: at once,
 * for a report): sweeps the nurseries of the threads that did not allocate
 * since (blocked, idle or ended). */
void alloc_exact_sweep(JNIEnv *jni, bool now);
/* Agent thread: moves the counts since the last call into the model. */
void alloc_exact_drain(model *m);
#endif
