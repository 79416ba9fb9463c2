/* classfile.c — parsing a class file into offsets (JVMS §4): the constant
 * pool index, fields, methods and attributes, every length checked against
 * the bytes; and appending entries to the constant pool. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "classfile_internal.h"

jp_status cf_fail(char *why, size_t cap, jp_status st, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* Attributes come from one pool per class: each takes at least 6 bytes of
 * the file, so n / 6 + 1 entries always suffice (one malloc, not one per member). */
static bool classfile_parse_attrs(cf_class *c, buf_rd *r, uint16_t *nattrs, cf_attr **attrs)
{
    *nattrs = buf_get_u2(r);
    *attrs = NULL;
    if (r->overrun)
        return false;
    if (*nattrs == 0)
        return true;
    if (*nattrs > c->pool_cap - c->pool_used)
        return false; /* more attributes than bytes to hold them: truncated */
    *attrs = c->pool + c->pool_used;
    c->pool_used += *nattrs;
    for (uint16_t i = 0; i < *nattrs; i++) {
        (*attrs)[i].name = buf_get_u2(r);
        (*attrs)[i].len = buf_get_u4(r);
        (*attrs)[i].off = (uint32_t)(r->p - c->b);
        if (r->overrun || !buf_get_bytes(r, (*attrs)[i].len) || !cf_utf8(c, (*attrs)[i].name, NULL))
            return false; /* truncated, or a name that is not a Utf8 constant (JVMS 4.7) */
    }
    return true;
}

static jp_status classfile_parse_members(cf_class *c, buf_rd *r, uint16_t *count, cf_member **out, const char *what,
                                         char *why, size_t cap)
{
    *count = buf_get_u2(r);
    if (r->overrun)
        return cf_fail(why, cap, JP_ERR_FORMAT, "truncated before the %s count", what);
    if (*count == 0)
        return JP_OK;
    *out = calloc(*count, sizeof **out);
    if (!*out)
        return JP_ERR_NOMEM;
    for (uint16_t i = 0; i < *count; i++) {
        cf_member *m = &(*out)[i];
        m->off = (uint32_t)(r->p - c->b);
        m->access = buf_get_u2(r);
        m->name = buf_get_u2(r);
        m->desc = buf_get_u2(r);
        m->code = -1;
        if (!classfile_parse_attrs(c, r, &m->nattrs, &m->attrs))
            return cf_fail(why, cap, JP_ERR_FORMAT, "%s %u of %u: attributes truncated or misnamed", what, i + 1,
                           *count);
        if (!cf_utf8(c, m->name, NULL) || !cf_utf8(c, m->desc, NULL))
            return cf_fail(why, cap, JP_ERR_FORMAT, "%s %u has a name or descriptor that is not a Utf8 constant", what, i + 1);
        for (uint16_t k = 0; k < m->nattrs; k++)
            if (cf_utf8_is(c, m->attrs[k].name, "Code")) {
                if (m->code >= 0)
                    return cf_fail(why, cap, JP_ERR_FORMAT, "%s %u has two Code attributes", what, i + 1);
                m->code = k;
            }
        m->end = (uint32_t)(r->p - c->b);
    }
    return JP_OK;
}

