/* code_rewrite.c — rewriting one method's Code attribute: decode the
 * instructions, lay out the new code with the injected calls (prefixes
 * before instructions, suffixes after them, a method-entry prologue),
 * widen 16-bit branches that no longer reach, re-pad switches, and carry
 * every offset along: branch and switch targets, the exception table,
 * LineNumberTable, LocalVariableTable, LocalVariableTypeTable and
 * StackMapTable (including Uninitialized(offset) types). A widened
 * conditional branch needs a stack map frame after it; stackmap.c infers it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "code_rewrite.h"
#include "stackmap.h"

struct insn {
    uint32_t old, old_len;
    uint32_t start;   /* new offset of the prefix (== op when there is none) */
    uint32_t op;      /* new offset of the instruction itself */
    uint32_t size;    /* new size of the instruction itself */
    uint8_t opcode, prefix, suffix, widen;
    uint8_t how;      /* cf_alloc_how: the count after it (then suffix is its length) */
    uint16_t site_cp; /* its site number's Integer constant, 0: pushed with sipush */
    uint32_t site;
};

#define CODE_ATTRS_MAX 64 /* the attributes of one Code attribute a method may have to be rewritten */

typedef struct method_code {
    uint16_t max_stack, max_locals;
    uint32_t len;
    const unsigned char *code;
    uint16_t nexc;
    const unsigned char *exc;     /* nexc * 8 bytes */
    uint16_t nattrs;
    cf_attr attrs[CODE_ATTRS_MAX]; /* Code's own attributes (offsets into the class bytes) */
    insn *ins;
    uint32_t nins;
    int32_t *at;                  /* old offset -> instruction index, -1 inside an instruction */
    uint32_t new_len;
    uint32_t nbranches;           /* branches and switches */
    uint32_t nwidened;            /* 16-bit branches widened */
} method_code;

static uint32_t push_len(uint32_t v)
{
    return v <= 5 ? 1 : v <= 127 ? 2 : v <= 32767 ? 3 : 3 /* ldc_w */;
}

static void emit_push(buf *b, uint32_t v, uint16_t cp_int)
{
    if (v <= 5) {
        buf_put_u1(b, (uint8_t)(OP_ICONST_0 + v));
    } else if (v <= 127) {
        buf_put_u1(b, OP_BIPUSH);
        buf_put_u1(b, (uint8_t)v);
    } else if (v <= 32767) {
        buf_put_u1(b, OP_SIPUSH);
        buf_put_u2(b, (uint16_t)v);
    } else {
        buf_put_u1(b, OP_LDC_W);
        buf_put_u2(b, cp_int);
    }
}

static void emit_call(buf *b, const code_inject *inj, uint16_t ref)
{
    emit_push(b, inj->id, inj->id_cp);
    buf_put_u1(b, OP_INVOKESTATIC);
    buf_put_u2(b, ref);
}

/* The count after an allocating instruction (see cf_alloc_how). */
static void emit_alloc_count(buf *b, const code_inject *inj, const insn *in)
{
    switch (in->how) {
    case CF_ALLOC_OBJECT:
        break;
    case CF_ALLOC_CLONE:
        buf_put_u1(b, OP_DUP_X1); /* receiver, result -> result, receiver, result */
        break;
    case CF_ALLOC_MULTI:
    case CF_ALLOC_RESULT:
    case CF_ALLOC_RESULT_MULTI:
        buf_put_u1(b, OP_DUP);
        break;
    default: /* arrays: their length */
        buf_put_u1(b, OP_DUP);
        buf_put_u1(b, OP_ARRAYLENGTH);
        break;
    }
    if (in->site_cp) {
        buf_put_u1(b, OP_LDC_W);
        buf_put_u2(b, in->site_cp);
    } else {
        buf_put_u1(b, OP_SIPUSH);
        buf_put_u2(b, (uint16_t)in->site);
    }
    buf_put_u1(b, OP_INVOKESTATIC);
    buf_put_u2(b, inj->alloc_ref[in->how]);
}

/* New offset that a jump to old offset `old` must land on. */
static inline uint32_t target_of(const method_code *mc, uint32_t old)
{
    return old == mc->len ? mc->new_len : mc->ins[mc->at[old]].start;
}

