/* collapsed_read.c — reads collapsed stacks ("a;b;c 123" per line, root
 * first: ours, async-profiler's, any flamegraph.pl input) into a fresh
 * model's stack table, so any of them can become an HTML flame graph. The
 * inverse of collapsed.c: a frame splits at its last '.' before any '(' into
 * class and method, a kind suffix (_[j] _[i] _[0] _[n] _[k]) becomes the frame
 * kind, a bare frame that is native code (cr_cpp_evident, cr_java_like) a C/C++ one, a "[x]" root frame a thread named x, a "[state]" leaf frame with a
 * known state name the sample state (and marks the samples wall-clock).
 * Blank lines (also of spaces, tabs or a lone CR: CRLF files) are skipped,
 * and the last line needs no line break. Strict about every other line: a
 * missing or bad count is an error naming the line. */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct creader {
    model *m;
    method_id *method_of;     /* [str id]: method of a frame text (without suffix) */
    uint32_t method_of_cap;
    method_id *native_of;     /* [str id]: method of a native frame's text */
    uint32_t native_of_cap;
    uint8_t *bare;            /* [frame of the current line]: a bare name that is no Java name */
    uint32_t bare_cap;
    uint32_t *thread_of;      /* [str id]: serial of a thread name */
    uint32_t thread_of_cap;
    uint32_t next_serial;
    uint32_t *frames;         /* the current line's frames, root first */
    uint32_t frames_cap;
    char *err;
    size_t errlen;
    unsigned long lineno;
    unsigned long stack_lines; /* lines that were not blank */
} creader;

static bool cr_fail(creader *r, const char *fmt, const char *what, size_t len)
{
    char shown[48];
    size_t n = len < 40 ? len : 40, k = 0;
    for (size_t i = 0; i < n; i++)
        shown[k++] = (unsigned char)what[i] < 0x20 || what[i] == 0x7f ? '?' : what[i];
    if (len > n) {
        memcpy(shown + k, "...", 3);
        k += 3;
    }
    shown[k] = '\0';
    char msg[256];
    snprintf(msg, sizeof msg, fmt, shown);
    snprintf(r->err, r->errlen, "line %lu: %s", r->lineno, msg);
    return false;
}

static bool cr_oom(creader *r)
{
    snprintf(r->err, r->errlen, "out of memory");
    return false;
}

static bool cr_bracketed(const char *s, size_t len) { return len >= 2 && s[0] == '[' && s[len - 1] == ']'; }

static int cr_state(const char *s, size_t len)
{
    if (!cr_bracketed(s, len))
        return -1;
    for (int i = 0; i < SAMPLE_STATES; i++)
        if (strlen(sample_state_names[i]) == len - 2 && memcmp(sample_state_names[i], s + 1, len - 2) == 0)
            return i;
    return -1;
}

static bool cr_push(creader *r, uint32_t *n, uint32_t v)
{
    if (*n == r->frames_cap) {
        uint32_t cap = r->frames_cap ? r->frames_cap * 2 : 64;
        uint32_t *f = cap > r->frames_cap ? realloc(r->frames, (size_t)cap * sizeof *f) : NULL;
        if (!f)
            return false;
        r->frames = f;
        r->frames_cap = cap;
    }
    r->frames[(*n)++] = v;
    return true;
}

/* Frames with no kind suffix: flamegraph.pl input and ours write C/C++
 * frames as bare symbols, and Java frames as "class.method", a Java method
 * name being an identifier (or <init>). A bare frame is C/C++ when it says so
 * itself (cr_cpp_evident: a "::" of C++, the unnamed form "lib.so+0x1a2b",
 * GCC's clones "foo.part.0", "foo.cold"), or when it is no Java name
 * (cr_java_like) and is called from native code: below (leafward of) a
 * native method (_[n]) or another C/C++ frame, in the same stack, or above
 * (rootward of) C/C++ or kernel code (a thread's start). A bare name
 * elsewhere ("main;work;compute_[j]") stays of unknown kind. */
