/* test_classfile.c — the class-file rewriter (src/classfile) on class files
 * assembled here byte by byte (no JVM): header and version errors, every
 * truncation and many corruptions of valid classes (errors, never crashes),
 * entry/exit/catch-all/newArray/objectInit injection, method ids of every
 * size and the counts in cf_result, switch re-padding at every alignment,
 * exception/line/local-variable table and StackMapTable remapping (delta
 * growth into the extended frame forms, Uninitialized offsets), branch
 * widening (goto_w, jsr_w, `if!cond +8; goto_w`) and the stack map frames the
 * rewriter infers after a widened branch (their types checked here; a real
 * verifier checks them in tests/it/t3002), methods left unchanged for
 * malformed or oversized code, the selector's view, and the fuzzer's
 * regression inputs (tests/fuzz/regressions/). Every output is also checked
 * by the independent reader in tests/tools/cf_walk.h. */
#include "harness.h"

#include <dirent.h>

#include "classfile/classfile.h"
#include "../tools/cf_walk.h"

static const cf_tracker test_tracker = { "jvmprof/Tracker", "enter", "exit", "count", "exitThrow", "objectInit", "newArray" };
#define TRACKER (&test_tracker)
#define REGRESSIONS "tests/fuzz/regressions"

/* ---- bytes --------------------------------------------------------------- */

typedef struct bb {
    unsigned char *d;
    size_t n, cap;
} bb;

static void bb_put(bb *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *d = realloc(b->d, cap);
        if (!d)
            abort();
        b->d = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void bb_u1(bb *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    bb_put(b, &c, 1);
}
static void bb_u2(bb *b, unsigned v)
{
    bb_u1(b, v >> 8);
    bb_u1(b, v);
}
static void bb_u4(bb *b, uint32_t v)
{
    bb_u2(b, v >> 16);
    bb_u2(b, v & 0xffff);
}
static void bb_free(bb *b)
{
    free(b->d);
    memset(b, 0, sizeof *b);
}

/* ---- a class-file builder -------------------------------------------------- */

typedef struct kb {
    uint16_t major, minor, cp_count;
    bb cp, fields, methods, attrs;
    uint16_t nfields, nmethods, nattrs;
    uint16_t this_class, super_class;
} kb;

static uint16_t kb_utf8(kb *k, const char *s)
{
    bb_u1(&k->cp, 1);
    bb_u2(&k->cp, (unsigned)strlen(s));
    bb_put(&k->cp, s, strlen(s));
    return k->cp_count++;
}
static uint16_t kb_class(kb *k, const char *name)
{
    uint16_t n = kb_utf8(k, name);
    bb_u1(&k->cp, 7);
    bb_u2(&k->cp, n);
    return k->cp_count++;
}
static uint16_t kb_mref(kb *k, uint16_t cls, const char *name, const char *desc)
{
    uint16_t n = kb_utf8(k, name), d = kb_utf8(k, desc);
    bb_u1(&k->cp, 12);
    bb_u2(&k->cp, n);
    bb_u2(&k->cp, d);
    uint16_t nat = k->cp_count++;
    bb_u1(&k->cp, 10);
    bb_u2(&k->cp, cls);
    bb_u2(&k->cp, nat);
    return k->cp_count++;
}
static uint16_t kb_string(kb *k, const char *v)
{
    uint16_t u = kb_utf8(k, v);
    bb_u1(&k->cp, 8);
    bb_u2(&k->cp, u);
    return k->cp_count++;
}
static uint16_t kb_long(kb *k, uint64_t v)
{
    bb_u1(&k->cp, 5);
    bb_u4(&k->cp, (uint32_t)(v >> 32));
    bb_u4(&k->cp, (uint32_t)v);
    uint16_t idx = k->cp_count;
    k->cp_count += 2;
    return idx;
}

static void kb_init(kb *k, const char *name, uint16_t major)
{
    memset(k, 0, sizeof *k);
    k->major = major;
    k->cp_count = 1;
    k->this_class = kb_class(k, name);
    k->super_class = strcmp(name, "java/lang/Object") ? kb_class(k, "java/lang/Object") : 0;
}

static void kb_free(kb *k)
{
    bb_free(&k->cp);
    bb_free(&k->fields);
    bb_free(&k->methods);
    bb_free(&k->attrs);
}

/* An attribute: name, length, body. */
static void put_attr(kb *k, bb *to, const char *name, const bb *body)
{
    bb_u2(to, kb_utf8(k, name));
    bb_u4(to, (uint32_t)body->n);
    bb_put(to, body->d, body->n);
}

static void kb_field(kb *k, const char *name, const char *desc)
{
    bb_u2(&k->fields, 0x0002);
    bb_u2(&k->fields, kb_utf8(k, name));
    bb_u2(&k->fields, kb_utf8(k, desc));
    bb body = {0};
    bb_u2(&body, kb_utf8(k, "field constant")); /* any index; only copied */
    bb_u2(&k->fields, 1);
    put_attr(k, &k->fields, "Signature", &body);
    bb_free(&body);
    k->nfields++;
}

static void kb_class_attr(kb *k, const char *name, const bb *body)
{
    put_attr(k, &k->attrs, name, body);
    k->nattrs++;
}

/* A method's Code: the bytecode, the exception table and Code's own attributes. */
typedef struct mcode {
    bb code;
    uint16_t max_stack, max_locals;
    bb exc;
    uint16_t nexc;
    bb attrs;
    uint16_t nattrs;
} mcode;

static void mc_exc(mcode *m, unsigned start, unsigned end, unsigned handler, unsigned type)
{
    bb_u2(&m->exc, start);
    bb_u2(&m->exc, end);
    bb_u2(&m->exc, handler);
    bb_u2(&m->exc, type);
    m->nexc++;
}

static void mc_attr(kb *k, mcode *m, const char *name, bb *body)
{
    put_attr(k, &m->attrs, name, body);
    m->nattrs++;
    bb_free(body);
}

static void mc_free(mcode *m)
{
    bb_free(&m->code);
    bb_free(&m->exc);
    bb_free(&m->attrs);
}

/* Adds a method; m NULL: no Code (abstract). Frees m's buffers. */
static void kb_method(kb *k, uint16_t access, const char *name, const char *desc, mcode *m)
{
    bb_u2(&k->methods, access);
    bb_u2(&k->methods, kb_utf8(k, name));
    bb_u2(&k->methods, kb_utf8(k, desc));
    k->nmethods++;
    if (!m) {
        bb_u2(&k->methods, 0);
        return;
    }
    bb body = {0};
    bb_u2(&body, m->max_stack);
    bb_u2(&body, m->max_locals);
    bb_u4(&body, (uint32_t)m->code.n);
    bb_put(&body, m->code.d, m->code.n);
    bb_u2(&body, m->nexc);
    bb_put(&body, m->exc.d, m->exc.n);
    bb_u2(&body, m->nattrs);
    bb_put(&body, m->attrs.d, m->attrs.n);
    bb_u2(&k->methods, 2);
    bb deprecated = {0};
    put_attr(k, &k->methods, "Deprecated", &deprecated); /* a non-Code method attribute, copied as is */
    put_attr(k, &k->methods, "Code", &body);
    bb_free(&body);
    mc_free(m);
}

static unsigned char *kb_finish(kb *k, size_t *len)
{
    bb o = {0};
    bb_u4(&o, 0xCAFEBABE);
    bb_u2(&o, k->minor);
    bb_u2(&o, k->major);
    bb_u2(&o, k->cp_count);
    bb_put(&o, k->cp.d, k->cp.n);
    bb_u2(&o, 0x0021);
    bb_u2(&o, k->this_class);
    bb_u2(&o, k->super_class);
    bb_u2(&o, 0);
    bb_u2(&o, k->nfields);
    bb_put(&o, k->fields.d, k->fields.n);
    bb_u2(&o, k->nmethods);
    bb_put(&o, k->methods.d, k->methods.n);
    bb_u2(&o, k->nattrs);
    bb_put(&o, k->attrs.d, k->attrs.n);
    kb_free(k);
    *len = o.n;
    return o.d;
}

/* ---- a bytecode assembler with labels ------------------------------------- */

#define NLABELS 64
typedef struct as {
    bb b;
    int64_t label[NLABELS];
    struct fix {
        uint32_t at, from;
        int lbl, wide;
    } fix[4096];
    int nfix;
} as;

static void as_init(as *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < NLABELS; i++)
        a->label[i] = -1;
}
static uint32_t pc(const as *a) { return (uint32_t)a->b.n; }
static void op(as *a, unsigned o) { bb_u1(&a->b, o); }
static void op1(as *a, unsigned o, unsigned v)
{
    bb_u1(&a->b, o);
    bb_u1(&a->b, v);
}
static void op2(as *a, unsigned o, unsigned v)
{
    bb_u1(&a->b, o);
    bb_u2(&a->b, v);
}
static void here(as *a, int l) { a->label[l] = pc(a); }
static void fixup(as *a, uint32_t from, int l, int wide)
{
    if (a->nfix == (int)(sizeof a->fix / sizeof a->fix[0]))
        abort();
    a->fix[a->nfix++] = (struct fix){pc(a), from, l, wide};
    if (wide)
        bb_u4(&a->b, 0);
    else
        bb_u2(&a->b, 0);
}
static void br(as *a, unsigned o, int l) /* 16-bit branch */
{
    uint32_t from = pc(a);
    op(a, o);
    fixup(a, from, l, 0);
}
static void brw(as *a, unsigned o, int l)
{
    uint32_t from = pc(a);
    op(a, o);
    fixup(a, from, l, 1);
}
static void pad(as *a)
{
    while (pc(a) % 4)
        op(a, 0);
}
static void tswitch(as *a, int32_t lo, int32_t hi, int def, const int *labels)
{
    uint32_t from = pc(a);
    op(a, CW_TABLESWITCH);
    pad(a);
    fixup(a, from, def, 1);
    bb_u4(&a->b, (uint32_t)lo);
    bb_u4(&a->b, (uint32_t)hi);
    for (int32_t i = 0; i <= hi - lo; i++)
        fixup(a, from, labels[i], 1);
}
static void lswitch(as *a, int n, const int32_t *keys, int def, const int *labels)
{
    uint32_t from = pc(a);
    op(a, CW_LOOKUPSWITCH);
    pad(a);
    fixup(a, from, def, 1);
    bb_u4(&a->b, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        bb_u4(&a->b, (uint32_t)keys[i]);
        fixup(a, from, labels[i], 1);
    }
}
/* Resolves the labels and moves the bytes into m->code. */
static void as_done(as *a, mcode *m)
{
    for (int i = 0; i < a->nfix; i++) {
        struct fix *f = &a->fix[i];
        if (a->label[f->lbl] < 0)
            abort();
        int64_t off = a->label[f->lbl] - (int64_t)f->from;
        if (f->wide)
            for (int k = 0; k < 4; k++)
                a->b.d[f->at + k] = (unsigned char)((uint32_t)off >> (24 - 8 * k));
        else {
            if (off < -32768 || off > 32767)
                abort();
            a->b.d[f->at] = (unsigned char)((uint16_t)off >> 8);
            a->b.d[f->at + 1] = (unsigned char)off;
        }
    }
    m->code = a->b;
    memset(&a->b, 0, sizeof a->b);
}

/* ---- StackMapTable builder --------------------------------------------------- */

typedef struct smt {
    bb b;
    uint16_t n;
    int64_t prev;
} smt;