static inline bool code_rewrite_is_insn(const method_code *mc, int64_t old)
{
    return old >= 0 && old < mc->len && mc->at[old] >= 0;
}

static inline bool code_rewrite_plain(uint8_t op)
{
    return !(bc_kind[op] & BC_JUMPS);
}

static jp_status parse_code(const cf_class *c, const cf_attr *a, method_code *mc, char *why, size_t cap)
{
    buf_rd r;
    buf_rd_init(&r, c->b + a->off, a->len);
    mc->max_stack = buf_get_u2(&r);
    mc->max_locals = buf_get_u2(&r);
    mc->len = buf_get_u4(&r);
    if (r.overrun || mc->len == 0 || mc->len > 65535)
        return cf_fail(why, cap, JP_ERR_FORMAT, "code length %u (must be 1..65535)", mc->len);
    mc->code = buf_get_bytes(&r, mc->len);
    mc->nexc = buf_get_u2(&r);
    mc->exc = buf_get_bytes(&r, 8u * mc->nexc);
    mc->nattrs = buf_get_u2(&r);
    if (r.overrun || !mc->code || !mc->exc)
        return cf_fail(why, cap, JP_ERR_FORMAT, "Code attribute truncated");
    /* every attribute is checked, even past the 64 kept: a malformed Code attribute is malformed
     * input (JP_ERR_FORMAT), never a method left unchanged (JP_ERR_ARG) and copied as it is */
    for (uint16_t i = 0; i < mc->nattrs; i++) {
        cf_attr at;
        at.name = buf_get_u2(&r);
        at.len = buf_get_u4(&r);
        const unsigned char *p = buf_get_bytes(&r, at.len);
        if (!p)
            return cf_fail(why, cap, JP_ERR_FORMAT, "Code attribute's attribute %u truncated", i + 1);
        at.off = (uint32_t)(p - c->b);
        if (!cf_utf8(c, at.name, NULL))
            return cf_fail(why, cap, JP_ERR_FORMAT, "Code attribute's attribute %u is not named by a Utf8", i + 1);
        if (i < CODE_ATTRS_MAX)
            mc->attrs[i] = at;
    }
    if (r.p != r.end)
        return cf_fail(why, cap, JP_ERR_FORMAT, "Code attribute has %zu trailing bytes", buf_rd_left(&r));
    if (mc->nattrs > CODE_ATTRS_MAX)
        return cf_fail(why, cap, JP_ERR_ARG, "%u attributes in one Code attribute (limit %u)", mc->nattrs,
                       CODE_ATTRS_MAX);
    return JP_OK;
}

/* The line of the instruction at pc, from the Code attribute's LineNumberTables; -1 if none says. */
static int32_t line_at(const cf_class *c, const method_code *mc, uint32_t pc)
{
    int32_t line = -1;
    uint32_t best = 0;
    for (uint16_t i = 0; i < mc->nattrs; i++) {
        if (!cf_utf8_is(c, mc->attrs[i].name, "LineNumberTable") || mc->attrs[i].len < 2)
            continue;
        const unsigned char *p = c->b + mc->attrs[i].off;
        uint32_t n = bc_u2(p);
        if (2 + 4 * n > mc->attrs[i].len)
            continue;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t start = bc_u2(p + 2 + 4 * k);
            if (start <= pc && (line < 0 || start >= best)) {
                best = start;
                line = bc_u2(p + 4 + 4 * k);
            }
        }
    }
    return line;
}

