/* frames.c — stack map frames the rewriter has to make up: a conditional
 * branch widened into `if!cond +8; goto_w L` needs a frame at the
 * instruction after it. Its type state is the state just after the branch
 * pops its operands; between stack map frames control flows straight
 * (JVMS §4.10.1), so that state is found by running the verifier's typing
 * rules, without merges, from the nearest frame before the branch (or the
 * method's initial frame). The whole table is then written as full frames,
 * since a frame inserted between two others would change what the later
 * one's delta encoding means. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "stackmap.h"

enum { T_TOP, T_INT, T_FLOAT, T_DOUBLE, T_LONG, T_NULL, T_UTHIS, T_OBJ, T_UNINIT };

typedef struct vtype {
    uint8_t tag;
    uint16_t data; /* T_OBJ: CONSTANT_Class index; T_UNINIT: old offset of the `new` */
} vtype;

/* A frame in the table's own form: long and double are one entry. */
typedef struct frame {
    uint32_t off; /* old offset */
    uint16_t nl, ns;
    vtype *l, *s;
} frame;

typedef struct frames {
    frame *f;
    uint32_t n, cap;
} frames;

static bool frames_wide(uint8_t tag) { return tag == T_LONG || tag == T_DOUBLE; }

/* ---- constant pool helpers ---- */

static uint8_t cp_tag(const cf_class *c, uint16_t i)
{
    return i && i < c->cp_count && c->cp_off[i] ? c->b[c->cp_off[i]] : 0;
}

static uint16_t cp_u2(const cf_class *c, uint16_t i, unsigned at)
{
    return bc_u2(c->b + c->cp_off[i] + 1 + at);
}

/* The index of a CONSTANT_Class named name[0..n), found or appended. */
static uint16_t class_index(const stackmap_ctx *sm, const char *name, size_t n)
{
    return sm->cp ? cp_class_for(sm->cp, sm->cls, name, n) : 0;
}

/* One field type at d[*i] (advanced past it); false if malformed. */
static bool field_type(const stackmap_ctx *sm, const char *d, size_t n, size_t *i, vtype *out)
{
    size_t start = *i;
    if (*i >= n)
        return false;
    switch (d[*i]) {
    case 'B': case 'C': case 'I': case 'S': case 'Z': *out = (vtype){ T_INT, 0 }; (*i)++; return true;
    case 'F': *out = (vtype){ T_FLOAT, 0 }; (*i)++; return true;
    case 'J': *out = (vtype){ T_LONG, 0 }; (*i)++; return true;
    case 'D': *out = (vtype){ T_DOUBLE, 0 }; (*i)++; return true;
    case 'L': {
        const char *semi = memchr(d + *i, ';', n - *i);
        if (!semi)
            return false;
        *i = (size_t)(semi - d) + 1;
        uint16_t k = class_index(sm, d + start + 1, (size_t)(semi - d) - start - 1);
        *out = (vtype){ T_OBJ, k };
        return k != 0;
    }
    case '[': {
        while (*i < n && d[*i] == '[')
            (*i)++;
        vtype elem;
        if (!field_type(sm, d, n, i, &elem))
            return false;
        uint16_t k = class_index(sm, d + start, *i - start);
        *out = (vtype){ T_OBJ, k };
        return k != 0;
    }
    }
    return false;
}

/* ---- the table as full states ---- */

static bool frames_push_frame(frames *fs, const frame *f)
{
    if (fs->n == fs->cap) {
        uint32_t cap = fs->cap ? fs->cap * 2 : 16;
        frame *p = realloc(fs->f, cap * sizeof *p);
        if (!p)
            return false;
        fs->f = p;
        fs->cap = cap;
    }
    frame *dst = &fs->f[fs->n];
    *dst = *f;
    dst->l = malloc((f->nl + 1u) * sizeof(vtype));
    dst->s = malloc((f->ns + 1u) * sizeof(vtype));
    if (!dst->l || !dst->s) {
        free(dst->l);
        free(dst->s);
        return false;
    }
    memcpy(dst->l, f->l, f->nl * sizeof(vtype));
    memcpy(dst->s, f->s, f->ns * sizeof(vtype));
    fs->n++;
    return true;
}