jp_status cf_parse(cf_class *c, const unsigned char *b, size_t n, char *why, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->b = b;
    c->n = n;
    if (n > UINT32_MAX)
        return cf_fail(why, cap, JP_ERR_FORMAT, "class file larger than 4 GiB");
    buf_rd r;
    buf_rd_init(&r, b, n);
    uint32_t magic = buf_get_u4(&r);
    c->minor = buf_get_u2(&r);
    c->major = buf_get_u2(&r);
    c->cp_count = buf_get_u2(&r);
    if (r.overrun)
        return cf_fail(why, cap, JP_ERR_FORMAT, "truncated header (%zu bytes)", n);
    if (magic != 0xCAFEBABE)
        return cf_fail(why, cap, JP_ERR_FORMAT, "bad magic 0x%08X (expected 0xCAFEBABE)", magic);
    if (c->major < CF_MAJOR_MIN || c->major > CF_MAJOR_MAX)
        return cf_fail(why, cap, JP_ERR_FORMAT, "class file version %u.%u not supported (majors %d to %d are)", c->major, c->minor,
                   CF_MAJOR_MIN, CF_MAJOR_MAX);
    if (c->cp_count == 0)
        return cf_fail(why, cap, JP_ERR_FORMAT, "constant pool count is 0");
    c->cp_off = calloc(c->cp_count, sizeof *c->cp_off);
    c->pool_cap = n / 6 + 1;
    c->pool = malloc(c->pool_cap * sizeof *c->pool);
    if (!c->cp_off || !c->pool)
        return JP_ERR_NOMEM;
    for (uint32_t i = 1; i < c->cp_count; i++) {
        c->cp_off[i] = (uint32_t)(r.p - b);
        uint8_t tag = buf_get_u1(&r);
        size_t skip;
        switch (tag) {
        case CP_UTF8: skip = buf_get_u2(&r); break;
        case CP_INTEGER: case CP_FLOAT: case CP_FIELDREF: case CP_METHODREF: case CP_IMETHODREF:
        case CP_NAMEANDTYPE: case CP_DYNAMIC: case CP_INVOKEDYNAMIC:
            skip = 4; break;
        case CP_LONG: case CP_DOUBLE: skip = 8; break;
        case CP_CLASS: case CP_STRING: case CP_METHODTYPE: case CP_MODULE: case CP_PACKAGE: skip = 2; break;
        case CP_METHODHANDLE: skip = 3; break;
        default:
            if (r.overrun)
                return cf_fail(why, cap, JP_ERR_FORMAT, "truncated in constant pool entry %u of %u", i, c->cp_count - 1);
            return cf_fail(why, cap, JP_ERR_FORMAT, "constant pool entry %u has unknown tag %u", i, tag);
        }
        if (r.overrun || !buf_get_bytes(&r, skip))
            return cf_fail(why, cap, JP_ERR_FORMAT, "truncated in constant pool entry %u of %u", i, c->cp_count - 1);
        if (tag == CP_LONG || tag == CP_DOUBLE) {
            if (++i >= c->cp_count)
                return cf_fail(why, cap, JP_ERR_FORMAT, "a long or double is the last constant pool entry");
            c->cp_off[i] = 0;
        }
    }
    c->cp_end = (uint32_t)(r.p - b);
    c->access = buf_get_u2(&r);
    c->this_class = buf_get_u2(&r);
    c->super_class = buf_get_u2(&r);
    uint16_t nif = buf_get_u2(&r);
    if (r.overrun || !buf_get_bytes(&r, 2u * nif))
        return cf_fail(why, cap, JP_ERR_FORMAT, "truncated after the constant pool");
    if (!cf_class_name_index(c, c->this_class))
        return cf_fail(why, cap, JP_ERR_FORMAT, "this_class %u is not a Class constant", c->this_class);
    jp_status st = classfile_parse_members(c, &r, &c->nfields, &c->fields, "field", why, cap);
    if (st != JP_OK)
        return st;
    c->methods_off = (uint32_t)(r.p - b);
    st = classfile_parse_members(c, &r, &c->nmethods, &c->methods, "method", why, cap);
    if (st != JP_OK)
        return st;
    c->attrs_off = (uint32_t)(r.p - b);
    if (!classfile_parse_attrs(c, &r, &c->nattrs, &c->attrs))
        return cf_fail(why, cap, JP_ERR_FORMAT, "class attributes are truncated or misnamed");
    if (r.p != r.end)
        return cf_fail(why, cap, JP_ERR_FORMAT, "%zu bytes after the end of the class", (size_t)(r.end - r.p));
    return JP_OK;
}

