/* buf.c — growable buffer and bounds-checked reader (see buf.h). */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(buf *b) { memset(b, 0, sizeof *b); }

void buf_free(buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void buf_reset(buf *b)
{
    b->len = 0;
    b->failed = false;
}

bool buf_reserve(buf *b, size_t n)
{
    if (b->failed)
        return false;
    if (b->len + n <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) {
        if (cap > SIZE_MAX / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    unsigned char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void buf_put(buf *b, const void *p, size_t n)
{
    if (n == 0 || !buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void buf_put_u8(buf *b, uint64_t v)
{
    unsigned char x[8];
    be_store_u8(x, v);
    buf_put(b, x, 8);
}

void buf_printf(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        buf_put(b, small, (size_t)n);
        return;
    }
    if (!buf_reserve(b, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_rd_init(buf_rd *r, const void *data, size_t len)
{
    r->p = data;
    r->end = r->p + len;
    r->overrun = false;
}

const void *buf_get_bytes_slow(buf_rd *r, size_t n)
{
    if (r->overrun || (size_t)(r->end - r->p) < n) {
        r->overrun = true;
        r->p = r->end;
        return NULL;
    }
    const void *p = r->p;
    r->p += n;
    return p;
}

uint64_t buf_get_u8(buf_rd *r)
{
    /* all 8 bytes or none: two u4 gets would return half a value on overrun */
    const unsigned char *p = buf_get_bytes(r, 8);
    uint64_t v = 0;
    for (int i = 0; p && i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

void buf_put_uleb(buf *b, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    do {
        t[n++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    buf_put(b, t, n);
}