static void frames_free(frames *fs)
{
    for (uint32_t i = 0; i < fs->n; i++) {
        free(fs->f[i].l);
        free(fs->f[i].s);
    }
    free(fs->f);
}

/* The implicit frame at offset 0 (JVMS §4.10.1.6). */
static bool initial_frame(const stackmap_ctx *sm, vtype *l, uint16_t *nl)
{
    const cf_class *c = sm->cls;
    const cf_member *m = sm->method;
    uint16_t dlen;
    const char *d = (const char *)cf_utf8(c, m->desc, &dlen);
    if (!d || dlen < 3 || d[0] != '(')
        return false;
    uint32_t k = 0;
    if (!(m->access & 0x0008)) { /* not ACC_STATIC */
        if (cf_utf8_is(c, m->name, "<init>") && !cf_utf8_is(c, cf_class_name_index(c, c->this_class),
                                                              "java/lang/Object"))
            l[k++] = (vtype){ T_UTHIS, 0 };
        else
            l[k++] = (vtype){ T_OBJ, c->this_class };
    }
    size_t i = 1;
    while (i < dlen && d[i] != ')') {
        if (k >= 0xffff || k >= sm->max_locals)
            return false;
        if (!field_type(sm, d, dlen, &i, &l[k++]))
            return false;
    }
    *nl = (uint16_t)k;
    return i < dlen;
}

static bool read_types(const stackmap_ctx *sm, buf_rd *r, uint32_t n, vtype *out)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t tag = buf_get_u1(r);
        if (r->overrun || tag > T_UNINIT)
            return false;
        out[i] = (vtype){ tag, (tag == T_OBJ || tag == T_UNINIT) ? buf_get_u2(r) : 0 };
        if (tag == T_UNINIT && !stackmap_is_new(sm, out[i].data))
            return false;
    }
    return !r->overrun;
}

static jp_status decode_table(const stackmap_ctx *sm, const cf_attr *a, frames *fs, frame *init, char *why,
                              size_t cap)
{
    uint32_t lmax = sm->max_locals + 1u, smax = sm->max_stack + 1u;
    vtype *l = malloc(lmax * sizeof *l), *s = malloc(smax * sizeof *s);
    jp_status st = JP_OK;
    if (!l || !s || !init->l) {
        st = JP_ERR_NOMEM;
        goto out;
    }
    uint16_t nl = 0, ns = 0;
    if (!initial_frame(sm, l, &nl)) {
        st = cf_fail(why, cap, JP_ERR_FORMAT, "cannot type the method's parameters");
        goto out;
    }
    init->off = 0;
    init->nl = nl;
    init->ns = 0;
    memcpy(init->l, l, nl * sizeof *l);
    if (!a)
        goto out;
    buf_rd r;
    buf_rd_init(&r, sm->cls->b + a->off, a->len);
    uint16_t n = buf_get_u2(&r);
    int64_t prev = -1;
    for (uint16_t i = 0; i < n; i++) {
        uint8_t type = buf_get_u1(&r);
        uint32_t delta = type < 128 ? (type & 63u) : type >= 247 ? buf_get_u2(&r) : 0xffffffffu;
        bool ok = delta != 0xffffffffu;
        ns = 0;
        if (ok && type >= 64 && (type < 128 || type == 247)) {
            ok = read_types(sm, &r, 1, s);
            ns = 1;
        } else if (ok && type >= 248 && type <= 250) {
            ok = nl >= 251u - type;
            if (ok)
                nl = (uint16_t)(nl - (251u - type));
        } else if (ok && type >= 252 && type <= 254) {
            ok = nl + (type - 251u) <= lmax && read_types(sm, &r, type - 251u, l + nl);
            if (ok)
                nl = (uint16_t)(nl + (type - 251u));
        } else if (ok && type == 255) {
            uint16_t k = buf_get_u2(&r);
            ok = k <= lmax && read_types(sm, &r, k, l);
            nl = k;
            k = buf_get_u2(&r);
            ok = ok && k <= smax && read_types(sm, &r, k, s);
            ns = k;
        }
        prev += delta + 1;
        frame f = { (uint32_t)prev, nl, ns, l, s };
        if (!ok || r.overrun || prev >= sm->code_len || !sm->is_insn(sm->map, (uint32_t)prev)) {
            st = cf_fail(why, cap, JP_ERR_FORMAT, "stack map frame %u is malformed", i);
            goto out;
        }
        if (!frames_push_frame(fs, &f)) {
            st = JP_ERR_NOMEM;
            goto out;
        }
    }
    if (r.p != r.end) /* as stackmap_rewrite checks: what it sends here must not skip it (found by make fuzz) */
        st = cf_fail(why, cap, JP_ERR_FORMAT, "stack map table has trailing bytes");
out:
    free(l);
    free(s);
    return st;
}

