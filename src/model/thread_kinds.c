/* thread_kinds.c — what a sampled thread is: a Java thread, or one of the
 * JVM's own (GC, JIT compiler, VM thread, other), told from its OS name
 * (/proc/self/task/TID/comm: at most 15 characters, so "C2 CompilerThread0"
 * is "C2 CompilerThre"). Only threads marked jvm_internal are classified by
 * name: a Java thread may be named anything. */
#include "model.h"

#include <string.h>

const char *const thread_kind_names[THREAD_KINDS] = { "java", "gc", "compiler", "vm", "jvm other" };

static bool tk_prefix(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

thread_kind thread_kind_of_name(const char *name, size_t len)
{
    static const char *const gc[] = {
        "GC Thread", "G1 ", "GC ", "ZWorker", "ZDirector", "ZDriver", "ZStat", "ZUncommitter", "ZUnmapper",
        "ZRelocation", "ZMarkStack", "Shenandoah", "Conc#", "ConcurrentGC", "Parallel GC", "GC task", "XWorker",
        "XDriver", "XDirector", "XStat", "XUncommitter", "XUnmapper",
    };
    static const char *const compiler[] = { "C1 Compiler", "C2 Compiler", "JVMCI", "Sweeper thread", "Compiler" };
    static const char *const vm[] = { "VM Thread", "VM Periodic" };
    for (size_t i = 0; i < sizeof compiler / sizeof compiler[0]; i++)
        if (tk_prefix(name, len, compiler[i]))
            return THREAD_KIND_COMPILER;
    for (size_t i = 0; i < sizeof vm / sizeof vm[0]; i++)
        if (tk_prefix(name, len, vm[i]))
            return THREAD_KIND_VM;
    for (size_t i = 0; i < sizeof gc / sizeof gc[0]; i++)
        if (tk_prefix(name, len, gc[i]))
            return THREAD_KIND_GC;
    return THREAD_KIND_JVM_OTHER;
}

thread_kind model_thread_kind(const model *m, uint32_t serial)
{
    const model_thread *t = model_thread_get(m, serial);
    if (!t || !t->jvm_internal)
        return THREAD_KIND_JAVA;
    size_t len;
    const char *name = model_string_get(m, t->name, &len);
    return thread_kind_of_name(name, len);
}

bool model_thread_kind_samples(const model *m, uint64_t out[THREAD_KINDS])
{
    bool jvm = false;
    for (unsigned k = 0; k < THREAD_KINDS; k++)
        out[k] = 0;
    uint32_t n = model_trace_count(m);
    for (uint32_t t = 1; t <= n; t++) {
        uint64_t c = model_trace_samples(m, (trace_id){ t });
        if (!c)
            continue;
        thread_kind k = model_thread_kind(m, model_trace_get(m, (trace_id){ t }).thread);
        out[k] += c;
        jvm |= k != THREAD_KIND_JAVA;
    }
    if (jvm || n > 0)
        return jvm;
    n = model_stack_count(m); /* a model of stacks alone (read from collapsed stacks) */
    for (uint32_t i = 1; i <= n; i++) {
        uint64_t c = model_stack_samples(m, (stack_id){ i });
        if (!c)
            continue;
        thread_kind k = model_thread_kind(m, model_stack_get(m, (stack_id){ i }).thread);
        out[k] += c;
        jvm |= k != THREAD_KIND_JAVA;
    }
    return jvm;
}
