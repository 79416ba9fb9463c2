/* trace_file.c — see trace_file.h. Integers in headers are little-endian;
 * event fields are unsigned LEB128. A chunk is checked whole (length and
 * CRC-32) before any of its events is handed out. */
#include "trace_file.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned fields;
} tf_types[TRACE_EV_LAST + 1] = {
    [TRACE_EV_STRING] = { "string", 1 },          [TRACE_EV_CLASS] = { "class", 2 },
    [TRACE_EV_METHOD] = { "method", 5 },          [TRACE_EV_THREAD] = { "thread", 5 },
    [TRACE_EV_GC] = { "gc", 6 },                  [TRACE_EV_PROVIDER] = { "provider", 4 },
    [TRACE_EV_PROBE_INFO] = { "probe-info", 5 },  [TRACE_EV_VTHREAD] = { "vthread", 3 },
    [TRACE_EV_MOUNT] = { "mount", 1 },             [TRACE_EV_UNMOUNT] = { "unmount", 1 },
    [TRACE_EV_ENTER] = { "enter", 1 },            [TRACE_EV_EXIT] = { "exit", 0 },
    [TRACE_EV_EXIT_THROW] = { "exit-throw", 0 },  [TRACE_EV_ALLOC] = { "alloc", 4 },
    [TRACE_EV_FREE] = { "free", 1 },              [TRACE_EV_GC_START] = { "gc-start", 1 },
    [TRACE_EV_GC_END] = { "gc-end", 1 },          [TRACE_EV_THREAD_START] = { "thread-start", 1 },
    [TRACE_EV_THREAD_END] = { "thread-end", 1 },  [TRACE_EV_CLASS_LOAD] = { "class-load", 1 },
    [TRACE_EV_CLASS_UNLOAD] = { "class-unload", 1 }, [TRACE_EV_MONITOR] = { "monitor", 3 },
    [TRACE_EV_USER] = { "user", 0 },             [TRACE_EV_ENTER_AT] = { "enter", 2 },
    [TRACE_EV_CALL] = { "call", 4 },              [TRACE_EV_REFERENCES] = { "references", 2 },
    [TRACE_EV_OBJECT] = { "object", 5 },          [TRACE_EV_REFERENCE] = { "reference", 3 },
    [TRACE_EV_OBJECT_END] = { "object-end", 0 },     [TRACE_EV_ENTER_THIS] = { "enter", 2 },
    [TRACE_EV_SAMPLE] = { "sample", 2 },          [TRACE_EV_PROBE] = { "probe", 1 },
};

const char *trace_event_name(unsigned type)
{
    return type <= TRACE_EV_LAST ? tf_types[type].name : NULL;
}

unsigned trace_event_fields(unsigned type)
{
    return type <= TRACE_EV_LAST ? tf_types[type].fields : 0;
}

static bool tf_has_text(unsigned type) { return type == TRACE_EV_STRING || type == TRACE_EV_USER || type == TRACE_EV_PROBE; }

/* CRC-32 (the polynomial of zlib and PNG), eight bytes a step (slicing by
 * 8: about six times the speed of a byte a step, which took 16% of a
 * javac trace's CPU); the tables are made once. */
static uint32_t tf_crc_table[8][256];
static pthread_once_t tf_crc_once = PTHREAD_ONCE_INIT;

static void tf_crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        tf_crc_table[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (uint32_t i = 0; i < 256; i++)
            tf_crc_table[k][i] = (tf_crc_table[k - 1][i] >> 8) ^ tf_crc_table[0][tf_crc_table[k - 1][i] & 0xFF];
}