static void smt_init(smt *s)
{
    memset(s, 0, sizeof *s);
    s->prev = -1;
}
static uint32_t smt_delta(smt *s, uint32_t at)
{
    uint32_t d = (uint32_t)(at - s->prev - 1);
    s->prev = at;
    s->n++;
    return d;
}
static void smt_same(smt *s, uint32_t at)
{
    uint32_t d = smt_delta(s, at);
    if (d > 63) {
        bb_u1(&s->b, 251);
        bb_u2(&s->b, d);
    } else
        bb_u1(&s->b, d);
}
/* one verification type: tag, and for 7 (Object) and 8 (Uninitialized) a u2 */
static void vt(bb *b, unsigned tag, unsigned v)
{
    bb_u1(b, tag);
    if (tag == 7 || tag == 8)
        bb_u2(b, v);
}
static void smt_same1(smt *s, uint32_t at, unsigned tag, unsigned v)
{
    uint32_t d = smt_delta(s, at);
    if (d > 63)
        abort();
    bb_u1(&s->b, 64 + d);
    vt(&s->b, tag, v);
}
static void smt_append1(smt *s, uint32_t at, unsigned tag, unsigned v)
{
    bb_u1(&s->b, 252);
    bb_u2(&s->b, smt_delta(s, at));
    vt(&s->b, tag, v);
}
static void smt_chop1(smt *s, uint32_t at)
{
    bb_u1(&s->b, 250);
    bb_u2(&s->b, smt_delta(s, at));
}
/* full_frame: locals and stack as (tag, value) pairs */
static void smt_full(smt *s, uint32_t at, int nl, const unsigned *locals, int ns, const unsigned *stack)
{
    bb_u1(&s->b, 255);
    bb_u2(&s->b, smt_delta(s, at));
    bb_u2(&s->b, (unsigned)nl);
    for (int i = 0; i < nl; i++)
        vt(&s->b, locals[2 * i], locals[2 * i + 1]);
    bb_u2(&s->b, (unsigned)ns);
    for (int i = 0; i < ns; i++)
        vt(&s->b, stack[2 * i], stack[2 * i + 1]);
}
static void smt_done(kb *k, mcode *m, smt *s)
{
    bb body = {0};
    bb_u2(&body, s->n);
    bb_put(&body, s->b.d, s->b.n);
    mc_attr(k, m, "StackMapTable", &body);
    bb_free(&s->b);
}

/* LineNumberTable / LocalVariableTable bodies from arrays */
static void mc_lines(kb *k, mcode *m, int n, const unsigned *pc_line)
{
    bb body = {0};
    bb_u2(&body, (unsigned)n);
    for (int i = 0; i < 2 * n; i++)
        bb_u2(&body, pc_line[i]);
    mc_attr(k, m, "LineNumberTable", &body);
}
static void mc_locals(kb *k, mcode *m, const char *attr, int n, const unsigned *start_len_slot)
{
    bb body = {0};
    bb_u2(&body, (unsigned)n);
    for (int i = 0; i < n; i++) {
        bb_u2(&body, start_len_slot[3 * i]);
        bb_u2(&body, start_len_slot[3 * i + 1]);
        bb_u2(&body, kb_utf8(k, "v"));
        bb_u2(&body, kb_utf8(k, "I"));
        bb_u2(&body, start_len_slot[3 * i + 2]);
    }
    mc_attr(k, m, attr, &body);
}

/* ---- running the rewriter and checking its output ---------------------------- */

static cf_result R;

static uint32_t select_const(void *ctx, const cf_method_view *m)
{
    (void)m;
    return *(const uint32_t *)ctx;
}

/* Rewrites with spec `what`; the methods get id `id` (0: the default, index + 1) unless sel chooses. */
static jp_status rewrite(const unsigned char *in, size_t len, unsigned what, uint32_t id, cf_select_fn sel, void *ctx)
{
    static uint32_t fixed;
    free(R.bytes);
    fixed = id;
    if (!sel && id) {
        sel = select_const;
        ctx = &fixed;
    }
    cf_inject_spec spec = {.tracker = TRACKER, .what = what, .select = sel, .ctx = ctx};
    return cf_rewrite(in, len, &spec, &R);
}

/* Method index by name in a parsed class, -1 if absent. */
static int method_named(const cw_class *c, const char *name)
{
    for (uint16_t i = 0; i < c->nmethods; i++)
        if (cw_utf8_is(c, c->m[i].name, name))
            return i;
    return -1;
}

typedef struct checked {
    cw_class oc, nc;
    cw_map map[8]; /* per method (the first 8) */
    bool changed[8];
    bool ok;
} checked;

/* Parses R.bytes, checks every changed method against the original with
 * cw_check_method, and rewrites the output once more. */
static void check_output(checked *ck, const unsigned char *in, size_t len, unsigned what)
{
    memset(ck, 0, sizeof *ck);
    ck->ok = false;
    if (!CHECK(cw_parse(&ck->oc, in, len)))
        return;
    if (!CHECK(R.bytes != NULL) || !CHECK(cw_parse(&ck->nc, R.bytes, R.len))) {
        fprintf(stderr, "    %s\n", ck->nc.err);
        return;
    }
    CHECK_EQ_INT(ck->nc.nmethods, ck->oc.nmethods);
    bool all = true;
    for (uint16_t i = 0; i < ck->oc.nmethods && i < 8; i++) {
        const cw_method *om = &ck->oc.m[i], *nm = &ck->nc.m[i];
        if (om->code < 0)
            continue;
        const cw_attr *a = &om->attrs[om->code], *b = &nm->attrs[nm->code];
        if (a->len == b->len && !memcmp(a->p, b->p, a->len))
            continue;
        ck->changed[i] = true;
        char err[256];
        if (!cw_check_method(&ck->oc, om, &ck->nc, nm, &ck->map[i], err, sizeof err)) {
            all = false;
            CHECK(!"method passes cw_check_method");
            fprintf(stderr, "    method %u: %s\n", i, err);
        }
    }
    /* the output is a class the rewriter accepts again */
    cf_result r2;
    cf_inject_spec spec = {.tracker = TRACKER, .what = what};
    CHECK_EQ_INT(cf_rewrite(R.bytes, R.len, &spec, &r2), JP_OK);
    free(r2.bytes);
    ck->ok = all;
}

static void checked_free(checked *ck)
{
    for (int i = 0; i < 8; i++)
        cw_map_free(&ck->map[i]);
    cw_free(&ck->oc);
    cw_free(&ck->nc);
}

/* new code of method i */
static const unsigned char *ncode(const checked *ck, int i) { return ck->nc.m[i].bytecode; }

/* The i-th frame of m's StackMapTable: its pc, type state (st initialized by
 * cw_state_init) and frame type; false if there is none. */
static bool nth_frame(const cw_class *c, const cw_method *m, uint32_t i, cw_state *st, uint32_t *pc, uint8_t *type)
{
    const cw_attr *a = cw_cattr(c, m, "StackMapTable");
    if (!a)
        return false;
    cw_cur r = {a->p, a->p + a->len, false};
    uint32_t n = cw_get(&r, 2);
    if (i >= n || !cw_initial_state(c, m, st))
        return false;
    int64_t prev = -1;
    for (uint32_t k = 0; k <= i; k++) {
        if (type && r.p < r.end)
            *type = *r.p;
        if (!cw_apply_frame(&r, &prev, st, c, NULL, pc))
            return false;
    }
    return true;
}

/* A method `static void m()`: { return } */
static void add_return_method(kb *k, const char *name)
{
    mcode m = {.max_stack = 0, .max_locals = 0};
    bb_u1(&m.code, CW_RETURN);
    kb_method(k, 0x0009, name, "()V", &m);
}

static unsigned char *tiny_class(uint16_t major, size_t *len)
{
    kb k;
    kb_init(&k, "t/Tiny", major);
    add_return_method(&k, "run");
    return kb_finish(&k, len);
}

/* ---- header and version ------------------------------------------------------ */

static void test_header_errors(void)
{
    size_t len;
    unsigned char *b = tiny_class(52, &len);
    CHECK_EQ_INT(rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL), JP_OK);
    CHECK(R.bytes != NULL);

    b[0] = 0xCA;
    b[3] = 0xBF;
    CHECK_EQ_INT(rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL), JP_ERR_FORMAT);
    CHECK(strstr(R.why, "magic") != NULL);
    CHECK(R.bytes == NULL);
    b[3] = 0xBE;

    static const struct {
        uint16_t major;
        jp_status want;
    } versions[] = {{44, JP_ERR_FORMAT}, {45, JP_OK}, {49, JP_OK}, {50, JP_OK}, {61, JP_OK}, {69, JP_OK},
                    {70, JP_ERR_FORMAT}, {0xffff, JP_ERR_FORMAT}};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        b[6] = (unsigned char)(versions[i].major >> 8);
        b[7] = (unsigned char)versions[i].major;
        jp_status st = rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL);
        if (!CHECK_EQ_INT(st, versions[i].want))
            fprintf(stderr, "    major %u\n", versions[i].major);
        if (versions[i].want != JP_OK) {
            char num[16];
            snprintf(num, sizeof num, "%u", versions[i].major);
            CHECK(strstr(R.why, num) != NULL);
            CHECK(R.bytes == NULL);
        } else {
            CHECK_EQ_INT(R.major, versions[i].major);
            CHECK_EQ_INT(R.entries, 1);
        }
    }
    /* constant pool count 0 */
    b[6] = 0;
    b[7] = 52;
    b[8] = b[9] = 0;
    CHECK_EQ_INT(rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL), JP_ERR_FORMAT);
    CHECK(R.why[0] != 0);
    free(b);

    /* trailing garbage after a valid class */
    b = tiny_class(52, &len);
    unsigned char *longer = malloc(len + 1);
    memcpy(longer, b, len);
    longer[len] = 0;
    CHECK_EQ_INT(rewrite(longer, len + 1, CF_INJECT_CALLS, 1, NULL, NULL), JP_ERR_FORMAT);
    CHECK(R.why[0] != 0);
    free(longer);

    char name[64];
    CHECK_EQ_INT(cf_class_name(b, len, name, sizeof name), JP_OK);
    CHECK_EQ_STR(name, "t/Tiny");
    CHECK(cf_class_name(b, len, name, 6) != JP_OK); /* "t/Tiny" + NUL needs 7 */
    CHECK(cf_class_name(b, 9, name, sizeof name) != JP_OK);
    free(b);
}

/* ---- a class with a bit of everything (the truncation/corruption subject) ---- */

static unsigned char *rich_class(size_t *len)
{
    kb k;
    kb_init(&k, "t/Rich", 52);
    uint16_t obj_init = kb_mref(&k, k.super_class, "<init>", "()V");
    uint16_t sb = kb_class(&k, "java/lang/StringBuilder");
    uint16_t sb_init = kb_mref(&k, sb, "<init>", "(I)V");
    uint16_t str = kb_class(&k, "java/lang/String");
    kb_long(&k, 0x123456789abcdefULL);
    kb_field(&k, "f", "I");

    /* <init>: aload_0; invokespecial Object.<init>; return */
    mcode m = {.max_stack = 1, .max_locals = 1};
    bb_u1(&m.code, CW_ALOAD_0);
    bb_u1(&m.code, 0xb7);
    bb_u2(&m.code, obj_init);
    bb_u1(&m.code, CW_RETURN);
    kb_method(&k, 0x0001, "<init>", "()V", &m);

    /* static Object f(int): switch, loop, try/catch, arrays, an uninitialized new */
    as a;
    as_init(&a);
    mcode f = {.max_stack = 4, .max_locals = 2};
    smt s;
    smt_init(&s);
    here(&a, 0);
    op(&a, 0x1a); /* iload_0 */
    int tl[] = {1, 2, 3};
    tswitch(&a, 0, 2, 4, tl);
    here(&a, 1);
    op1(&a, CW_NEWARRAY, 10);
    op(&a, 0xb0); /* areturn */
    here(&a, 2);
    op2(&a, CW_ANEWARRAY, str);
    op(&a, 0xb0);
    here(&a, 3);
    op(&a, CW_ICONST_0 + 1);
    op(&a, CW_ICONST_0 + 2);
    bb_u1(&a.b, CW_MULTIANEWARRAY);
    bb_u2(&a.b, str);
    bb_u1(&a.b, 2);
    op(&a, 0xb0);
    here(&a, 4);
    uint32_t new_at = pc(&a);
    op2(&a, CW_NEW, sb);
    op(&a, CW_DUP);
    op(&a, 0x1a);
    br(&a, CW_IFEQ, 5);
    op(&a, CW_ICONST_0 + 1);
    br(&a, CW_GOTO, 6);
    here(&a, 5);
    op(&a, CW_ICONST_0 + 2);
    here(&a, 6);
    op2(&a, 0xb7, sb_init);
    op(&a, 0x4b + 1); /* astore_1 */
    here(&a, 7);      /* try */
    op(&a, 0x2b);     /* aload_1 */
    op(&a, 0xb0);
    here(&a, 8); /* catch */
    op(&a, 0x4b + 1);
    op(&a, 0x01); /* aconst_null */
    op(&a, 0xb0);
    as_done(&a, &f);
    mc_exc(&f, (unsigned)a.label[7], (unsigned)a.label[8], (unsigned)a.label[8], 0);
    unsigned ints[] = {1, 0}, uninit2[] = {8, new_at, 8, new_at}, uninit3[] = {8, new_at, 8, new_at, 1, 0};
    smt_same(&s, (uint32_t)a.label[1]);
    smt_same(&s, (uint32_t)a.label[2]);
    smt_same(&s, (uint32_t)a.label[3]);
    smt_same(&s, (uint32_t)a.label[4]);
    smt_full(&s, (uint32_t)a.label[5], 1, ints, 2, uninit2);
    smt_full(&s, (uint32_t)a.label[6], 1, ints, 3, uninit3);
    smt_same1(&s, (uint32_t)a.label[8], 7, kb_class(&k, "java/lang/Throwable"));
    smt_done(&k, &f, &s);
    unsigned lines[] = {0, 10, (unsigned)a.label[1], 11, (unsigned)a.label[4], 12, (unsigned)a.label[8], 13};
    mc_lines(&k, &f, 4, lines);
    unsigned lv[] = {0, (unsigned)f.code.n, 0, (unsigned)a.label[7], (unsigned)(a.label[8] - a.label[7]), 1};
    mc_locals(&k, &f, "LocalVariableTable", 2, lv);
    kb_method(&k, 0x0009, "f", "(I)Ljava/lang/Object;", &f);

    kb_method(&k, 0x0401, "abs", "()V", NULL);
    bb sf = {0};
    bb_u2(&sf, kb_utf8(&k, "Rich.java"));
    kb_class_attr(&k, "SourceFile", &sf);
    bb_free(&sf);
    return kb_finish(&k, len);
}