/* ---- running the typing rules from a frame to a branch ---- */

typedef struct sim {
    vtype *loc, *stk;
    uint32_t nloc, sp, maxloc, maxstk;
    bool bad;
} sim;

static void frames_push(sim *s, vtype t)
{
    uint32_t need = frames_wide(t.tag) ? 2 : 1;
    if (s->sp + need > s->maxstk) {
        s->bad = true;
        return;
    }
    s->stk[s->sp++] = t;
    if (need == 2)
        s->stk[s->sp++] = (vtype){ T_TOP, 0 };
}

static vtype frames_pop1(sim *s)
{
    if (s->sp == 0) {
        s->bad = true;
        return (vtype){ T_TOP, 0 };
    }
    return s->stk[--s->sp];
}

static void frames_popn(sim *s, uint32_t n)
{
    while (n--)
        frames_pop1(s);
}

static void frames_store(sim *s, uint32_t idx, vtype t)
{
    uint32_t need = frames_wide(t.tag) ? 2 : 1;
    if (idx + need > s->maxloc) {
        s->bad = true;
        return;
    }
    if (idx > 0 && frames_wide(s->loc[idx - 1].tag))
        s->loc[idx - 1] = (vtype){ T_TOP, 0 }; /* overwrote the second half of a long */
    s->loc[idx] = t;
    if (need == 2)
        s->loc[idx + 1] = (vtype){ T_TOP, 0 };
    if (idx + need > s->nloc)
        s->nloc = idx + need;
}

static vtype frames_load(sim *s, uint32_t idx)
{
    if (idx >= s->nloc) {
        s->bad = true;
        return (vtype){ T_TOP, 0 };
    }
    return s->loc[idx];
}

/* Size in slots of the arguments of method descriptor d, and its return type. */
static bool method_desc(const stackmap_ctx *sm, uint16_t desc_idx, uint32_t *arg_slots, vtype *ret, bool *is_void)
{
    uint16_t n;
    const char *d = (const char *)cf_utf8(sm->cls, desc_idx, &n);
    if (!d || n < 3 || d[0] != '(')
        return false;
    size_t i = 1;
    uint32_t slots = 0;
    while (i < n && d[i] != ')') {
        vtype t;
        if (!field_type(sm, d, n, &i, &t))
            return false;
        slots += frames_wide(t.tag) ? 2 : 1;
    }
    if (i + 1 >= n)
        return false;
    i++;
    *arg_slots = slots;
    *is_void = d[i] == 'V';
    return *is_void || field_type(sm, d, n, &i, ret);
}

static uint16_t nat_desc(const cf_class *c, uint16_t member) /* Field/Method/IMethodref, (Invoke)Dynamic */
{
    uint16_t nat = cp_u2(c, member, 2);
    return cp_tag(c, nat) == CP_NAMEANDTYPE ? cp_u2(c, nat, 2) : 0;
}

static void replace_uninit(sim *s, vtype from, vtype to)
{
    for (uint32_t i = 0; i < s->nloc; i++)
        if (s->loc[i].tag == from.tag && s->loc[i].data == from.data)
            s->loc[i] = to;
    for (uint32_t i = 0; i < s->sp; i++)
        if (s->stk[i].tag == from.tag && s->stk[i].data == from.data)
            s->stk[i] = to;
}

