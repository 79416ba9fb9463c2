/* cf_walk.h — an independent reader of class files for testing the rewriter
 * (src/classfile): it shares no code with it, so a bug there is not hidden by
 * the same bug here. It parses the constant pool, members and attributes,
 * decodes instructions, and aligns a rewritten method with its original:
 * the injected jvmprof/Tracker call sequences are set aside, every other
 * instruction must be the original one (branches may be widened, switches
 * re-padded), and each original offset gets its new place. cw_check_method()
 * builds on that: branch, switch, exception, line and local-variable offsets
 * land where they did, and every stack map frame keeps its type state
 * (compared as states, whatever the encoding), with new frames only after
 * widened branches and at the catch-all handler. Used by
 * tests/unit/test_classfile.c, tests/tools/cf_roundtrip.c and
 * tests/fuzz/fuzz_rewrite.c; header-only, every function static inline. */
#ifndef CF_WALK_H
#define CF_WALK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CW_TRACKER "jvmprof/Tracker"

/* ---- big-endian cursor -------------------------------------------------- */

typedef struct cw_cur {
    const unsigned char *p, *end;
    bool bad;
} cw_cur;

static inline uint32_t cw_get(cw_cur *c, int n)
{
    if (c->bad || c->end - c->p < n) {
        c->bad = true;
        return 0;
    }
    uint32_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | *c->p++;
    return v;
}
static inline const unsigned char *cw_skip(cw_cur *c, uint32_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        return NULL;
    }
    const unsigned char *q = c->p;
    c->p += n;
    return q;
}
static inline uint16_t cw_u2(const unsigned char *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t cw_u4(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline int32_t cw_s2(const unsigned char *p) { return (int16_t)cw_u2(p); }
static inline int32_t cw_s4(const unsigned char *p) { return (int32_t)cw_u4(p); }

/* ---- instructions (JVMS §6.5) ------------------------------------------- */

enum {
    CW_ICONST_0 = 0x03, CW_ICONST_5 = 0x08, CW_BIPUSH = 0x10, CW_SIPUSH = 0x11, CW_LDC = 0x12, CW_LDC_W = 0x13,
    CW_ALOAD_0 = 0x2a, CW_DUP = 0x59, CW_IFEQ = 0x99, CW_IF_ACMPNE = 0xa6, CW_GOTO = 0xa7, CW_JSR = 0xa8,
    CW_TABLESWITCH = 0xaa, CW_LOOKUPSWITCH = 0xab, CW_IRETURN = 0xac, CW_RETURN = 0xb1, CW_INVOKESTATIC = 0xb8,
    CW_NEW = 0xbb, CW_NEWARRAY = 0xbc, CW_ANEWARRAY = 0xbd, CW_WIDE = 0xc4, CW_MULTIANEWARRAY = 0xc5,
    CW_IFNULL = 0xc6, CW_IFNONNULL = 0xc7, CW_GOTO_W = 0xc8, CW_JSR_W = 0xc9,
};

static inline bool cw_is_branch16(uint8_t op)
{
    return (op >= CW_IFEQ && op <= CW_JSR) || op == CW_IFNULL || op == CW_IFNONNULL;
}
static inline bool cw_is_cond(uint8_t op)
{
    return (op >= CW_IFEQ && op <= CW_IF_ACMPNE) || op == CW_IFNULL || op == CW_IFNONNULL;
}
static inline bool cw_is_return(uint8_t op) { return op >= CW_IRETURN && op <= CW_RETURN; }
static inline bool cw_is_newarray(uint8_t op)
{
    return op == CW_NEWARRAY || op == CW_ANEWARRAY || op == CW_MULTIANEWARRAY;
}
static inline bool cw_is_switch(uint8_t op) { return op == CW_TABLESWITCH || op == CW_LOOKUPSWITCH; }
/* the conditional taken exactly when op is not: ifeq/ifne, iflt/ifge, ... pair up */
static inline uint8_t cw_negate(uint8_t op)
{
    static const uint8_t pair[] = {0x9a, 0x99, 0x9c, 0x9b, 0x9e, 0x9d, 0xa0, 0x9f, 0xa2, 0xa1, 0xa4, 0xa3, 0xa6, 0xa5};
    if (op == CW_IFNULL)
        return CW_IFNONNULL;
    if (op == CW_IFNONNULL)
        return CW_IFNULL;
    return pair[op - CW_IFEQ];
}

/* Length of the instruction at pc, 0 if undefined or past len. Written from
 * the JVMS operand lists, not from src/classfile/bytecode.c. */
static inline uint32_t cw_insn_len(const unsigned char *code, uint32_t len, uint32_t pc)
{
    if (pc >= len)
        return 0;
    uint8_t op = code[pc];
    uint32_t n;
    if (op <= 0x0f || (op >= 0x1a && op <= 0x35) || (op >= 0x3b && op <= 0x83) || (op >= 0x85 && op <= 0x98) ||
        (op >= 0xac && op <= 0xb1) || op == 0xbe || op == 0xbf || op == 0xc2 || op == 0xc3)
        n = 1;
    else if (op == 0x10 || op == 0x12 || (op >= 0x15 && op <= 0x19) || (op >= 0x36 && op <= 0x3a) || op == 0xa9 ||
             op == 0xbc)
        n = 2;
    else if (op == 0x11 || op == 0x13 || op == 0x14 || op == 0x84 || (op >= 0x99 && op <= 0xa8) ||
             (op >= 0xb2 && op <= 0xb8) || op == 0xbb || op == 0xbd || op == 0xc0 || op == 0xc1 || op == 0xc6 ||
             op == 0xc7)
        n = 3;
    else if (op == 0xc5)
        n = 4;
    else if (op == 0xb9 || op == 0xba || op == 0xc8 || op == 0xc9)
        n = 5;
    else if (op == CW_WIDE) {
        if (pc + 1 >= len)
            return 0;
        uint8_t w = code[pc + 1];
        if (w == 0x84)
            n = 6;
        else if ((w >= 0x15 && w <= 0x19) || (w >= 0x36 && w <= 0x3a) || w == 0xa9)
            n = 4;
        else
            return 0;
    } else if (cw_is_switch(op)) {
        uint64_t a = pc + 1;
        while (a % 4)
            a++;
        if (a + (op == CW_TABLESWITCH ? 12 : 8) > len)
            return 0;
        uint64_t total;
        if (op == CW_TABLESWITCH) {
            int64_t lo = cw_s4(code + a + 4), hi = cw_s4(code + a + 8);
            if (lo > hi)
                return 0;
            total = a - pc + 12 + 4 * (uint64_t)(hi - lo + 1);
        } else {
            int64_t np = cw_s4(code + a + 4);
            if (np < 0)
                return 0;
            total = a - pc + 8 + 8 * (uint64_t)np;
        }
        if (total > len - pc)
            return 0;
        return (uint32_t)total;
    } else
        return 0;
    return (uint64_t)pc + n <= len ? n : 0;
}

typedef struct cw_insn {
    uint32_t pc, len;
    uint8_t op;
    char inj;   /* set aside as injected: 'E' enter, 'X' exit, 'N' newArray, 'O' objectInit; 0 original */
    bool group; /* first instruction of an injected sequence */
} cw_insn;

/* Decodes code[0..len) into *out (malloc'ed). False if malformed. */
static inline bool cw_decode(const unsigned char *code, uint32_t len, cw_insn **out, uint32_t *n)
{
    *out = calloc(len ? len : 1, sizeof **out);
    *n = 0;
    if (!*out)
        return false;
    for (uint32_t pc = 0; pc < len;) {
        uint32_t k = cw_insn_len(code, len, pc);
        if (!k)
            return false;
        (*out)[(*n)++] = (cw_insn){.pc = pc, .len = k, .op = code[pc]};
        pc += k;
    }
    return true;
}

/* ---- class files -------------------------------------------------------- */

typedef struct cw_attr {
    uint16_t name;
    uint32_t len;
    const unsigned char *p; /* the info, after the 6-byte header */
} cw_attr;

typedef struct cw_method {
    uint16_t access, name, desc;
    const unsigned char *start, *end; /* the member's bytes */
    uint16_t nattrs;
    cw_attr *attrs;
    int code;                         /* index of the Code attribute, -1 if none */
    uint16_t max_stack, max_locals;
    uint32_t code_len;
    const unsigned char *bytecode;
    uint16_t nexc;
    const unsigned char *exc;
    uint16_t ncattrs;
    cw_attr *cattrs;                  /* Code's own attributes */
} cw_method;

typedef struct cw_class {
    const unsigned char *b;
    size_t n;
    uint16_t minor, major, cp_count;
    uint32_t *cp;                     /* offset of each entry's tag, 0 for unusable slots */
    uint32_t cp_end, methods_off, attrs_off;
    uint16_t access, this_class;
    uint16_t nmethods;
    cw_method *m;
    char err[200];
} cw_class;

static inline bool cw_fail(cw_class *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline bool cw_fail(cw_class *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return false;
}

static inline bool cw_attrs(cw_cur *r, uint16_t *n, cw_attr **out)
{
    *n = (uint16_t)cw_get(r, 2);
    *out = calloc(*n ? *n : 1, sizeof **out);
    if (!*out)
        return false;
    for (uint16_t i = 0; i < *n; i++) {
        (*out)[i].name = (uint16_t)cw_get(r, 2);
        (*out)[i].len = cw_get(r, 4);
        (*out)[i].p = cw_skip(r, (*out)[i].len);
    }
    return !r->bad;
}

static inline const unsigned char *cw_utf8(const cw_class *c, uint16_t idx, uint16_t *len)
{
    if (idx == 0 || idx >= c->cp_count || !c->cp[idx] || c->b[c->cp[idx]] != 1)
        return NULL;
    *len = cw_u2(c->b + c->cp[idx] + 1);
    return c->b + c->cp[idx] + 3;
}
static inline bool cw_utf8_is(const cw_class *c, uint16_t idx, const char *s)
{
    uint16_t len;
    const unsigned char *p = cw_utf8(c, idx, &len);
    return p && len == strlen(s) && memcmp(p, s, len) == 0;
}
/* The u2 at byte k of constant-pool entry idx (after the tag), if its tag is t. */
static inline uint16_t cw_cp_u2(const cw_class *c, uint16_t idx, int tag, int k)
{
    if (idx == 0 || idx >= c->cp_count || !c->cp[idx] || c->b[c->cp[idx]] != tag)
        return 0;
    return cw_u2(c->b + c->cp[idx] + 1 + k);
}
/* NUL-terminated copy of a Utf8 into out[cap] ("?" if unusable). */
static inline const char *cw_str(const cw_class *c, uint16_t idx, char *out, size_t cap)
{
    uint16_t len;
    const unsigned char *p = cw_utf8(c, idx, &len);
    if (!p || len >= cap)
        snprintf(out, cap, "?");
    else {
        memcpy(out, p, len);
        out[len] = 0;
    }
    return out;
}

static inline void cw_free(cw_class *c)
{
    for (uint16_t i = 0; c->m && i < c->nmethods; i++) {
        free(c->m[i].attrs);
        free(c->m[i].cattrs);
    }
    free(c->m);
    free(c->cp);
    c->m = NULL;
    c->cp = NULL;
}

static inline bool cw_parse(cw_class *c, const unsigned char *b, size_t n)
{
    memset(c, 0, sizeof *c);
    c->b = b;
    c->n = n;
    cw_cur r = {b, b + n, false};
    if (cw_get(&r, 4) != 0xCAFEBABEu)
        return cw_fail(c, "bad magic");
    c->minor = (uint16_t)cw_get(&r, 2);
    c->major = (uint16_t)cw_get(&r, 2);
    c->cp_count = (uint16_t)cw_get(&r, 2);
    if (r.bad || c->cp_count == 0)
        return cw_fail(c, "bad header");
    c->cp = calloc(c->cp_count, sizeof *c->cp);
    if (!c->cp)
        return cw_fail(c, "out of memory");
    for (uint32_t i = 1; i < c->cp_count; i++) {
        c->cp[i] = (uint32_t)(r.p - b);
        uint32_t tag = cw_get(&r, 1), k;
        switch (tag) {
        case 1: k = cw_get(&r, 2); break;
        case 7: case 8: case 16: case 19: case 20: k = 2; break;
        case 15: k = 3; break;
        case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: k = 4; break;
        case 5: case 6: k = 8; break;
        default: return cw_fail(c, "constant %u: tag %u", i, tag);
        }
        cw_skip(&r, k);
        if (tag == 5 || tag == 6)
            i++;
    }
    if (r.bad)
        return cw_fail(c, "truncated constant pool");
    c->cp_end = (uint32_t)(r.p - b);
    c->access = (uint16_t)cw_get(&r, 2);
    c->this_class = (uint16_t)cw_get(&r, 2);
    cw_get(&r, 2);
    cw_skip(&r, 2 * cw_get(&r, 2));
    uint32_t nf = cw_get(&r, 2);
    for (uint32_t i = 0; i < nf && !r.bad; i++) {
        cw_skip(&r, 6);
        for (uint32_t na = cw_get(&r, 2); na && !r.bad; na--) {
            cw_get(&r, 2);
            cw_skip(&r, cw_get(&r, 4));
        }
    }
    c->methods_off = (uint32_t)(r.p - b);
    c->nmethods = (uint16_t)cw_get(&r, 2);
    if (r.bad)
        return cw_fail(c, "truncated fields");
    c->m = calloc(c->nmethods ? c->nmethods : 1, sizeof *c->m);
    if (!c->m)
        return cw_fail(c, "out of memory");
    for (uint16_t i = 0; i < c->nmethods; i++) {
        cw_method *m = &c->m[i];
        m->start = r.p;
        m->access = (uint16_t)cw_get(&r, 2);
        m->name = (uint16_t)cw_get(&r, 2);
        m->desc = (uint16_t)cw_get(&r, 2);
        m->code = -1;
        if (!cw_attrs(&r, &m->nattrs, &m->attrs))
            return cw_fail(c, "method %u truncated", i);
        m->end = r.p;
        /* attribute names must be Utf8 constants (JVMS 4.7): a dangling index would, in the output,
         * name one of the constants the rewriter appends */
        for (uint16_t k = 0; k < m->nattrs; k++)
            if (!cw_utf8(c, m->attrs[k].name, &(uint16_t){0}))
                return cw_fail(c, "method %u: attribute name %u is not a Utf8 constant", i, m->attrs[k].name);
        for (uint16_t k = 0; k < m->nattrs; k++) {
            if (!cw_utf8_is(c, m->attrs[k].name, "Code"))
                continue;
            m->code = k;
            cw_cur q = {m->attrs[k].p, m->attrs[k].p + m->attrs[k].len, false};
            m->max_stack = (uint16_t)cw_get(&q, 2);
            m->max_locals = (uint16_t)cw_get(&q, 2);
            m->code_len = cw_get(&q, 4);
            m->bytecode = cw_skip(&q, m->code_len);
            m->nexc = (uint16_t)cw_get(&q, 2);
            m->exc = cw_skip(&q, 8u * m->nexc);
            if (!cw_attrs(&q, &m->ncattrs, &m->cattrs) || q.p != q.end)
                return cw_fail(c, "method %u: bad Code attribute", i);
            for (uint16_t a = 0; a < m->ncattrs; a++)
                if (!cw_utf8(c, m->cattrs[a].name, &(uint16_t){0}))
                    return cw_fail(c, "method %u: Code attribute name %u is not a Utf8 constant", i,
                                   m->cattrs[a].name);
            /* constant-pool operands inside the pool: an index past its end would, in the output,
             * name the constants the rewriter appends */
            for (uint32_t pc = 0; m->bytecode && pc < m->code_len;) {
                uint32_t step = cw_insn_len(m->bytecode, m->code_len, pc);
                if (!step)
                    break; /* malformed code: cw_align reports it */
                uint8_t op = m->bytecode[pc];
                uint32_t idx = 0;
                if (op == CW_LDC)
                    idx = m->bytecode[pc + 1];
                else if (op == CW_LDC_W || op == 0x14 || (op >= 0xb2 && op <= 0xbb) || op == CW_ANEWARRAY ||
                         op == 0xc0 || op == 0xc1 || op == CW_MULTIANEWARRAY)
                    idx = cw_u2(m->bytecode + pc + 1);
                if (idx >= c->cp_count)
                    return cw_fail(c, "method %u: pc %u refers to constant %u, past the pool", i, pc, idx);
                pc += step;
            }
            int smts = 0; /* JVMS 4.7.4: at most one */
            for (uint16_t a = 0; a < m->ncattrs; a++)
                smts += cw_utf8_is(c, m->cattrs[a].name, "StackMapTable");
            if (smts > 1)
                return cw_fail(c, "method %u: %d StackMapTable attributes", i, smts);
        }
    }
    c->attrs_off = (uint32_t)(r.p - b);
    uint32_t na = cw_get(&r, 2);
    for (uint32_t i = 0; i < na && !r.bad; i++) {
        cw_get(&r, 2);
        cw_skip(&r, cw_get(&r, 4));
    }
    if (r.bad || r.p != r.end)
        return cw_fail(c, "bad class attributes or trailing bytes");
    return true;
}

/* 'E', 'X', 'N', 'O' if Methodref idx is Tracker.enter(I)V, exit(I)V,
 * newArray(Object)V or objectInit(Object)V; 0 otherwise. */
static inline char cw_tracker_kind(const cw_class *c, uint16_t idx)
{
    uint16_t cls = cw_cp_u2(c, idx, 10, 0), nat = cw_cp_u2(c, idx, 10, 2);
    if (!cls || !nat || !cw_utf8_is(c, cw_cp_u2(c, cls, 7, 0), CW_TRACKER))
        return 0;
    uint16_t name = cw_cp_u2(c, nat, 12, 0), desc = cw_cp_u2(c, nat, 12, 2);
    if (cw_utf8_is(c, name, "enter") && cw_utf8_is(c, desc, "(I)V"))
        return 'E';
    if ((cw_utf8_is(c, name, "exit") || cw_utf8_is(c, name, "exitThrow")) && cw_utf8_is(c, desc, "(I)V"))
        return 'X';
    if (cw_utf8_is(c, name, "count") && cw_utf8_is(c, desc, "(I)V"))
        return 'C';
    if (cw_utf8_is(c, name, "newArray") && cw_utf8_is(c, desc, "(Ljava/lang/Object;)V"))
        return 'N';
    if (cw_utf8_is(c, name, "objectInit") && cw_utf8_is(c, desc, "(Ljava/lang/Object;)V"))
        return 'O';
    return 0;
}

/* The int an injected push instruction pushes (iconst, bipush, sipush, ldc_w Integer); -1 if not one. */
static inline int64_t cw_push_value(const cw_class *c, const unsigned char *code, const cw_insn *in)
{
    const unsigned char *p = code + in->pc;
    if (in->op >= CW_ICONST_0 && in->op <= CW_ICONST_5)
        return in->op - CW_ICONST_0;
    if (in->op == CW_BIPUSH)
        return (int8_t)p[1];
    if (in->op == CW_SIPUSH)
        return cw_s2(p + 1);
    if (in->op == CW_LDC_W || in->op == CW_LDC) {
        uint16_t idx = in->op == CW_LDC ? p[1] : cw_u2(p + 1);
        if (idx == 0 || idx >= c->cp_count || !c->cp[idx] || c->b[c->cp[idx]] != 3)
            return -1;
        return (uint32_t)cw_u4(c->b + c->cp[idx] + 1);
    }
    return -1;
}

/* ---- a rewritten method against its original ----------------------------- */

typedef struct cw_map {
    uint32_t old_len, new_len;
    uint32_t *op;    /* old pc -> new pc of the same instruction; UINT32_MAX inside an instruction */
    uint32_t *start; /* old pc -> new pc a jump to it lands on (the exit call before a return) */
    uint32_t entries, exits, counts, newarrays, objinits, widened;
    uint32_t handlers;   /* catch-all handlers at the end: exit call, athrow */
    uint32_t handler_pc; /* where that handler starts */
    int64_t id;          /* the method id the entry call pushes; -1 if none */
    uint32_t *inferred;  /* new pcs where a frame the original lacked may stand (after widened ifs) */
    uint32_t ninferred;
    uint32_t frames_added; /* frames found there */
} cw_map;

static inline void cw_map_free(cw_map *m)
{
    free(m->op);
    free(m->start);
    free(m->inferred);
    memset(m, 0, sizeof *m);
}

/* new pc a jump to old pc t lands on, UINT32_MAX if t is not an instruction */
static inline uint32_t cw_land(const cw_map *m, int64_t t)
{
    if (t == m->old_len) /* the end of the original code: before the catch-all handler */
        return m->handlers ? m->handler_pc : m->new_len;
    if (t < 0 || t > m->old_len)
        return UINT32_MAX;
    return m->start[t];
}

/* Switch operands: default, then (match, offset) pairs; n of them. */
typedef struct cw_switch {
    int32_t def;
    uint32_t n;
    const unsigned char *q; /* the 4-aligned operands */
    uint8_t op;
} cw_switch;
static inline cw_switch cw_switch_at(const unsigned char *code, uint32_t pc)
{
    cw_switch s = {.op = code[pc]};
    uint32_t a = (pc + 4) & ~3u;
    s.q = code + a;
    s.def = cw_s4(s.q);
    s.n = s.op == CW_TABLESWITCH ? (uint32_t)((int64_t)cw_s4(s.q + 8) - cw_s4(s.q + 4) + 1) : cw_u4(s.q + 4);
    return s;
}
static inline int32_t cw_switch_target(const cw_switch *s, uint32_t k)
{
    return s->op == CW_TABLESWITCH ? cw_s4(s->q + 12 + 4 * k) : cw_s4(s->q + 12 + 8 * k);
}
static inline int32_t cw_switch_match(const cw_switch *s, uint32_t k)
{
    return s->op == CW_TABLESWITCH ? cw_s4(s->q + 4) + (int32_t)k : cw_s4(s->q + 8 + 8 * k);
}

#define CW_ERR(...)                                                                                               \
    do {                                                                                                          \
        snprintf(err, errcap, __VA_ARGS__);                                                                       \
        goto out;                                                                                                 \
    } while (0)

/* Aligns new method nm (of class nc) with old om (of oc): marks the injected
 * sequences, checks that every other instruction is the original one and
 * that every branch and switch target lands where the original did. Fills
 * *map (free with cw_map_free). False with a message in err on a mismatch. */
static inline bool cw_align(const cw_class *oc, const cw_method *om, const cw_class *nc, const cw_method *nm,
                            cw_map *map, char *err, size_t errcap)
{
    (void)oc;
    bool ok = false;
    cw_insn *O = NULL, *N = NULL;
    uint32_t no = 0, nn = 0;
    memset(map, 0, sizeof *map);
    map->id = -1;
    err[0] = 0;
    const unsigned char *oc_ = om->bytecode, *nc_ = nm->bytecode;
    if (!cw_decode(oc_, om->code_len, &O, &no))
        CW_ERR("original code does not decode");
    if (!cw_decode(nc_, nm->code_len, &N, &nn))
        CW_ERR("new code does not decode");
    map->old_len = om->code_len;
    map->new_len = nm->code_len;
    map->inferred = malloc(sizeof *map->inferred * (no + 1));
    map->op = malloc(sizeof *map->op * (om->code_len + 1));
    map->start = malloc(sizeof *map->start * (om->code_len + 1));
    if (!map->op || !map->start || !map->inferred)
        CW_ERR("out of memory");
    memset(map->op, 0xff, sizeof *map->op * (om->code_len + 1));
    memset(map->start, 0xff, sizeof *map->start * (om->code_len + 1));
    /* set aside the injected sequences */
    for (uint32_t j = 0; j < nn; j++) {
        if (N[j].op != CW_INVOKESTATIC)
            continue;
        char k = cw_tracker_kind(nc, cw_u2(nc_ + N[j].pc + 1));
        if (!k)
            continue;
        uint32_t first = 1; /* push id / dup / aload_0 */
        if (j < first)
            CW_ERR("Tracker call at new pc %u has no arguments before it", N[j].pc);
        for (uint32_t i = j - first; i <= j; i++) {
            if (N[i].inj)
                CW_ERR("injected sequences overlap at new pc %u", N[i].pc);
            N[i].inj = k;
        }
        N[j - first].group = true;
        if (k == 'E' || k == 'X' || k == 'C') {
            int64_t id = cw_push_value(nc, nc_, &N[j - 1]);
            if (id < 0)
                CW_ERR("call to Tracker at new pc %u is not preceded by an int push", N[j].pc);
            if (k == 'E' || k == 'C')
                map->id = id;
            else if (id != map->id)
                CW_ERR("exit(%lld) at new pc %u does not match enter(%lld)", (long long)id, N[j].pc,
                       (long long)map->id);
        } else if (k == 'N' && N[j - 1].op != CW_DUP) {
            CW_ERR("newArray call at new pc %u not preceded by dup", N[j].pc);
        } else if (k == 'O' && N[j - 1].op != CW_ALOAD_0) {
            CW_ERR("objectInit call at new pc %u not preceded by aload_0", N[j].pc);
        }
    }
    /* walk both */
    uint32_t j = 0;
    bool seen_original = false;
    for (uint32_t i = 0; i < no; i++) {
        uint32_t exit_at = UINT32_MAX;
        for (; j < nn && N[j].inj; j++) {
            if (!N[j].group)
                continue;
            if (N[j].inj == 'E' || N[j].inj == 'O' || N[j].inj == 'C') {
                if (seen_original)
                    CW_ERR("%s call at new pc %u is not at method entry",
                           N[j].inj == 'E' ? "enter" : N[j].inj == 'C' ? "count" : "objectInit", N[j].pc);
                if (N[j].inj == 'E' || N[j].inj == 'C') {
                    if (map->entries + map->counts)
                        CW_ERR("two entry calls at new pc %u", N[j].pc);
                    if (N[j].inj == 'E')
                        map->entries++;
                    else
                        map->counts++;
                } else {
                    if (map->entries + map->counts)
                        CW_ERR("objectInit after enter");
                    map->objinits++;
                }
            } else if (N[j].inj == 'X') {
                if (exit_at != UINT32_MAX)
                    CW_ERR("two exit calls in a row at new pc %u", N[j].pc);
                exit_at = N[j].pc;
            } else {
                CW_ERR("newArray call at new pc %u does not follow an array allocation", N[j].pc);
            }
        }
        if (j >= nn)
            CW_ERR("new code ends before original instruction at pc %u", O[i].pc);
        seen_original = true;
        const cw_insn *o = &O[i], *n = &N[j];
        map->op[o->pc] = n->pc;
        map->start[o->pc] = exit_at != UINT32_MAX ? exit_at : n->pc;
        if (exit_at != UINT32_MAX) {
            if (!cw_is_return(o->op))
                CW_ERR("exit call before non-return opcode 0x%02x (old pc %u)", o->op, o->pc);
            map->exits++;
        }
        if (cw_is_branch16(o->op) && n->op == (o->op == CW_JSR ? CW_JSR_W : CW_GOTO_W) && !cw_is_cond(o->op)) {
            map->widened++;
        } else if (cw_is_cond(o->op) && n->op == cw_negate(o->op) && cw_s2(nc_ + n->pc + 1) == 8 && j + 1 < nn &&
                   N[j + 1].op == CW_GOTO_W && !N[j + 1].inj) {
            map->widened++;
            map->inferred[map->ninferred++] = n->pc + 8; /* the instruction after the goto_w may need a frame */
            j++; /* the goto_w */
        } else if (n->op != o->op) {
            CW_ERR("old pc %u opcode 0x%02x became 0x%02x at new pc %u", o->pc, o->op, n->op, n->pc);
        } else if (cw_is_branch16(o->op) || o->op == CW_GOTO_W || o->op == CW_JSR_W) {
            /* the offset is checked below */
        } else if (cw_is_switch(o->op)) {
            cw_switch a = cw_switch_at(oc_, o->pc), b = cw_switch_at(nc_, n->pc);
            for (const unsigned char *z = nc_ + n->pc + 1; z < b.q; z++)
                if (*z)
                    CW_ERR("switch at new pc %u has non-zero padding", n->pc);
            if (a.n != b.n || n->len - (uint32_t)(b.q - nc_ - n->pc) != o->len - (uint32_t)(a.q - oc_ - o->pc))
                CW_ERR("switch at old pc %u changed size", o->pc);
            for (uint32_t k = 0; k < a.n; k++)
                if (cw_switch_match(&a, k) != cw_switch_match(&b, k))
                    CW_ERR("switch at old pc %u: match %u changed", o->pc, k);
        } else if (n->len != o->len || memcmp(oc_ + o->pc, nc_ + n->pc, o->len) != 0) {
            CW_ERR("instruction at old pc %u (opcode 0x%02x) changed at new pc %u", o->pc, o->op, n->pc);
        }
        j++;
        if (cw_is_newarray(o->op) && j < nn && N[j].inj == 'N' && N[j].group) {
            j += 2;
            map->newarrays++;
        }
    }
    /* after the original code: nothing, or the catch-all handler (exit; athrow) */
    if (j < nn) {
        if (N[j].inj != 'X' || !N[j].group || j + 3 != nn || N[j + 2].op != 0xbf || N[j + 2].inj)
            CW_ERR("extra code at new pc %u after the last original instruction", N[j].pc);
        map->handlers = 1;
        map->handler_pc = N[j].pc;
    }
    map->op[om->code_len] = map->start[om->code_len] = map->handlers ? map->handler_pc : nm->code_len;
    /* branch and switch targets */
    for (uint32_t i = 0; i < no; i++) {
        const cw_insn *o = &O[i];
        uint32_t np = map->op[o->pc];
        const unsigned char *q = nc_ + np;
        if (cw_is_branch16(o->op) || o->op == CW_GOTO_W || o->op == CW_JSR_W) {
            int64_t ot = (int64_t)o->pc + (cw_is_branch16(o->op) ? cw_s2(oc_ + o->pc + 1) : cw_s4(oc_ + o->pc + 1));
            int64_t nt;
            if (*q == CW_GOTO_W || *q == CW_JSR_W)
                nt = (int64_t)np + cw_s4(q + 1);
            else if (cw_is_cond(o->op) && *q != o->op) /* if!cond +8; goto_w */
                nt = (int64_t)np + 3 + cw_s4(q + 4);
            else
                nt = (int64_t)np + cw_s2(q + 1);
            if (cw_land(map, ot) == UINT32_MAX || nt != cw_land(map, ot))
                CW_ERR("branch at old pc %u to %lld: new target %lld, expected %u", o->pc, (long long)ot,
                       (long long)nt, cw_land(map, ot));
        } else if (cw_is_switch(o->op)) {
            cw_switch a = cw_switch_at(oc_, o->pc), b = cw_switch_at(nc_, np);
            for (uint32_t k = 0; k <= a.n; k++) {
                int64_t ot = (int64_t)o->pc + (k == a.n ? a.def : cw_switch_target(&a, k));
                int64_t nt = (int64_t)np + (k == a.n ? b.def : cw_switch_target(&b, k));
                if (cw_land(map, ot) == UINT32_MAX || nt != cw_land(map, ot))
                    CW_ERR("switch at old pc %u, target %u: new %lld, expected %u", o->pc, k, (long long)nt,
                           cw_land(map, ot));
            }
        }
    }
    ok = true;
out:
    free(O);
    free(N);
    return ok;
}

/* ---- StackMapTable ------------------------------------------------------- */

/* One frame normalized: absolute offset, kind (0 same, 1 same_locals_1,
 * else the frame type 248..255), and its verification types re-encoded with
 * Uninitialized offsets passed through map (NULL: kept). types has room for
 * CW_TYPES_CAP bytes: the largest full frame. */
#define CW_TYPES_CAP (2u * 3u * 65536u + 8u)
typedef struct cw_frame {
    uint32_t pc;
    uint8_t kind, type;
    unsigned char *types;
    uint32_t ntypes_bytes;
} cw_frame;

static inline bool cw_types(cw_cur *r, uint32_t n, cw_frame *f, const cw_map *map)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t tag = cw_get(r, 1);
        if (r->bad || tag > 8 || f->ntypes_bytes + 3 > CW_TYPES_CAP)
            return false;
        f->types[f->ntypes_bytes++] = (unsigned char)tag;
        if (tag == 7 || tag == 8) {
            uint32_t v = cw_get(r, 2);
            if (tag == 8 && map) {
                if (v >= map->old_len || map->op[v] == UINT32_MAX)
                    return false;
                v = map->op[v];
            }
            f->types[f->ntypes_bytes++] = (unsigned char)(v >> 8);
            f->types[f->ntypes_bytes++] = (unsigned char)v;
        }
    }
    return !r->bad;
}

/* Decodes the next frame of a StackMapTable read by r (after its count);
 * *prev is the previous frame's offset, -1 before the first. */
static inline bool cw_next_frame(cw_cur *r, int64_t *prev, cw_frame *f, const cw_map *map)
{
    uint32_t t = cw_get(r, 1), delta;
    f->type = (uint8_t)t;
    f->ntypes_bytes = 0;
    if (t < 64) {
        delta = t;
        f->kind = 0;
    } else if (t < 128) {
        delta = t - 64;
        f->kind = 1;
    } else if (t >= 247) {
        delta = cw_get(r, 2);
        f->kind = t == 247 ? 1 : t == 251 ? 0 : (uint8_t)t;
    } else
        return false;
    f->pc = (uint32_t)(*prev + delta + 1);
    *prev = f->pc;
    bool ok = true;
    if (f->kind == 1)
        ok = cw_types(r, 1, f, map);
    else if (f->kind >= 252 && f->kind <= 254)
        ok = cw_types(r, f->kind - 251u, f, map);
    else if (f->kind == 255) {
        ok = cw_types(r, cw_get(r, 2), f, map);
        f->types[f->ntypes_bytes++] = 0xee; /* separates locals from stack */
        ok = ok && cw_types(r, cw_get(r, 2), f, map);
    }
    return ok && !r->bad;
}

/* ---- everything about one rewritten method ------------------------------- */

static inline const cw_attr *cw_cattr(const cw_class *c, const cw_method *m, const char *name)
{
    for (uint16_t i = 0; i < m->ncattrs; i++)
        if (cw_utf8_is(c, m->cattrs[i].name, name))
            return &m->cattrs[i];
    return NULL;
}

static inline bool cw_on_boundary(const cw_map *map, const unsigned char *code, uint32_t len, uint32_t pc)
{
    (void)map;
    for (uint32_t p = 0; p < len;) {
        if (p == pc)
            return true;
        uint32_t k = cw_insn_len(code, len, p);
        if (!k)
            return false;
        p += k;
    }
    return false;
}

/* ---- stack map frames as type states ------------------------------------ */

/* One verification type, comparable across two class files: Object by its
 * class name, Uninitialized by the (new) offset of its `new`. */
typedef struct cw_vt {
    uint8_t tag;
    uint16_t v, nlen;
    const unsigned char *name;
} cw_vt;

/* A frame's type state in the table's form (long and double one entry). */
typedef struct cw_state {
    cw_vt *l, *s;
    uint32_t nl, ns, cap;
} cw_state;

static inline bool cw_state_init(cw_state *st, uint32_t cap)
{
    st->cap = cap + 2;
    st->nl = st->ns = 0;
    st->l = calloc(st->cap, sizeof *st->l);
    st->s = calloc(st->cap, sizeof *st->s);
    return st->l && st->s;
}
static inline void cw_state_free(cw_state *st)
{
    free(st->l);
    free(st->s);
    memset(st, 0, sizeof *st);
}

static inline bool cw_vt_read(cw_cur *r, const cw_class *c, const cw_map *map, cw_vt *t)
{
    uint32_t tag = cw_get(r, 1);
    memset(t, 0, sizeof *t);
    if (r->bad || tag > 8)
        return false;
    t->tag = (uint8_t)tag;
    if (tag == 7) { /* by name; by index if the index is not a Class (a broken input both sides copy) */
        t->v = (uint16_t)cw_get(r, 2);
        t->name = cw_utf8(c, cw_cp_u2(c, t->v, 7, 0), &t->nlen);
        return !r->bad;
    }
    if (tag == 8) {
        uint32_t v = cw_get(r, 2);
        if (map) {
            if (v >= map->old_len || map->op[v] == UINT32_MAX)
                return false;
            v = map->op[v];
        }
        t->v = (uint16_t)v;
    }
    return !r->bad;
}

static inline bool cw_vt_eq(const cw_vt *a, const cw_vt *b)
{
    if (a->tag != b->tag)
        return false;
    if (a->tag == 7 && a->name && b->name)
        return a->nlen == b->nlen && !memcmp(a->name, b->name, a->nlen);
    return a->v == b->v && !a->name == !b->name;
}

/* Equal type states; trailing Top locals mean nothing. */
static inline bool cw_state_eq(const cw_state *a, const cw_state *b)
{
    uint32_t na = a->nl, nb = b->nl;
    while (na && a->l[na - 1].tag == 0)
        na--;
    while (nb && b->l[nb - 1].tag == 0)
        nb--;
    if (na != nb || a->ns != b->ns)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!cw_vt_eq(&a->l[i], &b->l[i]))
            return false;
    for (uint32_t i = 0; i < a->ns; i++)
        if (!cw_vt_eq(&a->s[i], &b->s[i]))
            return false;
    return true;
}

