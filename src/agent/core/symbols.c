/* symbols.c — jmethodID -> model method and line table, cached in an
 * open-addressing map keyed by the jmethodID pointer (see symbols.h), and a
 * captured class's signature from its weak reference. The cache is the
 * running session's (its method ids are its model's): made at the first
 * method resolved, freed whole by symbols_reset when the session ends.
 * Single-threaded: only the agent thread (or VM death, after it stopped)
 * calls in. */
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
    bool lines_read;              /* its line table was asked for (a frame with lines wanted one) */
    jint nlines;
    jvmtiLineNumberEntry *lines;  /* sorted by start_location; malloc'ed copy */
} sym_entry;

/* One session's methods resolved, and the agent thread's scratch for its traces. */
typedef struct sym_cache {
    sym_entry *slots;
    size_t mask, count;
    uint64_t unloaded;
    frame_id *scratch;
    uint32_t cap;
} sym_cache;

/* The running session's cache (NULL: none resolved yet). Global because the
 * collectors resolve from paths that hand them the session's model only; the
 * agent thread's alone, and freed by symbols_reset at the session's end. */
static sym_cache *sym_live;

/* The running session's cache, made at its first use; NULL when out of memory. */
static sym_cache *sym_cache_get(void)
{
    if (!sym_live)
        sym_live = calloc(1, sizeof *sym_live);
    return sym_live;
}

void symbols_stats(uint64_t *resolved, uint64_t *unloaded)
{
    *resolved = sym_live ? sym_live->count : 0;
    *unloaded = sym_live ? sym_live->unloaded : 0;
}

void symbols_reset(void)
{
    sym_cache *c = sym_live;
    sym_live = NULL;
    if (!c)
        return;
    for (size_t i = 0; c->slots && i <= c->mask; i++)
        free(c->slots[i].lines);
    free(c->slots);
    free(c->scratch);
    free(c);
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

static bool sym_grow(sym_cache *c)
{
    size_t n = c->slots ? (c->mask + 1) * 2 : 4096;
    sym_entry *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; c->slots && i <= c->mask; i++) {
        if (!c->slots[i].key)
            continue;
        size_t h = ((uintptr_t)c->slots[i].key >> 3) * 0x9E3779B97F4A7C15ull;
        size_t j = h & (n - 1);
        while (slots[j].key)
            j = (j + 1) & (n - 1);
        slots[j] = c->slots[i];
    }
    free(c->slots);
    c->slots = slots;
    c->mask = n - 1;
    return true;
}

/* e's line table, sorted, once: at its resolution when that frame wants lines, else at the first frame that
 * does (a method first met where lines are not wanted, e.g. below a trace's depth). */
static void sym_read_lines(sym_entry *e)
{
    jvmtiEnv *jv = agent_jvmti;
    e->lines_read = true;
    jvmtiLineNumberEntry *lines = NULL;
    jint n = 0;
    if (!e->native && (*jv)->GetLineNumberTable(jv, e->key, &n, &lines) == JVMTI_ERROR_NONE && n > 0) {
        e->lines = malloc((size_t)n * sizeof *lines);
        if (e->lines) {
            memcpy(e->lines, lines, (size_t)n * sizeof *lines);
            qsort(e->lines, (size_t)n, sizeof *lines, sym_line_cmp);
            e->nlines = n;
        }
    }
    jvmti_free(lines);
}

static void sym_resolve(sym_cache *cache, model *m, JNIEnv *jni, sym_entry *e, bool lineno)
{
    jvmtiEnv *jv = agent_jvmti;
    jclass klass = NULL;
    char *csig = NULL, *mname = NULL, *msig = NULL, *src = NULL;
    char cname[1024];
    if (jvmti_check((*jv)->GetMethodDeclaringClass(jv, e->key, &klass), "GetMethodDeclaringClass") != JP_OK ||
        jvmti_check((*jv)->GetClassSignature(jv, klass, &csig, NULL), "GetClassSignature") != JP_OK ||
        jvmti_check((*jv)->GetMethodName(jv, e->key, &mname, &msig, NULL), "GetMethodName") != JP_OK) {
        cache->unloaded++;
        e->lines_read = true;
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
    if (lineno)
        sym_read_lines(e);
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
    sym_cache *c = sym_cache_get();
    if (!c || ((c->count + 1) * 2 > (c->slots ? c->mask + 1 : 0) && !sym_grow(c)))
        return (frame_id){ 0 };
    size_t h = ((uintptr_t)method >> 3) * 0x9E3779B97F4A7C15ull;
    size_t i = h & c->mask;
    while (c->slots[i].key && c->slots[i].key != method)
        i = (i + 1) & c->mask;
    sym_entry *e = &c->slots[i];
    if (!e->key) {
        e->key = method;
        c->count++;
        sym_resolve(c, m, jni, e, lineno);
    } else if (lineno && !e->lines_read) {
        sym_read_lines(e);
    }
    int32_t line = lineno ? sym_line(e, location) : (e->native ? FRAME_LINE_NATIVE : FRAME_LINE_UNKNOWN);
    return model_frame_intern(m, e->method, line);
}

bool symbols_trace(model *m, JNIEnv *jni, const jvmtiFrameInfo *frames, uint32_t n, uint32_t thread, bool lineno,
                   trace_id *out)
{
    sym_cache *c = sym_cache_get();
    if (c && (n > c->cap || !c->scratch)) {
        frame_id *p = realloc(c->scratch, (size_t)(n ? n : 1) * sizeof *p);
        if (p) {
            c->scratch = p;
            c->cap = n ? n : 1;
        } else {
            c = NULL;
        }
    }
    if (!c) {
        m->oom = true;
        return false;
    }
    for (uint32_t k = 0; k < n; k++) {
        c->scratch[k] = symbols_frame(m, jni, frames[k].method, frames[k].location, lineno);
        if (c->scratch[k].v == 0) {
            m->oom = true;
            return false;
        }
    }
    *out = model_trace_intern(m, thread, c->scratch, n);
    return true;
}