static bool cr_cpp_evident(const char *s, size_t len)
{
    if (len == 0 || s[0] == '[' || s[0] == '<')
        return false;
    if (model_native_unnamed(s, len) || memmem(s, len, "::", 2))
        return true;
    const char *paren = memchr(s, '(', len);
    size_t end = paren ? (size_t)(paren - s) : len, dot = end;
    while (dot > 0 && s[dot - 1] != '.')
        dot--;
    if (dot == 0)
        return false;
    if (end - dot == 4 && memcmp(s + dot, "cold", 4) == 0)
        return true;
    return dot < end && s[dot] >= '0' && s[dot] <= '9';
}

static bool cr_java_like(const char *s, size_t len)
{
    if (len == 0 || s[0] == '[' || s[0] == '<' || (len >= 2 && memcmp(s + len - 2, "[]", 2) == 0))
        return true; /* thread, state, <empty>, an allocated array class: not code */
    const char *paren = memchr(s, '(', len);
    size_t end = paren ? (size_t)(paren - s) : len;
    return memchr(s, '.', end) != NULL && !cr_cpp_evident(s, len);
}

/* A native frame's method: its class a library, "kernel" for kernel frames,
 * the library an unnamed frame "libfoo.so+0x1a2b" names, else "[native]"
 * (collapsed stacks do not say); its name the whole frame text. */
static method_id cr_native_method(creader *r, str_id whole, frame_kind kind)
{
    model *m = r->m;
    if (!model_grow((void **)&r->native_of, &r->native_of_cap, whole.v, sizeof *r->native_of))
        return (method_id){ 0 };
    if (r->native_of[whole.v - 1].v)
        return r->native_of[whole.v - 1];
    size_t len;
    const char *s = model_string_get(m, whole, &len);
    const char *plus = kind == FRAME_KIND_CPP && model_native_unnamed(s, len) ? memrchr(s, '+', len) : NULL;
    str_id lib = kind == FRAME_KIND_KERNEL ? model_cstring(m, "kernel")
                 : plus                    ? model_string(m, s, (size_t)(plus - s))
                                           : model_cstring(m, "[native]");
    class_id c = model_class_intern_lib(m, lib, kind == FRAME_KIND_KERNEL ? MODEL_CODE_KERNEL : MODEL_CODE_NATIVE,
                                        (str_id){ 0 }, (str_id){ 0 });
    method_id me = c.v ? model_method_intern(m, c, whole, model_string(m, "", 0)) : (method_id){ 0 };
    r->native_of[whole.v - 1] = me;
    return me;
}

/* The method a frame text (kind suffix removed) names: a native one's
 * (cr_native_method), or a Java one's, split at the last '.' before any '('. */
static method_id cr_method(creader *r, const char *s, size_t len, frame_kind kind)
{
    model *m = r->m;
    str_id whole = model_string(m, s, len);
    if (!whole.v)
        return (method_id){ 0 };
    if (kind == FRAME_KIND_CPP || kind == FRAME_KIND_KERNEL)
        return cr_native_method(r, whole, kind);
    if (!model_grow((void **)&r->method_of, &r->method_of_cap, whole.v, sizeof *r->method_of))
        return (method_id){ 0 };
    if (r->method_of[whole.v - 1].v)
        return r->method_of[whole.v - 1];
    const char *paren = memchr(s, '(', len);
    size_t end = paren ? (size_t)(paren - s) : len, dot = end;
    while (dot > 0 && s[dot - 1] != '.')
        dot--;
    str_id cls, name;
    if (dot > 1) {     /* a '.' at 0 does not split: ".x" stays a name of its own */
        cls = model_string(m, s, dot - 1);
        name = model_string(m, s + dot, len - dot);
    } else {
        cls = model_string(m, "", 0);
        name = whole;
    }
    class_id c = model_class_intern(m, cls, (str_id){ 0 });
    method_id me = c.v && name.v ? model_method_intern(m, c, name, (str_id){ 0 }) : (method_id){ 0 };
    r->method_of[whole.v - 1] = me;
    return me;
}