/* The implicit frame at pc 0 (JVMS 4.10.1.6), from the method descriptor. */
static inline bool cw_initial_state(const cw_class *c, const cw_method *m, cw_state *st)
{
    uint16_t dl;
    const unsigned char *d = cw_utf8(c, m->desc, &dl);
    st->nl = st->ns = 0;
    if (!d || dl < 3 || d[0] != '(')
        return false;
    if (!(m->access & 0x0008)) {
        cw_vt *t = &st->l[st->nl++];
        memset(t, 0, sizeof *t);
        if (cw_utf8_is(c, m->name, "<init>") && !cw_utf8_is(c, cw_cp_u2(c, c->this_class, 7, 0), "java/lang/Object"))
            t->tag = 6;
        else {
            t->tag = 7;
            t->name = cw_utf8(c, cw_cp_u2(c, c->this_class, 7, 0), &t->nlen);
            if (!t->name)
                return false;
        }
    }
    for (uint32_t i = 1; i < dl && d[i] != ')';) {
        if (st->nl >= st->cap)
            return false;
        cw_vt *t = &st->l[st->nl++];
        memset(t, 0, sizeof *t);
        uint32_t start = i;
        while (i < dl && d[i] == '[')
            i++;
        if (i >= dl)
            return false;
        if (d[i] == 'L') {
            const unsigned char *semi = memchr(d + i, ';', dl - i);
            if (!semi)
                return false;
            i = (uint32_t)(semi - d) + 1;
        } else {
            i++;
        }
        if (d[start] == '[' || d[start] == 'L') {
            t->tag = 7;
            t->name = d + start + (d[start] == 'L');
            t->nlen = (uint16_t)(i - start - (d[start] == 'L' ? 2 : 0));
        } else {
            const char *kinds = "BCISZFJD";
            const char *k = memchr(kinds, d[start], 8);
            if (!k)
                return false;
            t->tag = k - kinds < 5 ? 1 : k - kinds == 5 ? 2 : k - kinds == 6 ? 4 : 3;
        }
    }
    return true;
}

