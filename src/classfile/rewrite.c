/* rewrite.c — cf_rewrite: decides which methods of a parsed class get which
 * calls, appends the tracker's constant-pool entries, rewrites those
 * methods' Code attributes (code_rewrite.c) and assembles the new class
 * file; everything else is copied byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "classfile_internal.h"
#include "code_rewrite.h"

typedef struct code_facts {
    uint32_t length; /* code_length, 0 if the attribute is too short to say */
    bool newarray;  /* allocates an array (or is malformed: code_rewrite reports it) */
    bool allocs;    /* new, an array, or a call of a method named in alloc_calls (or malformed) */
    bool calls;     /* an invoke instruction */
    bool loops;     /* a backward branch, or a switch (not worth proving it jumps forward) */
    bool locks;     /* a monitorenter */
} code_facts;

/* Whether the invoke's Methodref (or InterfaceMethodref) names one of names
 * (or is malformed: code_rewrite reports it). */
static bool invoke_named(const cf_class *c, uint16_t ref, const char *const *names)
{
    uint16_t cls, name, desc;
    int k = cf_method_ref(c, ref, &cls, &name, &desc);
    return k < 0 || (k > 0 && cf_utf8_in(c, name, names));
}

static code_facts scan_code(const cf_class *c, const cf_member *m, const char *const *alloc_calls)
{
    const cf_attr *a = &m->attrs[m->code];
    const unsigned char *p = c->b + a->off;
    uint32_t len = a->len >= 8 ? ((uint32_t)p[4] << 24) | ((uint32_t)p[5] << 16) | ((uint32_t)p[6] << 8) | p[7] : 0;
    code_facts f = { len, false, false, false, false, false };
    if (a->len < 8 || len > a->len - 8)
        return (code_facts){ len, true, true, true, true, true };
    const unsigned char *code = p + 8;
    for (uint32_t pc = 0; pc < len;) {
        uint32_t n = bc_insn_length(code, len, pc);
        if (!n)
            return (code_facts){ len, true, true, true, true, true };
        uint8_t op = code[pc];
        if (bc_is_newarray(op))
            f.newarray = f.allocs = true;
        else if (op == OP_NEW)
            f.allocs = true;
        else if (op >= 0xb6 && op <= 0xba) { /* invokevirtual … invokedynamic */
            f.calls = true;
            f.allocs |= op != 0xba && alloc_calls && invoke_named(c, bc_u2(code + pc + 1), alloc_calls);
        }
        else if ((bc_is_branch16(op) && bc_s2(code + pc + 1) <= 0) || (bc_is_branch32(op) && bc_s4(code + pc + 1) <= 0) ||
                 op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH)
            f.loops = true;
        else if (op == OP_MONITORENTER)
            f.locks = true;
        pc += n;
    }
    return f;
}

static void rewrite_source_file(const cf_class *c, char *out, size_t cap)
{
    for (uint16_t i = 0; i < c->nattrs; i++) {
        const cf_attr *a = &c->attrs[i];
        if (a->len == 2 && cf_utf8_is(c, a->name, "SourceFile") && cf_utf8_copy(c, bc_u2(c->b + a->off), out, cap))
            return;
    }
    out[0] = 0;
}

/* Utf8 bytes p[0..n) NUL-terminated: in local[cap] when they fit, else on the
 * heap (NULL when out of memory); free with utf8_cstr_free. */