/* Asks alloc() about the allocating instruction in (its site and how it is counted). */
static jp_status code_rewrite_alloc_site(const cf_class *c, const method_code *mc, const code_inject *inj, insn *in,
                                         char *why, size_t cap)
{
    static const char *const atypes[12] = { [4] = "[Z", [5] = "[C", [6] = "[F", [7] = "[D",
                                            [8] = "[B", [9] = "[S", [10] = "[I", [11] = "[J" };
    const unsigned char *p = mc->code + in->old;
    uint8_t op = in->opcode;
    char type[512], name[256], desc[512];
    cf_alloc_view v = { .method = inj->view, .pc = in->old, .line = -1, .opcode = op, .type = type };
    if (op == OP_NEWARRAY) {
        if (p[1] < 4 || p[1] > 11)
            return cf_fail(why, cap, JP_ERR_FORMAT, "newarray of type %u at pc %u", p[1], in->old);
        snprintf(type, sizeof type, "%s", atypes[p[1]]);
    } else if (op == OP_NEW || op == OP_ANEWARRAY || op == OP_MULTIANEWARRAY) {
        uint16_t nidx = cf_class_name_index(c, bc_u2(p + 1));
        char *t = op == OP_ANEWARRAY ? type + 2 : type;
        if (!nidx)
            return cf_fail(why, cap, JP_ERR_FORMAT, "instruction 0x%02x at pc %u does not name a class", op, in->old);
        if (!cf_utf8_copy(c, nidx, t, sizeof type - 3))
            return JP_OK; /* a name too long to be worth a site */
        if (op == OP_ANEWARRAY) { /* [ + the element's descriptor */
            if (t[0] == '[') {
                memmove(type + 1, t, strlen(t) + 1);
            } else {
                type[0] = '[';
                type[1] = 'L';
                strcat(type, ";");
            }
        }
        v.dims = op == OP_MULTIANEWARRAY ? p[3] : 0;
    } else { /* an invoke of a method whose name alloc_calls lists */
        uint16_t cls, nidx, didx;
        int k = cf_method_ref(c, bc_u2(p + 1), &cls, &nidx, &didx);
        if (k < 0)
            return cf_fail(why, cap, JP_ERR_FORMAT, "invoke at pc %u: bad NameAndType", in->old);
        if (!k || !cf_utf8_in(c, nidx, inj->spec->alloc_calls))
            return JP_OK;
        if (!cf_utf8_copy(c, cls, type, sizeof type) || !cf_utf8_copy(c, nidx, name, sizeof name) ||
            !cf_utf8_copy(c, didx, desc, sizeof desc))
            return JP_OK;
        v.name = name;
        v.desc = desc;
    }
    v.line = line_at(c, mc, in->old);
    cf_alloc_how how = CF_ALLOC_SKIP;
    uint32_t site = inj->spec->alloc(inj->spec->ctx, &v, &how);
    if (!site || how == CF_ALLOC_SKIP || how >= CF_ALLOC_HOWS)
        return JP_OK;
    static const uint8_t suffix[CF_ALLOC_HOWS] = {
        [CF_ALLOC_OBJECT] = 6, [CF_ALLOC_ARRAY_1] = 8, [CF_ALLOC_ARRAY_2] = 8, [CF_ALLOC_ARRAY_4] = 8,
        [CF_ALLOC_ARRAY_8] = 8, [CF_ALLOC_ARRAY_REF] = 8, [CF_ALLOC_MULTI] = 7, [CF_ALLOC_RESULT] = 7,
        [CF_ALLOC_RESULT_MULTI] = 7, [CF_ALLOC_CLONE] = 7,
    };
    uint16_t *ref = (uint16_t *)&inj->alloc_ref[how];
    if (!*ref) {
        static const char *const descs[CF_ALLOC_HOWS] = {
            [CF_ALLOC_OBJECT] = CF_ALLOC_SITE_DESC, [CF_ALLOC_ARRAY_1] = CF_ALLOC_ARRAY_DESC,
            [CF_ALLOC_ARRAY_2] = CF_ALLOC_ARRAY_DESC, [CF_ALLOC_ARRAY_4] = CF_ALLOC_ARRAY_DESC,
            [CF_ALLOC_ARRAY_8] = CF_ALLOC_ARRAY_DESC, [CF_ALLOC_ARRAY_REF] = CF_ALLOC_ARRAY_DESC,
            [CF_ALLOC_MULTI] = CF_ALLOC_OBJECT_DESC, [CF_ALLOC_RESULT] = CF_ALLOC_OBJECT_DESC,
            [CF_ALLOC_RESULT_MULTI] = CF_ALLOC_OBJECT_DESC, [CF_ALLOC_CLONE] = CF_ALLOC_CLONE_DESC,
        };
        *ref = cp_add_methodref(inj->cp, inj->tracker_cls, inj->spec->alloc_tracker->method[how], descs[how]);
        if (!*ref)
            return cf_fail(why, cap, JP_ERR_ARG, "constant pool full");
    }
    in->site = site;
    in->site_cp = site > 32767 ? cp_add_integer(inj->cp, (int32_t)site) : 0;
    if (site > 32767 && !in->site_cp)
        return cf_fail(why, cap, JP_ERR_ARG, "constant pool full");
    in->how = (uint8_t)how;
    in->suffix = suffix[how];
    in->prefix = how == CF_ALLOC_CLONE ? 1 : 0;
    return JP_OK;
}