/* Reads the next frame (after *prev) and applies it to st; its offset in *pc. */
static inline bool cw_apply_frame(cw_cur *r, int64_t *prev, cw_state *st, const cw_class *c, const cw_map *map,
                                  uint32_t *pc)
{
    uint32_t t = cw_get(r, 1), delta, k;
    if (t < 64) {
        delta = t;
        st->ns = 0;
    } else if (t < 128) {
        delta = t - 64;
        st->ns = 1;
        if (!cw_vt_read(r, c, map, &st->s[0]))
            return false;
    } else if (t < 247) {
        return false;
    } else {
        delta = cw_get(r, 2);
        st->ns = 0;
        if (t == 247) {
            st->ns = 1;
            if (!cw_vt_read(r, c, map, &st->s[0]))
                return false;
        } else if (t <= 250) {
            st->nl = st->nl < 251 - t ? 0 : st->nl - (251 - t); /* underflow only in broken input */
        } else if (t >= 252 && t <= 254) {
            for (k = 0; k < t - 251; k++)
                if (st->nl >= st->cap || !cw_vt_read(r, c, map, &st->l[st->nl++]))
                    return false;
        } else if (t == 255) {
            uint32_t nl = cw_get(r, 2);
            if (nl > st->cap)
                return false;
            for (k = 0; k < nl; k++)
                if (!cw_vt_read(r, c, map, &st->l[k]))
                    return false;
            st->nl = nl;
            uint32_t ns = cw_get(r, 2);
            if (ns > st->cap)
                return false;
            for (k = 0; k < ns; k++)
                if (!cw_vt_read(r, c, map, &st->s[k]))
                    return false;
            st->ns = ns;
        }
    }
    *pc = (uint32_t)(*prev + delta + 1);
    *prev = *pc;
    return !r->bad;
}

