/* vmstructs.h — HotSpot's own description of its C++ structures, which
 * libjvm.so exports for its serviceability agent (gHotSpotVMStructs: type,
 * field, offset), read once so that the agent can find what JVMTI does not
 * give: a Java thread's OS thread id and JNIEnv from outside the thread
 * (java.lang.Thread.eetop holds the address of its JavaThread). Every
 * lookup fails softly: a JVM without the tables (or other field names) just
 * lacks what needs them, and the log says so. */
#ifndef VMSTRUCTS_H
#define VMSTRUCTS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

/* On a Java thread (VM init), once: reads the tables and the offsets the
 * functions below need. False when they cannot be had. */
bool vmstructs_init(JNIEnv *jni);
/* The offset of type::field (a non-static field), or -1 when it is not
 * described; the address of a static field, or NULL; sizeof(type), or 0.
 * Any thread (the tables are read on first use). */
long vmstructs_offset(const char *type, const char *field);
void *vmstructs_static(const char *type, const char *field);
uint64_t vmstructs_sizeof(const char *type);
/* sizeof the type of type::field (a non-static field) as HotSpot names it ("int", "int16_t" ...), or 0
 * when the field or its type is not described: a field whose width changed between JDKs */
uint64_t vmstructs_field_size(const char *type, const char *field);
/* One of HotSpot's integer constants (gHotSpotVMIntConstants); false when not described. */
bool vmstructs_int_constant(const char *name, int32_t *value);
/* Where a JavaThread keeps its JNIEnv (JNIEnv* - JavaThread*), measured by
 * vmstructs_init; -1 before, or when it could not be. */
long vmstructs_jni_env_offset(void);

/* A boolean -XX flag's value (1 or 0), read from HotSpot's flag table; -1
 * when the flag or the tables are not there. Any thread, any time. */
int vmstructs_flag_bool(const char *name);
/* Sets a boolean -XX flag, as -XX:+NAME would have (only for flags HotSpot
 * reads each time it uses them, before the first use that matters); false
 * when the flag or the tables are not there. */
bool vmstructs_flag_set_bool(const char *name, bool value);
/* A Java thread's OS thread id and JNIEnv, read from its JavaThread; false
 * when the thread has not started or has ended, or vmstructs_init failed.
 * Any Java thread may call it about a thread that is alive (a dying one may
 * free its JavaThread: ask while it is known to be alive). */
bool vmstructs_thread(JNIEnv *jni, jthread thread, uint32_t *tid, JNIEnv **env);

#endif
