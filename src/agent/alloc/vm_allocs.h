/* vm_allocs.h — the objects the JVM makes outside the program's bytecode,
 * counted per class and caller, the top Java frame (a native method, mostly)
 * at the allocation (heap=sites,alloc_count=site): those it posts JVMTI's
 * VMObjectAlloc for (reflection's Field and Method objects, class names ...),
 * but not those made by the natives whose calls are counted in the bytecode
 * (the skip list: Object.clone, Array.newArray ...), and those JNI code makes
 * (NewObject, NewStringUTF with the array of its characters,
 * New<Type>Array ...), through JNI's function table, intercepted as JVMTI
 * suggests (HotSpot posts no VMObjectAlloc for them). jvmprof's own thread is
 * never counted. */
#ifndef VM_ALLOCS_H
#define VM_ALLOCS_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../core/session_ctx.h"

#define VM_ALLOCS_CLASSES 4096u

/* The VMObjectAlloc callback (its event on: the caller's). */
void JNICALL vm_allocs_object(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size);
/* The session's start (VM init): its table made (JP_PART_VM_ALLOCS), the
 * natives whose allocations VMObjectAlloc must not count (NULLs ignored; 8
 * at the most), and JNI's allocating functions intercepted (once per JVM). */
jp_status vm_allocs_start(jp_session *s, JNIEnv *jni, const jmethodID *skip, int nskip);
/* The session's end (no callback in flight): nothing is counted any more,
 * and what its table points to is freed (the session frees the table). */
void vm_allocs_end(jp_session *s);
/* Agent thread: the class signature of entry i (below VM_ALLOCS_CLASSES),
 * its objects and bytes so far, and its caller (NULL: no Java frame) and
 * where in it; NULL for an unused entry. */
const char *vm_allocs_entry(jp_session *s, uint32_t i, uint64_t *objs, uint64_t *bytes, jmethodID *method,
                            jlocation *location);
/* Objects not counted: more classes than the table holds. */
uint64_t vm_allocs_lost(jp_session *s);

#endif
