/* symbols.h — turns what collectors capture (jmethodID + bytecode index) into
 * model frames: class, method, signature, source file and line. Resolved
 * once per jmethodID and cached (HotSpot never reuses a jmethodID), on the
 * agent thread only, soon after capture so classes rarely unload first; a
 * method whose class has gone is named <unloaded>. Also converts JVM type
 * signatures to the dotted names the reports print. */
#ifndef SYMBOLS_H
#define SYMBOLS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

#include "../model/model.h"

frame_id symbols_frame(model *m, JNIEnv *jni, jmethodID method, jlocation location, bool lineno);
/* "Ljava/lang/String;" -> "java.lang.String", "[I" -> "int[]"; writes at most outlen bytes. */
void symbols_class_name(const char *sig, char *out, size_t outlen);
/* Methods resolved and methods whose class was already gone. */
void symbols_stats(uint64_t *resolved, uint64_t *unloaded);

#endif
