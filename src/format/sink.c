/* sink.c — buffered output with atomic publish (temp file + rename, through
 * out_file.c), sticky errors and fault injection for tests. All file I/O of
 * the writers goes through here, so this is the one place that handles EINTR,
 * short writes and ENOSPC. */
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/out_file.h"

#define SINK_BUF_SIZE (256u * 1024u)

struct sink {
    int fd;                  /* -1 for memory sinks */
    buf *mem;
    char *path, *tmp_path;   /* tmp_path NULL: written into path directly (a device, a FIFO, a link) */
    out_target target;
    bool keep_temp;          /* sink_open_temp: commit leaves the file under tmp_path */
    unsigned char *buf;
    size_t used;
    uint64_t bytes;          /* accepted from the writer */
    uint64_t flushed;        /* reached the file */
    jp_status status;
    int err;                 /* errno of the first failure */
    uint64_t fault_after;
    int fault_errno;
    int short_writes;
};

static char *sink_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static sink *sink_open(const char *path, unsigned flags, bool keep_temp, char *tmp_name, size_t tmp_len,
                       char *errbuf, size_t errlen)
{
    sink *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(errbuf, errlen, "out of memory");
        return NULL;
    }
    s->fd = -1;
    s->keep_temp = keep_temp;
    s->path = sink_strdup(path);
    s->buf = malloc(SINK_BUF_SIZE);
    char tmp[OUT_FILE_NAME_MAX];
    if (!s->path || !s->buf) {
        snprintf(errbuf, errlen, "out of memory");
        goto err;
    }
    if (out_file_check(path, &s->target, errbuf, errlen) != JP_OK)
        goto err;
    if (s->target.kind == OUT_DIRECT && !keep_temp) {
        s->fd = out_file_open_direct(path, &s->target, errbuf, errlen);
        if (s->fd < 0)
            goto err;
        return s;
    }
    s->fd = out_file_create_temp(path, ".tmp", (flags & SINK_PRIVATE) ? OUT_MODE_PRIVATE : OUT_MODE_PUBLIC, tmp,
                                 sizeof tmp, errbuf, errlen);
    if (s->fd < 0)
        goto err;
    if (!(s->tmp_path = sink_strdup(tmp))) {
        close(s->fd);
        unlink(tmp);
        snprintf(errbuf, errlen, "out of memory");
        goto err;
    }
    if (tmp_name)
        snprintf(tmp_name, tmp_len, "%s", tmp);
    return s;
err:
    free(s->path);
    free(s->buf);
    free(s);
    return NULL;
}

sink *sink_open_file(const char *path, unsigned flags, char *errbuf, size_t errlen)
{
    return sink_open(path, flags, false, NULL, 0, errbuf, errlen);
}

sink *sink_open_temp(const char *path, unsigned flags, char *tmp_name, size_t tmp_len, char *errbuf, size_t errlen)
{
    return sink_open(path, flags, true, tmp_name, tmp_len, errbuf, errlen);
}

sink *sink_open_memory(buf *out)
{
    sink *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = -1;
    s->mem = out;
    return s;
}

void sink_inject_fault(sink *s, uint64_t after_bytes, int err, int short_writes)
{
    s->fault_after = after_bytes;
    s->fault_errno = err;
    s->short_writes = short_writes;
}

static void sink_fail(sink *s, int err)
{
    if (s->status != JP_OK)
        return;
    s->err = err;
    s->status = (err == ENOSPC || err == EDQUOT) ? JP_ERR_NOSPC : (err == ENOMEM ? JP_ERR_NOMEM : JP_ERR_IO);
}

static void sink_flush(sink *s)
{
    size_t off = 0;
    while (s->status == JP_OK && off < s->used) {
        size_t n = s->used - off;
        if (s->short_writes && n > 7)
            n = 7;
        if (s->fault_errno && s->flushed + n > s->fault_after) {
            n = (size_t)(s->fault_after - s->flushed);
            if (n == 0) {
                sink_fail(s, s->fault_errno);
                break;
            }
        }
        ssize_t w = write(s->fd, s->buf + off, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            sink_fail(s, errno);
            break;
        }
        off += (size_t)w;
        s->flushed += (uint64_t)w;
    }
    s->used = 0;
}

