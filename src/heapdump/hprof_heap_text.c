/* hprof_heap_text.c — the HPROF binary heap dump to ASCII converter (see
 * hprof_heap_text.h). Pass 1 is hprof_heap_scan.c's (every length checked;
 * strings, classes, layouts; the object count and shallow bytes for the HEAP
 * DUMP BEGIN line). Pass 2 walks the same bytes again and writes the lines;
 * it cannot meet anything pass 1 did not accept. An instance's values are
 * read class, then superclass ... */
#include "hprof_heap_text.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heap_histogram.h"
#include "hprof_heap_scan.h"
#include "hprof_read.h"

typedef struct ht_out {
    sink *s;
    size_t n;
    char buf[1 << 16];
} ht_out;

/* ---- pass 2: the text ---- */

static void htx_flush(ht_out *o)
{
    sink_write(o->s, o->buf, o->n);
    o->n = 0;
}

static void htx_put(ht_out *o, const char *p, size_t n)
{
    if (n > sizeof o->buf - o->n) {
        htx_flush(o);
        if (n > sizeof o->buf) {
            sink_write(o->s, p, n);
            return;
        }
    }
    memcpy(o->buf + o->n, p, n);
    o->n += n;
}

static void htx_str(ht_out *o, const char *s) { htx_put(o, s, strlen(s)); }