static const char *const newarray_names[] = { "[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J" };

/* Applies the instruction at pc; false when simulating it is not possible
 * (an unconditional transfer, jsr/ret, or a type the rules reject). */
static bool frames_step(const stackmap_ctx *sm, sim *s, uint32_t pc)
{
    const cf_class *c = sm->cls;
    const unsigned char *p = sm->code + pc;
    uint8_t op = p[0];
    vtype I = { T_INT, 0 }, F = { T_FLOAT, 0 }, L = { T_LONG, 0 }, D = { T_DOUBLE, 0 };
    static const uint8_t kind4[4] = { T_INT, T_LONG, T_FLOAT, T_DOUBLE };
    if (op == 0x00 || op == 0x84)
        return true;                                                   /* nop, iinc */
    if (op == 0x01) { frames_push(s, (vtype){ T_NULL, 0 }); return true; } /* aconst_null */
    if (op >= 0x02 && op <= 0x08) { frames_push(s, I); return true; }
    if (op == 0x09 || op == 0x0a) { frames_push(s, L); return true; }
    if (op >= 0x0b && op <= 0x0d) { frames_push(s, F); return true; }
    if (op == 0x0e || op == 0x0f) { frames_push(s, D); return true; }
    if (op == 0x10 || op == 0x11) { frames_push(s, I); return true; }
    if (op >= 0x12 && op <= 0x14) {                                     /* ldc, ldc_w, ldc2_w */
        uint16_t k = op == 0x12 ? p[1] : bc_u2(p + 1);
        switch (cp_tag(c, k)) {
        case CP_INTEGER: frames_push(s, I); return true;
        case CP_FLOAT: frames_push(s, F); return true;
        case CP_LONG: frames_push(s, L); return true;
        case CP_DOUBLE: frames_push(s, D); return true;
        case CP_STRING: frames_push(s, (vtype){ T_OBJ, class_index(sm, "java/lang/String", 16) }); return true;
        case CP_CLASS: frames_push(s, (vtype){ T_OBJ, class_index(sm, "java/lang/Class", 15) }); return true;
        case CP_METHODTYPE:
            frames_push(s, (vtype){ T_OBJ, class_index(sm, "java/lang/invoke/MethodType", 27) });
            return true;
        case CP_METHODHANDLE:
            frames_push(s, (vtype){ T_OBJ, class_index(sm, "java/lang/invoke/MethodHandle", 29) });
            return true;
        case CP_DYNAMIC: {
            uint16_t dn;
            const char *d = (const char *)cf_utf8(c, nat_desc(c, k), &dn);
            size_t i = 0;
            vtype t;
            if (!d || !field_type(sm, d, dn, &i, &t))
                return false;
            frames_push(s, t);
            return true;
        }
        }
        return false;
    }
    if (op >= 0x15 && op <= 0x19) {                                    /* xload idx */
        vtype t = frames_load(s, p[1]);
        frames_push(s, op == 0x19 ? t
                                  : (vtype){ op == 0x15 ? T_INT : op == 0x16 ? T_LONG : op == 0x17 ? T_FLOAT : T_DOUBLE, 0 });
        return true;
    }
    if (op >= 0x1a && op <= 0x2d) {                                    /* xload_n */
        uint32_t k = (op - 0x1a) / 4, n = (op - 0x1a) % 4;
        vtype t = frames_load(s, n);
        frames_push(s, k == 4 ? t : (vtype){ kind4[k], 0 });
        return true;
    }
    if (op >= 0x2e && op <= 0x35) {                                    /* array loads */
        frames_pop1(s);
        vtype arr = frames_pop1(s);
        if (op == 0x2f) frames_push(s, L);
        else if (op == 0x30) frames_push(s, F);
        else if (op == 0x31) frames_push(s, D);
        else if (op != 0x32) frames_push(s, I);
        else if (arr.tag == T_NULL) frames_push(s, arr);
        else {
            uint16_t len;
            const char *name = arr.tag == T_OBJ && sm->cp ? cp_class_name(sm->cp, c, arr.data, &len) : NULL;
            if (!name || len < 2 || name[0] != '[')
                return false;
            size_t i = 1;
            vtype t;
            if (!field_type(sm, name, len, &i, &t))
                return false;
            frames_push(s, t);
        }
        return true;
    }
    if (op >= 0x36 && op <= 0x3a) {                                    /* xstore idx */
        vtype t = frames_pop1(s);
        if (op == 0x37 || op == 0x39)
            t = frames_pop1(s);
        frames_store(s, p[1], t);
        return true;
    }
    if (op >= 0x3b && op <= 0x4e) {                                    /* xstore_n */
        uint32_t k = (op - 0x3b) / 4, n = (op - 0x3b) % 4;
        vtype t = frames_pop1(s);
        if (k == 1 || k == 3)
            t = frames_pop1(s);
        frames_store(s, n, t);
        return true;
    }
    if (op >= 0x4f && op <= 0x56) {                                    /* array stores */
        frames_popn(s, (op == 0x50 || op == 0x52) ? 4 : 3);
        return true;
    }
    if (op >= 0x57 && op <= 0x5f) {                                    /* stack shuffles, by slot */
        vtype a, b, cc, d;
        switch (op) {
        case 0x57: frames_pop1(s); break;
        case 0x58: frames_popn(s, 2); break;
        case 0x59: a = frames_pop1(s); if (s->sp + 2 > s->maxstk) return false;
            s->stk[s->sp++] = a; s->stk[s->sp++] = a; break;
        case 0x5a: a = frames_pop1(s); b = frames_pop1(s); if (s->sp + 3 > s->maxstk) return false;
            s->stk[s->sp++] = a; s->stk[s->sp++] = b; s->stk[s->sp++] = a; break;
        case 0x5b: a = frames_pop1(s); b = frames_pop1(s); cc = frames_pop1(s); if (s->sp + 4 > s->maxstk) return false;
            s->stk[s->sp++] = a; s->stk[s->sp++] = cc; s->stk[s->sp++] = b; s->stk[s->sp++] = a; break;
        case 0x5c: a = frames_pop1(s); b = frames_pop1(s); if (s->sp + 4 > s->maxstk) return false;
            s->stk[s->sp++] = b; s->stk[s->sp++] = a; s->stk[s->sp++] = b; s->stk[s->sp++] = a; break;
        case 0x5d: a = frames_pop1(s); b = frames_pop1(s); cc = frames_pop1(s); if (s->sp + 5 > s->maxstk) return false;
            s->stk[s->sp++] = b; s->stk[s->sp++] = a; s->stk[s->sp++] = cc; s->stk[s->sp++] = b; s->stk[s->sp++] = a; break;
        case 0x5e: a = frames_pop1(s); b = frames_pop1(s); cc = frames_pop1(s); d = frames_pop1(s);
            if (s->sp + 6 > s->maxstk) return false;
            s->stk[s->sp++] = b; s->stk[s->sp++] = a; s->stk[s->sp++] = d; s->stk[s->sp++] = cc;
            s->stk[s->sp++] = b; s->stk[s->sp++] = a; break;
        case 0x5f: a = frames_pop1(s); b = frames_pop1(s); if (s->sp + 2 > s->maxstk) return false;
            s->stk[s->sp++] = a; s->stk[s->sp++] = b; break;
        }
        return !s->bad;
    }
    if (op >= 0x60 && op <= 0x73) {                                    /* binary arithmetic */
        uint8_t t = kind4[(op - 0x60) % 4];
        frames_popn(s, frames_wide(t) ? 4 : 2);
        frames_push(s, (vtype){ t, 0 });
        return true;
    }
    if (op >= 0x74 && op <= 0x77) {                                    /* neg */
        uint8_t t = kind4[op - 0x74];
        frames_popn(s, frames_wide(t) ? 2 : 1);
        frames_push(s, (vtype){ t, 0 });
        return true;
    }
    if (op >= 0x78 && op <= 0x7d) {                                    /* shifts: value, int count */
        bool lng = (op - 0x78) % 2;
        frames_popn(s, lng ? 3 : 2);
        frames_push(s, lng ? L : I);
        return true;
    }
    if (op >= 0x7e && op <= 0x83) {                                    /* and, or, xor */
        bool lng = (op - 0x7e) % 2;
        frames_popn(s, lng ? 4 : 2);
        frames_push(s, lng ? L : I);
        return true;
    }
    if (op >= 0x85 && op <= 0x93) {                                    /* conversions */
        static const uint8_t from[15] = { T_INT, T_INT, T_INT, T_LONG, T_LONG, T_LONG, T_FLOAT, T_FLOAT, T_FLOAT,
                                          T_DOUBLE, T_DOUBLE, T_DOUBLE, T_INT, T_INT, T_INT };
        static const uint8_t to[15] = { T_LONG, T_FLOAT, T_DOUBLE, T_INT, T_FLOAT, T_DOUBLE, T_INT, T_LONG,
                                        T_DOUBLE, T_INT, T_LONG, T_FLOAT, T_INT, T_INT, T_INT };
        frames_popn(s, frames_wide(from[op - 0x85]) ? 2 : 1);
        frames_push(s, (vtype){ to[op - 0x85], 0 });
        return true;
    }
    if (op >= 0x94 && op <= 0x98) {                                    /* compares */
        frames_popn(s, (op == 0x94 || op >= 0x97) ? 4 : 2);
        frames_push(s, I);
        return true;
    }
    if ((op >= 0x99 && op <= 0x9e) || op == 0xc6 || op == 0xc7) { frames_popn(s, 1); return true; }
    if (op >= 0x9f && op <= 0xa6) { frames_popn(s, 2); return true; }
    if (op >= 0xb2 && op <= 0xb5) {                                    /* fields */
        uint16_t k = bc_u2(p + 1), dn;
        const char *d = cp_tag(c, k) == CP_FIELDREF ? (const char *)cf_utf8(c, nat_desc(c, k), &dn) : NULL;
        size_t i = 0;
        vtype t;
        if (!d || !field_type(sm, d, dn, &i, &t))
            return false;
        uint32_t w = frames_wide(t.tag) ? 2 : 1;
        if (op == 0xb2) frames_push(s, t);
        else if (op == 0xb3) frames_popn(s, w);
        else if (op == 0xb4) { frames_pop1(s); frames_push(s, t); }
        else frames_popn(s, w + 1);
        return true;
    }
    if (op >= 0xb6 && op <= 0xba) {                                    /* invokes */
        uint16_t k = bc_u2(p + 1);
        uint8_t tag = cp_tag(c, k);
        if (op == 0xba ? tag != CP_INVOKEDYNAMIC : (tag != CP_METHODREF && tag != CP_IMETHODREF))
            return false;
        uint32_t slots;
        vtype ret = { T_TOP, 0 };
        bool is_void;
        if (!method_desc(sm, nat_desc(c, k), &slots, &ret, &is_void))
            return false;
        frames_popn(s, slots);
        if (op != 0xb8 && op != 0xba) {
            vtype recv = frames_pop1(s);
            uint16_t nat = cp_u2(c, k, 2);
            if (op == 0xb7 && cf_utf8_is(c, cp_u2(c, nat, 0), "<init>")) {
                if (recv.tag == T_UTHIS)
                    replace_uninit(s, recv, (vtype){ T_OBJ, c->this_class });
                else if (recv.tag == T_UNINIT)
                    replace_uninit(s, recv, (vtype){ T_OBJ, bc_u2(sm->code + recv.data + 1) });
                else
                    return false;
            }
        }
        if (!is_void)
            frames_push(s, ret);
        return true;
    }
    if (op == 0xbb) { frames_push(s, (vtype){ T_UNINIT, (uint16_t)pc }); return true; }
    if (op == 0xbc) {                                                  /* newarray */
        frames_pop1(s);
        if (p[1] < 4 || p[1] > 11)
            return false;
        frames_push(s, (vtype){ T_OBJ, class_index(sm, newarray_names[p[1] - 4], 2) });
        return true;
    }
    if (op == 0xbd) {                                                  /* anewarray */
        frames_pop1(s);
        uint16_t len;
        const char *name = (const char *)cf_utf8(c, cf_class_name_index(c, bc_u2(p + 1)), &len);
        char tmp[1024];
        if (!name || (size_t)len + 3 > sizeof tmp)
            return false;
        size_t n = name[0] == '[' ? (size_t)snprintf(tmp, sizeof tmp, "[%.*s", (int)len, name)
                                  : (size_t)snprintf(tmp, sizeof tmp, "[L%.*s;", (int)len, name);
        frames_push(s, (vtype){ T_OBJ, class_index(sm, tmp, n) });
        return true;
    }
    if (op == 0xbe || op == 0xc1) { frames_pop1(s); frames_push(s, I); return true; } /* arraylength, instanceof */
    if (op == 0xc0) { frames_pop1(s); frames_push(s, (vtype){ T_OBJ, bc_u2(p + 1) }); return true; } /* checkcast */
    if (op == 0xc2 || op == 0xc3) { frames_pop1(s); return true; }     /* monitorenter/exit */
    if (op == 0xc4) {                                                  /* wide */
        uint8_t w = p[1];
        uint16_t idx = bc_u2(p + 2);
        if (w == 0x84)
            return true;
        if (w >= 0x15 && w <= 0x19) {
            vtype t = frames_load(s, idx);
            frames_push(s, w == 0x19 ? t
                                     : (vtype){ w == 0x15 ? T_INT : w == 0x16 ? T_LONG : w == 0x17 ? T_FLOAT : T_DOUBLE, 0 });
            return true;
        }
        if (w >= 0x36 && w <= 0x3a) {
            vtype t = frames_pop1(s);
            if (w == 0x37 || w == 0x39)
                t = frames_pop1(s);
            frames_store(s, idx, t);
            return true;
        }
        return false;
    }
    if (op == 0xc5) {                                                  /* multianewarray */
        frames_popn(s, p[3]);
        frames_push(s, (vtype){ T_OBJ, bc_u2(p + 1) });
        return true;
    }
    return false; /* goto, jsr, ret, switches, returns, athrow, goto_w, jsr_w: no straight flow */
}