#define CW_FERR(...)                                                                                              \
    do {                                                                                                          \
        snprintf(err, errcap, __VA_ARGS__);                                                                       \
        goto out;                                                                                                 \
    } while (0)

/* The new StackMapTable b (NULL: none) against the old a (NULL: none): every
 * old frame at its new place with the same type state; besides, only frames
 * after widened conditional branches (counted in map->frames_added) and the
 * catch-all handler's ([] [Throwable]) at the end. */
static inline bool cw_check_frames(const cw_class *oc, const cw_method *om, const cw_class *nc, const cw_method *nm,
                                   cw_map *map, const cw_attr *a, const cw_attr *b, char *err, size_t errcap)
{
    bool ok = false;
    uint32_t cap = (om->max_locals > om->max_stack ? om->max_locals : om->max_stack) + 4u;
    if (nm->max_stack + 4u > cap)
        cap = nm->max_stack + 4u;
    cw_state os = {0}, ns = {0};
    if (!cw_state_init(&os, cap) || !cw_state_init(&ns, cap))
        CW_FERR("out of memory");
    if (!cw_initial_state(oc, om, &os) || !cw_initial_state(nc, nm, &ns))
        os.nl = ns.nl = 0; /* a broken descriptor: frames relative to it compare all the same */
    cw_cur ra = {a ? a->p : NULL, a ? a->p + a->len : NULL, false}, rb = {b ? b->p : NULL, b ? b->p + b->len : NULL, false};
    uint32_t on = a ? cw_get(&ra, 2) : 0, nn = b ? cw_get(&rb, 2) : 0, oi = 0, opc = 0, want = UINT32_MAX;
    int64_t pa = -1, pb = -1;
    bool handler_seen = false;
    if (on) {
        if (!cw_apply_frame(&ra, &pa, &os, oc, map, &opc))
            CW_FERR("original frame 0 malformed or its Uninitialized offset is not an instruction");
        want = cw_land(map, opc);
    }
    for (uint32_t k = 0; k < nn; k++) {
        uint32_t npc;
        if (!cw_apply_frame(&rb, &pb, &ns, nc, NULL, &npc))
            CW_FERR("new frame %u malformed", k);
        if (oi < on && npc == want) {
            if (!cw_state_eq(&os, &ns))
                CW_FERR("frame at old pc %u (new %u) has another type state", opc, npc);
            if (++oi < on) {
                if (!cw_apply_frame(&ra, &pa, &os, oc, map, &opc))
                    CW_FERR("original frame %u malformed or its Uninitialized offset is not an instruction", oi);
                want = cw_land(map, opc);
            }
        } else if (map->handlers && k == nn - 1 && npc == map->handler_pc) {
            if (ns.nl != 0 || ns.ns != 1 || ns.s[0].tag != 7 || ns.s[0].nlen != 19 ||
                memcmp(ns.s[0].name, "java/lang/Throwable", 19))
                CW_FERR("the catch-all handler's frame is not [] [Throwable]");
            handler_seen = true;
        } else {
            bool allowed = false;
            for (uint32_t i = 0; i < map->ninferred && !allowed; i++)
                allowed = map->inferred[i] == npc;
            if (!allowed)
                CW_FERR("new frame %u at pc %u where the original has none%s", k, npc,
                        oi < on ? "" : " (after the last original frame)");
            map->frames_added++;
        }
    }
    if (oi < on)
        CW_FERR("original frame at pc %u (new %u) missing", opc, want);
    if (map->handlers && !handler_seen && (b || nc->major >= 50))
        CW_FERR("no frame for the catch-all handler at %u", map->handler_pc);
    if ((a && ra.p != ra.end) || (b && rb.p != rb.end))
        CW_FERR("StackMapTable has trailing bytes");
    ok = true;
out:
    cw_state_free(&os);
    cw_state_free(&ns);
    return ok;
}

