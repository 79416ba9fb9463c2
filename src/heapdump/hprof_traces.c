/* hprof_traces.c — the TRACE and FRAME records of a heap dump (see
 * hprof_traces.h). One walk over the top-level records keeps, in id maps,
 * where each UTF8, FRAME and TRACE record's body is and each class serial's
 * name; lookups read the records again from the mapped file. */
#include "hprof_traces.h"

#include <stdio.h>
#include <string.h>

#include "hprof_read.h"

enum { HTR_UTF8 = 0x01, HTR_LOAD_CLASS = 0x02, HTR_FRAME = 0x04, HTR_TRACE = 0x05 };

static bool htr_fail(hprof_traces *t, char *err, size_t errlen, const char *what, size_t at)
{
    snprintf(err, errlen, "%s at offset %zu", what, at);
    hprof_traces_free(t);
    return false;
}

bool hprof_traces_read(hprof_traces *t, const void *data, size_t len, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    const uint8_t *d = data;
    static const char magic[] = "JAVA PROFILE 1.0.";
    if (len < sizeof magic + 1 + 12 || memcmp(d, magic, sizeof magic - 1) != 0)
        return htr_fail(t, err, errlen, "not an HPROF binary file (no \"JAVA PROFILE 1.0.x\" header)", 0);
    const uint8_t *nul = memchr(d, 0, len < 64 ? len : 64);
    if (!nul || (size_t)(nul - d) + 13 > len)
        return htr_fail(t, err, errlen, "an HPROF header cut short", 0);
    size_t p = (size_t)(nul - d) + 1;
    unsigned ids = hprof_rd_u4(d + p);
    if (ids != 4 && ids != 8)
        return htr_fail(t, err, errlen, "an id size other than 4 or 8", p);
    t->d = d;
    t->len = len;
    t->idsize = ids;
    p += 12;
    while (p < len) {
        if (len - p < 9)
            return htr_fail(t, err, errlen, "a record header cut short", p);
        uint8_t tag = d[p];
        uint32_t rlen = hprof_rd_u4(d + p + 5);
        size_t body = p + 9;
        if (rlen > len - body)
            return htr_fail(t, err, errlen, "a record longer than the file", p);
        bool ok = true;
        switch (tag) {
        case HTR_UTF8:
            if (rlen < ids)
                return htr_fail(t, err, errlen, "a UTF8 record shorter than its id", p);
            ok = id_map_put(&t->strings, hprof_rd_id(ids, d + body), body);
            break;
        case HTR_LOAD_CLASS:
            if (rlen < 8 + 2 * ids)
                return htr_fail(t, err, errlen, "a LOAD CLASS record cut short", p);
            ok = id_map_put(&t->classes, hprof_rd_u4(d + body), hprof_rd_id(ids, d + body + 8 + ids));
            break;
        case HTR_FRAME:
            if (rlen < 4 * ids + 8)
                return htr_fail(t, err, errlen, "a FRAME record cut short", p);
            ok = id_map_put(&t->frames, hprof_rd_id(ids, d + body), body);
            t->nframes++;
            break;
        case HTR_TRACE:
            if (rlen < 12 || (rlen - 12) / ids < hprof_rd_u4(d + body + 8))
                return htr_fail(t, err, errlen, "a TRACE record shorter than its frames", p);
            ok = id_map_put(&t->traces, hprof_rd_u4(d + body), body);
            t->ntraces++;
            break;
        default:
            break;
        }
        if (!ok)
            return htr_fail(t, err, errlen, "out of memory for the trace records", p);
        p = body + rlen;
    }
    return true;
}

void hprof_traces_free(hprof_traces *t)
{
    id_map_free(&t->strings);
    id_map_free(&t->classes);
    id_map_free(&t->frames);
    id_map_free(&t->traces);
    memset(t, 0, sizeof *t);
}

bool hprof_traces_find(const hprof_traces *t, uint32_t serial, uint32_t *nframes, uint32_t *thread_serial)
{
    uint64_t body;
    if (!id_map_get(&t->traces, serial, &body))
        return false;
    if (thread_serial)
        *thread_serial = hprof_rd_u4(t->d + body + 4);
    if (nframes)
        *nframes = hprof_rd_u4(t->d + body + 8);
    return true;
}

static hprof_name htr_name(const hprof_traces *t, uint64_t sid)
{
    uint64_t body;
    if (!sid || !id_map_get(&t->strings, sid, &body))
        return (hprof_name){ NULL, 0 };
    uint32_t rlen = hprof_rd_u4(t->d + body - 4);
    return (hprof_name){ (const char *)t->d + body + t->idsize, rlen - t->idsize };
}

bool hprof_traces_frame(const hprof_traces *t, uint32_t serial, uint32_t k, hprof_trace_frame *out)
{
    uint64_t body, fb, name;
    if (!id_map_get(&t->traces, serial, &body) || k >= hprof_rd_u4(t->d + body + 8))
        return false;
    const unsigned ids = t->idsize;
    uint64_t fid = hprof_rd_id(ids, t->d + body + 12 + (size_t)k * ids);
    if (!id_map_get(&t->frames, fid, &fb))
        return false;
    const uint8_t *f = t->d + fb;
    memset(out, 0, sizeof *out);
    out->method = htr_name(t, hprof_rd_id(ids, f + ids));
    out->sig = htr_name(t, hprof_rd_id(ids, f + 2 * ids));
    out->source = htr_name(t, hprof_rd_id(ids, f + 3 * ids));
    out->class_serial = hprof_rd_u4(f + 4 * ids);
    out->line = (int32_t)hprof_rd_u4(f + 4 * ids + 4);
    if (id_map_get(&t->classes, out->class_serial, &name))
        out->class_name = htr_name(t, name);
    return true;
}

/* appends len bytes to buf[*at ...), cut to cap - 1, NUL kept */
static void htr_put(char *buf, size_t cap, size_t *at, const char *s, size_t len)
{
    for (size_t i = 0; i < len && *at + 1 < cap; i++)
        buf[(*at)++] = s[i];
    buf[*at] = '\0';
}

void hprof_traces_frame_text(const hprof_trace_frame *f, char *buf, size_t len)
{
    if (!len)
        return;
    size_t at = 0;
    buf[0] = '\0';
    if (f->class_name.p) {
        for (uint32_t i = 0; i < f->class_name.len; i++)
            htr_put(buf, len, &at, f->class_name.p[i] == '/' ? "." : &f->class_name.p[i], 1);
    } else {
        htr_put(buf, len, &at, "<unknown class>", 15);
    }
    htr_put(buf, len, &at, ".", 1);
    if (f->method.p)
        htr_put(buf, len, &at, f->method.p, f->method.len);
    else
        htr_put(buf, len, &at, "<unknown method>", 16);
    htr_put(buf, len, &at, "(", 1);
    if (f->source.p)
        htr_put(buf, len, &at, f->source.p, f->source.len);
    else
        htr_put(buf, len, &at, "Unknown Source", 14);
    char tail[32];
    if (f->line > 0)
        snprintf(tail, sizeof tail, ":%d)", (int)f->line);
    else
        snprintf(tail, sizeof tail, ":%s)", f->line == HPROF_LINE_NATIVE     ? "Native method"
                                            : f->line == HPROF_LINE_COMPILED ? "Compiled method"
                                                                             : "Unknown line");
    htr_put(buf, len, &at, tail, strlen(tail));
}
