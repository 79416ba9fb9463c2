/* hprof_heap_scan.c — the heap dump readers' first pass (see
 * hprof_heap_scan.h). */
#include "hprof_heap_scan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/intern.h"
#include "hprof_read.h"

bool ht_fail(ht_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    /* the message may quote the file's bytes (a class name): keep it one line */
    for (char *c = r->err; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    r->st = JP_ERR_FORMAT;
    return false;
}

bool ht_nomem(ht_reader *r)
{
    snprintf(r->err, r->errlen, "out of memory reading the heap dump");
    r->st = JP_ERR_NOMEM;
    return false;
}

static bool ht_truncated(ht_reader *r, uint8_t tag, size_t at)
{
    return ht_fail(r, "truncated %s sub-record (tag 0x%02x) at offset %zu", hprof_rd_sub_name(tag), tag, at);
}

size_t ht_class_of(ht_reader *r, uint64_t id)
{
    if (r->last_idx != HT_NONE && r->last_id == id)
        return r->last_idx;
    uint64_t idx;
    if (!id_map_get(&r->classes, id, &idx)) {
        if (r->ncls == r->capcls) {
            size_t cap = r->capcls ? r->capcls * 2 : 256;
            ht_class *c = realloc(r->cls, cap * sizeof *c);
            if (!c)
                return HT_NONE;
            r->cls = c;
            r->capcls = cap;
        }
        idx = r->ncls;
        if (!id_map_put(&r->classes, id, idx))
            return HT_NONE;
        r->cls[r->ncls++] = (ht_class){ .id = id, .super_idx = HT_NONE };
    }
    r->last_id = id;
    r->last_idx = (size_t)idx;
    return (size_t)idx;
}

size_t ht_known_class(ht_reader *r, uint64_t id)
{
    if (r->last_idx != HT_NONE && r->last_id == id)
        return r->last_idx;
    size_t ci = ht_find_class(r, id);
    r->last_id = id;
    r->last_idx = ci;
    return ci;
}

/* The index of an existing class, HT_NONE if unknown. */
size_t ht_find_class(const ht_reader *r, uint64_t id)
{
    uint64_t idx;
    return id_map_get(&r->classes, id, &idx) ? (size_t)idx : HT_NONE;
}

/* The bytes of UTF8 string sid, or NULL. */
const char *ht_string_of(const ht_reader *r, uint64_t sid, uint32_t *len)
{
    uint64_t si;
    if (!id_map_get(&r->strings, sid, &si))
        return NULL;
    *len = r->str[si].len;
    return (const char *)r->d + r->str[si].off;
}

/* ---- pass 1: check and collect ---- */

/* an object or class the dump defines: the id range, the bits every id has, the count */
static void ht_defined(ht_reader *r, uint64_t id)
{
    r->defined++;
    if (id < r->id_min)
        r->id_min = id;
    if (id > r->id_max)
        r->id_max = id;
    r->id_or |= id;
}

/* The CLASS DUMP body after its fixed part (at p): constant pool, statics,
 * instance fields. Fills the class's field list position and own bytes when
 * c is not NULL. Returns the end offset, 0 on error. */
static size_t ht_class_tail(ht_reader *r, size_t p, size_t end, size_t at, ht_class *c)
{
    const uint8_t *d = r->d;
    for (int part = 0; part < 3; part++) {
        if (end - p < 2)
            return ht_truncated(r, 0x20, at), 0;
        unsigned n = hprof_rd_u2(d + p);
        p += 2;
        if (part == 2 && c) {
            c->fields_at = p;
            c->nfields = (uint16_t)n;
            c->own_bytes = 0;
        }
        /* constant pool: u2 index, u1 type, value; statics: id name, u1 type,
         * value; instance fields: id name, u1 type */
        size_t lead = part == 0 ? 2 : r->idsize;
        for (unsigned i = 0; i < n; i++) {
            if (end - p < lead + 1)
                return ht_truncated(r, 0x20, at), 0;
            uint8_t t = d[p + lead];
            p += lead + 1;
            unsigned sz = hprof_rd_type_size(r->idsize, t);
            if (!sz)
                return ht_fail(r, "CLASS DUMP at offset %zu: bad %s type %u", at,
                               part == 0 ? "constant pool" : part == 1 ? "static field" : "instance field", t),
                       0;
            if (part == 2) {
                if (c)
                    c->own_bytes += sz;
                continue;
            }
            if (end - p < sz)
                return ht_truncated(r, 0x20, at), 0;
            p += sz;
        }
    }
    return p;
}

/* Checks the sub-record at q (tag already read) of a heap body ending at
 * `end` and returns its end; in pass 1 also collects. 0 on error. */
size_t ht_sub_scan(ht_reader *r, uint8_t tag, size_t q, size_t end, size_t at, bool collect)
{
    const uint8_t *d = r->d;
    const size_t id = r->idsize;
    size_t left = end - q;
    switch (tag) {
    case 0x21: { /* INSTANCE DUMP: id, u4 trace, class id, u4 n, n bytes */
        if (left < 2 * id + 8)
            return ht_truncated(r, tag, at), 0;
        uint32_t n = hprof_rd_u4(d + q + 2 * id + 4);
        if (left - (2 * id + 8) < n)
            return ht_truncated(r, tag, at), 0;
        if (collect) {
            uint64_t oid = hprof_rd_id(r->idsize, d + q), cid = hprof_rd_id(r->idsize, d + q + id + 4);
            size_t ci = ht_class_of(r, cid);
            if (ci == HT_NONE)
                return ht_nomem(r), 0;
            ht_class *c = &r->cls[ci];
            if (!c->instantiated) {
                c->instantiated = true;
                c->inst_bytes = n;
                c->inst_id = oid;
                c->inst_at = at;
            } else if (c->inst_bytes != n) {
                return ht_fail(r,
                               "INSTANCE DUMP 0x%" PRIx64 " at offset %zu: %" PRIu32
                               " bytes of field values, but INSTANCE DUMP 0x%" PRIx64 " of the same class 0x%" PRIx64
                               " at offset %" PRIu64 " has %" PRIu32,
                               oid, at, n, c->inst_id, cid, c->inst_at, c->inst_bytes),
                       0;
            }
            ht_defined(r, oid);
            r->objects++;
            r->bytes += heap_shallow(HEAP_HDR_INSTANCE, n);
        }
        return q + 2 * id + 8 + n;
    }
    case 0x22: { /* OBJECT ARRAY DUMP: id, u4 trace, u4 count, class id, count ids */
        if (left < 2 * id + 8)
            return ht_truncated(r, tag, at), 0;
        uint64_t data_bytes = (uint64_t)hprof_rd_u4(d + q + id + 4) * id;
        if (left - (2 * id + 8) < data_bytes)
            return ht_truncated(r, tag, at), 0;
        if (collect) {
            ht_defined(r, hprof_rd_id(r->idsize, d + q));
            r->objects++;
            r->bytes += heap_shallow(HEAP_HDR_ARRAY, data_bytes);
        }
        return q + 2 * id + 8 + (size_t)data_bytes;
    }
    case 0x23: { /* PRIMITIVE ARRAY DUMP: id, u4 trace, u4 count, u1 type, data */
        if (left < id + 9)
            return ht_truncated(r, tag, at), 0;
        uint8_t t = d[q + id + 8];
        if (t < 4 || t > 11)
            return ht_fail(r, "PRIMITIVE ARRAY DUMP at offset %zu: bad element type %u", at, t), 0;
        uint64_t data_bytes = (uint64_t)hprof_rd_u4(d + q + id + 4) * hprof_rd_type_size(r->idsize, t);
        if (left - (id + 9) < data_bytes)
            return ht_truncated(r, tag, at), 0;
        if (collect) {
            ht_defined(r, hprof_rd_id(r->idsize, d + q));
            r->objects++;
            r->bytes += heap_shallow(HEAP_HDR_ARRAY, data_bytes);
        }
        return q + id + 9 + (size_t)data_bytes;
    }
    case 0x20: { /* CLASS DUMP: id, u4 trace, super, loader, signers, domain, 2 reserved, u4 size, ... */
        if (left < 7 * id + 8)
            return ht_truncated(r, tag, at), 0;
        ht_class *c = NULL;
        if (collect) {
            uint64_t cid = hprof_rd_id(r->idsize, d + q);
            size_t ci = ht_class_of(r, cid);
            if (ci == HT_NONE)
                return ht_nomem(r), 0;
            ht_defined(r, cid);
            c = &r->cls[ci];
            c->dumped = true;
            c->super = hprof_rd_id(r->idsize, d + q + id + 4);
        }
        return ht_class_tail(r, q + 7 * id + 8, end, at, c);
    }
    default: { /* GC roots: an id and 0, 1 or 2 u4s (or a second id) */
        size_t need;
        switch (tag) {
        case 0xFF: case 0x05: case 0x07: need = id; break;
        case 0x01: need = 2 * id; break;
        case 0x04: case 0x06: need = id + 4; break;
        case 0x02: case 0x03: case 0x08: need = id + 8; break;
        default: return ht_fail(r, "unknown heap dump sub-record tag 0x%02x at offset %zu", tag, at), 0;
        }
        if (left < need)
            return ht_truncated(r, tag, at), 0;
        return q + need;
    }
    }
}

bool ht_record_scan(ht_reader *r, uint8_t tag, size_t body, uint32_t rlen, size_t at)
{
    const unsigned id = r->idsize;
    switch (tag) {
    case 0x01: { /* UTF8: id, bytes */
        if (rlen < id)
            return ht_fail(r, "malformed UTF8 record at offset %zu: length %" PRIu32, at, rlen);
        if (r->nstr == r->capstr) {
            size_t cap = r->capstr ? r->capstr * 2 : 1024;
            ht_string *s = realloc(r->str, cap * sizeof *s);
            if (!s)
                return ht_nomem(r);
            r->str = s;
            r->capstr = cap;
        }
        r->str[r->nstr] = (ht_string){ body + id, rlen - id };
        if (!id_map_put(&r->strings, hprof_rd_id(r->idsize, r->d + body), r->nstr++))
            return ht_nomem(r);
        return true;
    }
    case 0x02: { /* LOAD CLASS: u4 serial, class id, u4 trace, name id */
        if (rlen < 2 * id + 8)
            return ht_fail(r, "malformed LOAD CLASS record at offset %zu: length %" PRIu32, at, rlen);
        size_t ci = ht_class_of(r, hprof_rd_id(r->idsize, r->d + body + 4));
        if (ci == HT_NONE)
            return ht_nomem(r);
        r->cls[ci].named = true;
        r->cls[ci].name_sid = hprof_rd_id(r->idsize, r->d + body + 8 + id);
        return true;
    }
    case 0x0C:
    case 0x1C:
        return ht_each_sub(r, body, rlen, true, NULL, NULL);
    default:
        return true;
    }
}

/* The header and the top-level record walk, shared by both passes. */
bool ht_walk(ht_reader *r, bool (*fn)(ht_reader *, uint8_t, size_t, uint32_t, size_t), bool first)
{
    size_t pos = 0, len = r->len;
    static const char magic[] = "JAVA PROFILE 1.0.";
    const size_t mlen = sizeof magic - 1; /* then one digit (at HT_VERSION_AT) and a NUL */
    _Static_assert(sizeof magic - 1 == HT_VERSION_AT, "the version digit follows the magic");
    if (len < mlen + 2 || memcmp(r->d, magic, mlen) != 0 || (r->d[mlen] != '1' && r->d[mlen] != '2') ||
        r->d[mlen + 1] != '\0')
        return ht_fail(r, "not an HPROF binary file (expected header \"JAVA PROFILE 1.0.1\" or \"1.0.2\")");
    pos = mlen + 2;
    if (len - pos < 12)
        return ht_fail(r, "truncated HPROF header");
    uint32_t idsize = hprof_rd_u4(r->d + pos);
    if (idsize != 4 && idsize != 8)
        return ht_fail(r, "unsupported HPROF identifier size %" PRIu32 " (expected 4 or 8)", idsize);
    r->idsize = idsize;
    r->time_ms = (uint64_t)hprof_rd_u4(r->d + pos + 4) << 32 | hprof_rd_u4(r->d + pos + 8);
    pos += 12;
    bool saw_heap = false, open_segments = false;
    while (pos < len) {
        size_t at = pos;
        if (len - pos < 9)
            return ht_fail(r, "truncated %s record header (tag 0x%02x) at offset %zu", hprof_rd_rec_name(r->d[pos]),
                           r->d[pos], at);
        uint8_t tag = r->d[pos];
        uint32_t rlen = hprof_rd_u4(r->d + pos + 5);
        pos += 9;
        if (len - pos < rlen)
            return ht_fail(r, "truncated %s record (tag 0x%02x) at offset %zu: %" PRIu32 " bytes declared, %zu present",
                           hprof_rd_rec_name(tag), tag, at, rlen, len - pos);
        if (tag == 0x0C || tag == 0x1C)
            saw_heap = true;
        if (tag == 0x1C)
            open_segments = true;
        else if (tag == 0x2C)
            open_segments = false;
        if (!fn(r, tag, pos, rlen, at))
            return false;
        pos += rlen;
    }
    if (first && !saw_heap)
        return ht_fail(r, "no HEAP DUMP record (not a heap dump, or truncated)");
    if (first && open_segments)
        return ht_fail(r, "HEAP DUMP SEGMENT records not closed by HEAP DUMP END at offset %zu (truncated?)", len);
    return true;
}

/* ---- between the passes: names and layouts ---- */

/* Internal class name -> Java style into the names arena: java/lang/String
 * -> java.lang.String, [I -> int[], [[Ljava/lang/Object; ->
 * java.lang.Object[][]. */
static const char *ht_java_name(ht_reader *r, const char *s, size_t len)
{
    static const char codes[] = "ZBCSIJFD";
    static const char *const prims[] = { "boolean", "byte", "char", "short", "int", "long", "float", "double" };
    size_t dims = 0;
    while (dims < len && s[dims] == '[')
        dims++;
    const char *base = s + dims;
    size_t blen = len - dims;
    if (dims) {
        const char *hit = blen == 1 ? memchr(codes, base[0], 8) : NULL;
        if (hit) {
            base = prims[hit - codes];
            blen = strlen(base);
        } else if (blen >= 2 && base[0] == 'L' && base[blen - 1] == ';') {
            base++;
            blen -= 2;
        }
    }
    char *out = arena_alloc(&r->names, blen + 2 * dims + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < blen; i++)
        out[i] = base[i] == '/' ? '.' : base[i];
    for (size_t i = 0; i < dims; i++)
        memcpy(out + blen + 2 * i, "[]", 2);
    out[blen + 2 * dims] = '\0';
    return out;
}

const char *ht_name_of(ht_reader *r, size_t ci)
{
    ht_class *c = &r->cls[ci];
    if (c->name)
        return c->name;
    uint32_t len = 0;
    const char *s = c->named ? ht_string_of(r, c->name_sid, &len) : NULL;
    if (s) {
        c->name = ht_java_name(r, s, len);
    } else {
        char tmp[48];
        snprintf(tmp, sizeof tmp, "<unknown class 0x%" PRIx64 ">", c->id);
        c->name = arena_dup(&r->names, tmp, strlen(tmp) + 1);
    }
    return c->name;
}

/* Names every class; for array classes also the element type's name and
 * class id (the first dumped class of that name). */
static bool ht_name_classes(ht_reader *r)
{
    intern_table by_name; /* internal name -> 1-based id; of_name[id - 1] = class index */
    intern_init(&by_name, &r->names);
    size_t *of_name = malloc((r->ncls ? r->ncls : 1) * sizeof *of_name);
    if (!of_name)
        return ht_nomem(r);
    bool ok = true;
    for (size_t i = 0; ok && i < r->ncls; i++) {
        ht_class *c = &r->cls[i];
        uint32_t len = 0;
        const char *s = c->named ? ht_string_of(r, c->name_sid, &len) : NULL;
        if (s && c->dumped) {
            bool added = false;
            uint32_t k = intern_put(&by_name, s, len, &added);
            if (!k)
                ok = ht_nomem(r);
            else if (added)
                of_name[k - 1] = i;
        }
        if (!ht_name_of(r, i))
            ok = ht_nomem(r);
    }
    for (size_t i = 0; ok && i < r->ncls; i++) {
        ht_class *c = &r->cls[i];
        c->elem_name = c->name;
        c->elem_id = c->id;
        uint32_t len = 0;
        const char *s = c->named ? ht_string_of(r, c->name_sid, &len) : NULL;
        if (!s || len < 2 || s[0] != '[')
            continue;
        const char *e = s + 1; /* the element's internal name */
        size_t elen = len - 1;
        if (e[0] == 'L' && elen >= 2 && e[elen - 1] == ';') {
            e++;
            elen -= 2;
        }
        const char *ename = e[0] == '[' || elen != 1 ? ht_java_name(r, e, elen) : NULL;
        if (!ename) { /* a primitive element: "I" -> "int" */
            const char *arr = ht_java_name(r, s, len); /* int[] */
            if (!arr) {
                ok = ht_nomem(r);
                break;
            }
            char *t = (char *)arr;
            t[strlen(t) - 2] = '\0';
            ename = t;
        }
        c->elem_name = ename;
        uint32_t k = intern_find(&by_name, e, (uint32_t)elen);
        if (k)
            c->elem_id = r->cls[of_name[k - 1]].id;
    }
    intern_free(&by_name);
    free(of_name);
    return ok;
}

/* Own reference fields of each dumped class, with their names. */
static bool ht_own_refs(ht_reader *r)
{
    const size_t id = r->idsize;
    for (size_t i = 0; i < r->ncls; i++) {
        ht_class *c = &r->cls[i];
        c->ref_first = r->nrefs;
        c->nrefs = 0;
        c->super_idx = c->dumped && c->super ? ht_find_class(r, c->super) : HT_NONE;
        if (!c->dumped)
            continue;
        const uint8_t *p = r->d + c->fields_at; /* checked in pass 1 */
        uint64_t off = 0;
        for (unsigned f = 0; f < c->nfields; f++, p += id + 1) {
            uint8_t t = p[id];
            unsigned sz = hprof_rd_type_size(r->idsize, t);
            if ((t == 1 || t == 2) && off <= UINT32_MAX) {
                if (r->nrefs == r->caprefs) {
                    size_t cap = r->caprefs ? r->caprefs * 2 : 1024;
                    ht_ref *n = realloc(r->refs, cap * sizeof *n);
                    if (!n)
                        return ht_nomem(r);
                    r->refs = n;
                    r->caprefs = cap;
                }
                ht_ref *ref = &r->refs[r->nrefs++];
                uint64_t sid = hprof_rd_id(r->idsize, p);
                ref->off = (uint32_t)off;
                ref->name = ht_string_of(r, sid, &ref->name_len);
                if (!ref->name) {
                    char tmp[48];
                    snprintf(tmp, sizeof tmp, "<field 0x%" PRIx64 ">", sid);
                    ref->name_len = (uint32_t)strlen(tmp);
                    if (!(ref->name = arena_dup(&r->names, tmp, ref->name_len + 1)))
                        return ht_nomem(r);
                }
                c->nrefs++;
            }
            off += sz;
        }
    }
    return true;
}

/* Total value bytes of an instance of class ci (its fields, then its
 * superclasses'), memoized over the chain. A class in the chain without CLASS
 * DUMP, or a superclass cycle, makes the layout undefined (`bad`, naming the
 * class in `missing`). Iterative, with the chain in path[] (room for every
 * class): chains can be long, and each class is laid out once. */
static void ht_layout(ht_reader *r, size_t ci, size_t *path)
{
    size_t n = 0, k = ci;
    while (k != HT_NONE && r->cls[k].layout == 0) {
        r->cls[k].layout = 1;
        path[n++] = k;
        if (!r->cls[k].dumped)
            break;
        k = r->cls[k].super_idx;
    }
    if (n == 0)
        return;
    const ht_class *top = &r->cls[path[n - 1]];
    uint64_t base = 0, missing = 0;
    bool bad = false, cycle = false;
    if (!top->dumped) {
        bad = true, missing = top->id;
    } else if (k == HT_NONE) {
        bad = top->super != 0, missing = top->super; /* a superclass id never seen */
    } else if (r->cls[k].layout == 1) {
        bad = cycle = true, missing = r->cls[k].id;
    } else {
        base = r->cls[k].layout_bytes;
        bad = r->cls[k].bad;
        cycle = r->cls[k].cycle;
        missing = r->cls[k].missing;
    }
    for (size_t i = n; i-- > 0;) {
        ht_class *c = &r->cls[path[i]];
        if (c->dumped)
            base += c->own_bytes;
        c->layout_bytes = base;
        c->bad = bad;
        c->cycle = cycle;
        c->missing = missing;
        c->layout = 2;
    }
}

bool ht_finish(ht_reader *r)
{
    if (!ht_name_classes(r) || !ht_own_refs(r))
        return false;
    size_t *path = malloc((r->ncls ? r->ncls : 1) * sizeof *path);
    if (!path)
        return ht_nomem(r);
    bool ok = true;
    for (size_t i = 0; ok && i < r->ncls; i++) {
        ht_class *c = &r->cls[i];
        if (!c->instantiated)
            continue;
        if (!c->dumped) {
            ok = ht_fail(r, "INSTANCE DUMP 0x%" PRIx64 " at offset %" PRIu64 ": its class %s (0x%" PRIx64
                            ") has no CLASS DUMP",
                         c->inst_id, c->inst_at, c->name, c->id);
            break;
        }
        ht_layout(r, i, path);
        if (c->bad)
            ok = ht_fail(r, "INSTANCE DUMP 0x%" PRIx64 " at offset %" PRIu64 ": class %s (0x%" PRIx64 ") has %s 0x%" PRIx64,
                         c->inst_id, c->inst_at, c->name, c->id,
                         c->cycle ? "a superclass cycle through" : "no CLASS DUMP for its superclass", c->missing);
        else if (c->layout_bytes != c->inst_bytes)
            ok = ht_fail(r, "INSTANCE DUMP 0x%" PRIx64 " at offset %" PRIu64 ": %" PRIu32
                            " bytes of field values, but class %s (0x%" PRIx64 ") lays out %" PRIu64,
                         c->inst_id, c->inst_at, c->inst_bytes, c->name, c->id, c->layout_bytes);
    }
    free(path);
    return ok;
}

bool ht_each_sub(ht_reader *r, size_t body, size_t len, bool collect, ht_sub_fn fn, void *ctx)
{
    for (size_t q = body, end = body + len; q < end;) {
        uint8_t t = r->d[q];
        size_t next = ht_sub_scan(r, t, q + 1, end, q, collect);
        if (!next || (fn && !fn(r, t, q + 1, ctx)))
            return false;
        q = next;
    }
    return true;
}

static bool ht_heap_record_subs(ht_reader *r, uint8_t tag, size_t body, uint32_t rlen, size_t at)
{
    (void)at;
    return (tag != 0x0C && tag != 0x1C) || ht_each_sub(r, body, rlen, false, r->sub_fn, r->sub_ctx);
}

/* ht_walk_once's record function: the strings and names as pass 1 keeps
 * them, heap records' sub-records checked and given to r->sub_fn. */
static bool ht_names_and_subs(ht_reader *r, uint8_t tag, size_t body, uint32_t rlen, size_t at)
{
    if (tag == 0x0C || tag == 0x1C)
        return ht_each_sub(r, body, rlen, false, r->sub_fn, r->sub_ctx);
    return ht_record_scan(r, tag, body, rlen, at);
}

bool ht_walk_once(ht_reader *r, ht_sub_fn fn, void *ctx)
{
    r->sub_fn = fn;
    r->sub_ctx = ctx;
    return ht_walk(r, ht_names_and_subs, true);
}

bool ht_walk_subs(ht_reader *r, ht_sub_fn fn, void *ctx)
{
    r->sub_fn = fn;
    r->sub_ctx = ctx;
    r->last_idx = HT_NONE;
    return ht_walk(r, ht_heap_record_subs, false);
}

static bool ht_count_sub(ht_reader *r, uint8_t tag, size_t p, void *ctx)
{
    (void)r, (void)p;
    *(uint64_t *)ctx += tag >= 0x21 && tag <= 0x23;
    return true;
}

bool ht_count_body(const uint8_t *body, size_t len, unsigned idsize, uint64_t *objects)
{
    char err[160];
    ht_reader r;
    ht_reader_init(&r, body, len, err, sizeof err);
    r.idsize = idsize;
    bool ok = ht_each_sub(&r, 0, len, false, ht_count_sub, objects);
    ht_reader_free(&r);
    return ok;
}

void ht_reader_init(ht_reader *r, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->d = data;
    r->len = data ? len : 0;
    r->err = err;
    r->errlen = errlen;
    r->last_idx = HT_NONE;
    r->id_min = UINT64_MAX;
    arena_init(&r->names);
}

void ht_reader_free(ht_reader *r)
{
    id_map_free(&r->strings);
    id_map_free(&r->classes);
    free(r->str);
    free(r->cls);
    free(r->refs);
    arena_free(&r->names);
}