void cf_class_free(cf_class *c)
{
    free(c->pool);
    free(c->fields);
    free(c->methods);
    free(c->cp_off);
    memset(c, 0, sizeof *c);
}

const unsigned char *cf_utf8(const cf_class *c, uint16_t idx, uint16_t *len)
{
    if (idx == 0 || idx >= c->cp_count || c->cp_off[idx] == 0 || c->b[c->cp_off[idx]] != CP_UTF8)
        return NULL;
    const unsigned char *p = c->b + c->cp_off[idx];
    if (len)
        *len = bc_u2(p + 1);
    return p + 3;
}

bool cf_utf8_is(const cf_class *c, uint16_t idx, const char *s)
{
    uint16_t len;
    const unsigned char *p = cf_utf8(c, idx, &len);
    return p && strlen(s) == len && memcmp(p, s, len) == 0;
}

bool cf_utf8_copy(const cf_class *c, uint16_t idx, char *out, size_t cap)
{
    uint16_t len;
    const unsigned char *p = cf_utf8(c, idx, &len);
    if (!p || (size_t)len + 1 > cap)
        return false;
    memcpy(out, p, len);
    out[len] = 0;
    return true;
}

bool cf_utf8_in(const cf_class *c, uint16_t idx, const char *const *names)
{
    uint16_t n;
    const unsigned char *p = cf_utf8(c, idx, &n);
    for (; p && names && *names; names++)
        if (strlen(*names) == n && memcmp(*names, p, n) == 0)
            return true;
    return false;
}

int cf_method_ref(const cf_class *c, uint16_t idx, uint16_t *cls_name, uint16_t *name, uint16_t *desc)
{
    if (!idx || idx >= c->cp_count || !c->cp_off[idx])
        return 0;
    const unsigned char *r = c->b + c->cp_off[idx];
    if (r[0] != CP_METHODREF && r[0] != CP_IMETHODREF)
        return 0;
    uint16_t nat = bc_u2(r + 3);
    if (!nat || nat >= c->cp_count || !c->cp_off[nat] || c->b[c->cp_off[nat]] != CP_NAMEANDTYPE)
        return -1;
    *cls_name = cf_class_name_index(c, bc_u2(r + 1));
    *name = bc_u2(c->b + c->cp_off[nat] + 1);
    *desc = bc_u2(c->b + c->cp_off[nat] + 3);
    return 1;
}

uint16_t cf_class_name_index(const cf_class *c, uint16_t idx)
{
    if (idx == 0 || idx >= c->cp_count || c->cp_off[idx] == 0 || c->b[c->cp_off[idx]] != CP_CLASS)
        return 0;
    uint16_t name = bc_u2(c->b + c->cp_off[idx] + 1);
    return cf_utf8(c, name, NULL) ? name : 0;
}

jp_status cf_class_name(const unsigned char *in, size_t len, char *name, size_t cap)
{
    cf_class c;
    jp_status st = cf_parse(&c, in, len, NULL, 0);
    if (st == JP_OK && !cf_utf8_copy(&c, cf_class_name_index(&c, c.this_class), name, cap))
        st = JP_ERR_FORMAT;
    cf_class_free(&c);
    return st;
}

void cp_append_init(cp_append *a, const cf_class *c)
{
    memset(a, 0, sizeof *a);
    buf_init(&a->bytes);
    a->next = a->first = c->cp_count;
}

void cp_append_free(cp_append *a)
{
    for (uint32_t i = 0; i < a->nclasses; i++)
        free(a->classes[i].name);
    free(a->classes);
    buf_free(&a->bytes);
    memset(a, 0, sizeof *a);
}