static bool code_rewrite_allocates(uint8_t op)
{
    return op == OP_NEW || bc_is_newarray(op) || (op >= 0xb6 && op <= 0xb9); /* invokevirtual … invokeinterface */
}

static jp_status code_rewrite_decode(const cf_class *c, method_code *mc, code_scratch *sc, const code_inject *inj,
                                     char *why, size_t cap)
{
    if (mc->len > sc->cap) { /* scratch kept across the methods of a class */
        insn *ins = realloc(sc->ins, mc->len * sizeof *ins);
        if (ins)
            sc->ins = ins;
        int32_t *at = ins ? realloc(sc->at, mc->len * sizeof *at) : NULL;
        if (!at)
            return JP_ERR_NOMEM;
        sc->at = at;
        sc->cap = mc->len;
    }
    mc->ins = sc->ins; /* every field is set below */
    mc->at = sc->at;
    memset(mc->at, 0xff, sizeof *mc->at * mc->len);
    uint32_t call_len = push_len(inj->id) + 3;
    for (uint32_t pc = 0; pc < mc->len;) {
        uint32_t n = bc_insn_length(mc->code, mc->len, pc);
        if (!n)
            return cf_fail(why, cap, JP_ERR_FORMAT, "bad or truncated instruction 0x%02x at pc %u", mc->code[pc], pc);
        insn *in = &mc->ins[mc->nins];
        mc->at[pc] = (int32_t)mc->nins++;
        *in = (insn){ .old = pc, .old_len = n, .opcode = mc->code[pc] };
        uint8_t op = in->opcode;
        mc->nbranches += !code_rewrite_plain(op);
        uint8_t kind = bc_kind[op];
        if (kind & BC_CP) {
            uint32_t k = op == OP_LDC ? mc->code[pc + 1] : bc_u2(mc->code + pc + 1);
            if (k == 0 || k >= c->cp_count)
                return cf_fail(why, cap, JP_ERR_FORMAT, "instruction 0x%02x at pc %u refers to constant %u of %u", op,
                               pc, k, c->cp_count);
        }
        if ((kind & BC_RETURN) && inj->entry_exit)
            in->prefix = (uint8_t)call_len;
        if ((kind & BC_NEWARRAY) && inj->newarray)
            in->suffix = 4; /* dup, invokestatic */
        if (inj->allocs && code_rewrite_allocates(op)) {
            jp_status s = code_rewrite_alloc_site(c, mc, inj, in, why, cap);
            if (s != JP_OK)
                return s;
        }
        pc += n;
    }
    /* every branch and switch target must be an instruction */
    for (uint32_t i = 0; mc->nbranches && i < mc->nins; i++) {
        const insn *in = &mc->ins[i];
        const unsigned char *p = mc->code + in->old;
        if (bc_is_branch16(in->opcode) || bc_is_branch32(in->opcode)) {
            int64_t t = (int64_t)in->old + (bc_is_branch16(in->opcode) ? bc_s2(p + 1) : bc_s4(p + 1));
            if (!code_rewrite_is_insn(mc, t))
                return cf_fail(why, cap, JP_ERR_FORMAT, "branch at pc %u to %lld, not an instruction", in->old,
                            (long long)t);
        } else if (in->opcode == OP_TABLESWITCH || in->opcode == OP_LOOKUPSWITCH) {
            const unsigned char *q = p + 1 + bc_switch_pad(in->old);
            uint32_t n = in->opcode == OP_TABLESWITCH ? (uint32_t)(bc_s4(q + 8) - bc_s4(q + 4) + 1)
                                                      : (uint32_t)bc_s4(q + 4);
            const unsigned char *offs = q + 12; /* first jump offset, for both kinds */
            if (!code_rewrite_is_insn(mc, (int64_t)in->old + bc_s4(q)))
                return cf_fail(why, cap, JP_ERR_FORMAT, "switch at pc %u has a bad default target", in->old);
            for (uint32_t k = 0; k < n; k++) {
                int32_t off = in->opcode == OP_TABLESWITCH ? bc_s4(offs + 4 * k) : bc_s4(offs + 8 * k);
                if (!code_rewrite_is_insn(mc, (int64_t)in->old + off))
                    return cf_fail(why, cap, JP_ERR_FORMAT, "switch at pc %u has a bad target", in->old);
            }
        }
    }
    return JP_OK;
}