static void test_rich_class(void)
{
    size_t len;
    unsigned char *b = rich_class(&len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 9, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.methods, 2);
    CHECK_EQ_INT(R.methods_rewritten, 2);
    CHECK_EQ_INT(R.methods_unchanged, 0);
    CHECK_EQ_INT(R.entries, 2);
    CHECK_EQ_INT(R.exits, 6);
    CHECK_EQ_INT(R.handlers, 1); /* not in <init> */
    CHECK_EQ_INT(R.newarrays, 3);
    CHECK_EQ_INT(R.widened, 0);
    CHECK_EQ_STR(R.source_file, "Rich.java");
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
    CHECK(ck.ok);
    /* the constant pool grew, the originals kept their bytes */
    CHECK(ck.nc.cp_count > ck.oc.cp_count);
    CHECK(memcmp(ck.oc.b + 10, ck.nc.b + 10, ck.oc.cp_end - 10) == 0);
    /* fields and class attributes byte-identical */
    CHECK_EQ_MEM(ck.oc.b + ck.oc.cp_end, ck.oc.methods_off - ck.oc.cp_end, ck.nc.b + ck.nc.cp_end,
                 ck.nc.methods_off - ck.nc.cp_end);
    CHECK_EQ_MEM(ck.oc.b + ck.oc.attrs_off, ck.oc.n - ck.oc.attrs_off, ck.nc.b + ck.nc.attrs_off,
                 ck.nc.n - ck.nc.attrs_off);
    int f = method_named(&ck.oc, "f");
    ASSERT(f == 1 && ck.changed[f]);
    const cw_map *mp = &ck.map[f];
    CHECK_EQ_INT(mp->entries, 1);
    CHECK_EQ_INT(mp->exits, 5);
    CHECK_EQ_INT(mp->newarrays, 3);
    CHECK_EQ_INT(mp->handlers, 1);
    CHECK_EQ_INT(mp->id, 9);
    /* the <init> got entry and exit but no catch-all */
    CHECK_EQ_INT(ck.map[0].entries, 1);
    CHECK_EQ_INT(ck.map[0].exits, 1);
    CHECK_EQ_INT(ck.map[0].handlers, 0);
    CHECK_EQ_INT(ck.nc.m[0].nexc, 0);
    checked_free(&ck);
    free(b);
}

static void test_truncated(void)
{
    size_t len;
    unsigned char *b = rich_class(&len);
    unsigned long bad = 0;
    for (size_t n = 0; n < len; n++) {
        unsigned char *cut = malloc(n ? n : 1); /* exactly n bytes, so ASan sees any overread */
        memcpy(cut, b, n);
        jp_status st = rewrite(cut, n, CF_INJECT_CALLS | CF_INJECT_NEWARRAY | CF_INJECT_OBJINIT, 1, NULL, NULL);
        char name[64];
        if (st != JP_ERR_FORMAT || R.bytes != NULL || R.why[0] == 0 ||
            (n < 12 && cf_class_name(cut, n, name, sizeof name) == JP_OK)) {
            if (++bad <= 3)
                fprintf(stderr, "    truncated to %zu of %zu bytes: status %d, why \"%s\"\n", n, len, st, R.why);
        }
        free(cut);
    }
    CHECK_EQ_INT(bad, 0);
    free(b);
}

static unsigned char *switch_class_2(size_t *len);
static unsigned char *returns_class_49(size_t *len);
static unsigned char *object_class(size_t *len);

/* Each byte replaced by a few values: any status, no crash; an output the
 * independent reader accepts; if the input parses too, every changed method
 * must check out. */
static void corrupt_each_byte(unsigned char *b, size_t len, unsigned long *outputs_, unsigned long *inconsistent_)
{
    unsigned long outputs = 0, inconsistent = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char vals[] = {0x00, 0xff, (unsigned char)(b[i] ^ 0x80), (unsigned char)(b[i] + 1),
                                (unsigned char)(b[i] - 1)};
        for (size_t v = 0; v < sizeof vals; v++) {
            unsigned char *c = malloc(len);
            memcpy(c, b, len);
            c[i] = vals[v];
            if (rewrite(c, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY | CF_INJECT_OBJINIT, 40000, NULL, NULL) == JP_OK &&
                R.bytes) {
                outputs++;
                cw_class oc, nc;
                bool op = cw_parse(&oc, c, len), np = cw_parse(&nc, R.bytes, R.len);
                if (op && !np) {
                    if (++inconsistent <= 3)
                        fprintf(stderr, "    byte %zu = 0x%02x: output does not parse: %s\n", i, vals[v], nc.err);
                } else if (op) {
                    for (uint16_t m = 0; m < oc.nmethods && m < nc.nmethods; m++) {
                        const cw_method *om = &oc.m[m], *nm = &nc.m[m];
                        if (om->code < 0 || nm->code < 0 || (om->attrs[om->code].len == nm->attrs[nm->code].len &&
                                                             !memcmp(om->attrs[om->code].p, nm->attrs[nm->code].p,
                                                                     om->attrs[om->code].len)))
                            continue;
                        cw_map map;
                        char err[256];
                        if (!cw_check_method(&oc, om, &nc, nm, &map, err, sizeof err) && ++inconsistent <= 3)
                            fprintf(stderr, "    byte %zu = 0x%02x: method %u: %s\n", i, vals[v], m, err);
                        cw_map_free(&map);
                    }
                }
                cw_free(&oc);
                cw_free(&nc);
                cf_result r2;
                cf_inject_spec spec = {.tracker = TRACKER, .what = CF_INJECT_CALLS};
                if (cf_rewrite(R.bytes, R.len, &spec, &r2) == JP_OK)
                    free(r2.bytes);
            }
            free(c);
        }
    }
    *outputs_ += outputs;
    *inconsistent_ += inconsistent;
}

static void test_corrupted(void)
{
    unsigned char *(*makers[])(size_t *) = {rich_class, switch_class_2, returns_class_49, object_class};
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
        size_t len;
        unsigned long outputs = 0, inconsistent = 0;
        unsigned char *b = makers[i](&len);
        corrupt_each_byte(b, len, &outputs, &inconsistent);
        CHECK(outputs > 0);
        if (!CHECK_EQ_INT(inconsistent, 0))
            fprintf(stderr, "    class %zu\n", i);
        free(b);
    }
}

/* ---- entry, exits, the catch-all, method id encodings ------------------------------ */

/* static: tableswitch to one return of each kind */
static unsigned char *returns_class(uint16_t major, size_t *len)
{
    kb k;
    kb_init(&k, "t/Returns", major);
    as a;
    as_init(&a);
    op(&a, 0x1a);
    int l[] = {1, 2, 3, 4, 5};
    tswitch(&a, 0, 4, 6, l);
    static const uint8_t konst[] = {0x03, 0x09, 0x0b, 0x0e, 0x01}, ret[] = {0xac, 0xad, 0xae, 0xaf, 0xb0};
    for (int i = 0; i < 5; i++) {
        here(&a, l[i]);
        op(&a, konst[i]);
        op(&a, ret[i]);
    }
    here(&a, 6);
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 2, .max_locals = 1};
    as_done(&a, &m);
    if (major >= 50) {
        smt s;
        smt_init(&s);
        for (int i = 1; i <= 6; i++)
            smt_same(&s, (uint32_t)a.label[i]);
        smt_done(&k, &m, &s);
    }
    kb_method(&k, 0x0009, "r", "(I)V", &m);
    return kb_finish(&k, len);
}

static void test_returns(void)
{
    size_t len;
    unsigned char *b = returns_class(52, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 3, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.entries, 1);
    CHECK_EQ_INT(R.exits, 6);
    CHECK_EQ_INT(R.handlers, 1);
    CHECK_EQ_INT(R.methods_rewritten, 1);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS);
    ASSERT(ck.ok && ck.changed[0]);
    const unsigned char *c = ncode(&ck, 0);
    /* iconst_3 (the id), invokestatic enter */
    CHECK_EQ_INT(c[0], CW_ICONST_0 + 3);
    CHECK_EQ_INT(c[1], CW_INVOKESTATIC);
    CHECK_EQ_INT(cw_tracker_kind(&ck.nc, cw_u2(c + 2)), 'E');
    CHECK_EQ_INT(ck.map[0].exits, 6);
    /* a switch target that is a return lands on the exit call before it */
    uint32_t ret_pc = ck.oc.m[0].code_len - 1;
    CHECK_EQ_INT(ck.map[0].start[ret_pc] + 4, ck.map[0].op[ret_pc]);
    CHECK_EQ_INT(cw_tracker_kind(&ck.nc, cw_u2(c + ck.map[0].start[ret_pc] + 2)), 'X');
    /* the catch-all: exit; athrow at the end, frame [] [Throwable] (checked by cw_check_method) */
    CHECK_EQ_INT(c[ck.nc.m[0].code_len - 1], 0xbf);
    CHECK_EQ_INT(ck.map[0].handlers, 1);
    checked_free(&ck);

    /* method ids of every size: iconst, bipush, sipush, ldc_w */
    static const struct {
        uint32_t id;
        uint8_t op;
    } nums[] = {{1, CW_ICONST_0 + 1}, {5, CW_ICONST_5}, {6, CW_BIPUSH}, {127, CW_BIPUSH}, {128, CW_SIPUSH},
                {32767, CW_SIPUSH}, {32768, CW_LDC_W}, {1u << 30, CW_LDC_W}, {~CF_SELECT_COUNT_ONLY, CW_LDC_W}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        ASSERT(rewrite(b, len, CF_INJECT_CALLS, nums[i].id, NULL, NULL) == JP_OK);
        check_output(&ck, b, len, CF_INJECT_CALLS);
        if (CHECK(ck.ok)) {
            CHECK_EQ_INT(ncode(&ck, 0)[0], nums[i].op);
            if (!CHECK_EQ_INT(ck.map[0].id, (int64_t)nums[i].id))
                fprintf(stderr, "    id %u\n", nums[i].id);
            CHECK_EQ_INT(ck.map[0].exits, 6);
        }
        checked_free(&ck);
    }
    /* count only: count(id) at entry, no exit calls, no handler */
    for (size_t i = 0; i < 2; i++) {
        uint32_t id = i ? 40000u : 3u;
        ASSERT(rewrite(b, len, CF_INJECT_CALLS, id | CF_SELECT_COUNT_ONLY, NULL, NULL) == JP_OK);
        CHECK_EQ_INT(R.counts, 1);
        CHECK_EQ_INT(R.entries, 0);
        CHECK_EQ_INT(R.exits, 0);
        CHECK_EQ_INT(R.handlers, 0);
        CHECK_EQ_INT(R.methods_rewritten, 1);
        check_output(&ck, b, len, CF_INJECT_CALLS);
        if (CHECK(ck.ok)) {
            const unsigned char *cc = ncode(&ck, 0);
            CHECK_EQ_INT(cc[0], i ? CW_LDC_W : CW_ICONST_0 + 3);
            CHECK_EQ_INT(cw_tracker_kind(&ck.nc, cw_u2(cc + (i ? 4 : 2))), 'C');
            CHECK_EQ_INT(ck.map[0].id, id);
            CHECK_EQ_INT(ck.map[0].counts, 1);
            CHECK_EQ_INT(ck.map[0].exits, 0);
            CHECK_EQ_INT(ck.map[0].handlers, 0);
        }
        checked_free(&ck);
    }
    /* the default: index + 1 */
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 0, NULL, NULL) == JP_OK);
    check_output(&ck, b, len, CF_INJECT_CALLS);
    if (CHECK(ck.ok))
        CHECK_EQ_INT(ck.map[0].id, 1);
    checked_free(&ck);
    free(b);

    /* version 49: no stack map anywhere, the catch-all still there */
    b = returns_class(49, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 3, NULL, NULL) == JP_OK);
    check_output(&ck, b, len, CF_INJECT_CALLS);
    CHECK(ck.ok);
    CHECK(cw_cattr(&ck.nc, &ck.nc.m[0], "StackMapTable") == NULL);
    CHECK_EQ_INT(R.handlers, 1);
    checked_free(&ck);
    free(b);
}

