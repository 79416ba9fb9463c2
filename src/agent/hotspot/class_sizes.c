/* class_sizes.c — see class_sizes.h. The size is the Klass's layout helper
 * (for an instance class: its size in bytes, low bit the slow-path flag),
 * reached from the class's mirror (java.lang.Class) through
 * java_lang_Class::_klass_offset. The mirror is read inside a JNI critical
 * section on a small array, during which the collector cannot run, so it
 * cannot move under the read. */
#include "class_sizes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/arena.h"
#include "../../common/intern.h"
#include "../../common/jp_log.h"
#include "../core/agent_env.h"
#include "../core/jvmti_util.h"
#include "vmstructs.h"

/* How to read a class's instance size (class_sizes_init, once): HotSpot's
 * offsets, and the array whose critical section holds the collector off (a
 * global ref). The JVM's, for its whole life and every session. */
static struct {
    jbyteArray pin;
    long klass_off, lh_off;
} cs_layout = { NULL, -1, -1 };

bool class_sizes_init(JNIEnv *jni)
{
    if (cs_layout.pin)
        return cs_layout.klass_off >= 0 && cs_layout.lh_off >= 0;
    int *p = vmstructs_static("java_lang_Class", "_klass_offset");
    cs_layout.klass_off = p ? *p : -1;
    cs_layout.lh_off = vmstructs_offset("Klass", "_layout_helper");
    jbyteArray a = (*jni)->NewByteArray(jni, 1);
    cs_layout.pin = a ? (*jni)->NewGlobalRef(jni, a) : NULL;
    if (a)
        (*jni)->DeleteLocalRef(jni, a);
    (*jni)->ExceptionClear(jni);
    bool ok = cs_layout.pin && cs_layout.klass_off >= 0 && cs_layout.lh_off >= 0;
    if (!ok)
        jp_log_info("HotSpot's Klass layout is not described here: instance sizes are not known");
    return ok;
}

long class_sizes_of(JNIEnv *jni, jclass c)
{
    if (cs_layout.klass_off < 0 || cs_layout.lh_off < 0 || !cs_layout.pin || !c ||
        ((uintptr_t)c & 1) /* a weak global ref */)
        return -1;
    void *crit = (*jni)->GetPrimitiveArrayCritical(jni, cs_layout.pin, NULL);
    if (!crit)
        return -1;
    const char *mirror = *(const char *const *)c;
    const char *klass = mirror ? *(const char *const *)(mirror + cs_layout.klass_off) : NULL;
    jint lh = klass ? *(const jint *)(klass + cs_layout.lh_off) : 0;
    (*jni)->ReleasePrimitiveArrayCritical(jni, cs_layout.pin, crit, JNI_ABORT);
    return lh > 0 ? (long)(lh & ~7) : -1;
}

/* Sizes by class signature (agent thread only): kept for the JVM's life, as
 * a class's instance size never changes, so that a later session does not
 * look again for what an earlier one found. */
static struct {
    intern_table names;
    arena arena;
    bool ready;
    long *sizes; /* [id - 1]: bytes, -1 unknown, -2 not looked for yet */
    uint32_t cap;
} cs_by_name;

long class_sizes_by_name(const char *sig)
{
    if (!cs_by_name.ready) {
        arena_init(&cs_by_name.arena);
        intern_init(&cs_by_name.names, &cs_by_name.arena);
        cs_by_name.ready = true;
    }
    bool added;
    uint32_t id = intern_put(&cs_by_name.names, sig, (uint32_t)strlen(sig), &added);
    if (!id)
        return -1;
    if (id > cs_by_name.cap) {
        uint32_t cap = cs_by_name.cap ? cs_by_name.cap * 2 : 1024;
        while (cap < id)
            cap *= 2;
        long *p = realloc(cs_by_name.sizes, cap * sizeof *p);
        if (!p)
            return -1;
        for (uint32_t i = cs_by_name.cap; i < cap; i++)
            p[i] = -2;
        cs_by_name.sizes = p;
        cs_by_name.cap = cap;
    }
    return cs_by_name.sizes[id - 1];
}

void class_sizes_resolve(JNIEnv *jni)
{
    bool missing = false;
    for (uint32_t i = 0; cs_by_name.ready && i < intern_count(&cs_by_name.names) && !missing; i++)
        missing = cs_by_name.sizes[i] == -2;
    if (!missing)
        return;
    jint n = 0;
    jclass *all = NULL;
    if ((*agent_jvmti)->GetLoadedClasses(agent_jvmti, &n, &all) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        char *sig = NULL;
        if ((*agent_jvmti)->GetClassSignature(agent_jvmti, all[i], &sig, NULL) == JVMTI_ERROR_NONE && sig &&
            sig[0] == 'L') {
            uint32_t id = intern_find(&cs_by_name.names, sig, (uint32_t)strlen(sig));
            if (id && cs_by_name.sizes[id - 1] == -2)
                cs_by_name.sizes[id - 1] = class_sizes_of(jni, all[i]);
        }
        jvmti_free(sig);
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    jvmti_free(all);
    for (uint32_t i = 0; i < intern_count(&cs_by_name.names); i++)
        if (cs_by_name.sizes[i] == -2)
            cs_by_name.sizes[i] = -1; /* not loaded (any more): not looked for again */
}