static uint32_t cr_thread(creader *r, const char *s, size_t len)
{
    model *m = r->m;
    str_id name = model_string(m, s, len);
    if (!name.v || !model_grow((void **)&r->thread_of, &r->thread_of_cap, name.v, sizeof *r->thread_of))
        return 0;
    if (!r->thread_of[name.v - 1]) {
        uint32_t serial = ++r->next_serial;
        model_thread_start(m, serial, 0, name, (str_id){ 0 }, (str_id){ 0 });
        r->thread_of[name.v - 1] = serial;
    }
    return r->thread_of[name.v - 1];
}

static frame_kind cr_kind(const char *s, size_t *len)
{
    static const struct { char c; frame_kind k; } suffixes[] = {
        { 'j', FRAME_KIND_JIT }, { 'i', FRAME_KIND_INLINED }, { '0', FRAME_KIND_INTERPRETED }, { 'n', FRAME_KIND_NATIVE },
        { 'k', FRAME_KIND_KERNEL },
    };
    size_t n = *len;
    if (n < 4 || memcmp(s + n - 4, "_[", 2) != 0 || s[n - 1] != ']')
        return cr_cpp_evident(s, n) ? FRAME_KIND_CPP : FRAME_KIND_UNKNOWN;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (s[n - 2] == suffixes[i].c) {
            *len = n - 4;
            return suffixes[i].k;
        }
    return FRAME_KIND_UNKNOWN;
}

