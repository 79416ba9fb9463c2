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
void buf_put(buf *b, const void *p, size_t n);
void buf_put_u1(buf *b, uint8_t v);
void buf_put_u2(buf *b, uint16_t v);
void buf_put_u4(buf *b, uint32_t v);
void buf_put_u8(buf *b, uint64_t v);
void buf_printf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct buf_rd {
    const unsigned char *p, *end;
    bool overrun;     /* a get went past the end: values read since are 0 */
} buf_rd;

void buf_rd_init(buf_rd *r, const void *data, size_t len);
uint8_t buf_get_u1(buf_rd *r);
uint16_t buf_get_u2(buf_rd *r);
uint32_t buf_get_u4(buf_rd *r);
uint64_t buf_get_u8(buf_rd *r);
/* Returns a pointer to the next n bytes and skips them, or NULL on overrun. */
const void *buf_get_bytes(buf_rd *r, size_t n);
static inline size_t buf_rd_left(const buf_rd *r) { return (size_t)(r->end - r->p); }

#endif
