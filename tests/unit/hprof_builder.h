/* hprof_builder.h — a tiny HPROF writer for the heap dump readers' unit
 * tests (test_heap_histogram.c, test_heap_dominators.c, test_heap_paths.c,
 * test_heap_leaks.c, test_heap_site.c, test_hprof_traces.c): a growing
 * buffer, big-endian numbers, ids of 4 or 8 bytes, records with their length
 * filled in at the end, UTF8, LOAD CLASS, FRAME and TRACE records, and the
 * heap dump sub-records the tests build their shapes from (a class whose
 * statics and fields are references, or of given types; an instance whose
 * fields are all references; arrays; GC roots). A test adds what only it
 * needs. */
#ifndef HPROF_BUILDER_H
#define HPROF_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct hb {
    unsigned char *p;
    size_t len, cap;
    unsigned idsize;
    size_t rec; /* offset of the open record's length field */
} hb;

static inline void hb_u1(hb *b, unsigned v)
{
    if (b->len == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            abort();
    }
    b->p[b->len++] = (unsigned char)v;
}
static inline void hb_u2(hb *b, unsigned v) { hb_u1(b, v >> 8 & 0xff); hb_u1(b, v & 0xff); }
static inline void hb_u4(hb *b, uint32_t v) { hb_u2(b, v >> 16); hb_u2(b, v & 0xffff); }
static inline void hb_u8(hb *b, uint64_t v) { hb_u4(b, (uint32_t)(v >> 32)); hb_u4(b, (uint32_t)v); }
static inline void hb_id(hb *b, uint64_t v)
{
    if (b->idsize == 8)
        hb_u8(b, v);
    else
        hb_u4(b, (uint32_t)v);
}
/* the header: "JAVA PROFILE <version>", the id size, a time */
static inline void hb_start(hb *b, unsigned idsize, const char *version)
{
    *b = (hb){ .idsize = idsize };
    char magic[32];
    snprintf(magic, sizeof magic, "JAVA PROFILE %s", version);
    for (const char *s = magic; *s; s++)
        hb_u1(b, (unsigned char)*s);
    hb_u1(b, 0);
    hb_u4(b, idsize);
    hb_u8(b, 1700000000000ull);
}
/* a record: its tag, a time, its length (hb_end fills it in) */
static inline void hb_rec(hb *b, unsigned tag)
{
    hb_u1(b, tag);
    hb_u4(b, 0);
    b->rec = b->len;
    hb_u4(b, 0);
}
static inline void hb_end(hb *b)
{
    uint32_t n = (uint32_t)(b->len - b->rec - 4);
    for (int i = 0; i < 4; i++)
        b->p[b->rec + i] = (unsigned char)(n >> (24 - 8 * i));
}
static inline void hb_utf8(hb *b, uint64_t id, const char *s)
{
    hb_rec(b, 0x01);
    hb_id(b, id);
    while (*s)
        hb_u1(b, (unsigned char)*s++);
    hb_end(b);
}
/* LOAD CLASS: serial, class id, stack trace serial, name id */
static inline void hb_load_class(hb *b, uint32_t serial, uint64_t cls, uint32_t trace, uint64_t name)
{
    hb_rec(b, 0x02);
    hb_u4(b, serial);
    hb_id(b, cls);
    hb_u4(b, trace);
    hb_id(b, name);
    hb_end(b);
}

/* FRAME: frame id, method name, signature, source file (string ids), class serial, line */
static inline void hb_frame(hb *b, uint64_t id, uint64_t name, uint64_t sig, uint64_t src, uint32_t cls, int32_t line)
{
    hb_rec(b, 0x04);
    hb_id(b, id);
    hb_id(b, name);
    hb_id(b, sig);
    hb_id(b, src);
    hb_u4(b, cls);
    hb_u4(b, (uint32_t)line);
    hb_end(b);
}
/* TRACE: serial, thread serial, its n frame ids */
static inline void hb_trace(hb *b, uint32_t serial, uint32_t thread, int n, const uint64_t *frames)
{
    hb_rec(b, 0x05);
    hb_u4(b, serial);
    hb_u4(b, thread);
    hb_u4(b, (uint32_t)n);
    for (int i = 0; i < n; i++)
        hb_id(b, frames[i]);
    hb_end(b);
}

/* ---- heap dump sub-records ---- */

