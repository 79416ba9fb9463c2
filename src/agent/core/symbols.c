/* symbols.c — jmethodID -> model method and line table, cached in an
 * open-addressing map keyed by the jmethodID pointer (see symbols.h), and a
 * captured class's signature from its weak reference. Single-threaded: only
 * the agent thread (or VM death, after it stopped) calls in. */
#include "symbols.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_env.h"
#include "jvmti_util.h"

typedef struct sym_entry {
    jmethodID key;
    method_id method;
    bool native;
    jint nlines;
    jvmtiLineNumberEntry *lines;  /* sorted by start_location; malloc'ed copy */
} sym_entry;

static sym_entry *sym_slots;
static size_t sym_mask, sym_count;
static uint64_t sym_unloaded;

void symbols_stats(uint64_t *resolved, uint64_t *unloaded)
{
    *resolved = sym_count;
    *unloaded = sym_unloaded;
}

void symbols_reset(void)
{
    for (size_t i = 0; sym_slots && i <= sym_mask; i++)
        free(sym_slots[i].lines);
    free(sym_slots);
    sym_slots = NULL;
    sym_mask = sym_count = 0;
    sym_unloaded = 0;
}

void symbols_class_name(const char *sig, char *out, size_t outlen)
{
    if (outlen == 0)
        return;
    size_t dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *base = sig + dims;
    const char *prim = NULL;
    switch (*base) {
    case 'Z': prim = "boolean"; break;
    case 'B': prim = "byte"; break;
    case 'C': prim = "char"; break;
    case 'S': prim = "short"; break;
    case 'I': prim = "int"; break;
    case 'J': prim = "long"; break;
    case 'F': prim = "float"; break;
    case 'D': prim = "double"; break;
    case 'V': prim = "void"; break;
    default: break;
    }
    size_t o = 0;
    if (prim) {
        for (; *prim && o + 1 < outlen; prim++)
            out[o++] = *prim;
    } else {
        const char *p = base[0] == 'L' ? base + 1 : base;
        for (; *p && *p != ';' && o + 1 < outlen; p++)
            out[o++] = *p == '/' ? '.' : *p;
        /* a hidden class (a lambda's, a LambdaForm's) ends in "/0x" and its address, which changes from
         * run to run: dropped, so that the same frame has the same name in every profile */
        size_t dot = o;
        while (dot > 0 && out[dot - 1] != '.')
            dot--;
        size_t hex = dot + 2;
        while (hex < o && isxdigit((unsigned char)out[hex]))
            hex++;
        if (dot > 1 && o > dot + 2 && out[dot] == '0' && out[dot + 1] == 'x' && hex == o)
            o = dot - 1;
    }
    for (size_t d = 0; d < dims && o + 2 < outlen; d++) {
        out[o++] = '[';
        out[o++] = ']';
    }
    out[o] = '\0';
}

char *symbols_class_signature(JNIEnv *jni, jweak cls)
{
    /* a local (strong) reference first: the class cannot unload while it is named */
    jclass klass = cls && jni ? (*jni)->NewLocalRef(jni, cls) : NULL;
    if (!klass)
        return NULL;
    char *sig = NULL;
    if ((*agent_jvmti)->GetClassSignature(agent_jvmti, klass, &sig, NULL) != JVMTI_ERROR_NONE)
        sig = NULL;
    (*jni)->DeleteLocalRef(jni, klass);
    return sig;
}

static int sym_line_cmp(const void *a, const void *b)
{
    const jvmtiLineNumberEntry *x = a, *y = b;
    return x->start_location < y->start_location ? -1 : (x->start_location > y->start_location);
}

static bool sym_grow(void)
{
    size_t n = sym_slots ? (sym_mask + 1) * 2 : 4096;
    sym_entry *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; sym_slots && i <= sym_mask; i++) {
        if (!sym_slots[i].key)
            continue;
        size_t h = ((uintptr_t)sym_slots[i].key >> 3) * 0x9E3779B97F4A7C15ull;
        size_t j = h & (n - 1);
        while (slots[j].key)
            j = (j + 1) & (n - 1);
        slots[j] = sym_slots[i];
    }
    free(sym_slots);
    sym_slots = slots;
    sym_mask = n - 1;
    return true;
}

