/* vmstructs.c — reads HotSpot's exported structure tables (see vmstructs.h). */
#include "vmstructs.h"

#include <dlfcn.h>
#include <string.h>

#include "../../common/jp_log.h"

/* HotSpot's three tables, as libjvm.so exports them (read once, at the first
 * lookup): facts about the JVM, the same for every session of its life.
 * NULL table: not read yet (or not there); NULL types or ints: those are not
 * exported. Each entry is `stride` bytes, its fields at the *_at offsets. */
static struct {
    char *table;                /* gHotSpotVMStructs */
    uint64_t stride, type_at, field_at, static_at, offset_at, address_at, type_string_at;
    char *types;                /* gHotSpotVMTypes */
    uint64_t types_stride, types_name_at, types_size_at;
    char *ints;                 /* gHotSpotVMIntConstants */
    uint64_t ints_stride, ints_name_at, ints_value_at;
} vmstructs_jvm;

/* Where a Java thread keeps its OS thread id and JNIEnv (vmstructs_init,
 * once, on VM init): the JVM's layout, for its whole life and every session. */
static struct {
    jfieldID eetop;             /* java.lang.Thread.eetop: its JavaThread* */
    long osthread;              /* JavaThread::_osthread (Thread::_osthread in some JDKs) */
    long thread_id;             /* OSThread::_thread_id (an int, the kernel's tid on Linux) */
    long jni_env;               /* JNIEnv's offset in JavaThread, measured on the calling thread */
} vmstructs_threads = { NULL, -1, -1, -1 };

static void *vmstructs_sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    return p ? p : dlsym(RTLD_DEFAULT, name);
}

static bool vmstructs_tables(void)
{
    void *h = dlopen("libjvm.so", RTLD_LAZY | RTLD_NOLOAD);
    char **table = vmstructs_sym(h, "gHotSpotVMStructs");
    uint64_t *stride = vmstructs_sym(h, "gHotSpotVMStructEntryArrayStride");
    uint64_t *type = vmstructs_sym(h, "gHotSpotVMStructEntryTypeNameOffset");
    uint64_t *field = vmstructs_sym(h, "gHotSpotVMStructEntryFieldNameOffset");
    uint64_t *is_static = vmstructs_sym(h, "gHotSpotVMStructEntryIsStaticOffset");
    uint64_t *offset = vmstructs_sym(h, "gHotSpotVMStructEntryOffsetOffset");
    uint64_t *address = vmstructs_sym(h, "gHotSpotVMStructEntryAddressOffset");
    uint64_t *type_string = vmstructs_sym(h, "gHotSpotVMStructEntryTypeStringOffset");
    char **types = vmstructs_sym(h, "gHotSpotVMTypes");
    uint64_t *types_stride = vmstructs_sym(h, "gHotSpotVMTypeEntryArrayStride");
    uint64_t *types_name = vmstructs_sym(h, "gHotSpotVMTypeEntryTypeNameOffset");
    uint64_t *types_size = vmstructs_sym(h, "gHotSpotVMTypeEntrySizeOffset");
    char **ints = vmstructs_sym(h, "gHotSpotVMIntConstants");
    uint64_t *ints_stride = vmstructs_sym(h, "gHotSpotVMIntConstantEntryArrayStride");
    uint64_t *ints_name = vmstructs_sym(h, "gHotSpotVMIntConstantEntryNameOffset");
    uint64_t *ints_value = vmstructs_sym(h, "gHotSpotVMIntConstantEntryValueOffset");
    if (h)
        dlclose(h);
    if (!table || !*table || !stride || !*stride || !type || !field || !is_static || !offset || !address ||
        !type_string)
        return false;
    if (types && *types && types_stride && *types_stride && types_name && types_size) {
        vmstructs_jvm.types = *types;
        vmstructs_jvm.types_stride = *types_stride;
        vmstructs_jvm.types_name_at = *types_name;
        vmstructs_jvm.types_size_at = *types_size;
    }
    if (ints && *ints && ints_stride && *ints_stride && ints_name && ints_value) {
        vmstructs_jvm.ints = *ints;
        vmstructs_jvm.ints_stride = *ints_stride;
        vmstructs_jvm.ints_name_at = *ints_name;
        vmstructs_jvm.ints_value_at = *ints_value;
    }
    vmstructs_jvm.address_at = *address;
    vmstructs_jvm.type_string_at = *type_string;
    vmstructs_jvm.table = *table;
    vmstructs_jvm.stride = *stride;
    vmstructs_jvm.type_at = *type;
    vmstructs_jvm.field_at = *field;
    vmstructs_jvm.static_at = *is_static;
    vmstructs_jvm.offset_at = *offset;
    return true;
}

/* The entry for type::field, static or not, or NULL */
static const char *vmstructs_entry(const char *type, const char *field, bool is_static)
{
    if (!vmstructs_jvm.table && !vmstructs_tables())
        return NULL;
    for (const char *e = vmstructs_jvm.table;; e += vmstructs_jvm.stride) {
        const char *t = *(const char *const *)(e + vmstructs_jvm.type_at);
        const char *f = *(const char *const *)(e + vmstructs_jvm.field_at);
        if (!t)
            return NULL; /* the table ends with an empty entry */
        bool entry_static = *(const int32_t *)(e + vmstructs_jvm.static_at) != 0;
        if (f && entry_static == is_static && strcmp(t, type) == 0 && strcmp(f, field) == 0)
            return e;
    }
}

long vmstructs_offset(const char *type, const char *field)
{
    const char *e = vmstructs_entry(type, field, false);
    return e ? (long)*(const uint64_t *)(e + vmstructs_jvm.offset_at) : -1;
}

