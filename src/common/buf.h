/* buf.h — a growable byte buffer with big-endian put helpers (the HPROF
 * binary format is big-endian), and a bounds-checked big-endian reader
 * (buf_rd) whose every get fails softly past the end instead of overrunning. */
#ifndef BUF_H
#define BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Big-endian encoding of one value into out: shared by buf and the sinks. */
static inline void be_store_u2(unsigned char *out, uint16_t v)
{
    out[0] = (unsigned char)(v >> 8);
    out[1] = (unsigned char)v;
}

static inline void be_store_u4(unsigned char *out, uint32_t v)
{
    be_store_u2(out, (uint16_t)(v >> 16));
    be_store_u2(out + 2, (uint16_t)v);
}

static inline void be_store_u8(unsigned char *out, uint64_t v)
{
    be_store_u4(out, (uint32_t)(v >> 32));
    be_store_u4(out + 4, (uint32_t)v);
}

typedef struct buf {
    unsigned char *data;
    size_t len, cap;
    bool failed;      /* an allocation failed; further puts are dropped */
} buf;

void buf_init(buf *b);
void buf_free(buf *b);
void buf_reset(buf *b);
/* Makes room for n more bytes; false (and failed set) when out of memory. */
bool buf_reserve(buf *b, size_t n);
void buf_put(buf *b, const void *p, size_t n);
void buf_put_u8(buf *b, uint64_t v);
/* v as unsigned LEB128 (7 bits a byte, least significant first: protobuf's varints, JFR's integers). */
void buf_put_uleb(buf *b, uint64_t v);

/* The small puts are inline: the class-file rewriter makes millions of them. */
static inline void buf_put_u1(buf *b, uint8_t v)
{
    if (b->len < b->cap && !b->failed)
        b->data[b->len++] = v;
    else
        buf_put(b, &v, 1);
}

static inline void buf_put_u2(buf *b, uint16_t v)
{
    if (b->len + 2 <= b->cap && !b->failed) {
        be_store_u2(b->data + b->len, v);
        b->len += 2;
    } else {
        unsigned char x[2];
        be_store_u2(x, v);
        buf_put(b, x, 2);
    }
}

static inline void buf_put_u4(buf *b, uint32_t v)
{
    if (b->len + 4 <= b->cap && !b->failed) {
        be_store_u4(b->data + b->len, v);
        b->len += 4;
    } else {
        unsigned char x[4];
        be_store_u4(x, v);
        buf_put(b, x, 4);
    }
}
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct buf_rd {
    const unsigned char *p, *end;
    bool overrun;     /* a get went past the end: values read since are 0 */
} buf_rd;

void buf_rd_init(buf_rd *r, const void *data, size_t len);
uint64_t buf_get_u8(buf_rd *r);
const void *buf_get_bytes_slow(buf_rd *r, size_t n);

/* Returns a pointer to the next n bytes and skips them, or NULL on overrun
 * (inline: the class-file parser reads millions of small fields). */
static inline const void *buf_get_bytes(buf_rd *r, size_t n)
{
    if (!r->overrun && (size_t)(r->end - r->p) >= n) {
        const void *p = r->p;
        r->p += n;
        return p;
    }
    return buf_get_bytes_slow(r, n);
}

static inline uint8_t buf_get_u1(buf_rd *r)
{
    const unsigned char *p = buf_get_bytes(r, 1);
    return p ? p[0] : 0;
}

static inline uint16_t buf_get_u2(buf_rd *r)
{
    const unsigned char *p = buf_get_bytes(r, 2);
    return p ? (uint16_t)((p[0] << 8) | p[1]) : 0;
}

static inline uint32_t buf_get_u4(buf_rd *r)
{
    const unsigned char *p = buf_get_bytes(r, 4);
    return p ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3] : 0;
}
static inline size_t buf_rd_left(const buf_rd *r) { return (size_t)(r->end - r->p); }

#endif