/* CLASS DUMP (no constant pool): nst statics, all references (names, values); nf instance fields of the
 * types f_types (2 reference, 4 boolean ... 11 long), all references when f_types is NULL */
static inline void hb_class(hb *b, uint64_t cid, uint64_t super, uint64_t loader, int nst, const uint64_t *st_names,
                            const uint64_t *st_values, int nf, const uint64_t *f_names, const uint8_t *f_types)
{
    static const unsigned size[12] = { 0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8 };
    unsigned bytes = 0;
    for (int i = 0; i < nf; i++)
        bytes += !f_types || f_types[i] == 2 ? b->idsize : size[f_types[i] < 12 ? f_types[i] : 0];
    hb_u1(b, 0x20);
    hb_id(b, cid);
    hb_u4(b, 0);
    hb_id(b, super);
    hb_id(b, loader);
    for (int i = 0; i < 4; i++) /* signers, protection domain, 2 reserved */
        hb_id(b, 0);
    hb_u4(b, bytes);
    hb_u2(b, 0);
    hb_u2(b, (unsigned)nst);
    for (int i = 0; i < nst; i++) {
        hb_id(b, st_names[i]);
        hb_u1(b, 2);
        hb_id(b, st_values[i]);
    }
    hb_u2(b, (unsigned)nf);
    for (int i = 0; i < nf; i++) {
        hb_id(b, f_names[i]);
        hb_u1(b, f_types ? f_types[i] : 2);
    }
}
/* INSTANCE DUMP carrying stack trace serial `trace`, its n fields all references */
static inline void hb_instance_traced(hb *b, uint64_t oid, uint32_t trace, uint64_t cid, int n, const uint64_t *values)
{
    hb_u1(b, 0x21);
    hb_id(b, oid);
    hb_u4(b, trace);
    hb_id(b, cid);
    hb_u4(b, (uint32_t)(n * (int)b->idsize));
    for (int i = 0; i < n; i++)
        hb_id(b, values[i]);
}
static inline void hb_instance(hb *b, uint64_t oid, uint64_t cid, int n, const uint64_t *values)
{
    hb_instance_traced(b, oid, 0, cid, n, values);
}
/* OBJECT ARRAY DUMP of class cid */
static inline void hb_obj_array(hb *b, uint64_t oid, uint64_t cid, int n, const uint64_t *elems)
{
    hb_u1(b, 0x22);
    hb_id(b, oid);
    hb_u4(b, 0);
    hb_u4(b, (uint32_t)n);
    hb_id(b, cid);
    for (int i = 0; i < n; i++)
        hb_id(b, elems[i]);
}
/* PRIMITIVE ARRAY DUMP of n elements of basic type `type` (4..11), their bytes as given (2 x n for char[]
 * ...), or zeros when bytes is NULL */
static inline void hb_prim_array(hb *b, uint64_t oid, uint32_t trace, unsigned type, const unsigned char *bytes,
                                 uint32_t n)
{
    static const unsigned size[12] = { 0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8 };
    hb_u1(b, 0x23);
    hb_id(b, oid);
    hb_u4(b, trace);
    hb_u4(b, n);
    hb_u1(b, type);
    for (uint32_t i = 0; i < n * size[type < 12 ? type : 0]; i++)
        hb_u1(b, bytes ? bytes[i] : 0);
}
/* a byte[n] of zeros */
static inline void hb_bytes(hb *b, uint64_t oid, uint32_t n) { hb_prim_array(b, oid, 0, 8, NULL, n); }
static inline void hb_root_global(hb *b, uint64_t oid)
{
    hb_u1(b, 0x01);
    hb_id(b, oid);
    hb_id(b, 0x77);
}
static inline void hb_root_frame(hb *b, uint64_t oid, uint32_t thread)
{
    hb_u1(b, 0x03);
    hb_id(b, oid);
    hb_u4(b, thread);
    hb_u4(b, 0);
}
static inline void hb_root_sticky(hb *b, uint64_t oid)
{
    hb_u1(b, 0x05);
    hb_id(b, oid);
}
static inline void hb_root_thread(hb *b, uint64_t oid, uint32_t serial)
{
    hb_u1(b, 0x08);
    hb_id(b, oid);
    hb_u4(b, serial);
    hb_u4(b, 0);
}

#endif