/* A straight-line method in a version-52 class has no StackMapTable: the
 * catch-all handler needs one, so the rewriter adds it. */
static void test_handler_adds_stackmap(void)
{
    kb k;
    kb_init(&k, "t/Straight", 52);
    add_return_method(&k, "a");
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL) == JP_OK);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS);
    CHECK(ck.ok);
    CHECK(cw_cattr(&ck.oc, &ck.oc.m[0], "StackMapTable") == NULL);
    CHECK(cw_cattr(&ck.nc, &ck.nc.m[0], "StackMapTable") != NULL);
    CHECK(ck.nc.m[0].max_stack >= 3);
    checked_free(&ck);
    free(b);
}

/* ---- switches at every alignment ------------------------------------------------- */

/* nops, then tableswitch and lookupswitch whose targets are `sipush 1000+k; ireturn`
 * markers or bare returns */
static unsigned char *switch_class(int nops, size_t *len)
{
    kb k;
    kb_init(&k, "t/Switch", 52);
    as a;
    as_init(&a);
    for (int i = 0; i < nops; i++)
        op(&a, 0);
    op(&a, 0x1a);
    int tl[] = {1, 2, 3, 1};
    tswitch(&a, -1, 2, 4, tl);
    here(&a, 10);
    for (int i = 0; i < nops; i++)
        op(&a, 0);
    op(&a, 0x1a);
    int32_t keys[] = {-100000, 7, 1 << 30};
    int ll[] = {2, 5, 3};
    lswitch(&a, 3, keys, 6, ll);
    for (int i = 1; i <= 4; i++) {
        here(&a, i);
        op2(&a, CW_SIPUSH, 1000u + (unsigned)i);
        op(&a, CW_IRETURN);
    }
    here(&a, 5);
    op(&a, CW_IRETURN); /* a bare return as a target */
    here(&a, 6);
    br(&a, CW_GOTO, 10); /* backward */
    mcode m = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m);
    kb_method(&k, 0x0009, "s", "(I)I", &m);
    return kb_finish(&k, len);
}

static void test_switch_padding(void)
{
    static const uint32_t ids[] = {1, 100, 1000, 40000}; /* prologues of 4, 5, 6 and 6 bytes */
    for (int nops = 0; nops < 4; nops++) {
        size_t len;
        unsigned char *b = switch_class(nops, &len);
        for (size_t ci = 0; ci < 4; ci++) {
            for (unsigned newarr = 0; newarr < 2; newarr++) {
                ASSERT(rewrite(b, len, newarr ? CF_INJECT_NEWARRAY | CF_INJECT_CALLS : CF_INJECT_CALLS, ids[ci],
                               NULL, NULL) == JP_OK);
                checked ck;
                check_output(&ck, b, len, CF_INJECT_CALLS);
                if (!CHECK(ck.ok)) {
                    fprintf(stderr, "    nops %d id %u\n", nops, ids[ci]);
                    checked_free(&ck);
                    continue;
                }
                /* decode the new switches and follow their targets to the markers */
                const cw_method *nm = &ck.nc.m[0];
                const unsigned char *c = nm->bytecode;
                int switches = 0;
                for (uint32_t p = 0; p < nm->code_len; p += cw_insn_len(c, nm->code_len, p)) {
                    if (!cw_is_switch(c[p]))
                        continue;
                    switches++;
                    cw_switch s = cw_switch_at(c, p);
                    CHECK_EQ_INT((s.q - c) % 4, 0);
                    CHECK_EQ_INT((uint32_t)(s.q - c) - p - 1, (4 - (p + 1) % 4) % 4);
                    for (uint32_t t = 0; t <= s.n; t++) {
                        uint32_t to = p + (uint32_t)(t == s.n ? s.def : cw_switch_target(&s, t));
                        int32_t key = t == s.n ? INT32_MIN : cw_switch_match(&s, t);
                        int want; /* which marker, 0 = the bare return, -1 = the goto */
                        if (c[p] == CW_TABLESWITCH)
                            want = t == s.n ? 4 : (int[]){1, 2, 3, 1}[key + 1];
                        else
                            want = t == s.n ? -1 : key == 7 ? 0 : key == -100000 ? 2 : 3;
                        if (want > 0) {
                            CHECK_EQ_INT(c[to], CW_SIPUSH);
                            CHECK_EQ_INT(cw_s2(c + to + 1), 1000 + want);
                        } else if (want == 0) {
                            /* push id; invokestatic exit */
                            CHECK_EQ_INT(cw_tracker_kind(&ck.nc, cw_u2(c + to + cw_insn_len(c, nm->code_len, to) + 1)),
                                         'X');
                        } else {
                            CHECK_EQ_INT(c[to], CW_GOTO);
                        }
                    }
                }
                CHECK_EQ_INT(switches, 2);
                checked_free(&ck);
            }
        }
        free(b);
    }
}

/* ---- exception, line and local-variable tables --------------------------------- */

static void test_tables(void)
{
    kb k;
    kb_init(&k, "t/Tables", 49);
    uint16_t exc = kb_class(&k, "java/lang/Exception");
    as a;
    as_init(&a);
    op(&a, 0x1a);           /* 0: iload_0 */
    br(&a, 0x9a, 1);        /* 1: ifne */
    op(&a, CW_RETURN);      /* 4: return inside the try */
    here(&a, 1);
    op1(&a, CW_NEWARRAY, 10); /* needs an int on the stack: unverified, the rewriter doesn't care */
    op(&a, 0x57);           /* pop */
    here(&a, 2);
    bb_u1(&a.b, CW_WIDE);   /* wide iinc 0 by 1000 */
    bb_u1(&a.b, 0x84);
    bb_u2(&a.b, 0);
    bb_u2(&a.b, 1000);
    brw(&a, CW_GOTO_W, 4);  /* a 32-bit branch: kept, its offset remapped */
    here(&a, 4);
    op(&a, CW_RETURN);
    here(&a, 3); /* handler */
    op(&a, 0x57);
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m);
    uint32_t end = (uint32_t)m.code.n;
    mc_exc(&m, 0, (unsigned)a.label[3], (unsigned)a.label[3], exc);
    mc_exc(&m, 4, 5, (unsigned)a.label[3], 0);                       /* just the return */
    mc_exc(&m, (unsigned)a.label[3], end, (unsigned)a.label[3], 0); /* to the end of the code */
    unsigned lines[] = {0, 1, 4, 2, (unsigned)a.label[1], 3, (unsigned)a.label[2], 4, (unsigned)a.label[3], 5};
    mc_lines(&k, &m, 5, lines);
    unsigned lv[] = {0, end, 0, 4, 1, 0, (unsigned)a.label[2], end - (unsigned)a.label[2], 0};
    mc_locals(&k, &m, "LocalVariableTable", 3, lv);
    mc_locals(&k, &m, "LocalVariableTypeTable", 1, lv + 3);
    bb ta = {0};
    bb_u2(&ta, 0);
    mc_attr(&k, &m, "RuntimeVisibleTypeAnnotations", &ta); /* its offsets would go stale: dropped */
    bb other = {0};
    bb_u4(&other, 0xdeadbeef);
    mc_attr(&k, &m, "SomethingElse", &other); /* copied as is */
    kb_method(&k, 0x0009, "t", "(I)V", &m);
    size_t len;
    unsigned char *b = kb_finish(&k, &len);

    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 77, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.exits, 3);
    CHECK_EQ_INT(R.newarrays, 1);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
    ASSERT(ck.ok);
    const cw_method *nm = &ck.nc.m[0];
    const cw_map *mp = &ck.map[0];
    ASSERT(nm->nexc == 4);
    /* [0, handler): starts after the entry call, not at 0 */
    CHECK_EQ_INT(cw_u2(nm->exc), mp->op[0]);
    CHECK(cw_u2(nm->exc) > 0);
    /* [return, return+1): covers the exit call before the return */
    CHECK_EQ_INT(cw_u2(nm->exc + 8), mp->start[4]);
    CHECK_EQ_INT(cw_u2(nm->exc + 10), mp->op[5 - 1] + 1);
    /* [handler, end of code): ends before the catch-all */
    CHECK_EQ_INT(cw_u2(nm->exc + 18), mp->handler_pc);
    CHECK_EQ_INT(cw_u2(nm->exc + 6), exc);
    const cw_attr *lnt = cw_cattr(&ck.nc, nm, "LineNumberTable");
    ASSERT(lnt != NULL);
    CHECK_EQ_INT(cw_u2(lnt->p + 2), mp->op[0]);   /* line 1 */
    CHECK_EQ_INT(cw_u2(lnt->p + 6), mp->start[4]); /* line 2: the exit call belongs to the return's line */
    CHECK(cw_cattr(&ck.nc, nm, "RuntimeVisibleTypeAnnotations") == NULL);
    const cw_attr *other_new = cw_cattr(&ck.nc, nm, "SomethingElse");
    CHECK(other_new && other_new->len == 4 && cw_u4(other_new->p) == 0xdeadbeef);
    CHECK_EQ_INT(nm->ncattrs, 4);
    checked_free(&ck);
    free(b);
}

/* ---- StackMapTable ----------------------------------------------------------------- */