static void htx_hex(ht_out *o, uint64_t v)
{
    char t[16];
    int i = 16;
    do {
        t[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    htx_put(o, t + i, (size_t)(16 - i));
}

static void htx_dec(ht_out *o, uint64_t v)
{
    char t[20];
    int i = 20;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    htx_put(o, t + i, (size_t)(20 - i));
}

static void htx_sdec(ht_out *o, int32_t v)
{
    if (v < 0) {
        htx_put(o, "-", 1);
        htx_dec(o, (uint64_t)-(int64_t)v);
    } else {
        htx_dec(o, (uint64_t)v);
    }
}

/* The name of class cid; tmp holds it for a class never seen. */
static const char *htx_class_name(const ht_reader *r, uint64_t cid, char tmp[48])
{
    size_t k = ht_find_class(r, cid);
    if (k != HT_NONE)
        return r->cls[k].name;
    snprintf(tmp, 48, "<unknown class 0x%" PRIx64 ">", cid);
    return tmp;
}

static void htx_root(ht_reader *r, uint8_t tag, const uint8_t *p)
{
    static const char *const kinds[9] = {
        NULL, "JNI global ref", "JNI local ref", "Java stack", "native stack", "system class", "thread block",
        "busy monitor", "thread",
    };
    ht_out *o = r->out;
    const size_t id = r->idsize;
    htx_str(o, "ROOT ");
    htx_hex(o, hprof_rd_id(r->idsize, p));
    htx_str(o, " (kind=<");
    htx_str(o, tag == 0xFF ? "unknown" : kinds[tag]);
    htx_str(o, ">");
    switch (tag) {
    case 0x08: /* thread: serial, trace */
        htx_str(o, ", id=");
        htx_dec(o, hprof_rd_u4(p + id));
        htx_str(o, ", trace=");
        htx_dec(o, hprof_rd_u4(p + id + 4));
        break;
    case 0x01: /* JNI global: the global ref's id (the binary has no trace) */
        htx_str(o, ", id=");
        htx_hex(o, hprof_rd_id(r->idsize, p + id));
        break;
    case 0x02: case 0x03: /* JNI local, Java stack: thread, frame */
        htx_str(o, ", thread=");
        htx_dec(o, hprof_rd_u4(p + id));
        htx_str(o, ", frame=");
        htx_sdec(o, (int32_t)hprof_rd_u4(p + id + 4));
        break;
    case 0x04: case 0x06: /* native stack, thread block: thread */
        htx_str(o, ", thread=");
        htx_dec(o, hprof_rd_u4(p + id));
        break;
    case 0x05: {
        char tmp[48];
        htx_str(o, ", name=");
        htx_str(o, htx_class_name(r, hprof_rd_id(r->idsize, p), tmp));
        break;
    }
    default:
        break;
    }
    htx_str(o, ")\n");
}

static void htx_tab_id(ht_out *o, const char *label, uint64_t v)
{
    if (!v)
        return;
    htx_str(o, label);
    htx_hex(o, v);
    htx_put(o, "\n", 1);
}

static void htx_class_dump(ht_reader *r, const uint8_t *p)
{
    ht_out *o = r->out;
    const size_t id = r->idsize;
    uint64_t cid = hprof_rd_id(r->idsize, p);
    char tmp[48];
    htx_str(o, "CLS ");
    htx_hex(o, cid);
    htx_str(o, " (name=");
    htx_str(o, htx_class_name(r, cid, tmp));
    htx_str(o, ", trace=");
    htx_dec(o, hprof_rd_u4(p + id));
    htx_str(o, ")\n");
    htx_tab_id(o, "\tsuper\t\t", hprof_rd_id(r->idsize, p + id + 4));
    htx_tab_id(o, "\tloader\t\t", hprof_rd_id(r->idsize, p + 2 * id + 4));
    htx_tab_id(o, "\tsigners\t\t", hprof_rd_id(r->idsize, p + 3 * id + 4));
    htx_tab_id(o, "\tdomain\t\t", hprof_rd_id(r->idsize, p + 4 * id + 4));
    /* constant pool (bounds checked in pass 1): printed after the statics, as HPROF did */
    const uint8_t *cp = p + 7 * id + 8;
    unsigned ncp = hprof_rd_u2(cp);
    const uint8_t *q = cp + 2;
    for (unsigned i = 0; i < ncp; i++)
        q += 3 + hprof_rd_type_size(r->idsize, q[2]);
    unsigned nst = hprof_rd_u2(q);
    q += 2;
    for (unsigned i = 0; i < nst; i++) {
        uint8_t t = q[id];
        if ((t == 1 || t == 2) && hprof_rd_id(r->idsize, q + id + 1)) {
            uint32_t nlen = 0;
            uint64_t sid = hprof_rd_id(r->idsize, q);
            const char *name = ht_string_of(r, sid, &nlen);
            htx_str(o, "\tstatic ");
            if (name) {
                htx_put(o, name, nlen);
            } else {
                htx_str(o, "<field 0x");
                htx_hex(o, sid);
                htx_str(o, ">");
            }
            htx_put(o, "\t", 1);
            htx_hex(o, hprof_rd_id(r->idsize, q + id + 1));
            htx_put(o, "\n", 1);
        }
        q += id + 1 + hprof_rd_type_size(r->idsize, t);
    }
    q = cp + 2;
    for (unsigned i = 0; i < ncp; i++) {
        uint8_t t = q[2];
        if ((t == 1 || t == 2) && hprof_rd_id(r->idsize, q + 3)) {
            htx_str(o, "\tconstant pool entry ");
            htx_dec(o, hprof_rd_u2(q));
            htx_put(o, "\t", 1);
            htx_hex(o, hprof_rd_id(r->idsize, q + 3));
            htx_put(o, "\n", 1);
        }
        q += 3 + hprof_rd_type_size(r->idsize, t);
    }
}

static void htx_instance(ht_reader *r, const uint8_t *p)
{
    ht_out *o = r->out;
    const size_t id = r->idsize;
    uint64_t cid = hprof_rd_id(r->idsize, p + id + 4);
    uint32_t n = hprof_rd_u4(p + 2 * id + 4);
    size_t ci = ht_known_class(r, cid); /* present: pass 1 made it */
    const ht_class *c = &r->cls[ci];
    htx_str(o, "OBJ ");
    htx_hex(o, hprof_rd_id(r->idsize, p));
    htx_str(o, " (sz=");
    htx_dec(o, heap_shallow(HEAP_HDR_INSTANCE, n));
    htx_str(o, ", trace=");
    htx_dec(o, hprof_rd_u4(p + id));
    htx_str(o, ", class=");
    htx_str(o, c->name);
    htx_put(o, "@", 1);
    htx_hex(o, cid);
    htx_str(o, ")\n");
    /* values: the class's own fields, then its superclass's ... (laid out in ht_finish) */
    const uint8_t *v = p + 2 * id + 8;
    uint64_t base = 0;
    for (size_t k = ci; k != HT_NONE; k = r->cls[k].super_idx) {
        const ht_class *kc = &r->cls[k];
        for (size_t f = 0; f < kc->nrefs; f++) {
            const ht_ref *ref = &r->refs[kc->ref_first + f];
            uint64_t at = base + ref->off;
            if (at + id > n)
                break; /* cannot happen: ht_finish checked the layout */
            uint64_t val = hprof_rd_id(r->idsize, v + at);
            if (!val)
                continue;
            htx_put(o, "\t", 1);
            htx_put(o, ref->name, ref->name_len);
            htx_put(o, ref->name_len < 8 ? "\t\t" : "\t", ref->name_len < 8 ? 2 : 1);
            htx_hex(o, val);
            htx_put(o, "\n", 1);
        }
        base += kc->own_bytes;
        if (base >= n)
            break;
    }
}

static void htx_obj_array(ht_reader *r, const uint8_t *p)
{
    ht_out *o = r->out;
    const size_t id = r->idsize;
    uint32_t n = hprof_rd_u4(p + id + 4);
    uint64_t cid = hprof_rd_id(r->idsize, p + id + 8);
    size_t ci = ht_find_class(r, cid);
    htx_str(o, "ARR ");
    htx_hex(o, hprof_rd_id(r->idsize, p));
    htx_str(o, " (sz=");
    htx_dec(o, heap_shallow(HEAP_HDR_ARRAY, (uint64_t)n * id));
    htx_str(o, ", trace=");
    htx_dec(o, hprof_rd_u4(p + id));
    htx_str(o, ", nelems=");
    htx_dec(o, n);
    htx_str(o, ", elem type=");
    if (ci != HT_NONE) {
        htx_str(o, r->cls[ci].elem_name);
        htx_put(o, "@", 1);
        htx_hex(o, r->cls[ci].elem_id);
    } else {
        char tmp[48];
        htx_str(o, htx_class_name(r, cid, tmp));
        htx_put(o, "@", 1);
        htx_hex(o, cid);
    }
    htx_str(o, ")\n");
    const uint8_t *e = p + 2 * id + 8;
    for (uint32_t i = 0; i < n; i++, e += id) {
        uint64_t val = hprof_rd_id(r->idsize, e);
        if (!val)
            continue;
        htx_str(o, "\t[");
        htx_dec(o, i);
        htx_str(o, "]\t\t");
        htx_hex(o, val);
        htx_put(o, "\n", 1);
    }
}

static void htx_prim_array(ht_reader *r, const uint8_t *p)
{
    static const char *const types[12] = { NULL,     NULL,     NULL,   NULL,    "boolean", "char",
                                           "float",  "double", "byte", "short", "int",     "long" };
    ht_out *o = r->out;
    const size_t id = r->idsize;
    uint32_t n = hprof_rd_u4(p + id + 4);
    uint8_t t = p[id + 8];
    htx_str(o, "ARR ");
    htx_hex(o, hprof_rd_id(r->idsize, p));
    htx_str(o, " (sz=");
    htx_dec(o, heap_shallow(HEAP_HDR_ARRAY, (uint64_t)n * hprof_rd_type_size(r->idsize, t)));
    htx_str(o, ", trace=");
    htx_dec(o, hprof_rd_u4(p + id));
    htx_str(o, ", nelems=");
    htx_dec(o, n);
    htx_str(o, ", elem type=");
    htx_str(o, types[t]);
    htx_str(o, ")\n");
}

static bool htx_print_sub(ht_reader *r, uint8_t tag, size_t at, void *ctx)
{
    (void)ctx;
    const uint8_t *p = r->d + at;
    switch (tag) {
    case 0x20: htx_class_dump(r, p); break;
    case 0x21: htx_instance(r, p); break;
    case 0x22: htx_obj_array(r, p); break;
    case 0x23: htx_prim_array(r, p); break;
    default: htx_root(r, tag, p); break;
    }
    return sink_status(r->out->s) == JP_OK;
}

static void htx_ctime(uint64_t ms, char out[64])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!localtime_r(&t, &tm) || strftime(out, 64, "%a %b %e %H:%M:%S %Y", &tm) == 0)
        strcpy(out, "?");
}