uint16_t cp_class_for(cp_append *a, const cf_class *c, const char *name, size_t n)
{
    for (uint16_t i = 1; i < c->cp_count; i++) {
        if (!c->cp_off[i] || c->b[c->cp_off[i]] != CP_CLASS)
            continue;
        uint16_t len;
        const unsigned char *p = cf_utf8(c, bc_u2(c->b + c->cp_off[i] + 1), &len);
        if (p && len == n && memcmp(p, name, n) == 0)
            return i;
    }
    for (uint32_t i = 0; i < a->nclasses; i++)
        if (strlen(a->classes[i].name) == n && memcmp(a->classes[i].name, name, n) == 0)
            return a->classes[i].idx;
    char *copy = malloc(n + 1);
    if (!copy || memchr(name, 0, n))
        goto fail;
    memcpy(copy, name, n);
    copy[n] = 0;
    if (a->nclasses == a->classes_cap) {
        uint32_t cap = a->classes_cap ? a->classes_cap * 2 : 8;
        void *p = realloc(a->classes, cap * sizeof *a->classes);
        if (!p)
            goto fail;
        a->classes = p;
        a->classes_cap = cap;
    }
    uint16_t idx = cp_add_class(a, copy);
    if (!idx)
        goto fail;
    a->classes[a->nclasses].name = copy;
    a->classes[a->nclasses++].idx = idx;
    return idx;
fail:
    free(copy);
    return 0;
}

const char *cp_class_name(const cp_append *a, const cf_class *c, uint16_t idx, uint16_t *len)
{
    if (idx < c->cp_count)
        return (const char *)cf_utf8(c, cf_class_name_index(c, idx), len);
    for (uint32_t i = 0; i < a->nclasses; i++)
        if (a->classes[i].idx == idx) {
            *len = (uint16_t)strlen(a->classes[i].name);
            return a->classes[i].name;
        }
    return NULL;
}

bool cp_append_ok(const cp_append *a) { return a->next <= 0xffff && !a->bytes.failed; }

static uint16_t classfile_take(cp_append *a, uint32_t slots)
{
    if (a->next + slots > 0xffff) {
        a->next = 0x10000;
        return 0;
    }
    uint16_t idx = (uint16_t)a->next;
    a->next += slots;
    return idx;
}

uint16_t cp_add_utf8(cp_append *a, const char *s)
{
    size_t n = strlen(s);
    if (n > 0xffff)
        return 0;
    uint16_t idx = classfile_take(a, 1);
    if (idx) {
        buf_put_u1(&a->bytes, CP_UTF8);
        buf_put_u2(&a->bytes, (uint16_t)n);
        buf_put(&a->bytes, s, n);
    }
    return idx;
}

uint16_t cp_add_class(cp_append *a, const char *internal_name)
{
    uint16_t name = cp_add_utf8(a, internal_name);
    uint16_t idx = name ? classfile_take(a, 1) : 0;
    if (idx) {
        buf_put_u1(&a->bytes, CP_CLASS);
        buf_put_u2(&a->bytes, name);
    }
    return idx;
}

uint16_t cp_add_methodref(cp_append *a, uint16_t class_idx, const char *name, const char *desc)
{
    uint16_t n = cp_add_utf8(a, name), d = cp_add_utf8(a, desc);
    uint16_t nat = (n && d) ? classfile_take(a, 1) : 0;
    if (!nat)
        return 0;
    buf_put_u1(&a->bytes, CP_NAMEANDTYPE);
    buf_put_u2(&a->bytes, n);
    buf_put_u2(&a->bytes, d);
    uint16_t idx = classfile_take(a, 1);
    if (idx) {
        buf_put_u1(&a->bytes, CP_METHODREF);
        buf_put_u2(&a->bytes, class_idx);
        buf_put_u2(&a->bytes, nat);
    }
    return idx;
}

uint16_t cp_add_integer(cp_append *a, int32_t v)
{
    uint16_t idx = classfile_take(a, 1);
    if (idx) {
        buf_put_u1(&a->bytes, CP_INTEGER);
        buf_put_u4(&a->bytes, (uint32_t)v);
    }
    return idx;
}