/* Assigns new offsets until no 16-bit branch overflows. */
static jp_status code_rewrite_layout(method_code *mc, uint32_t prologue, char *why, size_t cap)
{
    for (int round = 0;; round++) {
        uint32_t pos = prologue;
        for (uint32_t i = 0; i < mc->nins; i++) {
            insn *in = &mc->ins[i];
            in->start = pos;
            in->op = pos + in->prefix;
            if (in->opcode == OP_TABLESWITCH || in->opcode == OP_LOOKUPSWITCH)
                in->size = 1 + bc_switch_pad(in->op) + (in->old_len - 1 - bc_switch_pad(in->old));
            else if (in->widen)
                in->size = bc_is_conditional(in->opcode) ? 8 : 5;
            else
                in->size = in->old_len;
            pos = in->op + in->size + in->suffix;
            if (pos > 65535)
                return cf_fail(why, cap, JP_ERR_ARG, "code would be %u bytes after injection (limit 65535)", pos);
        }
        mc->new_len = pos;
        if (pos <= 32767)
            return JP_OK; /* no offset within the code can exceed 16 bits */
        bool changed = false;
        for (uint32_t i = 0; i < mc->nins; i++) {
            insn *in = &mc->ins[i];
            if (!bc_is_branch16(in->opcode) || in->widen)
                continue;
            int64_t off = (int64_t)target_of(mc, in->old + (uint32_t)bc_s2(mc->code + in->old + 1)) - in->op;
            if (off < -32768 || off > 32767) {
                in->widen = 1;
                mc->nwidened++;
                changed = true;
            }
        }
        if (!changed)
            return JP_OK;
        if (round > 64)
            return cf_fail(why, cap, JP_ERR_ARG, "branch widening did not settle");
    }
}

static void put_target(buf *b, const method_code *mc, const insn *in, int32_t old_off, bool wide)
{
    int64_t off = (int64_t)target_of(mc, (uint32_t)((int64_t)in->old + old_off)) - in->op;
    if (wide)
        buf_put_u4(b, (uint32_t)(int32_t)off);
    else
        buf_put_u2(b, (uint16_t)(int16_t)off);
}