static void test_stackmap(void)
{
    kb k;
    kb_init(&k, "t/Frames", 52);
    uint16_t sb = kb_class(&k, "java/lang/StringBuilder");
    uint16_t sb_init = kb_mref(&k, sb, "<init>", "(I)V");
    uint16_t str = kb_class(&k, "java/lang/String");
    as a;
    as_init(&a);
    smt s;
    smt_init(&s);
    op(&a, 0x1a);
    br(&a, CW_IFEQ, 1);
    op(&a, 0);
    here(&a, 1); /* frame 0: same, delta 4 -> 4 + prologue */
    for (int i = 0; i < 10; i++) {
        op(&a, 0x1a);
        op1(&a, CW_NEWARRAY, 10); /* +4 bytes each after injection */
        op(&a, 0x57);
    }
    here(&a, 2); /* frame 1: same, delta 40 -> 80: same_frame_extended */
    op(&a, 0x1a);
    for (int i = 0; i < 5; i++) {
        op(&a, 0x1a);
        op1(&a, CW_NEWARRAY, 10);
        op(&a, 0x57);
    }
    here(&a, 3); /* frame 2: same_locals_1_stack_item int, delta 20 -> 40: still compact */
    op(&a, 0x57);
    for (int i = 0; i < 12; i++) {
        op(&a, 0x1a);
        op2(&a, CW_ANEWARRAY, str);
        op(&a, 0x57);
    }
    op(&a, 0x1a);
    here(&a, 4); /* frame 3: same_locals_1_stack_item int, delta 49 -> 97: 247 */
    op(&a, 0x57);
    op(&a, 0x1a);
    op(&a, 0x3c); /* istore_1 */
    here(&a, 5); /* frame 4: append int */
    uint32_t new_at = pc(&a);
    op2(&a, CW_NEW, sb);
    op(&a, CW_DUP);
    op(&a, 0x1a);
    op1(&a, CW_NEWARRAY, 10);
    op(&a, 0xbe); /* arraylength */
    br(&a, CW_IFEQ, 6);
    op(&a, CW_ICONST_0 + 1);
    br(&a, CW_GOTO, 7);
    here(&a, 6); /* frame 5: full [int, int] [uninit(new), uninit(new)] */
    op(&a, CW_ICONST_0 + 2);
    here(&a, 7); /* frame 6: full [int, int] [uninit, uninit, int] */
    op2(&a, 0xb7, sb_init);
    op(&a, 0x57);
    here(&a, 8); /* frame 7: chop 1 */
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 4, .max_locals = 2};
    as_done(&a, &m);
    smt_same(&s, (uint32_t)a.label[1]);
    smt_same(&s, (uint32_t)a.label[2]);
    smt_same1(&s, (uint32_t)a.label[3], 1, 0);
    smt_same1(&s, (uint32_t)a.label[4], 1, 0);
    smt_append1(&s, (uint32_t)a.label[5], 1, 0);
    unsigned l2[] = {1, 0, 1, 0}, st2[] = {8, new_at, 8, new_at}, st3[] = {8, new_at, 8, new_at, 1, 0};
    smt_full(&s, (uint32_t)a.label[6], 2, l2, 2, st2);
    smt_full(&s, (uint32_t)a.label[7], 2, l2, 3, st3);
    smt_chop1(&s, (uint32_t)a.label[8]);
    smt_done(&k, &m, &s);
    kb_method(&k, 0x0009, "f", "(I)V", &m);
    size_t len;
    unsigned char *b = kb_finish(&k, &len);

    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.newarrays, 28);
    CHECK_EQ_INT(R.methods_unchanged, 0);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
    ASSERT(ck.ok);
    const cw_attr *t = cw_cattr(&ck.nc, &ck.nc.m[0], "StackMapTable");
    ASSERT(t != NULL);
    cw_cur r = {t->p, t->p + t->len, false};
    ASSERT(cw_get(&r, 2) == 9); /* 8 + the catch-all's */
    static const uint8_t want_type[] = {0, 251, 64, 247, 252, 255, 255, 250, 255};
    const cw_map *mp = &ck.map[0];
    cw_frame f = {.types = malloc(CW_TYPES_CAP)};
    int64_t prev = -1;
    for (int i = 0; i < 9; i++) {
        ASSERT(cw_next_frame(&r, &prev, &f, NULL));
        if (want_type[i] < 64)
            CHECK(f.type < 64);
        else if (want_type[i] < 128)
            CHECK(f.type >= 64 && f.type < 128);
        else if (!CHECK_EQ_INT(f.type, want_type[i]))
            fprintf(stderr, "    frame %d\n", i);
        if (i < 8)
            CHECK_EQ_INT(f.pc, mp->start[a.label[i + 1]]);
        if (i == 5 || i == 6) { /* Uninitialized(new) follows the new */
            CHECK_EQ_INT(f.types[3], 8); /* int, int, |, Uninitialized */
            CHECK_EQ_INT((f.types[4] << 8) | f.types[5], mp->op[new_at]);
            CHECK(mp->op[new_at] != new_at);
        }
    }
    free(f.types);
    checked_free(&ck);
    free(b);
}

/* ---- widening ------------------------------------------------------------------------ */

#define BODY_NEWARRAYS 5000 /* 20000 bytes, 40000 after injection */

static void newarray_body(as *a, int n)
{
    for (int i = 0; i < n; i++) {
        op(a, 0x1a);
        op1(a, CW_NEWARRAY, 10);
        op(a, 0x57);
    }
}

/* i = 0; L0: body; i++; if (i == 0) goto L1 (short, forward); goto L0 (long, back); L1: return */
static unsigned char *backward_goto_class(uint16_t major, size_t *len)
{
    kb k;
    kb_init(&k, "t/Back", major);
    as a;
    as_init(&a);
    op(&a, CW_ICONST_0);
    op(&a, 0x3c);
    here(&a, 0);
    newarray_body(&a, BODY_NEWARRAYS);
    bb_u1(&a.b, 0x84);
    bb_u1(&a.b, 1);
    bb_u1(&a.b, 1);
    op(&a, 0x1b);
    br(&a, CW_IFEQ, 1);
    br(&a, CW_GOTO, 0);
    here(&a, 1);
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 1, .max_locals = 2};
    as_done(&a, &m);
    if (major >= 50) {
        smt s;
        smt_init(&s);
        smt_append1(&s, (uint32_t)a.label[0], 1, 0);
        smt_same(&s, (uint32_t)a.label[1]);
        smt_done(&k, &m, &s);
    }
    kb_method(&k, 0x0009, "loop", "(I)V", &m);
    return kb_finish(&k, len);
}

static void test_widen_backward_goto(void)
{
    for (uint16_t major = 49; major <= 52; major += 3) {
        size_t len;
        unsigned char *b = backward_goto_class(major, &len);
        ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
        CHECK_EQ_INT(R.methods_unchanged, 0);
        CHECK_EQ_INT(R.widened, 1);
        CHECK_EQ_INT(R.newarrays, BODY_NEWARRAYS);
        checked ck;
        check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
        if (CHECK(ck.ok)) {
            CHECK_EQ_INT(ck.map[0].widened, 1);
            uint32_t goto_old = ck.oc.m[0].code_len - 4;
            CHECK_EQ_INT(ck.oc.m[0].bytecode[goto_old], CW_GOTO);
            uint32_t g = ck.map[0].op[goto_old];
            CHECK_EQ_INT(ncode(&ck, 0)[g], CW_GOTO_W);
            CHECK_EQ_INT(g + (uint32_t)cw_s4(ncode(&ck, 0) + g + 1), ck.map[0].start[2]);
        }
        checked_free(&ck);
        free(b);
    }
}

/* if (x == 0) goto END (over a long body); body; END: return.
 * frame_after: a stack map frame at the instruction after the ifeq too;
 * full_end: END's frame a full_frame rather than same_frame_extended. */
static unsigned char *forward_if_class_kind(uint16_t major, bool frame_after, bool full_end, size_t *len)
{
    kb k;
    kb_init(&k, "t/Fwd", major);
    as a;
    as_init(&a);
    op(&a, 0x1a);
    br(&a, CW_IFEQ, 1);
    here(&a, 0);
    newarray_body(&a, BODY_NEWARRAYS);
    here(&a, 1);
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m);
    if (major >= 50) {
        smt s;
        smt_init(&s);
        if (frame_after)
            smt_same(&s, (uint32_t)a.label[0]);
        if (full_end) {
            unsigned l[] = {1, 0};
            smt_full(&s, (uint32_t)a.label[1], 1, l, 0, NULL);
        } else {
            bb_u1(&s.b, 251); /* same_frame_extended: the body is longer than 63 bytes */
            bb_u2(&s.b, smt_delta(&s, (uint32_t)a.label[1]));
        }
        smt_done(&k, &m, &s);
    }
    kb_method(&k, 0x0009, "fwd", "(I)V", &m);
    add_return_method(&k, "other");
    return kb_finish(&k, len);
}

static unsigned char *forward_if_class(uint16_t major, bool frame_after, size_t *len)
{
    return forward_if_class_kind(major, frame_after, false, len);
}

static void test_widen_conditional(void)
{
    size_t len;
    checked ck;
    /* version 49, no stack map: ifeq becomes ifne +8; goto_w */
    unsigned char *b = forward_if_class(49, false, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.methods_unchanged, 0);
    CHECK_EQ_INT(R.methods_rewritten, 2);
    CHECK_EQ_INT(R.widened, 1);
    check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
    if (CHECK(ck.ok)) {
        const unsigned char *c = ncode(&ck, 0);
        uint32_t p = ck.map[0].op[1];
        CHECK_EQ_INT(c[p], 0x9a); /* ifne */
        CHECK_EQ_INT(cw_s2(c + p + 1), 8);
        CHECK_EQ_INT(c[p + 3], CW_GOTO_W);
        CHECK_EQ_INT(p + 3 + (uint32_t)cw_s4(c + p + 4), ck.map[0].start[ck.oc.m[0].code_len - 1]);
        CHECK_EQ_INT(ck.map[0].op[4], p + 8);
    }
    checked_free(&ck);
    free(b);

    /* version 52 with a frame after the ifeq: widened, the frame lands after the goto_w */
    b = forward_if_class(52, true, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.methods_unchanged, 0);
    CHECK_EQ_INT(R.widened, 1);
    check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
    CHECK(ck.ok);
    checked_free(&ck);
    free(b);

    /* version 52 without that frame: the rewriter infers it (the state after ifeq pops x: [int] []) and
     * writes the whole table as full frames; whatever form END's frame had */
    for (int full_end = 0; full_end < 2; full_end++) {
        b = forward_if_class_kind(52, false, full_end, &len);
        ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
        if (!CHECK_EQ_INT(R.methods_unchanged, 0))
            fprintf(stderr, "    why: %s\n", R.why);
        CHECK_EQ_INT(R.methods_rewritten, 2);
        CHECK_EQ_INT(R.widened, 1);
        CHECK_EQ_INT(R.frames_added, 1);
        check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
        if (CHECK(ck.ok)) {
            CHECK_EQ_INT(ck.map[0].frames_added, 1);
            cw_state st;
            ASSERT(cw_state_init(&st, 8));
            uint32_t fpc;
            uint8_t type;
            if (CHECK(nth_frame(&ck.nc, &ck.nc.m[0], 0, &st, &fpc, &type))) {
                CHECK_EQ_INT(fpc, ck.map[0].op[1] + 8);
                CHECK_EQ_INT(type, 255);
                CHECK_EQ_INT(st.nl, 1);
                CHECK_EQ_INT(st.l[0].tag, 1);
                CHECK_EQ_INT(st.ns, 0);
            }
            CHECK(nth_frame(&ck.nc, &ck.nc.m[0], 1, &st, &fpc, &type) && type == 255);
            cw_state_free(&st);
        }
        checked_free(&ck);
        free(b);
    }
}

/* A frame to infer with every kind of type in it: long, double, String and
 * int[] locals, two Uninitialized(new) on the stack across the branch, from
 * an append_frame before it:
 *   static void inf(long a, String s, int[] arr, int x) {
 *     double d = 1; [frame] x = arr[0]; new StringBuilder(x != 0 ? <body> "t" : "f"); return; } */
/* A branch widened over newarrays, to a frame the rewriter must infer; trailing: a byte
 * past the StackMapTable's frames. */
static unsigned char *infer_class(size_t *len, uint32_t *new_at_out, uint32_t *if_at_out, bool trailing)
{
    kb k;
    kb_init(&k, "t/Infer", 52);
    uint16_t sb = kb_class(&k, "java/lang/StringBuilder");
    uint16_t sb_init = kb_mref(&k, sb, "<init>", "(Ljava/lang/String;)V");
    uint16_t str = kb_class(&k, "java/lang/String"), arr = kb_class(&k, "[I");
    as a;
    as_init(&a);
    op(&a, 0x0f);       /* dconst_1 */
    op1(&a, 0x39, 5);   /* dstore 5 */
    here(&a, 0);        /* frame: append double */
    op(&a, 0x2d);       /* aload_3 */
    op(&a, CW_ICONST_0);
    op(&a, 0x2e);       /* iaload */
    op1(&a, 0x36, 4);   /* istore 4 */
    uint32_t new_at = pc(&a);
    op2(&a, CW_NEW, sb);
    op(&a, CW_DUP);
    op1(&a, 0x15, 4);   /* iload 4 */
    uint32_t if_at = pc(&a);
    br(&a, CW_IFEQ, 1);
    for (int i = 0; i < BODY_NEWARRAYS; i++) {
        op1(&a, 0x15, 4);
        op1(&a, CW_NEWARRAY, 10);
        op(&a, 0x57);
    }
    op2(&a, CW_LDC_W, kb_string(&k, "t"));
    br(&a, CW_GOTO, 2);
    here(&a, 1);
    op2(&a, CW_LDC_W, kb_string(&k, "f"));
    here(&a, 2);
    op2(&a, 0xb7, sb_init);
    op(&a, 0x57);
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 4, .max_locals = 7};
    as_done(&a, &m);
    smt s;
    smt_init(&s);
    smt_append1(&s, (uint32_t)a.label[0], 3, 0);
    unsigned locals[] = {4, 0, 7, str, 7, arr, 1, 0, 3, 0}, st2[] = {8, new_at, 8, new_at},
             st3[] = {8, new_at, 8, new_at, 7, str};
    smt_full(&s, (uint32_t)a.label[1], 5, locals, 2, st2);
    smt_full(&s, (uint32_t)a.label[2], 5, locals, 3, st3);
    if (trailing)
        bb_u1(&s.b, 0);
    smt_done(&k, &m, &s);
    kb_method(&k, 0x0009, "inf", "(JLjava/lang/String;[II)V", &m);
    *new_at_out = new_at;
    *if_at_out = if_at;
    return kb_finish(&k, len);
}