static uint32_t tf_crc32(const uint8_t *p, size_t n)
{
    pthread_once(&tf_crc_once, tf_crc_init);
    uint32_t c = 0xFFFFFFFFu;
    const uint32_t(*t)[256] = tf_crc_table;
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t one = (p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24) ^ c;
        uint32_t two = p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        c = t[7][one & 0xFF] ^ t[6][(one >> 8) & 0xFF] ^ t[5][(one >> 16) & 0xFF] ^ t[4][one >> 24] ^
            t[3][two & 0xFF] ^ t[2][(two >> 8) & 0xFF] ^ t[1][(two >> 16) & 0xFF] ^ t[0][two >> 24];
    }
    while (n--)
        c = t[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static void tf_put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t tf_get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void trace_file_header(uint8_t out[TRACE_HEADER_SIZE], uint64_t start_wall_ns)
{
    memset(out, 0, TRACE_HEADER_SIZE);
    memcpy(out, TRACE_FILE_MAGIC, 16);
    tf_put_le(out + 16, TRACE_FILE_VERSION, 4);
    tf_put_le(out + 20, 0, 4); /* flags: none yet */
    tf_put_le(out + 24, start_wall_ns, 8);
}

void trace_chunk_begin(trace_chunk *c, uint8_t *buf, size_t cap, uint32_t thread, uint64_t base_ns)
{
    c->buf = buf;
    c->cap = cap;
    c->len = TRACE_CHUNK_HEADER_SIZE;
    c->last_ns = base_ns;
    c->thread = thread;
    c->events = 0;
    if (cap >= TRACE_CHUNK_HEADER_SIZE)
        tf_put_le(buf + 16, base_ns, 8);
}

static size_t tf_leb_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *tf_leb_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

bool trace_chunk_put(trace_chunk *c, unsigned type, uint64_t time_ns, const uint64_t *fields, const char *text,
                     size_t text_len)
{
    if (!trace_event_name(type))
        return false;
    bool timed = type >= TRACE_EV_TIMED;
    uint64_t dt = timed && time_ns > c->last_ns ? time_ns - c->last_ns : 0;
    unsigned nf = trace_event_fields(type);
    size_t need = 1 + (timed ? tf_leb_len(dt) : 0);
    for (unsigned i = 0; i < nf; i++)
        need += tf_leb_len(fields[i]);
    if (tf_has_text(type))
        need += tf_leb_len(text_len) + text_len;
    if (c->len + need > c->cap || c->len + need - TRACE_CHUNK_HEADER_SIZE > TRACE_CHUNK_MAX)
        return false;
    uint8_t *p = c->buf + c->len;
    *p++ = (uint8_t)type;
    if (timed)
        p = tf_leb_put(p, dt);
    for (unsigned i = 0; i < nf; i++)
        p = tf_leb_put(p, fields[i]);
    if (tf_has_text(type)) {
        p = tf_leb_put(p, text_len);
        memcpy(p, text, text_len);
        p += text_len;
    }
    c->len = (size_t)(p - c->buf);
    if (timed)
        c->last_ns += dt;
    c->events++;
    return true;
}

size_t trace_chunk_close(trace_chunk *c)
{
    size_t payload = c->len - TRACE_CHUNK_HEADER_SIZE;
    tf_put_le(c->buf, TRACE_CHUNK_MAGIC, 4);
    tf_put_le(c->buf + 4, payload, 4);
    tf_put_le(c->buf + 12, c->thread, 4);
    return c->len;
}

void trace_chunk_checksum(uint8_t *chunk)
{
    size_t payload = (size_t)tf_get_le(chunk + 4, 4);
    tf_put_le(chunk + 8, tf_crc32(chunk + TRACE_CHUNK_HEADER_SIZE, payload), 4);
}

size_t trace_chunk_finish(trace_chunk *c)
{
    size_t len = trace_chunk_close(c);
    trace_chunk_checksum(c->buf);
    return len;
}

/* ---- reading ---- */

jp_status trace_reader_open(trace_reader *r, const void *data, size_t len)
{
    memset(r, 0, sizeof *r);
    r->data = data;
    r->len = len;
    if (len < TRACE_HEADER_SIZE || memcmp(data, TRACE_FILE_MAGIC, 16) != 0) {
        snprintf(r->why, sizeof r->why, "not a jvmprof trace (no \"JVMPROF TRACE\" header in its first %u bytes)",
                 TRACE_HEADER_SIZE);
        return JP_ERR_FORMAT;
    }
    uint32_t version = (uint32_t)tf_get_le(r->data + 16, 4);
    if (version != TRACE_FILE_VERSION) {
        snprintf(r->why, sizeof r->why, "trace format version %u; this reader knows version %u", version,
                 TRACE_FILE_VERSION);
        return JP_ERR_FORMAT;
    }
    r->start_wall_ns = tf_get_le(r->data + 24, 8);
    r->off = TRACE_HEADER_SIZE;
    return JP_OK;
}

static bool tf_reader_stop(trace_reader *r, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool tf_reader_stop(trace_reader *r, size_t at, const char *fmt, ...)
{
    char msg[140];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->why, sizeof r->why, "stopped at offset %zu: %s; %llu complete chunks before it", at, msg,
             (unsigned long long)r->chunks);
    r->stopped = true;
    r->off = r->len;
    r->chunk_end = 0;
    return false;
}

/* Enters the chunk at r->off if it is whole and sound. */
static bool tf_reader_chunk(trace_reader *r)
{
    size_t at = r->off, left = r->len - at;
    if (left < TRACE_CHUNK_HEADER_SIZE)
        return tf_reader_stop(r, at, "a chunk header of %u bytes, cut short (%zu bytes of the file left)",
                           TRACE_CHUNK_HEADER_SIZE, left);
    const uint8_t *h = r->data + at;
    if (tf_get_le(h, 4) != TRACE_CHUNK_MAGIC)
        return tf_reader_stop(r, at, "a chunk (\"TCHK\") expected, found %08llx", (unsigned long long)tf_get_le(h, 4));
    uint64_t payload = tf_get_le(h + 4, 4);
    if (payload > TRACE_CHUNK_MAX)
        return tf_reader_stop(r, at, "a chunk of %llu bytes (at most %u)", (unsigned long long)payload, TRACE_CHUNK_MAX);
    if (payload > left - TRACE_CHUNK_HEADER_SIZE)
        return tf_reader_stop(r, at, "a chunk of %llu bytes, cut short after %zu", (unsigned long long)payload,
                           left - TRACE_CHUNK_HEADER_SIZE);
    if (tf_crc32(h + TRACE_CHUNK_HEADER_SIZE, (size_t)payload) != (uint32_t)tf_get_le(h + 8, 4))
        return tf_reader_stop(r, at, "a chunk of %llu bytes whose checksum does not match", (unsigned long long)payload);
    r->thread = (uint32_t)tf_get_le(h + 12, 4);
    r->mounted = 0; /* a chunk begun with a virtual thread mounted says so first */
    r->now = tf_get_le(h + 16, 8);
    r->chunk_start = at;
    r->off = at + TRACE_CHUNK_HEADER_SIZE;
    r->chunk_end = r->off + (size_t)payload;
    r->chunks++;
    return true;
}

static bool tf_leb_get(trace_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; r->off < r->chunk_end && shift < 64; shift += 7) {
        uint8_t b = r->data[r->off++];
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

bool trace_reader_next(trace_reader *r, trace_event *ev)
{
    while (r->chunk_end == 0 || r->off >= r->chunk_end) {
        if (r->one_chunk && r->chunk_end)
            return false;
        r->chunk_end = 0;
        if (r->stopped || r->off >= r->len || !tf_reader_chunk(r))
            return false;
    }
    memset(ev, 0, sizeof *ev);
    size_t at = r->off;
    ev->offset = at;
    ev->type = r->data[r->off++];
    ev->thread = r->thread;
    if (!trace_event_name(ev->type))
        return tf_reader_stop(r, at, "an event of unknown type %u", ev->type);
    if (ev->type >= TRACE_EV_TIMED) {
        uint64_t dt;
        if (!tf_leb_get(r, &dt))
            return tf_reader_stop(r, at, "a %s event's time runs past its chunk", trace_event_name(ev->type));
        r->now += dt;
        ev->time_ns = r->now;
    }
    for (unsigned i = 0; i < trace_event_fields(ev->type); i++)
        if (!tf_leb_get(r, &ev->f[i]))
            return tf_reader_stop(r, at, "a %s event's field %u runs past its chunk", trace_event_name(ev->type), i + 1);
    if (tf_has_text(ev->type)) {
        uint64_t n;
        if (!tf_leb_get(r, &n) || n > r->chunk_end - r->off)
            return tf_reader_stop(r, at, "a %s event's text runs past its chunk", trace_event_name(ev->type));
        ev->text = (const char *)r->data + r->off;
        ev->text_len = (size_t)n;
        r->off += (size_t)n;
    }
    if (ev->type == TRACE_EV_MOUNT)
        r->mounted = (uint32_t)ev->f[0];
    if (r->mounted && r->thread != TRACE_SAMPLES_THREAD) { /* a virtual thread's event, on its carrier */
        ev->carrier = r->thread;
        ev->thread = r->mounted;
    }
    if (ev->type == TRACE_EV_UNMOUNT)
        r->mounted = 0;
    r->events++;
    return true;
}

bool trace_reader_chunk(trace_reader *r, size_t offset)
{
    if (offset < TRACE_HEADER_SIZE || offset > r->len)
        return tf_reader_stop(r, offset, "no chunk can start here (the file has %zu bytes)", r->len);
    r->off = offset;
    r->chunk_end = 0;
    r->stopped = false;
    r->one_chunk = true;
    return tf_reader_chunk(r);
}