/* The frame after the conditional branch at if_pc, from `from`. */
static bool frames_infer(const stackmap_ctx *sm, const frame *from, uint32_t if_pc, frame *out)
{
    sim s = { 0 };
    s.maxloc = sm->max_locals;
    s.maxstk = sm->max_stack;
    s.loc = calloc(s.maxloc + 2u, sizeof *s.loc);
    s.stk = calloc(s.maxstk + 2u, sizeof *s.stk);
    bool ok = s.loc && s.stk;
    for (uint32_t i = 0; ok && i < from->nl; i++) {
        ok = s.nloc + (frames_wide(from->l[i].tag) ? 2u : 1u) <= s.maxloc;
        if (ok)
            frames_store(&s, s.nloc, from->l[i]);
    }
    for (uint32_t i = 0; ok && i < from->ns; i++)
        frames_push(&s, from->s[i]);
    for (uint32_t pc = from->off; ok && !s.bad;) {
        uint32_t n = bc_insn_length(sm->code, sm->code_len, pc);
        ok = n && frames_step(sm, &s, pc);
        if (pc == if_pc || !n)
            break;
        pc += n;
        ok = ok && pc <= if_pc;
    }
    ok = ok && !s.bad;
    if (ok) { /* back to the table's form: a long is one entry; trailing tops go */
        out->l = malloc((s.nloc + 1u) * sizeof(vtype));
        out->s = malloc((s.sp + 1u) * sizeof(vtype));
        ok = out->l && out->s;
        uint32_t nl = 0, ns = 0;
        for (uint32_t i = 0; ok && i < s.nloc; i += frames_wide(s.loc[i].tag) ? 2 : 1)
            out->l[nl++] = s.loc[i];
        while (nl && out->l[nl - 1].tag == T_TOP)
            nl--;
        for (uint32_t i = 0; ok && i < s.sp; i += frames_wide(s.stk[i].tag) ? 2 : 1)
            out->s[ns++] = s.stk[i];
        out->nl = (uint16_t)nl;
        out->ns = (uint16_t)ns;
        if (!ok) {
            free(out->l);
            free(out->s);
        }
    }
    free(s.loc);
    free(s.stk);
    return ok;
}