static void emit_code(buf *b, const method_code *mc, const code_inject *inj, code_stats *st)
{
    if (inj->objinit) {
        buf_put_u1(b, OP_ALOAD_0);
        buf_put_u1(b, OP_INVOKESTATIC);
        buf_put_u2(b, inj->objinit_ref);
        st->objinits++;
    }
    if (inj->entry_exit) {
        if (inj->enter_this)
            buf_put_u1(b, OP_ALOAD_0);
        emit_call(b, inj, inj->enter_this ? inj->enter_this_ref : inj->enter_ref);
        st->entries++;
    }
    if (inj->count) {
        emit_call(b, inj, inj->count_ref);
        st->counts++;
    }
    for (uint32_t i = 0; i < mc->nins; i++) {
        const insn *in = &mc->ins[i];
        const unsigned char *p = mc->code + in->old;
        if (in->prefix && in->how == CF_ALLOC_CLONE) {
            buf_put_u1(b, OP_DUP); /* the receiver, for the count */
        } else if (in->prefix) {
            emit_call(b, inj, inj->exit_ref);
            st->exits++;
        }
        if (bc_is_branch16(in->opcode)) {
            int32_t off = bc_s2(p + 1);
            if (!in->widen) {
                buf_put_u1(b, in->opcode);
                put_target(b, mc, in, off, false);
            } else if (bc_is_conditional(in->opcode)) {
                buf_put_u1(b, bc_invert(in->opcode));
                buf_put_u2(b, 8);
                buf_put_u1(b, OP_GOTO_W);
                int64_t t = (int64_t)target_of(mc, (uint32_t)((int64_t)in->old + off)) - (in->op + 3);
                buf_put_u4(b, (uint32_t)(int32_t)t);
                st->widened++;
            } else {
                buf_put_u1(b, in->opcode == OP_GOTO ? OP_GOTO_W : OP_JSR_W);
                put_target(b, mc, in, off, true);
                st->widened++;
            }
        } else if (bc_is_branch32(in->opcode)) {
            buf_put_u1(b, in->opcode);
            put_target(b, mc, in, bc_s4(p + 1), true);
        } else if (in->opcode == OP_TABLESWITCH || in->opcode == OP_LOOKUPSWITCH) {
            buf_put_u1(b, in->opcode);
            for (uint32_t k = bc_switch_pad(in->op); k; k--)
                buf_put_u1(b, 0);
            const unsigned char *q = p + 1 + bc_switch_pad(in->old);
            put_target(b, mc, in, bc_s4(q), true);
            if (in->opcode == OP_TABLESWITCH) {
                buf_put(b, q + 4, 8); /* low, high */
                uint32_t n = (uint32_t)(bc_s4(q + 8) - bc_s4(q + 4) + 1);
                for (uint32_t k = 0; k < n; k++)
                    put_target(b, mc, in, bc_s4(q + 12 + 4 * k), true);
            } else {
                buf_put(b, q + 4, 4); /* npairs */
                uint32_t n = (uint32_t)bc_s4(q + 4);
                for (uint32_t k = 0; k < n; k++) {
                    buf_put(b, q + 8 + 8 * k, 4);
                    put_target(b, mc, in, bc_s4(q + 12 + 8 * k), true);
                }
            }
        } else {
            /* a run of plain instructions that need nothing: one copy */
            uint32_t j = i;
            while (j + 1 < mc->nins && !mc->ins[j].suffix && !mc->ins[j + 1].prefix &&
                   code_rewrite_plain(mc->ins[j + 1].opcode))
                j++;
            buf_put(b, p, mc->ins[j].old + mc->ins[j].old_len - in->old);
            i = j;
            in = &mc->ins[i];
        }
        if (in->how) {
            emit_alloc_count(b, inj, in);
            st->allocs++;
        } else if (in->suffix) {
            buf_put_u1(b, OP_DUP);
            buf_put_u1(b, OP_INVOKESTATIC);
            buf_put_u2(b, inj->newarray_ref);
            st->newarrays++;
        }
    }
}

/* LineNumberTable, LocalVariableTable, LocalVariableTypeTable: remap pcs. */
static jp_status remap_table(const cf_class *c, const cf_attr *a, const method_code *mc, bool ranges, buf *out,
                             char *why, size_t cap)
{
    buf_rd r;
    buf_rd_init(&r, c->b + a->off, a->len);
    uint16_t n = buf_get_u2(&r);
    uint32_t entry = ranges ? 10 : 4;
    if (r.overrun || a->len != 2 + (uint32_t)n * entry)
        return cf_fail(why, cap, JP_ERR_FORMAT, "pc table of %u bytes does not hold %u entries", a->len, n);
    buf_put_u2(out, (uint16_t)a->name);
    buf_put_u4(out, a->len);
    buf_put_u2(out, n);
    for (uint16_t i = 0; i < n; i++) {
        uint16_t start = buf_get_u2(&r);
        if (!code_rewrite_is_insn(mc, start))
            return cf_fail(why, cap, JP_ERR_FORMAT, "pc table entry at pc %u, not an instruction", start);
        uint32_t ns = target_of(mc, start);
        buf_put_u2(out, (uint16_t)ns);
        if (ranges) {
            uint32_t end = (uint32_t)start + buf_get_u2(&r);
            if (end != mc->len && !code_rewrite_is_insn(mc, end))
                return cf_fail(why, cap, JP_ERR_FORMAT, "local variable range ends at pc %u, not an instruction", end);
            buf_put_u2(out, (uint16_t)(target_of(mc, end) - ns));
            buf_put(out, buf_get_bytes(&r, 6), 6);
        } else {
            buf_put(out, buf_get_bytes(&r, 2), 2);
        }
    }
    return JP_OK;
}

static uint32_t new_insn_at(void *ctx, uint32_t old)
{
    const method_code *mc = ctx;
    return mc->ins[mc->at[old]].op;
}
static uint32_t new_target_at(void *ctx, uint32_t old)
{
    return target_of(ctx, old);
}
static bool valid_insn(void *ctx, uint32_t old)
{
    return code_rewrite_is_insn(ctx, old);
}

