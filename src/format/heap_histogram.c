/* heap_histogram.c — counts the objects of an HPROF binary heap dump per
 * class in one front-to-back pass. Top-level records: UTF8 strings are
 * remembered by position only (id -> offset, length), LOAD CLASS gives a class
 * object id its name, HEAP DUMP / HEAP DUMP SEGMENT bodies are walked sub-record
 * by sub-record; anything else is skipped by its length. Every length is
 * checked against what is left of the record before it is used, so a truncated
 * or corrupt file ends in a one-line error with the byte offset. */
#include "heap_histogram.h"
#include "hprof_read.h"

#include "../common/id_map.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reader ---- */

typedef struct hh_class {
    uint64_t id;
    uint64_t name_off; /* file offset of the name's UTF-8 bytes */
    uint32_t name_len;
    bool named;
    uint64_t instances, bytes;
} hh_class;

typedef struct hh_string {
    uint64_t off;
    uint32_t len;
} hh_string;

typedef struct hh_reader {
    const uint8_t *data;
    size_t len;
    unsigned idsize;
    id_map strings; /* UTF8 id -> index in str[] */
    hh_string *str;
    size_t nstr, capstr;
    id_map classes; /* class object id -> index in cls[] */
    hh_class *cls;
    size_t ncls, capcls;
    uint64_t last_id; /* one-entry cache for runs of the same class */
    size_t last_idx;
    bool have_last;
    hh_class prim[12]; /* primitive arrays by basic type 4..11 */
    heap_histogram *h;
    char *err;
    size_t errlen;
} hh_reader;