void sink_write(sink *s, const void *p, size_t n)
{
    if (s->status != JP_OK || n == 0)
        return;
    s->bytes += n;
    if (s->mem) {
        buf_put(s->mem, p, n);
        if (s->mem->failed)
            sink_fail(s, ENOMEM);
        return;
    }
    const unsigned char *c = p;
    while (n > 0 && s->status == JP_OK) {
        size_t room = SINK_BUF_SIZE - s->used;
        size_t k = n < room ? n : room;
        memcpy(s->buf + s->used, c, k);
        s->used += k;
        c += k;
        n -= k;
        if (s->used == SINK_BUF_SIZE)
            sink_flush(s);
    }
}

void sink_printf(sink *s, const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sink_write(s, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        sink_fail(s, ENOMEM);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sink_write(s, big, (size_t)n);
    free(big);
}

void sink_u1(sink *s, uint8_t v) { sink_write(s, &v, 1); }

void sink_u2(sink *s, uint16_t v)
{
    unsigned char x[2];
    be_store_u2(x, v);
    sink_write(s, x, 2);
}

void sink_u4(sink *s, uint32_t v)
{
    unsigned char x[4];
    be_store_u4(x, v);
    sink_write(s, x, 4);
}

void sink_u8(sink *s, uint64_t v)
{
    unsigned char x[8];
    be_store_u8(x, v);
    sink_write(s, x, 8);
}

void sink_patch_u4(sink *s, uint64_t at, uint32_t v)
{
    unsigned char x[4];
    be_store_u4(x, v);
    if (s->status != JP_OK || at + 4 > s->bytes)
        return;
    if (s->mem) {
        memcpy(s->mem->data + (s->mem->len - (size_t)(s->bytes - at)), x, 4);
        return;
    }
    for (int i = 0; i < 4; i++) {       /* each byte is either still buffered or already in the file */
        uint64_t off = at + (uint64_t)i;
        if (off >= s->flushed) {
            s->buf[off - s->flushed] = x[i];
            continue;
        }
        ssize_t w;
        do
            w = pwrite(s->fd, &x[i], 1, (off_t)off);
        while (w < 0 && errno == EINTR);
        if (w != 1) {
            sink_fail(s, w < 0 ? errno : EIO);
            return;
        }
    }
}

jp_status sink_status(const sink *s) { return s->status; }
uint64_t sink_bytes(const sink *s) { return s->bytes; }

static void sink_release(sink *s)
{
    free(s->path);
    free(s->tmp_path);
    free(s->buf);
    free(s);
}

jp_status sink_commit(sink *s, char *errbuf, size_t errlen)
{
    if (s->mem) {
        jp_status st = s->status;
        if (st != JP_OK)
            snprintf(errbuf, errlen, "out of memory");
        sink_release(s);
        return st;
    }
    sink_flush(s);
    if (s->status == JP_OK && fsync(s->fd) != 0 && errno != EINVAL && errno != EROFS)
        sink_fail(s, errno);
    if (close(s->fd) != 0 && s->status == JP_OK)
        sink_fail(s, errno);
    s->fd = -1;
    jp_status st = s->status;
    if (st != JP_OK)
        snprintf(errbuf, errlen, "cannot write %s: %s", s->path, strerror(s->err));
    else if (s->tmp_path && !s->keep_temp)
        st = out_file_publish(s->tmp_path, s->path, &s->target, errbuf, errlen);
    if (st != JP_OK && s->tmp_path)
        unlink(s->tmp_path);
    sink_release(s);
    return st;
}

void sink_abort(sink *s)
{
    if (!s->mem) {
        if (s->fd >= 0)
            close(s->fd);
        if (s->tmp_path)
            unlink(s->tmp_path);
    }
    sink_release(s);
}

jp_status sink_check_writable(const char *path, char *errbuf, size_t errlen)
{
    out_target t;
    if (out_file_check(path, &t, errbuf, errlen) != JP_OK)
        return JP_ERR_IO;
    if (t.kind == OUT_DIRECT) { /* opening a FIFO would wait for a reader, and a file behind a link stays as it is */
        if (access(path, W_OK) != 0) {
            snprintf(errbuf, errlen, "cannot write %s: %s", path, strerror(errno));
            return JP_ERR_IO;
        }
        return JP_OK;
    }
    char tmp[OUT_FILE_NAME_MAX];
    int fd = out_file_create_temp(path, ".tmp", OUT_MODE_PRIVATE, tmp, sizeof tmp, errbuf, errlen);
    if (fd < 0)
        return JP_ERR_IO;
    close(fd);
    unlink(tmp);
    return JP_OK;
}
