/* symbols.h — turns what collectors capture (jmethodID + bytecode index) into
 * model frames: class, method, signature, source file and line. Resolved
 * once per jmethodID and cached (HotSpot never reuses a jmethodID), on the
 * agent thread only, soon after capture so classes rarely unload first; a
 * method whose class has gone is named <unloaded>. Also names a class that
 * a collector captured as a weak reference, and converts JVM type signatures
 * to the dotted names the reports print. */
#ifndef SYMBOLS_H
#define SYMBOLS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

#include "../../model/model.h"

/* method's frame at location in m (its line when lineno, else FRAME_LINE_UNKNOWN or
 * FRAME_LINE_NATIVE); {0} when out of memory. Agent thread only. */
frame_id symbols_frame(model *m, JNIEnv *jni, jmethodID method, jlocation location, bool lineno);
/* The trace of captured frames (top first) in thread `thread` (0: none):
 * each frame resolved (with its line when lineno, the session's lineno=),
 * then the trace interned, in *out. False when out of memory (and the model
 * marked so): no trace refers to a frame that does not exist. Agent thread
 * only. */
bool symbols_trace(model *m, JNIEnv *jni, const jvmtiFrameInfo *frames, uint32_t n, uint32_t thread, bool lineno,
                   trace_id *out);
/* Agent thread: the JVM signature ("Ljava/lang/String;") of the class that
 * cls, a JNI weak global reference a collector took on the program's thread,
 * refers to, in JVMTI memory (jvmti_free). NULL when cls is NULL, when the
 * class was unloaded since (the reference is cleared) or when JVMTI fails:
 * the caller names it as it names an unknown class. cls stays the caller's
 * to delete. */
char *symbols_class_signature(JNIEnv *jni, jweak cls);
/* "Ljava/lang/String;" -> "java.lang.String", "[I" -> "int[]"; a hidden
 * class's address goes: "LA$$Lambda$14/0x0000000800c02a00;" -> "A$$Lambda$14".
 * Writes at most outlen bytes. */
void symbols_class_name(const char *sig, char *out, size_t outlen);
/* At a session's end: forgets every method resolved (their ids were its
 * model's) and frees its cache. */
void symbols_reset(void);
/* Methods resolved and methods whose class was already gone. */
void symbols_stats(uint64_t *resolved, uint64_t *unloaded);

#endif