static void sym_resolve(model *m, JNIEnv *jni, sym_entry *e)
{
    jvmtiEnv *jv = agent_jvmti;
    jclass klass = NULL;
    char *csig = NULL, *mname = NULL, *msig = NULL, *src = NULL;
    char cname[1024];
    if (jvmti_check((*jv)->GetMethodDeclaringClass(jv, e->key, &klass), "GetMethodDeclaringClass") != JP_OK ||
        jvmti_check((*jv)->GetClassSignature(jv, klass, &csig, NULL), "GetClassSignature") != JP_OK ||
        jvmti_check((*jv)->GetMethodName(jv, e->key, &mname, &msig, NULL), "GetMethodName") != JP_OK) {
        sym_unloaded++;
        class_id c = model_class_intern(m, model_cstring(m, "<unloaded>"), (str_id){ 0 });
        e->method = model_method_intern(m, c, model_cstring(m, "<unknown method>"), model_cstring(m, "()V"));
        goto done;
    }
    if ((*jv)->GetSourceFileName(jv, klass, &src) != JVMTI_ERROR_NONE)
        src = NULL;
    symbols_class_name(csig, cname, sizeof cname);
    class_id c = model_class_intern(m, model_cstring(m, cname), src ? model_cstring(m, src) : (str_id){ 0 });
    e->method = model_method_intern(m, c, model_cstring(m, mname), model_cstring(m, msig));
    jboolean native = JNI_FALSE;
    (*jv)->IsMethodNative(jv, e->key, &native);
    e->native = native;
    jvmtiLineNumberEntry *lines = NULL;
    jint n = 0;
    if (!native && agent_opts->lineno && (*jv)->GetLineNumberTable(jv, e->key, &n, &lines) == JVMTI_ERROR_NONE &&
        n > 0) {
        e->lines = malloc((size_t)n * sizeof *lines);
        if (e->lines) {
            memcpy(e->lines, lines, (size_t)n * sizeof *lines);
            qsort(e->lines, (size_t)n, sizeof *lines, sym_line_cmp);
            e->nlines = n;
        }
    }
    jvmti_free(lines);
done:
    jvmti_free(csig);
    jvmti_free(mname);
    jvmti_free(msig);
    jvmti_free(src);
    if (klass && jni)
        (*jni)->DeleteLocalRef(jni, klass);
}

static int32_t sym_line(const sym_entry *e, jlocation loc)
{
    if (e->native || loc < 0)
        return e->native ? FRAME_LINE_NATIVE : FRAME_LINE_UNKNOWN;
    if (e->nlines == 0)
        return FRAME_LINE_UNKNOWN;
    jint lo = 0, hi = e->nlines - 1, best = -1;
    while (lo <= hi) {
        jint mid = lo + (hi - lo) / 2;
        if (e->lines[mid].start_location <= loc) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best < 0 ? FRAME_LINE_UNKNOWN : e->lines[best].line_number;
}

frame_id symbols_frame(model *m, JNIEnv *jni, jmethodID method, jlocation location, bool lineno)
{
    if ((sym_count + 1) * 2 > (sym_slots ? sym_mask + 1 : 0) && !sym_grow())
        return (frame_id){ 0 };
    size_t h = ((uintptr_t)method >> 3) * 0x9E3779B97F4A7C15ull;
    size_t i = h & sym_mask;
    while (sym_slots[i].key && sym_slots[i].key != method)
        i = (i + 1) & sym_mask;
    sym_entry *e = &sym_slots[i];
    if (!e->key) {
        e->key = method;
        sym_count++;
        sym_resolve(m, jni, e);
    }
    int32_t line = lineno ? sym_line(e, location) : (e->native ? FRAME_LINE_NATIVE : FRAME_LINE_UNKNOWN);
    return model_frame_intern(m, e->method, line);
}

bool symbols_trace(model *m, JNIEnv *jni, const jvmtiFrameInfo *frames, uint32_t n, uint32_t thread, trace_id *out)
{
    static frame_id *scratch;   /* the agent thread's */
    static uint32_t cap;
    if (n > cap || !scratch) {
        frame_id *p = realloc(scratch, (size_t)(n ? n : 1) * sizeof *p);
        if (!p) {
            m->oom = true;
            return false;
        }
        scratch = p;
        cap = n ? n : 1;
    }
    for (uint32_t k = 0; k < n; k++) {
        scratch[k] = symbols_frame(m, jni, frames[k].method, frames[k].location, agent_opts->lineno);
        if (scratch[k].v == 0) {
            m->oom = true;
            return false;
        }
    }
    *out = model_trace_intern(m, thread, scratch, n);
    return true;
}