static bool hh_fail(hh_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool hh_fail(hh_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    return false;
}

/* The entry of class object id, created nameless if it is new. NULL when out of memory. */
static hh_class *hh_class_of(hh_reader *r, uint64_t id)
{
    if (r->have_last && r->last_id == id)
        return &r->cls[r->last_idx];
    uint64_t idx;
    if (!id_map_get(&r->classes, id, &idx)) {
        if (r->ncls == r->capcls) {
            size_t cap = r->capcls ? r->capcls * 2 : 256;
            hh_class *c = realloc(r->cls, cap * sizeof *c);
            if (!c)
                return NULL;
            r->cls = c;
            r->capcls = cap;
        }
        idx = r->ncls;
        if (!id_map_put(&r->classes, id, idx))
            return NULL;
        r->cls[r->ncls++] = (hh_class){ .id = id };
    }
    r->last_id = id;
    r->last_idx = (size_t)idx;
    r->have_last = true;
    return &r->cls[idx];
}

static bool hh_truncated(hh_reader *r, uint8_t tag, size_t at)
{
    return hh_fail(r, "truncated %s sub-record (tag 0x%02x) at offset %zu", hprof_rd_sub_name(tag), tag, at);
}

/* The CLASS DUMP body after its fixed part: constant pool, statics, instance
 * fields. *q is advanced; false on a bad type or a short record. */
static bool hh_class_dump_tail(hh_reader *r, size_t *q, size_t end, size_t at)
{
    const uint8_t *d = r->data;
    size_t p = *q;
    unsigned id = r->idsize;
    for (int part = 0; part < 3; part++) {
        if (end - p < 2)
            return hh_truncated(r, 0x20, at);
        unsigned n = hprof_rd_u2(d + p);
        p += 2;
        /* constant pool: u2 index, u1 type, value; statics: id name, u1 type,
         * value; instance fields: id name, u1 type */
        size_t lead = part == 0 ? 2 : id;
        for (unsigned i = 0; i < n; i++) {
            if (end - p < lead + 1)
                return hh_truncated(r, 0x20, at);
            uint8_t t = d[p + lead];
            p += lead + 1;
            if (part == 2) {
                if (!hprof_rd_type_size(r->idsize, t))
                    return hh_fail(r, "CLASS DUMP at offset %zu: bad field type %u", at, t);
                continue;
            }
            unsigned sz = hprof_rd_type_size(r->idsize, t);
            if (!sz)
                return hh_fail(r, "CLASS DUMP at offset %zu: bad %s type %u", at,
                               part == 0 ? "constant pool" : "static field", t);
            if (end - p < sz)
                return hh_truncated(r, 0x20, at);
            p += sz;
        }
    }
    *q = p;
    return true;
}

/* Walks the sub-records of a HEAP DUMP or HEAP DUMP SEGMENT body [start, end). */
static bool hh_heap(hh_reader *r, size_t start, size_t end)
{
    const uint8_t *d = r->data;
    const unsigned id = r->idsize;
    heap_histogram *h = r->h;
    size_t q = start;
    while (q < end) {
        size_t at = q;
        uint8_t tag = d[q++];
        size_t left = end - q;
        switch (tag) {
        case 0x21: { /* INSTANCE DUMP: id, u4 stack, class id, u4 n, n bytes */
            if (left < 2 * (size_t)id + 8)
                return hh_truncated(r, tag, at);
            uint64_t cid = hprof_rd_id(r->idsize, d + q + id + 4);
            uint32_t n = hprof_rd_u4(d + q + 2 * id + 4);
            q += 2 * (size_t)id + 8;
            if (end - q < n)
                return hh_truncated(r, tag, at);
            q += n;
            hh_class *c = hh_class_of(r, cid);
            if (!c)
                return hh_fail(r, "out of memory");
            uint64_t b = heap_shallow(HEAP_HDR_INSTANCE, n);
            c->instances++;
            c->bytes += b;
            h->instances++;
            h->bytes += b;
            break;
        }
        case 0x22: { /* OBJECT ARRAY DUMP: id, u4 stack, u4 count, class id, count ids */
            if (left < 2 * (size_t)id + 8)
                return hh_truncated(r, tag, at);
            uint32_t n = hprof_rd_u4(d + q + id + 4);
            uint64_t cid = hprof_rd_id(r->idsize, d + q + id + 8);
            q += 2 * (size_t)id + 8;
            uint64_t data_bytes = (uint64_t)n * id;
            if (end - q < data_bytes)
                return hh_truncated(r, tag, at);
            q += (size_t)data_bytes;
            hh_class *c = hh_class_of(r, cid);
            if (!c)
                return hh_fail(r, "out of memory");
            uint64_t b = heap_shallow(HEAP_HDR_ARRAY, data_bytes);
            c->instances++;
            c->bytes += b;
            h->instances++;
            h->bytes += b;
            break;
        }
        case 0x23: { /* PRIMITIVE ARRAY DUMP: id, u4 stack, u4 count, u1 type, data */
            if (left < (size_t)id + 9)
                return hh_truncated(r, tag, at);
            uint32_t n = hprof_rd_u4(d + q + id + 4);
            uint8_t t = d[q + id + 8];
            q += (size_t)id + 9;
            if (t < 4 || t > 11)
                return hh_fail(r, "PRIMITIVE ARRAY DUMP at offset %zu: bad element type %u", at, t);
            uint64_t data_bytes = (uint64_t)n * hprof_rd_type_size(r->idsize, t);
            if (end - q < data_bytes)
                return hh_truncated(r, tag, at);
            q += (size_t)data_bytes;
            uint64_t b = heap_shallow(HEAP_HDR_ARRAY, data_bytes);
            r->prim[t].instances++;
            r->prim[t].bytes += b;
            h->instances++;
            h->bytes += b;
            break;
        }
        case 0x20: { /* CLASS DUMP */
            if (left < 7 * (size_t)id + 8)
                return hh_truncated(r, tag, at);
            q += 7 * (size_t)id + 8;
            if (!hh_class_dump_tail(r, &q, end, at))
                return false;
            h->class_dumps++;
            break;
        }
        default: { /* GC roots: an id and 0, 1 or 2 u4s (or a second id) */
            size_t need;
            switch (tag) {
            case 0xFF: case 0x05: case 0x07: need = id; break;
            case 0x01: need = 2 * (size_t)id; break;
            case 0x04: case 0x06: need = (size_t)id + 4; break;
            case 0x02: case 0x03: case 0x08: need = (size_t)id + 8; break;
            default:
                return hh_fail(r, "unknown heap dump sub-record tag 0x%02x at offset %zu", tag, at);
            }
            if (left < need)
                return hh_truncated(r, tag, at);
            q += need;
            h->gc_roots++;
            break;
        }
        }
    }
    return true;
}

static bool hh_record(hh_reader *r, uint8_t tag, size_t body, uint32_t rlen, size_t at)
{
    const unsigned id = r->idsize;
    switch (tag) {
    case 0x01: { /* UTF8: id, bytes */
        if (rlen < id)
            return hh_fail(r, "malformed UTF8 record at offset %zu: length %u", at, rlen);
        if (r->nstr == r->capstr) {
            size_t cap = r->capstr ? r->capstr * 2 : 1024;
            hh_string *s = realloc(r->str, cap * sizeof *s);
            if (!s)
                return hh_fail(r, "out of memory");
            r->str = s;
            r->capstr = cap;
        }
        r->str[r->nstr] = (hh_string){ body + id, rlen - id };
        if (!id_map_put(&r->strings, hprof_rd_id(r->idsize, r->data + body), r->nstr++))
            return hh_fail(r, "out of memory");
        return true;
    }
    case 0x02: { /* LOAD CLASS: u4 serial, class id, u4 stack serial, name id */
        if (rlen < 2 * id + 8)
            return hh_fail(r, "malformed LOAD CLASS record at offset %zu: length %u", at, rlen);
        uint64_t cid = hprof_rd_id(r->idsize, r->data + body + 4);
        uint64_t name = hprof_rd_id(r->idsize, r->data + body + 8 + id), si;
        if (!id_map_get(&r->strings, name, &si))
            return true; /* nameless: shown as an unknown class */
        hh_class *c = hh_class_of(r, cid);
        if (!c)
            return hh_fail(r, "out of memory");
        c->named = true;
        c->name_off = r->str[si].off;
        c->name_len = r->str[si].len;
        return true;
    }
    case 0x0C:
    case 0x1C:
        return hh_heap(r, body, body + rlen);
    default:
        return true;
    }
}

/* Internal class name -> Java style: java/lang/String -> java.lang.String,
 * [I -> int[], [[Ljava/lang/Object; -> java.lang.Object[][]. */
static char *hh_java_name(const char *s, size_t len)
{
    size_t dims = 0;
    while (dims < len && s[dims] == '[')
        dims++;
    const char *base = s + dims;
    size_t blen = len - dims;
    if (dims) {
        static const char codes[] = "ZBCSIJFD";
        static const char *const prims[] = { "boolean", "byte", "char", "short", "int", "long", "float", "double" };
        const char *hit = blen == 1 ? memchr(codes, base[0], 8) : NULL;
        if (hit) {
            base = prims[hit - codes];
            blen = strlen(base);
        } else if (blen >= 2 && base[0] == 'L' && base[blen - 1] == ';') {
            base++;
            blen -= 2;
        }
    }
    char *out = malloc(blen + 2 * dims + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < blen; i++)
        out[i] = base[i] == '/' ? '.' : base[i];
    for (size_t i = 0; i < dims; i++)
        memcpy(out + blen + 2 * i, "[]", 2);
    out[blen + 2 * dims] = '\0';
    return out;
}

static int hh_row_cmp(const void *a, const void *b)
{
    const heap_class_row *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->instances != y->instances)
        return x->instances > y->instances ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Turns the counted classes into sorted, named rows. */
static bool hh_rows(hh_reader *r)
{
    static const char *const prim_names[12] = { NULL,     NULL,     NULL,    NULL,     "boolean[]", "char[]",
                                                "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]" };
    heap_histogram *h = r->h;
    size_t n = 0;
    for (size_t i = 0; i < r->ncls; i++)
        n += r->cls[i].instances > 0;
    for (int t = 4; t < 12; t++)
        n += r->prim[t].instances > 0;
    h->rows = calloc(n ? n : 1, sizeof *h->rows);
    if (!h->rows)
        return hh_fail(r, "out of memory");
    for (size_t i = 0; i < r->ncls; i++) {
        const hh_class *c = &r->cls[i];
        if (!c->instances)
            continue;
        heap_class_row *row = &h->rows[h->nrows++];
        if (c->named) {
            row->name = hh_java_name((const char *)r->data + c->name_off, c->name_len);
        } else {
            char tmp[48];
            snprintf(tmp, sizeof tmp, "<unknown class 0x%" PRIx64 ">", c->id);
            row->name = strdup(tmp);
        }
        if (!row->name)
            return hh_fail(r, "out of memory");
        row->instances = c->instances;
        row->bytes = c->bytes;
    }
    for (int t = 4; t < 12; t++) {
        if (!r->prim[t].instances)
            continue;
        heap_class_row *row = &h->rows[h->nrows++];
        if (!(row->name = strdup(prim_names[t])))
            return hh_fail(r, "out of memory");
        row->instances = r->prim[t].instances;
        row->bytes = r->prim[t].bytes;
    }
    qsort(h->rows, h->nrows, sizeof *h->rows, hh_row_cmp);
    return true;
}

bool heap_histogram_read(const void *data, size_t len, heap_histogram *h, char *errbuf, size_t errlen)
{
    memset(h, 0, sizeof *h);
    hh_reader r = { .data = data, .len = len, .h = h, .err = errbuf, .errlen = errlen };
    errbuf[0] = '\0';
    static const char magic[] = "JAVA PROFILE 1.0.";
    const size_t mlen = sizeof magic - 1; /* then one digit and a NUL */
    if (len < mlen + 2 || memcmp(data, magic, mlen) != 0 || (r.data[mlen] != '1' && r.data[mlen] != '2') ||
        r.data[mlen + 1] != '\0')
        return hh_fail(&r, "not an HPROF binary file (expected header \"JAVA PROFILE 1.0.1\" or \"1.0.2\")");
    snprintf(h->version, sizeof h->version, "1.0.%c", r.data[mlen]);
    size_t pos = mlen + 2;
    if (len - pos < 12)
        return hh_fail(&r, "truncated HPROF header");
    uint32_t idsize = hprof_rd_u4(r.data + pos);
    if (idsize != 4 && idsize != 8)
        return hh_fail(&r, "unsupported HPROF identifier size %u (expected 4 or 8)", idsize);
    r.idsize = h->idsize = idsize;
    pos += 12;

    bool ok = true, saw_heap = false, open_segments = false;
    while (ok && pos < len) {
        size_t at = pos;
        if (len - pos < 9) {
            ok = hh_fail(&r, "truncated %s record header (tag 0x%02x) at offset %zu", hprof_rd_rec_name(r.data[pos]),
                         r.data[pos], at);
            break;
        }
        uint8_t tag = r.data[pos];
        uint32_t rlen = hprof_rd_u4(r.data + pos + 5);
        pos += 9;
        if (len - pos < rlen) {
            ok = hh_fail(&r, "truncated %s record (tag 0x%02x) at offset %zu: %u bytes declared, %zu present",
                         hprof_rd_rec_name(tag), tag, at, rlen, len - pos);
            break;
        }
        if (tag == 0x0C || tag == 0x1C)
            saw_heap = true;
        if (tag == 0x1C)
            open_segments = true;
        else if (tag == 0x2C)
            open_segments = false;
        ok = hh_record(&r, tag, pos, rlen, at);
        pos += rlen;
    }
    if (ok && !saw_heap)
        ok = hh_fail(&r, "no HEAP DUMP record (not a heap dump, or truncated)");
    if (ok && open_segments)
        ok = hh_fail(&r, "HEAP DUMP SEGMENT records not closed by HEAP DUMP END at offset %zu (truncated?)", len);
    if (ok)
        ok = hh_rows(&r);
    id_map_free(&r.strings);
    id_map_free(&r.classes);
    free(r.str);
    free(r.cls);
    if (!ok) {
        heap_histogram_free(h);
        return false;
    }
    return true;
}

void heap_histogram_free(heap_histogram *h)
{
    for (size_t i = 0; i < h->nrows; i++)
        free(h->rows[i].name);
    free(h->rows);
    h->rows = NULL;
    h->nrows = 0;
}