void *vmstructs_static(const char *type, const char *field)
{
    const char *e = vmstructs_entry(type, field, true);
    return e ? *(void *const *)(e + vmstructs_jvm.address_at) : NULL;
}

uint64_t vmstructs_sizeof(const char *type)
{
    if ((!vmstructs_jvm.table && !vmstructs_tables()) || !vmstructs_jvm.types)
        return 0;
    for (char *e = vmstructs_jvm.types;; e += vmstructs_jvm.types_stride) {
        const char *t = *(const char **)(e + vmstructs_jvm.types_name_at);
        if (!t)
            return 0;
        if (strcmp(t, type) == 0)
            return *(uint64_t *)(e + vmstructs_jvm.types_size_at);
    }
}

uint64_t vmstructs_field_size(const char *type, const char *field)
{
    const char *e = vmstructs_entry(type, field, false);
    const char *t = e ? *(const char *const *)(e + vmstructs_jvm.type_string_at) : NULL;
    return t ? vmstructs_sizeof(t) : 0;
}

/* Where a flag's value is, from HotSpot's flag table; NULL when the flag or the tables are not there. */
static void *vmstructs_flag_address(const char *name)
{
    if (!vmstructs_jvm.table && !vmstructs_tables())
        return NULL;
    char **flags = vmstructs_static("JVMFlag", "flags");
    size_t *count = vmstructs_static("JVMFlag", "numFlags");
    uint64_t size = vmstructs_sizeof("JVMFlag");
    long name_at = vmstructs_offset("JVMFlag", "_name"), addr_at = vmstructs_offset("JVMFlag", "_addr");
    if (!flags || !*flags || !count || !size || name_at < 0 || addr_at < 0)
        return NULL;
    for (size_t i = 0; i < *count; i++) {
        char *flag = *flags + i * size;
        const char *n = *(const char **)(flag + name_at);
        void *addr = *(void **)(flag + addr_at);
        if (n && addr && strcmp(n, name) == 0)
            return addr;
    }
    return NULL;
}

int vmstructs_flag_bool(const char *name)
{
    const bool *addr = vmstructs_flag_address(name);
    return addr ? (*addr ? 1 : 0) : -1;
}

bool vmstructs_flag_set_bool(const char *name, bool value)
{
    bool *addr = vmstructs_flag_address(name);
    if (!addr)
        return false;
    *addr = value;
    return true;
}

static char *vmstructs_java_thread(JNIEnv *jni, jthread thread)
{
    jfieldID eetop = vmstructs_threads.eetop;
    return eetop && thread ? (char *)(intptr_t)(*jni)->GetLongField(jni, thread, eetop) : NULL;
}

bool vmstructs_init(JNIEnv *jni)
{
    if (!vmstructs_tables()) {
        jp_log_debug("libjvm.so exports no gHotSpotVMStructs: threads started before the agent are not sampled");
        return false;
    }
    vmstructs_threads.osthread = vmstructs_offset("JavaThread", "_osthread"); /* JDK 17; in Thread on others */
    if (vmstructs_threads.osthread < 0)
        vmstructs_threads.osthread = vmstructs_offset("Thread", "_osthread");
    vmstructs_threads.thread_id = vmstructs_offset("OSThread", "_thread_id");
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    vmstructs_threads.eetop = tc ? (*jni)->GetFieldID(jni, tc, "eetop", "J") : NULL;
    if (!vmstructs_threads.eetop)
        (*jni)->ExceptionClear(jni);
    jthread self = NULL;
    jmethodID current = tc ? (*jni)->GetStaticMethodID(jni, tc, "currentThread", "()Ljava/lang/Thread;") : NULL;
    if (current)
        self = (*jni)->CallStaticObjectMethod(jni, tc, current);
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    char *jt = vmstructs_java_thread(jni, self);
    if (jt && (char *)jni > jt && (char *)jni - jt < 4096)
        vmstructs_threads.jni_env = (long)((char *)jni - jt);
    if (self)
        (*jni)->DeleteLocalRef(jni, self);
    if (tc)
        (*jni)->DeleteLocalRef(jni, tc);
    bool ok = vmstructs_threads.osthread >= 0 && vmstructs_threads.thread_id >= 0 && vmstructs_threads.eetop &&
              vmstructs_threads.jni_env >= 0;
    if (!ok)
        jp_log_debug("HotSpot's tables lack a thread's OS id or JNIEnv: threads started before the agent are not "
                     "sampled");
    return ok;
}

long vmstructs_jni_env_offset(void) { return vmstructs_threads.jni_env; }

bool vmstructs_int_constant(const char *name, int32_t *value)
{
    if ((!vmstructs_jvm.table && !vmstructs_tables()) || !vmstructs_jvm.ints)
        return false;
    for (char *e = vmstructs_jvm.ints;; e += vmstructs_jvm.ints_stride) {
        const char *n = *(const char **)(e + vmstructs_jvm.ints_name_at);
        if (!n)
            return false;
        if (strcmp(n, name) == 0) {
            *value = *(int32_t *)(e + vmstructs_jvm.ints_value_at);
            return true;
        }
    }
}

bool vmstructs_thread(JNIEnv *jni, jthread thread, uint32_t *tid, JNIEnv **env)
{
    if (vmstructs_threads.osthread < 0 || vmstructs_threads.thread_id < 0 || vmstructs_threads.jni_env < 0)
        return false;
    char *jt = vmstructs_java_thread(jni, thread);
    if (!jt)
        return false;
    char *os = *(char **)(jt + vmstructs_threads.osthread);
    if (!os)
        return false;
    int32_t id = *(int32_t *)(os + vmstructs_threads.thread_id);
    if (id <= 0)
        return false;
    *tid = (uint32_t)id;
    *env = (JNIEnv *)(jt + vmstructs_threads.jni_env);
    return true;
}