/* A StackMapTable with a byte past its frames, in a method whose widened branch sends it to
 * the inferring path (which did not check for one; found by make fuzz): malformed input. */
static void test_infer_trailing(void)
{
    size_t len;
    uint32_t new_at, if_at;
    unsigned char *b = infer_class(&len, &new_at, &if_at, true);
    if (!CHECK_EQ_INT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL), JP_ERR_FORMAT))
        fprintf(stderr, "    why: %s\n", R.why);
    CHECK(strstr(R.why, "trailing") != NULL);
    free(b);
}

static void test_infer_frame(void)
{
    size_t len;
    uint32_t new_at, if_at;
    unsigned char *b = infer_class(&len, &new_at, &if_at, false);

    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
    if (!CHECK_EQ_INT(R.methods_unchanged, 0))
        fprintf(stderr, "    why: %s\n", R.why);
    CHECK_EQ_INT(R.widened, 1);
    CHECK_EQ_INT(R.frames_added, 1);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
    if (CHECK(ck.ok)) {
        cw_state st;
        ASSERT(cw_state_init(&st, 16));
        uint32_t fpc;
        /* frame 0: the append (now full); frame 1: the inferred one */
        if (CHECK(nth_frame(&ck.nc, &ck.nc.m[0], 1, &st, &fpc, NULL))) {
            CHECK_EQ_INT(fpc, ck.map[0].op[if_at] + 8);
            static const uint8_t tags[] = {4, 7, 7, 1, 3};
            static const char *names[] = {NULL, "java/lang/String", "[I", NULL, NULL};
            ASSERT(st.nl == 5);
            for (int i = 0; i < 5; i++) {
                CHECK_EQ_INT(st.l[i].tag, tags[i]);
                if (names[i])
                    CHECK(st.l[i].name && st.l[i].nlen == strlen(names[i]) &&
                          !memcmp(st.l[i].name, names[i], st.l[i].nlen));
            }
            ASSERT(st.ns == 2);
            for (int i = 0; i < 2; i++) {
                CHECK_EQ_INT(st.s[i].tag, 8);
                CHECK_EQ_INT(st.s[i].v, ck.map[0].op[new_at]);
            }
        }
        cw_state_free(&st);
    }
    checked_free(&ck);
    free(b);
}

/* iload_0; ifeq END; `return` x 6600 (each gets a 4-byte exit call: the
 * ifeq must widen); END: return. pre() assembles what comes before. */
static unsigned char *infer_after(void (*pre)(kb *, as *, void *), void *ctx, int max_stack, size_t *len)
{
    kb k;
    kb_init(&k, "t/InferAfter", 52);
    as a;
    as_init(&a);
    pre(&k, &a, ctx);
    op(&a, 0x1a);
    br(&a, CW_IFEQ, 1);
    for (int i = 0; i < 6600; i++)
        op(&a, CW_RETURN);
    here(&a, 1);
    op(&a, CW_RETURN);
    mcode m = {.max_stack = (uint16_t)max_stack, .max_locals = 1};
    as_done(&a, &m);
    smt s;
    smt_init(&s);
    smt_same(&s, (uint32_t)a.label[1]);
    smt_done(&k, &m, &s);
    kb_method(&k, 0x0009, "f", "(I)V", &m);
    return kb_finish(&k, len);
}

static void pre_strings(kb *k, as *a, void *ctx)
{
    uint16_t str = kb_string(k, "s"); /* no CONSTANT_Class java/lang/String in the pool */
    for (int i = 0; i < *(int *)ctx; i++) {
        op2(a, CW_LDC_W, str);
        op(a, 0x57);
    }
}

/* Typing 3000 `ldc "s"` to infer one frame needs one Class java/lang/String
 * in the pool, not one per instruction. */
static void test_infer_pool_growth(void)
{
    int n = 3000;
    size_t len;
    unsigned char *b = infer_after(pre_strings, &n, 1, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 0, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.frames_added, 1);
    cw_class oc, nc;
    if (CHECK(cw_parse(&oc, b, len)) && CHECK(R.bytes && cw_parse(&nc, R.bytes, R.len))) {
        if (!CHECK(nc.cp_count - oc.cp_count < 40))
            fprintf(stderr, "    the constant pool grew from %u to %u entries\n", oc.cp_count, nc.cp_count);
    }
    cw_free(&oc);
    cw_free(&nc);
    free(b);
}

static void pre_array_of_arrays(kb *k, as *a, void *ctx)
{
    (void)ctx;
    uint16_t g = kb_mref(k, k->this_class, "g", "()[[J"); /* [[J and [J only in this descriptor */
    op2(a, CW_INVOKESTATIC, g);
    op(a, CW_ICONST_0);
    op(a, 0x32); /* aaload: a [J */
    op(a, 0x57);
}

/* An aaload whose array type the pool lacks (so the rewriter appends it)
 * can still be typed. */
static void test_infer_appended_class(void)
{
    size_t len;
    unsigned char *b = infer_after(pre_array_of_arrays, NULL, 2, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 0, NULL, NULL) == JP_OK);
    if (!CHECK_EQ_INT(R.methods_unchanged, 0))
        fprintf(stderr, "    why: %s\n", R.why);
    CHECK_EQ_INT(R.frames_added, 1);
    free(b);
}

/* A frame the rewriter cannot infer (an ldc of a Methodref, which no verifier types) leaves the method alone. */
static void test_infer_fails(void)
{
    kb k;
    kb_init(&k, "t/NoInfer", 52);
    uint16_t mr = kb_mref(&k, k.this_class, "x", "()V");
    as a;
    as_init(&a);
    op2(&a, CW_LDC_W, mr);
    op(&a, 0x57);
    op(&a, 0x1a);
    br(&a, CW_IFEQ, 1);
    newarray_body(&a, BODY_NEWARRAYS);
    here(&a, 1);
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m);
    smt s;
    smt_init(&s);
    smt_same(&s, (uint32_t)a.label[1]);
    smt_done(&k, &m, &s);
    kb_method(&k, 0x0009, "f", "(I)V", &m);
    add_return_method(&k, "other");
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.methods_unchanged, 1);
    CHECK_EQ_INT(R.methods_rewritten, 1);
    CHECK_EQ_INT(R.frames_added, 0);
    CHECK(strstr(R.why, "method 0") && strstr(R.why, "infer"));
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY);
    CHECK(ck.ok && !ck.changed[0] && ck.changed[1]);
    checked_free(&ck);
    free(b);
}

/* Over 65535 bytes after injection: left unchanged. */
static void test_too_big(void)
{
    kb k;
    kb_init(&k, "t/Big", 49);
    as a;
    as_init(&a);
    newarray_body(&a, 9000); /* 36000 bytes -> 72000 */
    op(&a, CW_RETURN);
    mcode m = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m);
    kb_method(&k, 0x0009, "big", "(I)V", &m);
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.methods_unchanged, 1);
    CHECK_EQ_INT(R.methods_rewritten, 0);
    CHECK(strstr(R.why, "65535") != NULL);
    /* without newArray calls it fits */
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.methods_unchanged, 0);
    CHECK_EQ_INT(R.methods_rewritten, 1);
    free(R.bytes);
    R.bytes = NULL;
    free(b);
}

/* ---- arrays, Object.<init>, the selector ---------------------------------------- */

static unsigned char *arrays_class(const char *name, size_t *len)
{
    kb k;
    kb_init(&k, name, 52);
    uint16_t str = kb_class(&k, "[Ljava/lang/String;");
    as a;
    as_init(&a);
    op(&a, CW_ICONST_0 + 1);
    op1(&a, CW_NEWARRAY, 10);
    op(&a, CW_ICONST_0 + 1);
    op2(&a, CW_ANEWARRAY, str);
    op(&a, CW_ICONST_0 + 1);
    op(&a, CW_ICONST_0 + 1);
    bb_u1(&a.b, CW_MULTIANEWARRAY);
    bb_u2(&a.b, str);
    bb_u1(&a.b, 2);
    op(&a, 0xb0);
    mcode m = {.max_stack = 4, .max_locals = 0};
    as_done(&a, &m);
    kb_method(&k, 0x0009, "arr", "()Ljava/lang/Object;", &m);
    add_return_method(&k, "plain");
    mcode init = {.max_stack = 1, .max_locals = 1};
    bb_u1(&init.code, CW_RETURN);
    kb_method(&k, 0x0001, "<init>", "()V", &init);
    return kb_finish(&k, len);
}

static void test_newarray(void)
{
    size_t len;
    unsigned char *b = arrays_class("t/Arrays", &len);
    /* newArray only: the allocating method is the only one rewritten */
    ASSERT(rewrite(b, len, CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.newarrays, 3);
    CHECK_EQ_INT(R.entries, 0);
    CHECK_EQ_INT(R.exits, 0);
    CHECK_EQ_INT(R.handlers, 0);
    CHECK_EQ_INT(R.methods, 3);
    CHECK_EQ_INT(R.methods_rewritten, 1);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_NEWARRAY);
    if (CHECK(ck.ok)) {
        CHECK(ck.changed[0] && !ck.changed[1] && !ck.changed[2]);
        CHECK_EQ_INT(ck.map[0].newarrays, 3);
        CHECK_EQ_INT(ck.map[0].entries, 0);
        /* each allocation is followed by dup; invokestatic newArray */
        const unsigned char *c = ncode(&ck, 0);
        CHECK_EQ_INT(c[3], CW_DUP);
        CHECK_EQ_INT(c[4], CW_INVOKESTATIC);
        CHECK_EQ_INT(cw_tracker_kind(&ck.nc, cw_u2(c + 5)), 'N');
        CHECK(ck.nc.m[0].max_stack >= ck.oc.m[0].max_stack + 1);
    }
    checked_free(&ck);
    /* no calls asked for, nothing to allocate: no output */
    ASSERT(rewrite(b, len, CF_INJECT_OBJINIT, 1, NULL, NULL) == JP_OK);
    CHECK(R.bytes == NULL);
    CHECK_EQ_INT(R.methods, 3);
    free(b);
}

/* CF_INJECT_ALLOCS: what alloc() is asked, and the counts after each instruction */
typedef struct alloc_seen {
    int n;
    struct { uint8_t op; uint32_t pc; int32_t line; char type[64], name[32]; uint8_t dims; } v[8];
} alloc_seen;

static uint32_t alloc_record(void *ctx, const cf_alloc_view *a, cf_alloc_how *how)
{
    alloc_seen *s = ctx;
    if (s->n < 8) {
        s->v[s->n].op = a->opcode;
        s->v[s->n].pc = a->pc;
        s->v[s->n].line = a->line;
        snprintf(s->v[s->n].type, sizeof s->v[s->n].type, "%s", a->type);
        snprintf(s->v[s->n].name, sizeof s->v[s->n].name, "%s", a->name ? a->name : "");
        s->v[s->n].dims = a->dims;
    }
    s->n++;
    switch (a->opcode) {
    case CW_NEWARRAY: *how = CF_ALLOC_ARRAY_4; return 7;
    case CW_ANEWARRAY: *how = CF_ALLOC_ARRAY_REF; return 40000; /* past sipush: an Integer constant */
    case CW_MULTIANEWARRAY: *how = CF_ALLOC_MULTI; return 9;
    default: *how = CF_ALLOC_RESULT; return 11;
    }
}

static const cf_alloc_tracker ALLOC_TRACKER = {
    "jvmprof/AllocCounts",
    { [CF_ALLOC_OBJECT] = "newObject", [CF_ALLOC_ARRAY_4] = "newArray4", [CF_ALLOC_ARRAY_REF] = "newArrayRef",
      [CF_ALLOC_MULTI] = "allocatedMulti", [CF_ALLOC_RESULT] = "allocated" },
};

/* Methodref idx names AllocCounts.name with descriptor desc */
static bool alloc_ref_is(const cw_class *c, uint16_t idx, const char *name, const char *desc)
{
    char cls[64], n[64], d[64];
    uint16_t ci = cw_cp_u2(c, idx, 10, 0), nat = cw_cp_u2(c, idx, 10, 2);
    return ci && nat && strcmp(cw_str(c, cw_cp_u2(c, ci, 7, 0), cls, sizeof cls), "jvmprof/AllocCounts") == 0 &&
           strcmp(cw_str(c, cw_cp_u2(c, nat, 12, 0), n, sizeof n), name) == 0 &&
           strcmp(cw_str(c, cw_cp_u2(c, nat, 12, 2), d, sizeof d), desc) == 0;
}