#undef CW_FERR

/* cw_align, then: code length, max_stack/max_locals, the exception table,
 * LineNumberTable, LocalVariable(Type)Table and StackMapTable mapped through
 * the alignment, other Code attributes byte-identical (type annotations may
 * be dropped). */
static inline bool cw_check_method(const cw_class *oc, const cw_method *om, const cw_class *nc, const cw_method *nm,
                                   cw_map *map, char *err, size_t errcap)
{
    bool smt_seen = false;
    if (!cw_align(oc, om, nc, nm, map, err, errcap))
        return false;
    bool ok = false;
    if (nm->code_len > 65535)
        CW_ERR("code_length %u", nm->code_len);
    if (nm->max_locals != om->max_locals || nm->max_stack < om->max_stack)
        CW_ERR("max_locals %u -> %u, max_stack %u -> %u", om->max_locals, nm->max_locals, om->max_stack,
               nm->max_stack);
    if (map->entries && nm->max_stack < om->max_stack + 2)
        CW_ERR("max_stack %u -> %u with enter/exit calls", om->max_stack, nm->max_stack);
    if ((map->newarrays || map->objinits) && nm->max_stack < om->max_stack + 1)
        CW_ERR("max_stack %u -> %u with newArray/objectInit calls", om->max_stack, nm->max_stack);
    if (map->handlers && nm->max_stack < 3)
        CW_ERR("max_stack %u with a catch-all handler", nm->max_stack);
    if (nm->nexc != om->nexc + map->handlers)
        CW_ERR("exception table has %u entries, had %u (+%u handler)", nm->nexc, om->nexc, map->handlers);
    if (map->handlers) { /* the catch-all goes last: the method's own handlers take precedence */
        const unsigned char *h = nm->exc + 8 * om->nexc;
        if (cw_u2(h) != cw_land(map, 0) || cw_u2(h + 2) != map->handler_pc || cw_u2(h + 4) != map->handler_pc ||
            cw_u2(h + 6) != 0)
            CW_ERR("catch-all entry is [%u, %u) -> %u type %u; expected [%u, %u) -> %u type 0", cw_u2(h),
                   cw_u2(h + 2), cw_u2(h + 4), cw_u2(h + 6), cw_land(map, 0), map->handler_pc, map->handler_pc);
    }
    for (uint16_t i = 0; i < om->nexc; i++) {
        const unsigned char *a = om->exc + 8 * i, *b = nm->exc + 8 * i;
        for (int k = 0; k < 3; k++) {
            uint32_t want = cw_land(map, cw_u2(a + 2 * k));
            if (want == UINT32_MAX || cw_u2(b + 2 * k) != want)
                CW_ERR("exception entry %u field %d: %u -> %u, expected %u", i, k, cw_u2(a + 2 * k), cw_u2(b + 2 * k),
                       want);
            if (k == 1 ? cw_u2(b + 2) != nm->code_len && !cw_on_boundary(map, nm->bytecode, nm->code_len, cw_u2(b + 2))
                       : !cw_on_boundary(map, nm->bytecode, nm->code_len, cw_u2(b + 2 * k)))
                CW_ERR("exception entry %u field %d not on an instruction", i, k);
        }
        if (cw_u2(a + 6) != cw_u2(b + 6))
            CW_ERR("exception entry %u catch type changed", i);
    }
    uint16_t kept = 0;
    for (uint16_t i = 0; i < om->ncattrs; i++) {
        const cw_attr *a = &om->cattrs[i];
        char name[64];
        cw_str(oc, a->name, name, sizeof name);
        if (!strcmp(name, "RuntimeVisibleTypeAnnotations") || !strcmp(name, "RuntimeInvisibleTypeAnnotations"))
            continue;
        if (kept >= nm->ncattrs || nm->cattrs[kept].name != a->name)
            CW_ERR("Code attribute %s missing or out of order", name);
        const cw_attr *b = &nm->cattrs[kept++];
        bool lnt = !strcmp(name, "LineNumberTable");
        bool lvt = !strcmp(name, "LocalVariableTable") || !strcmp(name, "LocalVariableTypeTable");
        if (lnt || lvt) {
            uint32_t es = lnt ? 4 : 10;
            if (a->len != b->len || a->len < 2 || cw_u2(a->p) * es + 2 != a->len)
                CW_ERR("%s size changed or malformed", name);
            for (uint32_t k = 0; k < cw_u2(a->p); k++) {
                const unsigned char *x = a->p + 2 + es * k, *y = b->p + 2 + es * k;
                uint32_t want = cw_land(map, cw_u2(x));
                if (want == UINT32_MAX || cw_u2(y) != want)
                    CW_ERR("%s entry %u: pc %u -> %u, expected %u", name, k, cw_u2(x), cw_u2(y), want);
                if (lvt) {
                    uint32_t end = cw_land(map, (int64_t)cw_u2(x) + cw_u2(x + 2));
                    if (end == UINT32_MAX || (uint32_t)cw_u2(y) + cw_u2(y + 2) != end)
                        CW_ERR("%s entry %u: range end wrong", name, k);
                    if (memcmp(x + 4, y + 4, 6))
                        CW_ERR("%s entry %u: name, descriptor or index changed", name, k);
                } else if (memcmp(x + 2, y + 2, 2)) {
                    CW_ERR("%s entry %u: line changed", name, k);
                }
            }
        } else if (!strcmp(name, "StackMapTable")) {
            if (!cw_check_frames(oc, om, nc, nm, map, a, b, err, errcap))
                goto out;
            smt_seen = true;
        } else if (a->len != b->len || memcmp(a->p, b->p, a->len)) {
            CW_ERR("Code attribute %s changed", name);
        }
    }
    /* a method that had no stack map may have one now: the catch-all handler's frame (version 50 on),
     * frames after widened branches */
    if (!smt_seen) {
        const cw_attr *b = kept < nm->ncattrs && cw_utf8_is(nc, nm->cattrs[kept].name, "StackMapTable")
                               ? &nm->cattrs[kept++]
                               : NULL;
        if ((b || (map->handlers && nc->major >= 50)) && !cw_check_frames(oc, om, nc, nm, map, NULL, b, err, errcap))
            goto out;
    }
    if (kept != nm->ncattrs)
        CW_ERR("Code has %u attributes, expected %u", nm->ncattrs, kept);
    ok = true;
out:
    return ok;
}

#undef CW_ERR

#endif