void code_scratch_free(code_scratch *sc)
{
    free(sc->ins);
    free(sc->at);
    buf_free(&sc->code);
    buf_free(&sc->tail);
    memset(sc, 0, sizeof *sc);
}

jp_status code_rewrite(const cf_class *c, const cf_member *m, const code_inject *inj, code_scratch *sc, buf *out,
                       code_stats *st, char *why, size_t cap)
{
    method_code mc = {0};
    const cf_attr *a = &m->attrs[m->code];
    jp_status s = parse_code(c, a, &mc, why, cap);
    if (s == JP_OK)
        s = code_rewrite_decode(c, &mc, sc, inj, why, cap);
    uint32_t prologue = (inj->objinit ? 4 : 0) + (inj->entry_exit || inj->count ? push_len(inj->id) + 3 : 0) +
                        (inj->entry_exit && inj->enter_this ? 1 : 0);
    if (s == JP_OK)
        s = code_rewrite_layout(&mc, prologue, why, cap);
    uint32_t extra = inj->allocs ? 3 : inj->entry_exit ? 2 : 1;
    if (s == JP_OK && mc.max_stack + extra > 65535)
        s = cf_fail(why, cap, JP_ERR_ARG, "max_stack would exceed 65535");
    uint32_t new_stack = mc.max_stack + extra;
    uint32_t handler_at = mc.new_len, handler_len = 0;
    if (inj->handler) {
        handler_len = push_len(inj->id) + 3 + 1;
        if (new_stack < 3)
            new_stack = 3; /* the thrown object and two ints */
        if (s == JP_OK && handler_at + handler_len > 65535)
            s = cf_fail(why, cap, JP_ERR_ARG, "code would be %u bytes after injection (limit 65535)",
                     handler_at + handler_len);
    }
    int smt = -1;
    for (uint16_t i = 0; s == JP_OK && i < mc.nattrs; i++)
        if (cf_utf8_is(c, mc.attrs[i].name, "StackMapTable")) {
            if (smt >= 0)
                s = cf_fail(why, cap, JP_ERR_FORMAT, "two StackMapTable attributes");
            smt = i;
        }
    /* frames the stack map needs after widened conditional branches */
    stackmap_ctx sm = {.cls = c, .method = m, .code = mc.code, .code_len = mc.len, .max_locals = mc.max_locals,
                       .max_stack = mc.max_stack, .cp = inj->cp, .smt_name = inj->smt_name, .map = &mc,
                       .new_target = new_target_at, .new_insn = new_insn_at, .is_insn = valid_insn};
    uint32_t nneed = 0;
    uint32_t *need = NULL;
    for (uint32_t i = 0; s == JP_OK && mc.nwidened && i < mc.nins; i++)
        if (mc.ins[i].widen && bc_is_conditional(mc.ins[i].opcode) && smt >= 0) {
            if (!need && !(need = malloc(sizeof *need * mc.nins)))
                s = JP_ERR_NOMEM;
            else
                need[nneed++] = mc.ins[i].old;
        }

    buf code = sc->code, tail = sc->tail;
    buf_reset(&code);
    buf_reset(&tail);
    code_stats local = {0};
    if (s == JP_OK && buf_reserve(&code, (size_t)mc.new_len + handler_len) &&
        buf_reserve(&tail, a->len - mc.len + 64)) {
        emit_code(&code, &mc, inj, &local);
        if (inj->handler) {
            emit_call(&code, inj, inj->exit_throw_ref ? inj->exit_throw_ref : inj->exit_ref);
            buf_put_u1(&code, OP_ATHROW);
            local.handlers++;
        }
        /* exception table; the catch-all handler goes last so every handler
         * of the method's own takes precedence */
        buf_put_u2(&tail, (uint16_t)(mc.nexc + (inj->handler ? 1 : 0)));
        for (uint16_t i = 0; i < mc.nexc && s == JP_OK; i++) {
            const unsigned char *e = mc.exc + 8 * i;
            uint16_t sp = bc_u2(e), ep = bc_u2(e + 2), hp = bc_u2(e + 4);
            if (!code_rewrite_is_insn(&mc, sp) || !(ep == mc.len || code_rewrite_is_insn(&mc, ep)) || sp >= ep ||
                !code_rewrite_is_insn(&mc, hp)) {
                s = cf_fail(why, cap, JP_ERR_FORMAT, "exception table entry %u [%u, %u) -> %u is bad", i, sp, ep, hp);
                break;
            }
            buf_put_u2(&tail, (uint16_t)target_of(&mc, sp));
            buf_put_u2(&tail, (uint16_t)target_of(&mc, ep));
            buf_put_u2(&tail, (uint16_t)target_of(&mc, hp));
            buf_put(&tail, e + 6, 2);
        }
        if (inj->handler) {
            if (mc.nexc == 65535)
                s = cf_fail(why, cap, JP_ERR_ARG, "exception table full");
            buf_put_u2(&tail, (uint16_t)mc.ins[0].start);
            buf_put_u2(&tail, (uint16_t)handler_at);
            buf_put_u2(&tail, (uint16_t)handler_at);
            buf_put_u2(&tail, 0);
        }
        size_t count_at = tail.len;
        uint16_t kept = 0;
        buf_put_u2(&tail, 0);
        for (uint16_t i = 0; i < mc.nattrs && s == JP_OK; i++) {
            const cf_attr *ca = &mc.attrs[i];
            if (cf_utf8_is(c, ca->name, "LineNumberTable"))
                s = remap_table(c, ca, &mc, false, &tail, why, cap);
            else if (cf_utf8_is(c, ca->name, "LocalVariableTable") ||
                     cf_utf8_is(c, ca->name, "LocalVariableTypeTable"))
                s = remap_table(c, ca, &mc, true, &tail, why, cap);
            else if ((int)i == smt)
                s = stackmap_rewrite(&sm, ca, need, nneed, inj->handler ? (int64_t)handler_at : -1, inj->throwable,
                                     &tail, &local.frames_added, why, cap);
            else if (cf_utf8_is(c, ca->name, "RuntimeVisibleTypeAnnotations") ||
                     cf_utf8_is(c, ca->name, "RuntimeInvisibleTypeAnnotations"))
                continue; /* their bytecode offsets would be stale: dropped */
            else {
                buf_put_u2(&tail, ca->name);
                buf_put_u4(&tail, ca->len);
                buf_put(&tail, c->b + ca->off, ca->len);
            }
            kept++;
        }
        if (s == JP_OK && nneed && smt < 0)
            s = cf_fail(why, cap, JP_ERR_ARG, "widened branch without a StackMapTable");
        if (s == JP_OK && inj->handler && smt < 0 && inj->major >= 50) {
            /* a method without branches had no table: it now needs one frame */
            buf_put_u2(&tail, inj->smt_name);
            buf_put_u4(&tail, 2 + 1 + 2 + 2 + 2 + 3);
            buf_put_u2(&tail, 1);
            stackmap_put_handler_frame(&tail, handler_at, inj->throwable);
            kept++;
        }
        be_store_u2(tail.data + count_at, kept);
    }
    if (s == JP_OK && (code.failed || tail.failed))
        s = JP_ERR_NOMEM;
    if (s == JP_OK && code.len != (size_t)mc.new_len + handler_len)
        s = cf_fail(why, cap, JP_ERR_FORMAT, "internal: emitted %zu bytes, laid out %u", code.len,
                 mc.new_len + handler_len);
    if (s == JP_OK) {
        uint64_t alen = 8 + (uint64_t)code.len + tail.len; /* stacks, code_length, code, tail */
        if (alen > UINT32_MAX) {
            s = cf_fail(why, cap, JP_ERR_ARG, "Code attribute too large");
        } else {
            buf_put_u2(out, a->name);
            buf_put_u4(out, (uint32_t)alen);
            buf_put_u2(out, (uint16_t)new_stack);
            buf_put_u2(out, mc.max_locals);
            buf_put_u4(out, (uint32_t)code.len);
            buf_put(out, code.data, code.len);
            buf_put(out, tail.data, tail.len);
            st->entries += local.entries;
            st->counts += local.counts;
            st->exits += local.exits;
            st->handlers += local.handlers;
            st->objinits += local.objinits;
            st->newarrays += local.newarrays;
            st->allocs += local.allocs;
            st->widened += local.widened;
            st->frames_added += local.frames_added;
        }
    }
    sc->code = code;
    sc->tail = tail;
    free(need);
    return s;
}