static void test_alloc_counts(void)
{
    size_t len;
    unsigned char *b = arrays_class("t/Arrays", &len);
    alloc_seen seen = {0};
    static const char *const calls[] = { "clone", NULL };
    cf_inject_spec spec = {.tracker = TRACKER, .what = CF_INJECT_ALLOCS, .ctx = &seen,
                           .alloc_tracker = &ALLOC_TRACKER, .alloc = alloc_record, .alloc_calls = calls};
    free(R.bytes);
    ASSERT(cf_rewrite(b, len, &spec, &R) == JP_OK);
    CHECK_EQ_INT(seen.n, 3);
    CHECK_EQ_INT(R.alloc_counts, 3);
    CHECK_EQ_INT(R.methods_rewritten, 1);
    CHECK(seen.v[0].op == CW_NEWARRAY && seen.v[0].pc == 1 && strcmp(seen.v[0].type, "[I") == 0);
    CHECK(seen.v[1].op == CW_ANEWARRAY && strcmp(seen.v[1].type, "[[Ljava/lang/String;") == 0);
    CHECK(seen.v[2].op == CW_MULTIANEWARRAY && strcmp(seen.v[2].type, "[Ljava/lang/String;") == 0 &&
          seen.v[2].dims == 2);
    CHECK_EQ_INT(seen.v[0].line, -1); /* no LineNumberTable */
    cw_class nc;
    if (CHECK(R.bytes && cw_parse(&nc, R.bytes, R.len))) {
        const unsigned char *c = nc.m[0].bytecode;
        /* iconst_1; newarray int; dup; arraylength; sipush 7; invokestatic newArray4(II)V */
        CHECK(c[0] == CW_ICONST_0 + 1 && c[1] == CW_NEWARRAY && c[3] == CW_DUP && c[4] == 0xbe && c[5] == 0x11 &&
              cw_u2(c + 6) == 7 && c[8] == CW_INVOKESTATIC);
        CHECK(alloc_ref_is(&nc, cw_u2(c + 9), "newArray4", "(II)V"));
        /* iconst_1; anewarray; dup; arraylength; ldc_w 40000; invokestatic newArrayRef(II)V */
        CHECK(c[11] == CW_ICONST_0 + 1 && c[12] == CW_ANEWARRAY && c[15] == CW_DUP && c[16] == 0xbe && c[17] == 0x13);
        uint16_t k = cw_u2(c + 18);
        CHECK(k < nc.cp_count && nc.cp[k] && nc.b[nc.cp[k]] == 3 && cw_u2(nc.b + nc.cp[k] + 3) == 40000);
        CHECK(c[20] == CW_INVOKESTATIC && alloc_ref_is(&nc, cw_u2(c + 21), "newArrayRef", "(II)V"));
        /* iconst_1; iconst_1; multianewarray; dup; sipush 9; invokestatic allocatedMulti(Object;I)V; areturn */
        CHECK(c[23] == CW_ICONST_0 + 1 && c[25] == CW_MULTIANEWARRAY && c[29] == CW_DUP && c[30] == 0x11 &&
              cw_u2(c + 31) == 9 && c[33] == CW_INVOKESTATIC);
        CHECK(alloc_ref_is(&nc, cw_u2(c + 34), "allocatedMulti", "(Ljava/lang/Object;I)V"));
        CHECK_EQ_INT(c[36], 0xb0);
        CHECK(nc.m[0].max_stack >= 4 + 3);
        cw_free(&nc);
    }
    free(b);
}

static void test_objinit(void)
{
    size_t len;
    unsigned char *b = arrays_class("java/lang/Object", &len);
    ASSERT(rewrite(b, len, CF_INJECT_OBJINIT | CF_INJECT_CALLS, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.objinits, 1);
    CHECK_EQ_INT(R.entries, 3);
    CHECK_EQ_INT(R.handlers, 2);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_OBJINIT);
    if (CHECK(ck.ok)) {
        CHECK_EQ_INT(ck.map[2].objinits, 1);
        CHECK_EQ_INT(ck.map[2].entries, 1);
        CHECK_EQ_INT(ck.map[2].handlers, 0);
        const unsigned char *c = ncode(&ck, 2);
        CHECK_EQ_INT(c[0], CW_ALOAD_0); /* objectInit first, then enter */
        CHECK_EQ_INT(cw_tracker_kind(&ck.nc, cw_u2(c + 2)), 'O');
        CHECK_EQ_INT(c[4], CW_ICONST_0 + 1); /* iconst_1 (the id), invokestatic enter */
        CHECK_EQ_INT(cw_tracker_kind(&ck.nc, cw_u2(c + 6)), 'E');
        CHECK_EQ_INT(ck.map[0].objinits, 0);
    }
    checked_free(&ck);
    ASSERT(rewrite(b, len, CF_INJECT_OBJINIT, 1, NULL, NULL) == JP_OK);
    CHECK_EQ_INT(R.objinits, 1);
    CHECK_EQ_INT(R.methods_rewritten, 1);
    free(b);
    /* any other class: no objectInit */
    b = arrays_class("t/NotObject", &len);
    ASSERT(rewrite(b, len, CF_INJECT_OBJINIT, 1, NULL, NULL) == JP_OK);
    CHECK(R.bytes == NULL);
    CHECK_EQ_INT(R.objinits, 0);
    free(b);
}

typedef struct seen {
    int n;
    cf_method_view v[8];
    char names[8][32], descs[8][64];
} seen;

static uint32_t select_plain(void *ctx, const cf_method_view *m)
{
    seen *s = ctx;
    if (s->n < 8) {
        s->v[s->n] = *m;
        snprintf(s->names[s->n], sizeof s->names[0], "%s", m->name);
        snprintf(s->descs[s->n], sizeof s->descs[0], "%s", m->desc);
        s->n++;
    }
    return strcmp(m->name, "plain") == 0 ? 42 : 0;
}

static void test_selector(void)
{
    size_t len;
    unsigned char *b = arrays_class("t/Select", &len);
    seen s = {0};
    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, select_plain, &s) == JP_OK);
    ASSERT(s.n == 3);
    CHECK_EQ_STR(s.names[0], "arr");
    CHECK_EQ_STR(s.descs[0], "()Ljava/lang/Object;");
    CHECK_EQ_INT(s.v[0].index, 0);
    CHECK_EQ_INT(s.v[0].access, 0x0009);
    CHECK_EQ_INT(s.v[0].code_length, 14);
    CHECK_EQ_STR(s.names[1], "plain");
    CHECK_EQ_INT(s.v[1].index, 1);
    CHECK_EQ_INT(s.v[1].code_length, 1);
    CHECK(!s.v[1].calls && !s.v[1].loops);
    CHECK_EQ_STR(s.names[2], "<init>");
    CHECK_EQ_INT(s.v[2].index, 2);
    /* plain got the calls, arr only its newArray calls */
    CHECK_EQ_INT(R.entries, 1);
    CHECK_EQ_INT(R.newarrays, 3);
    CHECK_EQ_INT(R.methods_rewritten, 2);
    checked ck;
    check_output(&ck, b, len, CF_INJECT_CALLS);
    if (CHECK(ck.ok)) {
        CHECK_EQ_INT(ck.map[0].entries, 0);
        CHECK_EQ_INT(ck.map[0].newarrays, 3);
        CHECK_EQ_INT(ck.map[1].entries, 1);
        CHECK_EQ_INT(ck.map[1].id, 42);
        CHECK(!ck.changed[2]);
    }
    checked_free(&ck);
    free(b);
}

/* calls: an invoke instruction; loops: a backward branch or a switch */
static void test_calls_loops(void)
{
    kb k;
    kb_init(&k, "t/Leaf", 52);
    uint16_t mr = kb_mref(&k, k.this_class, "x", "()V");
    as a;
    as_init(&a); /* a forward branch only */
    op(&a, 0x1a);
    br(&a, CW_IFEQ, 0);
    op(&a, 0);
    here(&a, 0);
    op(&a, CW_RETURN);
    mcode m1 = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m1);
    kb_method(&k, 0x0009, "fwd", "(I)V", &m1);
    as_init(&a); /* a loop */
    here(&a, 0);
    br(&a, CW_GOTO, 0);
    mcode m2 = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m2);
    kb_method(&k, 0x0009, "loop", "(I)V", &m2);
    mcode m3 = {.max_stack = 1, .max_locals = 1}; /* a call */
    bb_u1(&m3.code, CW_INVOKESTATIC);
    bb_u2(&m3.code, mr);
    bb_u1(&m3.code, CW_RETURN);
    kb_method(&k, 0x0009, "call", "(I)V", &m3);
    as_init(&a); /* a switch, even one that only jumps forward */
    op(&a, 0x1a);
    int l[] = {0};
    tswitch(&a, 0, 0, 0, l);
    here(&a, 0);
    op(&a, CW_RETURN);
    mcode m4 = {.max_stack = 1, .max_locals = 1};
    as_done(&a, &m4);
    kb_method(&k, 0x0009, "sw", "(I)V", &m4);
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    seen s = {0};
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 1, select_plain, &s) == JP_OK);
    ASSERT(s.n == 4);
    CHECK(!s.v[0].calls && !s.v[0].loops);
    CHECK(!s.v[1].calls && s.v[1].loops);
    CHECK(s.v[2].calls && !s.v[2].loops);
    CHECK(!s.v[3].calls && s.v[3].loops);
    free(b);
}

/* Ids by index (5, 200, 32768: iconst, sipush, ldc_w); methods 32768 and beyond get index + 1 by default. */
static uint32_t select_some(void *ctx, const cf_method_view *m)
{
    (void)ctx;
    return m->index == 5 || m->index == 200 || m->index == 32768 ? m->index : 0;
}

static void test_many_methods(void)
{
    kb k;
    kb_init(&k, "t/Many", 52);
    uint16_t name = kb_utf8(&k, "m"), desc = kb_utf8(&k, "()V"), code = kb_utf8(&k, "Code");
    for (unsigned i = 0; i < 32770; i++) {
        bb_u2(&k.methods, 0x0009);
        bb_u2(&k.methods, name);
        bb_u2(&k.methods, desc);
        bb_u2(&k.methods, 1);
        bb_u2(&k.methods, code);
        bb_u4(&k.methods, 13);
        bb_u2(&k.methods, 0);
        bb_u2(&k.methods, 0);
        bb_u4(&k.methods, 1);
        bb_u1(&k.methods, CW_RETURN);
        bb_u2(&k.methods, 0);
        bb_u2(&k.methods, 0);
    }
    k.nmethods = 32770;
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 0, select_some, NULL) == JP_OK);
    CHECK_EQ_INT(R.methods, 32770);
    CHECK_EQ_INT(R.entries, 3);
    CHECK_EQ_INT(R.methods_rewritten, 3);
    cw_class oc, nc;
    ASSERT(cw_parse(&oc, b, len));
    if (CHECK(cw_parse(&nc, R.bytes, R.len))) {
        static const uint16_t idx[] = {5, 200, 32768};
        static const uint8_t mop[] = {CW_ICONST_5, CW_SIPUSH, CW_LDC_W};
        for (int i = 0; i < 3; i++) {
            cw_map map;
            char err[256];
            if (!CHECK(cw_check_method(&oc, &oc.m[idx[i]], &nc, &nc.m[idx[i]], &map, err, sizeof err)))
                fprintf(stderr, "    %s\n", err);
            CHECK_EQ_INT(map.id, idx[i]);
            CHECK_EQ_INT(nc.m[idx[i]].bytecode[0], mop[i]);
            cw_map_free(&map);
        }
        CHECK(nc.m[6].attrs[0].len == oc.m[6].attrs[0].len);
    }
    cw_free(&oc);
    cw_free(&nc);
    free(b);
}

/* Methods whose names or descriptors are long are still methods with code:
 * with select NULL every one of them is rewritten, and a selector sees them. */
static uint32_t select_all(void *ctx, const cf_method_view *m)
{
    (void)m;
    ++*(int *)ctx;
    return 1;
}

