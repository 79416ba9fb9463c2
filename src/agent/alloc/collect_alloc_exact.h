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

/* alloc_hook=bci: the jvmprof.Tracker natives (objectInit0 at the start of
 * java.lang.Object.<init>, newArray0 after each array allocation); with
 * VMObjectAlloc for what the JVM allocates itself (clone(), reflection's and
 * JNI's arrays and objects; those whose constructor ran are tagged already).
 * They reach the running session's part through one pointer (nothing is
 * counted outside a session). */
void JNICALL alloc_exact_object_init(JNIEnv *jni, jclass tracker, jobject object);
void JNICALL alloc_exact_new_array(JNIEnv *jni, jclass tracker, jobject array);

#endif