static void frames_put_types(const stackmap_ctx *sm, buf *out, const vtype *t, uint16_t n)
{
    buf_put_u2(out, n);
    for (uint16_t i = 0; i < n; i++) {
        buf_put_u1(out, t[i].tag);
        if (t[i].tag == T_OBJ)
            buf_put_u2(out, t[i].data);
        else if (t[i].tag == T_UNINIT)
            buf_put_u2(out, (uint16_t)sm->new_insn(sm->map, t[i].data));
    }
}

static int frames_cmp_frame(const void *a, const void *b)
{
    uint32_t x = ((const frame *)a)->off, y = ((const frame *)b)->off;
    return x < y ? -1 : x > y;
}

jp_status stackmap_rewrite_full(const stackmap_ctx *sm, const cf_attr *a, const uint32_t *ifs, uint32_t nifs,
                                int64_t handler_at, uint16_t throwable, buf *out, uint32_t *frames_added, char *why,
                                size_t cap)
{
    frames fs = { 0 };
    frame init = { 0 };
    init.l = malloc((sm->max_locals + 1u) * sizeof(vtype));
    jp_status st = decode_table(sm, a, &fs, &init, why, cap);
    uint32_t base_n = fs.n;
    for (uint32_t w = 0; st == JP_OK && w < nifs; w++) {
        uint32_t next = ifs[w] + bc_insn_length(sm->code, sm->code_len, ifs[w]);
        const frame *from = &init;
        bool have = false;
        for (uint32_t i = 0; i < base_n; i++) {
            if (fs.f[i].off == next)
                have = true;
            if (fs.f[i].off <= ifs[w] && fs.f[i].off >= from->off)
                from = &fs.f[i];
        }
        if (have)
            continue;
        frame f = { next, 0, 0, NULL, NULL };
        if (!frames_infer(sm, from, ifs[w], &f)) {
            st = cf_fail(why, cap, JP_ERR_ARG, "cannot infer the stack map frame after the branch at pc %u", ifs[w]);
            break;
        }
        bool pushed = frames_push_frame(&fs, &f);
        free(f.l);
        free(f.s);
        if (!pushed)
            st = JP_ERR_NOMEM;
        else
            (*frames_added)++;
    }
    if (st == JP_OK) {
        qsort(fs.f, fs.n, sizeof *fs.f, frames_cmp_frame);
        size_t hdr = out->len;
        buf_put_u2(out, a ? a->name : sm->smt_name);
        buf_put_u4(out, 0);
        buf_put_u2(out, (uint16_t)(fs.n + (handler_at >= 0)));
        int64_t prev = -1;
        for (uint32_t i = 0; i < fs.n && st == JP_OK; i++) {
            int64_t now = sm->new_target(sm->map, fs.f[i].off);
            if (now - prev - 1 > 0xffff || (i && fs.f[i].off == fs.f[i - 1].off)) {
                st = cf_fail(why, cap, JP_ERR_ARG, "stack map frames cannot be placed");
                break;
            }
            buf_put_u1(out, 255);
            buf_put_u2(out, (uint16_t)(now - prev - 1));
            frames_put_types(sm, out, fs.f[i].l, fs.f[i].nl);
            frames_put_types(sm, out, fs.f[i].s, fs.f[i].ns);
            prev = now;
        }
        if (st == JP_OK && handler_at >= 0) {
            if (handler_at - prev - 1 > 0xffff)
                st = cf_fail(why, cap, JP_ERR_ARG, "stack map delta too large");
            else
                stackmap_put_handler_frame(out, (uint32_t)(handler_at - prev - 1), throwable);
        }
        if (st == JP_OK && fs.n + (handler_at >= 0) > 0xffff)
            st = cf_fail(why, cap, JP_ERR_ARG, "stack map table full");
        if (st == JP_OK && !out->failed)
            be_store_u4(out->data + hdr + 2, (uint32_t)(out->len - hdr - 6));
    }
    free(init.l);
    frames_free(&fs);
    return st;
}