jp_status hprof_heap_text_write(const void *data, size_t len, sink *s, char *errbuf, size_t errlen)
{
    char dummy[1];
    if (!errbuf || !errlen) {
        errbuf = dummy;
        errlen = sizeof dummy;
    }
    errbuf[0] = '\0';
    ht_reader *r = calloc(1, sizeof *r);
    ht_out *out = calloc(1, sizeof *out);
    if (!r || !out) {
        free(r);
        free(out);
        snprintf(errbuf, errlen, "out of memory converting the heap dump");
        return JP_ERR_NOMEM;
    }
    ht_reader_init(r, data, len, errbuf, errlen);
    out->s = s;
    r->out = out;

    bool ok = ht_walk(r, ht_record_scan, true) && ht_finish(r);
    if (ok) {
        char when[64];
        htx_ctime(r->time_ms, when);
        sink_printf(s, "JAVA PROFILE 1.0.1, created %s\n\nHEAP DUMP BEGIN (%" PRIu64 " objects, %" PRIu64 " bytes) %s\n",
                    when, r->objects, r->bytes, when);
        ok = ht_walk_subs(r, htx_print_sub, NULL);
        htx_str(out, "HEAP DUMP END\n");
        htx_flush(out);
        if (sink_status(s) != JP_OK) {
            r->st = sink_status(s);
            snprintf(errbuf, errlen, "writing the heap dump text failed (%s)", jp_status_name(r->st));
            ok = false;
        }
    }
    jp_status st = ok ? JP_OK : r->st ? r->st : JP_ERR_FORMAT;
    ht_reader_free(r);
    free(r);
    free(out);
    return st;
}
