/* hprof_builder.h — a tiny HPROF writer for the heap dump readers' unit
 * tests (test_heap_histogram.c, test_heap_dominators.c): a growing buffer,
 * big-endian numbers, ids of 4 or 8 bytes, records with their length filled
 * in at the end, UTF8 and LOAD CLASS records. Each test adds the sub-records
 * it needs. */
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

#endif