static char *utf8_cstr(const unsigned char *p, uint16_t n, char *local, size_t cap)
{
    char *s = n < cap ? local : malloc((size_t)n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

static void utf8_cstr_free(char *s, const char *local)
{
    if (s != local)
        free(s);
}

typedef struct plan {
    bool calls, count, objinit, newarray, allocs; /* count: count(id) only, not entry and exit */
    uint32_t id;
} plan;

jp_status cf_rewrite(const unsigned char *in, size_t len, const cf_inject_spec *spec, cf_result *out)
{
    memset(out, 0, sizeof *out);
    cf_class c;
    jp_status st = cf_parse(&c, in, len, out->why, sizeof out->why);
    out->major = c.major;
    if (st != JP_OK) {
        cf_class_free(&c);
        return st;
    }
    char cname[512] = "";
    cf_utf8_copy(&c, cf_class_name_index(&c, c.this_class), cname, sizeof cname);
    bool is_object = strcmp(cname, "java/lang/Object") == 0;
    rewrite_source_file(&c, out->source_file, sizeof out->source_file);
    plan *plans = calloc(c.nmethods ? c.nmethods : 1, sizeof *plans);
    if (!plans) {
        cf_class_free(&c);
        return JP_ERR_NOMEM;
    }
    bool any = false, any_calls = false, any_count = false, any_obj = false, any_arr = false;
    for (uint16_t i = 0; i < c.nmethods; i++) {
        const cf_member *m = &c.methods[i];
        if (m->code < 0)
            continue;
        out->methods++;
        uint16_t nlen, dlen;
        const unsigned char *np = cf_utf8(&c, m->name, &nlen), *dp = cf_utf8(&c, m->desc, &dlen);
        char name_buf[256], desc_buf[512]; /* the usual sizes; longer ones on the heap */
        char *name = utf8_cstr(np, nlen, name_buf, sizeof name_buf);
        char *desc = utf8_cstr(dp, dlen, desc_buf, sizeof desc_buf);
        if (!name || !desc) {
            utf8_cstr_free(name, name_buf);
            utf8_cstr_free(desc, desc_buf);
            st = JP_ERR_NOMEM;
            break;
        }
        code_facts facts = scan_code(&c, m, (spec->what & CF_INJECT_ALLOCS) ? spec->alloc_calls : NULL);
        cf_method_view v = {.index = i, .access = m->access, .name = name, .desc = desc,
                            .code_length = facts.length, .calls = facts.calls, .loops = facts.loops,
                            .newarray = facts.newarray, .locks = facts.locks};
        plan *pl = &plans[i];
        if (spec->what & CF_INJECT_CALLS)
            pl->id = spec->select ? spec->select(spec->ctx, &v) : i + 1u;
        pl->count = (pl->id & CF_SELECT_COUNT_ONLY) != 0;
        pl->id &= ~CF_SELECT_COUNT_ONLY;
        pl->calls = pl->id != 0 && !pl->count;
        pl->count = pl->count && pl->id != 0;
        pl->objinit = (spec->what & CF_INJECT_OBJINIT) && is_object && strcmp(name, "<init>") == 0 &&
                      strcmp(desc, "()V") == 0;
        pl->newarray = (spec->what & CF_INJECT_NEWARRAY) && facts.newarray;
        pl->allocs = (spec->what & CF_INJECT_ALLOCS) && spec->alloc && spec->alloc_tracker && facts.allocs;
        any_calls |= pl->calls;
        any_count |= pl->count;
        any_obj |= pl->objinit;
        any_arr |= pl->newarray;
        any |= pl->calls || pl->count || pl->objinit || pl->newarray || pl->allocs;
        utf8_cstr_free(name, name_buf);
        utf8_cstr_free(desc, desc_buf);
    }
    if (st != JP_OK) {
        free(plans);
        cf_class_free(&c);
        return st;
    }
    if (!any) {
        free(plans);
        cf_class_free(&c);
        return JP_OK;
    }

    cp_append cp;
    cp_append_init(&cp, &c);
    const cf_tracker *tr = spec->tracker;
    uint16_t tracker = cp_add_class(&cp, tr->cls);
    code_inject inj = {0};
    inj.major = c.major;
    inj.cp = &cp;
    inj.spec = spec;
    inj.tracker_cls = spec->alloc_tracker && (spec->what & CF_INJECT_ALLOCS) ? cp_add_class(&cp, spec->alloc_tracker->cls) : 0;
    if (any_calls) {
        inj.throwable = cp_add_class(&cp, "java/lang/Throwable");
        inj.smt_name = cp_add_utf8(&cp, "StackMapTable");
        inj.enter_ref = cp_add_methodref(&cp, tracker, tr->enter, CF_TRACKER_ID_DESC);
        inj.exit_ref = cp_add_methodref(&cp, tracker, tr->exit, CF_TRACKER_ID_DESC);
        if (tr->exit_throw)
            inj.exit_throw_ref = cp_add_methodref(&cp, tracker, tr->exit_throw, CF_TRACKER_ID_DESC);
        if (tr->enter_this)
            inj.enter_this_ref = cp_add_methodref(&cp, tracker, tr->enter_this, CF_TRACKER_THIS_DESC);
    }
    if (any_count)
        inj.count_ref = cp_add_methodref(&cp, tracker, tr->count, CF_TRACKER_ID_DESC);
    if (any_obj)
        inj.objinit_ref = cp_add_methodref(&cp, tracker, tr->object_init, CF_TRACKER_OBJECT_DESC);
    if (any_arr)
        inj.newarray_ref = cp_add_methodref(&cp, tracker, tr->new_array, CF_TRACKER_OBJECT_DESC);

    buf methods;
    buf_init(&methods);
    buf_reserve(&methods, c.attrs_off - c.methods_off + 64u * c.nmethods);
    buf_put_u2(&methods, c.nmethods);
    code_stats cs = {0};
    code_scratch scratch = {0};
    for (uint16_t i = 0; i < c.nmethods && st == JP_OK; i++) {
        const cf_member *m = &c.methods[i];
        const plan *pl = &plans[i];
        if (m->code < 0 || !(pl->calls || pl->count || pl->objinit || pl->newarray || pl->allocs)) {
            buf_put(&methods, c.b + m->off, m->end - m->off);
            continue;
        }
        /* allocs: the method as alloc() sees it */
        char vname[256] = "", vdesc[512] = "";
        cf_method_view view = { .index = i, .access = m->access, .name = vname, .desc = vdesc };
        if (pl->allocs && (!cf_utf8_copy(&c, m->name, vname, sizeof vname) ||
                           !cf_utf8_copy(&c, m->desc, vdesc, sizeof vdesc)))
            vname[0] = vdesc[0] = 0; /* too long: alloc() sees an empty name */
        inj.allocs = pl->allocs;
        inj.view = &view;
        inj.entry_exit = pl->calls;
        inj.count = pl->count;
        inj.handler = pl->calls && !cf_utf8_is(&c, m->name, "<init>");
        inj.enter_this = inj.handler && tr->enter_this && !(m->access & 0x0008); /* an instance method, not <init> */
        inj.objinit = pl->objinit;
        inj.newarray = pl->newarray;
        inj.id = pl->id;
        inj.id_cp = ((pl->calls || pl->count) && pl->id > 32767) ? cp_add_integer(&cp, (int32_t)pl->id) : 0;
        buf_put(&methods, c.b + m->off, 8); /* access, name, descriptor, attributes_count */
        for (uint16_t k = 0; k < m->nattrs; k++) {
            const cf_attr *a = &m->attrs[k];
            size_t mark = methods.len;
            jp_status s = JP_ERR_ARG;
            char why[128];
            if ((int)k == m->code)
                s = code_rewrite(&c, m, &inj, &scratch, &methods, &cs, why, sizeof why);
            if (s == JP_OK) {
                out->methods_rewritten++;
                continue;
            }
            if (s == JP_ERR_NOMEM) {
                st = s;
                break;
            }
            if (s == JP_ERR_FORMAT) { /* malformed code: the whole class is left to the JVM to reject */
                snprintf(out->why, sizeof out->why, "%.160s method %u: %s", cname, i, why);
                st = s;
                break;
            }
            if ((int)k == m->code) {
                out->methods_unchanged++;
                snprintf(out->why, sizeof out->why, "%.160s method %u: %s", cname, i, why);
            }
            methods.len = mark;
            buf_put(&methods, c.b + a->off - 6, (size_t)a->len + 6);
        }
    }
    free(plans);
    code_scratch_free(&scratch);
    if (st == JP_OK && !cp_append_ok(&cp)) {
        snprintf(out->why, sizeof out->why, "%.200s: constant pool would exceed 65535 entries", cname);
        st = JP_ERR_ARG;
    }
    if (st == JP_OK && (methods.failed || cp.bytes.failed))
        st = JP_ERR_NOMEM;
    if (st == JP_OK) {
        buf o;
        buf_init(&o);
        buf_reserve(&o, 10 + (c.cp_end - 10) + cp.bytes.len + (c.methods_off - c.cp_end) + methods.len +
                            (c.n - c.attrs_off));
        buf_put(&o, c.b, 8);
        buf_put_u2(&o, (uint16_t)cp.next);
        buf_put(&o, c.b + 10, c.cp_end - 10);
        buf_put(&o, cp.bytes.data, cp.bytes.len);
        buf_put(&o, c.b + c.cp_end, c.methods_off - c.cp_end);
        buf_put(&o, methods.data, methods.len);
        buf_put(&o, c.b + c.attrs_off, c.n - c.attrs_off);
        if (o.failed) {
            buf_free(&o);
            st = JP_ERR_NOMEM;
        } else {
            out->bytes = o.data;
            out->len = o.len;
            out->entries = cs.entries;
            out->exits = cs.exits;
            out->counts = cs.counts;
            out->handlers = cs.handlers;
            out->objinits = cs.objinits;
            out->newarrays = cs.newarrays;
            out->alloc_counts = cs.allocs;
            out->widened = cs.widened;
            out->frames_added = cs.frames_added;
        }
    }
    buf_free(&methods);
    cp_append_free(&cp);
    cf_class_free(&c);
    return st;
}