static void test_long_names(void)
{
    char name[301], desc[1200];
    memset(name, 'n', 300);
    name[300] = 0;
    desc[0] = '(';
    for (int i = 1; i < 1100; i++)
        desc[i] = 'I';
    snprintf(desc + 1100, sizeof desc - 1100, ")V");
    for (int which = 0; which < 2; which++) {
        kb k;
        kb_init(&k, "t/Long", 52);
        mcode m = {.max_stack = 1, .max_locals = 1100};
        bb_u1(&m.code, CW_ICONST_0 + 1);
        bb_u1(&m.code, CW_NEWARRAY);
        bb_u1(&m.code, 10);
        bb_u1(&m.code, 0xb0);
        kb_method(&k, 0x0009, which ? "d" : name, which ? desc : "()[I", &m);
        size_t len;
        unsigned char *b = kb_finish(&k, &len);
        const char *what = which ? "a 1102-byte descriptor" : "a 300-byte name";
        ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL) == JP_OK);
        CHECK_EQ_INT(R.methods, 1);
        if (!CHECK_EQ_INT(R.entries, 1) | !CHECK_EQ_INT(R.newarrays, 1) |
            !CHECK_EQ_INT(R.methods_rewritten + R.methods_unchanged, 1))
            fprintf(stderr, "    %s: the method is silently skipped\n", what);
        int calls = 0;
        ASSERT(rewrite(b, len, CF_INJECT_CALLS, 1, select_all, &calls) == JP_OK);
        if (!CHECK_EQ_INT(calls, 1))
            fprintf(stderr, "    %s: the selector is not called\n", what);
        free(b);
    }
}

/* ---- methods the rewriter must leave alone -------------------------------------- */

typedef enum { BAD_OPCODE, BAD_BRANCH, BAD_SWITCH, BAD_EXC, BAD_LINE, BAD_UNINIT, BAD_FRAME, BAD_ATTRS, BAD_STACK, NBAD } badness;

static unsigned char *bad_method_class(badness what, size_t *len)
{
    kb k;
    kb_init(&k, "t/Bad", 52);
    as a;
    as_init(&a);
    mcode m = {.max_stack = 2, .max_locals = 1};
    op(&a, 0x1a);                  /* 0 */
    br(&a, CW_IFEQ, 0);            /* 1 */
    op2(&a, CW_SIPUSH, 0x1234);    /* 4 */
    op(&a, 0x57);                  /* 7 */
    here(&a, 0);
    op(&a, CW_RETURN);             /* 8 */
    as_done(&a, &m);
    smt s;
    smt_init(&s);
    switch (what) {
    case BAD_OPCODE: m.code.d[7] = 0xcb; break;            /* undefined */
    case BAD_BRANCH: m.code.d[3] = 4; break;               /* ifeq to 5: inside the sipush */
    case BAD_SWITCH: {
        bb_free(&m.code);
        as_init(&a);
        op(&a, 0x1a);
        int l[] = {0};
        tswitch(&a, 0, 0, 0, l);
        here(&a, 0);
        op(&a, CW_RETURN);
        as_done(&a, &m);
        m.code.d[m.code.n - 2] = 2; /* the one target: into the switch's operands */
        break;
    }
    case BAD_EXC: mc_exc(&m, 5, 8, 8, 0); break;          /* starts inside the sipush */
    case BAD_LINE: {
        unsigned lines[] = {0, 1, 6, 2};
        mc_lines(&k, &m, 2, lines);
        break;
    }
    case BAD_UNINIT: {                                      /* Uninitialized(4): a sipush, not a new */
        unsigned l[] = {1, 0}, st[] = {8, 4};
        smt_full(&s, 8, 1, l, 1, st);
        break;
    }
    case BAD_FRAME: smt_same(&s, 5); break;                 /* inside the sipush */
    case BAD_ATTRS: {                                       /* 65 attributes said, 1 there (found by make fuzz: */
        unsigned lines[] = {0, 1};                          /* past 64 the method was left unchanged, its */
        mc_lines(&k, &m, 1, lines);                         /* malformed Code copied into the output) */
        m.nattrs = 65;
        break;
    }
    case BAD_STACK: m.max_stack = 65534; break;
    default: break;
    }
    if (s.n)
        smt_done(&k, &m, &s);
    bb_free(&s.b);
    kb_method(&k, 0x0009, "bad", "(I)V", &m);
    add_return_method(&k, "good");
    return kb_finish(&k, len);
}

static void test_bad_methods(void)
{
    static const char *names[] = {"opcode", "branch", "switch", "exception", "line", "uninit", "frame", "attrs",
                                  "stack"};
    for (int w = 0; w < NBAD; w++) {
        size_t len;
        unsigned char *b = bad_method_class((badness)w, &len);
        jp_status st = rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY, 1, NULL, NULL);
        CHECK(strstr(R.why, "method 0") != NULL);
        if (w != BAD_STACK) {
            /* malformed code: the whole class is refused, to load unchanged */
            if (!CHECK_EQ_INT(st, JP_ERR_FORMAT) || !CHECK(R.bytes == NULL))
                fprintf(stderr, "    bad %s: why \"%s\"\n", names[w], R.why);
            free(R.bytes);
            R.bytes = NULL;
            free(b);
            continue;
        }
        /* well-formed but impossible to grow (max_stack): that method alone stays as it was */
        if (!CHECK_EQ_INT(st, JP_OK) || !CHECK_EQ_INT(R.methods_unchanged, 1) ||
            !CHECK_EQ_INT(R.methods_rewritten, 1))
            fprintf(stderr, "    bad %s: why \"%s\"\n", names[w], R.why);
        if (R.bytes) {
            checked ck;
            check_output(&ck, b, len, CF_INJECT_CALLS);
            CHECK(ck.ok && !ck.changed[0] && ck.changed[1]);
            checked_free(&ck);
        }
        free(b);
    }
}

/* 65 well-formed attributes in one Code attribute: more than the rewriter keeps, so that method
 * alone is left as it was (65 said and 1 there is malformed: test_bad_methods) */
static void test_many_code_attributes(void)
{
    kb k;
    kb_init(&k, "t/ManyAttrs", 52);
    as a;
    as_init(&a);
    mcode m = {.max_stack = 1, .max_locals = 1};
    op(&a, CW_RETURN);
    as_done(&a, &m);
    for (int i = 0; i < 65; i++) {
        unsigned lines[] = {0, (unsigned)i + 1};
        mc_lines(&k, &m, 1, lines);
    }
    kb_method(&k, 0x0009, "many", "()V", &m);
    add_return_method(&k, "good");
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    jp_status st = rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL);
    if (!CHECK_EQ_INT(st, JP_OK) || !CHECK_EQ_INT(R.methods_unchanged, 1) || !CHECK_EQ_INT(R.methods_rewritten, 1))
        fprintf(stderr, "    why \"%s\"\n", R.why);
    CHECK(strstr(R.why, "65 attributes in one Code attribute") != NULL);
    free(b);
}

/* A constant pool too full for the Tracker's entries: an error, no output. */
static void test_constant_pool_full(void)
{
    kb k;
    kb_init(&k, "t/Full", 52);
    while (k.cp_count < 65530)
        kb_long(&k, k.cp_count);
    add_return_method(&k, "m");
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    jp_status st = rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL);
    CHECK(st != JP_OK);
    CHECK(R.bytes == NULL);
    CHECK(strstr(R.why, "65535") != NULL);
    free(b);
}

static void test_no_code(void)
{
    kb k;
    kb_init(&k, "t/Iface", 52);
    kb_method(&k, 0x0401, "a", "()V", NULL);
    kb_method(&k, 0x0101, "n", "()V", NULL);
    size_t len;
    unsigned char *b = kb_finish(&k, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS | CF_INJECT_NEWARRAY | CF_INJECT_OBJINIT, 1, NULL, NULL) == JP_OK);
    CHECK(R.bytes == NULL);
    CHECK_EQ_INT(R.methods, 0);
    free(b);
}

/* The independent checker must notice a wrong offset (or these tests prove nothing). */
static void test_checker_notices(void)
{
    size_t len;
    unsigned char *b = switch_class(1, &len);
    ASSERT(rewrite(b, len, CF_INJECT_CALLS, 1, NULL, NULL) == JP_OK);
    cw_class oc, nc;
    ASSERT(cw_parse(&oc, b, len) && cw_parse(&nc, R.bytes, R.len));
    cw_map map;
    char err[256];
    CHECK(cw_check_method(&oc, &oc.m[0], &nc, &nc.m[0], &map, err, sizeof err));
    cw_map_free(&map);
    /* the backward goto one byte off */
    unsigned char *c = (unsigned char *)nc.m[0].bytecode;
    uint32_t g = nc.m[0].code_len;
    for (uint32_t p = 0; p < nc.m[0].code_len; p += cw_insn_len(c, nc.m[0].code_len, p))
        if (c[p] == CW_GOTO)
            g = p;
    ASSERT(g < nc.m[0].code_len);
    c[g + 2]++;
    CHECK(!cw_check_method(&oc, &oc.m[0], &nc, &nc.m[0], &map, err, sizeof err));
    cw_map_free(&map);
    c[g + 2]--;
    /* the exit call moved after its return */
    uint32_t last_ret = 0;
    for (uint32_t p = 0; p < nc.m[0].code_len; p += cw_insn_len(c, nc.m[0].code_len, p))
        if (c[p] == CW_IRETURN)
            last_ret = p;
    unsigned char save[5]; /* iconst_1, invokestatic exit, ireturn -> ireturn, iconst_1, invokestatic exit */
    memcpy(save, c + last_ret - 4, 5);
    c[last_ret - 4] = CW_IRETURN;
    memcpy(c + last_ret - 3, save, 4);
    CHECK(!cw_check_method(&oc, &oc.m[0], &nc, &nc.m[0], &map, err, sizeof err));
    cw_map_free(&map);
    cw_free(&oc);
    cw_free(&nc);
    free(b);
}

/* ---- the fuzzer's regression inputs ----------------------------------------------- */

static void test_fuzz_regressions(void)
{
    DIR *d = opendir(REGRESSIONS);
    int files = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' || strstr(e->d_name, ".md"))
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", REGRESSIONS, e->d_name);
            size_t len;
            unsigned char *data = th_read_file(path, &len);
            if (!CHECK(data != NULL))
                continue;
            files++;
            /* as the fuzzer does: several specs, then the output again */
            static const unsigned whats[] = {CF_INJECT_CALLS, CF_INJECT_NEWARRAY,
                                             CF_INJECT_CALLS | CF_INJECT_NEWARRAY | CF_INJECT_OBJINIT};
            for (size_t w = 0; w < 3; w++) {
                if (rewrite(data, len, whats[w], w == 2 ? 40000 : 3, NULL, NULL) == JP_OK && R.bytes) {
                    cf_result r2;
                    cf_inject_spec spec = {.tracker = TRACKER, .what = whats[w]};
                    CHECK_EQ_INT(cf_rewrite(R.bytes, R.len, &spec, &r2), JP_OK);
                    free(r2.bytes);
                }
            }
            char name[256];
            cf_class_name(data, len, name, sizeof name);
            free(data);
        }
        closedir(d);
    }
    CHECK(files >= 0);
    printf("test_classfile: %d fuzz regression inputs replayed\n", files);
}

static unsigned char *switch_class_2(size_t *len) { return switch_class(2, len); }
static unsigned char *returns_class_49(size_t *len) { return returns_class(49, len); }
static unsigned char *object_class(size_t *len) { return arrays_class("java/lang/Object", len); }

int main(void)
{
    RUN(test_header_errors);
    RUN(test_rich_class);
    RUN(test_truncated);
    RUN(test_corrupted);
    RUN(test_returns);
    RUN(test_handler_adds_stackmap);
    RUN(test_switch_padding);
    RUN(test_tables);
    RUN(test_stackmap);
    RUN(test_widen_backward_goto);
    RUN(test_widen_conditional);
    RUN(test_infer_frame);
    RUN(test_infer_trailing);
    RUN(test_infer_fails);
    RUN(test_infer_pool_growth);
    RUN(test_infer_appended_class);
    RUN(test_too_big);
    RUN(test_newarray);
    RUN(test_alloc_counts);
    RUN(test_objinit);
    RUN(test_selector);
    RUN(test_calls_loops);
    RUN(test_many_methods);
    RUN(test_long_names);
    RUN(test_bad_methods);
    RUN(test_many_code_attributes);
    RUN(test_constant_pool_full);
    RUN(test_no_code);
    RUN(test_checker_notices);
    RUN(test_fuzz_regressions);
    free(R.bytes);
    return DONE();
}
