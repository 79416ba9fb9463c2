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

static jbyteArray cs_pin; /* global ref */
static long cs_klass_off = -1, cs_lh_off = -1;

bool class_sizes_init(JNIEnv *jni)
{
    if (cs_pin)
        return cs_klass_off >= 0 && cs_lh_off >= 0;
    int *p = vmstructs_static("java_lang_Class", "_klass_offset");
    cs_klass_off = p ? *p : -1;
    cs_lh_off = vmstructs_offset("Klass", "_layout_helper");
    jbyteArray a = (*jni)->NewByteArray(jni, 1);
    cs_pin = a ? (*jni)->NewGlobalRef(jni, a) : NULL;
    if (a)
        (*jni)->DeleteLocalRef(jni, a);
    (*jni)->ExceptionClear(jni);
    bool ok = cs_pin && cs_klass_off >= 0 && cs_lh_off >= 0;
    if (!ok)
        jp_log_info("HotSpot's Klass layout is not described here: instance sizes are not known");
    return ok;
}

long class_sizes_of(JNIEnv *jni, jclass c)
{
    if (cs_klass_off < 0 || cs_lh_off < 0 || !cs_pin || !c || ((uintptr_t)c & 1) /* a weak global ref */)
        return -1;
    void *crit = (*jni)->GetPrimitiveArrayCritical(jni, cs_pin, NULL);
    if (!crit)
        return -1;
    const char *mirror = *(const char *const *)c;
    const char *klass = mirror ? *(const char *const *)(mirror + cs_klass_off) : NULL;
    jint lh = klass ? *(const jint *)(klass + cs_lh_off) : 0;
    (*jni)->ReleasePrimitiveArrayCritical(jni, cs_pin, crit, JNI_ABORT);
    return lh > 0 ? (long)(lh & ~7) : -1;
}

/* sizes by class signature (agent thread only) */
static intern_table cs_names;
static arena cs_arena;
static bool cs_names_ready;
static long *cs_sizes; /* [id - 1]: bytes, -1 unknown, -2 not looked for yet */
static uint32_t cs_cap;

long class_sizes_by_name(const char *sig)
{
    if (!cs_names_ready) {
        arena_init(&cs_arena);
        intern_init(&cs_names, &cs_arena);
        cs_names_ready = true;
    }
    bool added;
    uint32_t id = intern_put(&cs_names, sig, (uint32_t)strlen(sig), &added);
    if (!id)
        return -1;
    if (id > cs_cap) {
        uint32_t cap = cs_cap ? cs_cap * 2 : 1024;
        while (cap < id)
            cap *= 2;
        long *p = realloc(cs_sizes, cap * sizeof *p);
        if (!p)
            return -1;
        for (uint32_t i = cs_cap; i < cap; i++)
            p[i] = -2;
        cs_sizes = p;
        cs_cap = cap;
    }
    return cs_sizes[id - 1];
}

void class_sizes_resolve(JNIEnv *jni)
{
    bool missing = false;
    for (uint32_t i = 0; cs_names_ready && i < intern_count(&cs_names) && !missing; i++)
        missing = cs_sizes[i] == -2;
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
            uint32_t id = intern_find(&cs_names, sig, (uint32_t)strlen(sig));
            if (id && cs_sizes[id - 1] == -2)
                cs_sizes[id - 1] = class_sizes_of(jni, all[i]);
        }
        jvmti_free(sig);
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    jvmti_free(all);
    for (uint32_t i = 0; i < intern_count(&cs_names); i++)
        if (cs_sizes[i] == -2)
            cs_sizes[i] = -1; /* not loaded (any more): not looked for again */
}