/* One line without its line break: "frame;...;frame count". */
static bool cr_line(creader *r, const char *p, size_t len)
{
    model *m = r->m;
    while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
        len--;
    if (len == 0)
        return true; /* a blank line */
    r->stack_lines++;
    if (memchr(p, '\0', len))
        return cr_fail(r, "NUL byte in line%s", "", 0);
    size_t sp = len;
    while (sp > 0 && p[sp - 1] != ' ' && p[sp - 1] != '\t')
        sp--;
    const char *num = p + sp;
    size_t nlen = len - sp;
    if (sp == 0)
        return cr_fail(r, "no sample count in '%s'; expected 'frame;frame;... count'", p, len);
    uint64_t count = 0;
    for (size_t i = 0; i < nlen; i++) {
        if (num[i] < '0' || num[i] > '9')
            return cr_fail(r, "bad sample count '%s'; expected a whole number at the end of the line", num, nlen);
        if (count > (UINT64_MAX - (uint64_t)(num[i] - '0')) / 10)
            return cr_fail(r, "sample count '%s' is too large", num, nlen);
        count = count * 10 + (uint64_t)(num[i] - '0');
    }
    if (m->total_stack_samples + count < count)
        return cr_fail(r, "sample counts add up to more than 2^64%s", "", 0);
    size_t slen = sp;
    while (slen > 0 && (p[slen - 1] == ' ' || p[slen - 1] == '\t'))
        slen--;
    if (slen == 0)
        return cr_fail(r, "no frames before the count '%s'", num, nlen);

    /* frames, root first: a "[x]" root is the thread, a known "[state]"
     * leaf the state (a lone frame is a state if it can be, else a thread) */
    const char *stop = p + slen, *last = stop;
    uint32_t nf = 1;
    for (const char *q = p; (q = memchr(q, ';', (size_t)(stop - q))) != NULL; q++, nf++)
        last = q + 1;
    if (nf == 1)
        last = p;
    size_t first_len = nf == 1 ? slen : (size_t)((const char *)memchr(p, ';', slen) - p);
    int state = cr_state(last, (size_t)(stop - last));
    bool is_thread = cr_bracketed(p, first_len) && (nf > 1 || state < 0);
    uint32_t thread = 0;
    if (is_thread && !(thread = cr_thread(r, p + 1, first_len - 2)))
        return cr_oom(r);
    const char *f = is_thread ? p + first_len + 1 : p;
    uint32_t nmethods = nf - (is_thread ? 1 : 0) - (state >= 0 ? 1 : 0), n = 0;
    bool in_native = false; /* the frame's caller is native code: a native method, C/C++ or the kernel */
    for (uint32_t i = 0; i < nmethods; i++) {
        const char *e = memchr(f, ';', (size_t)(stop - f));
        size_t flen = e ? (size_t)(e - f) : (size_t)(stop - f), whole = flen;
        frame_kind kind = cr_kind(f, &flen);
        bool bare = kind == FRAME_KIND_UNKNOWN && flen == whole && !cr_java_like(f, flen);
        if (bare && in_native)
            kind = FRAME_KIND_CPP;
        in_native = kind == FRAME_KIND_NATIVE || kind == FRAME_KIND_CPP || kind == FRAME_KIND_KERNEL;
        method_id me = cr_method(r, f, flen, kind);
        if (!me.v || me.v > UINT32_MAX >> FRAME_KIND_BITS || !cr_push(r, &n, stack_frame_pack(me, kind)) ||
            !model_grow((void **)&r->bare, &r->bare_cap, n, 1))
            return cr_oom(r);
        r->bare[n - 1] = bare;
        f = e ? e + 1 : stop;
    }
    /* and the callers of C/C++ code that are no Java names: a thread's start ("start_thread;
     * thread_native_entry(Thread*);Thread::call_run()") */
    for (uint32_t i = n > 0 ? n - 1 : 0; i-- > 0;) {
        frame_kind callee = stack_frame_kind(r->frames[i + 1]);
        if (!r->bare[i] || stack_frame_kind(r->frames[i]) != FRAME_KIND_UNKNOWN ||
            (callee != FRAME_KIND_CPP && callee != FRAME_KIND_KERNEL))
            continue;
        const model_method *mm = model_method_get(m, stack_frame_method(r->frames[i]));
        method_id me = mm ? cr_native_method(r, mm->name, FRAME_KIND_CPP) : (method_id){ 0 };
        if (!me.v || me.v > UINT32_MAX >> FRAME_KIND_BITS)
            return cr_oom(r);
        r->frames[i] = stack_frame_pack(me, FRAME_KIND_CPP);
    }
    /* the model wants the top of the stack first */
    for (uint32_t i = 0; i < n / 2; i++) {
        uint32_t t = r->frames[i];
        r->frames[i] = r->frames[n - 1 - i];
        r->frames[n - 1 - i] = t;
    }
    if (state >= 0)
        m->wall = true;
    stack_id id = model_stack_intern(m, thread, state >= 0 ? (sample_state)state : SAMPLE_RUNNING, r->frames, n);
    if (!id.v)
        return cr_oom(r);
    model_stack_add(m, id, count);
    return !m->oom || cr_oom(r);
}

model *collapsed_read(const void *data, size_t len, char *errbuf, size_t errlen)
{
    creader r = { 0 };
    r.err = errbuf;
    r.errlen = errlen;
    errbuf[0] = '\0';
    if (len == 0) {
        snprintf(errbuf, errlen, "empty file: no stacks");
        return NULL;
    }
    r.m = model_new();
    if (!r.m) {
        snprintf(errbuf, errlen, "out of memory");
        return NULL;
    }
    const char *p = data, *end = p + len;
    bool ok = true;
    while (ok && p < end) {
        r.lineno++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        ok = cr_line(&r, p, (size_t)(e - p));
        p = nl ? nl + 1 : end;
    }
    free(r.method_of);
    free(r.native_of);
    free(r.bare);
    free(r.thread_of);
    free(r.frames);
    if (ok && r.stack_lines == 0) {
        snprintf(errbuf, errlen, "no stacks: %lu blank line%s", r.lineno, r.lineno == 1 ? "" : "s");
        ok = false;
    }
    if (!ok) {
        model_free(r.m);
        return NULL;
    }
    return r.m;
}
