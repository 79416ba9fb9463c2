/* trace_stream.c — see trace_stream.h. The hand-over list is a Treiber
 * stack: producers push with a CAS, the writer takes it whole with an
 * exchange (no ABA: nothing is ever popped singly) and reverses it, so each
 * thread's chunks are written in the order they were filled. */
#include "trace_stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/fd_write.h"

struct trace_stream {
    atomic_bool taking;               /* first: trace_stream_taking reads it on the hot path */
    int fd;
    uint64_t limit;
    size_t chunk_bytes;
    _Atomic(trace_block *) ready;     /* handed over, newest first */
    _Atomic uint64_t dropped;
    pthread_mutex_t meta_lock;        /* meta */
    trace_block *meta;                /* the metadata chunk being filled (thread 0) */
    trace_chunk meta_chunk;
    trace_block *meta_done;           /* full metadata chunks, oldest first */
    trace_block **meta_tail;
    /* the writer's */
    uint64_t bytes, chunks, events;
    int write_errno;
};

static trace_block *ts_block_new(const trace_stream *s)
{
    return malloc(sizeof(trace_block) + s->chunk_bytes);
}

trace_stream *trace_stream_open(int fd, uint64_t limit, uint64_t start_wall_ns, size_t chunk_bytes)
{
    if (chunk_bytes < 256)
        chunk_bytes = 256;
    if (chunk_bytes > TRACE_CHUNK_HEADER_SIZE + (size_t)TRACE_CHUNK_MAX)
        chunk_bytes = TRACE_CHUNK_HEADER_SIZE + (size_t)TRACE_CHUNK_MAX;
    trace_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = fd;
    s->limit = limit;
    s->chunk_bytes = chunk_bytes;
    s->meta_tail = &s->meta_done;
    atomic_init(&s->taking, true);
    pthread_mutex_init(&s->meta_lock, NULL);
    uint8_t h[TRACE_HEADER_SIZE];
    trace_file_header(h, start_wall_ns);
    if ((limit && limit < TRACE_HEADER_SIZE) || !fd_write_all(fd, h, sizeof h)) {
        if (limit && limit < TRACE_HEADER_SIZE)
            errno = EFBIG;
        pthread_mutex_destroy(&s->meta_lock);
        free(s);
        return NULL;
    }
    s->bytes = TRACE_HEADER_SIZE;
    return s;
}



void trace_producer_init(trace_producer *p, trace_stream *s, uint32_t thread)
{
    memset(p, 0, sizeof *p);
    p->s = s;
    p->thread = thread;
}

static void ts_hand_over(trace_stream *s, trace_block *b)
{
    trace_block *head = atomic_load_explicit(&s->ready, memory_order_relaxed);
    do
        b->next = head;
    while (!atomic_compare_exchange_weak_explicit(&s->ready, &head, b, memory_order_release, memory_order_relaxed));
}

/* A filled block's length and events, from its chunk; the writer adds the
 * checksum, off the program's threads. */
static void ts_block_close(trace_block *b, trace_chunk *c)
{
    b->len = trace_chunk_close(c);
    b->events = c->events;
}

/* Finishes the producer's chunk and hands it over. */
static void ts_producer_hand_over(trace_producer *p)
{
    trace_block *b = p->block;
    p->block = NULL;
    if (!b)
        return;
    if (!p->chunk.events) {
        free(b);
        return;
    }
    ts_block_close(b, &p->chunk);
    ts_hand_over(p->s, b);
}

bool trace_emit(trace_producer *p, unsigned type, uint64_t time_ns, const uint64_t *fields, const char *text,
                size_t text_len)
{
    trace_stream *s = p->s;
    if (!trace_stream_taking(s) || type < TRACE_EV_TIMED) {
        atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
        return false;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!p->block) {
            p->block = ts_block_new(s);
            if (!p->block)
                break;
            trace_chunk_begin(&p->chunk, p->block->data, s->chunk_bytes, p->thread, time_ns);
            p->said = 0; /* a chunk begins as the carrier's own */
        }
        if (p->said != p->mounted) { /* whose the events are now, said before the first of them */
            if (p->said && trace_chunk_put(&p->chunk, TRACE_EV_UNMOUNT, time_ns, (uint64_t[]){ p->said }, NULL, 0))
                p->said = 0;
            if (!p->said && p->mounted &&
                trace_chunk_put(&p->chunk, TRACE_EV_MOUNT, time_ns, (uint64_t[]){ p->mounted }, NULL, 0))
                p->said = p->mounted;
            if (p->said != p->mounted) {
                ts_producer_hand_over(p); /* no room: a new chunk, which says it first */
                continue;
            }
        }
        if (trace_chunk_put(&p->chunk, type, time_ns, fields, text, text_len))
            return true;
        if (!p->chunk.events)
            break; /* an event bigger than a whole chunk */
        ts_producer_hand_over(p);
    }
    atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
    return false;
}

void trace_producer_flush(trace_producer *p)
{
    if (p->s)
        ts_producer_hand_over(p);
}

/* Under meta_lock: the metadata chunk being filled joins the full ones, for the writer. */
static void ts_meta_retire(trace_stream *s)
{
    ts_block_close(s->meta, &s->meta_chunk);
    s->meta->next = NULL;
    *s->meta_tail = s->meta;
    s->meta_tail = &s->meta->next;
    s->meta = NULL;
}

bool trace_stream_meta(trace_stream *s, unsigned type, const uint64_t *fields, const char *text, size_t text_len)
{
    bool ok = false;
    pthread_mutex_lock(&s->meta_lock);
    for (int attempt = 0; attempt < 2 && type < TRACE_EV_TIMED && trace_stream_taking(s); attempt++) {
        if (!s->meta) {
            s->meta = ts_block_new(s);
            if (!s->meta)
                break;
            trace_chunk_begin(&s->meta_chunk, s->meta->data, s->chunk_bytes, 0, 0);
        }
        if ((ok = trace_chunk_put(&s->meta_chunk, type, 0, fields, text, text_len)))
            break;
        if (!s->meta_chunk.events)
            break;
        ts_meta_retire(s);
    }
    pthread_mutex_unlock(&s->meta_lock);
    if (!ok)
        atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
    return ok;
}

/* Writes one chunk unless that would pass the limit; frees it either way. */
static void ts_write_block(trace_stream *s, trace_block *b)
{
    bool fits = !s->limit || s->bytes + b->len <= s->limit;
    if (fits && trace_stream_taking(s) && !s->write_errno) {
        trace_chunk_checksum(b->data);
        if (fd_write_all(s->fd, b->data, b->len)) {
            s->bytes += b->len;
            s->chunks++;
            s->events += b->events;
            free(b);
            return;
        }
        s->write_errno = errno ? errno : EIO;
    }
    if (!fits || s->write_errno)
        atomic_store_explicit(&s->taking, false, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->dropped, b->events, memory_order_relaxed);
    free(b);
}

size_t trace_stream_write(trace_stream *s)
{
    uint64_t before = s->bytes;
    /* the chunks first taken, then the metadata: all a taken chunk refers to was given before it */
    trace_block *list = atomic_exchange_explicit(&s->ready, NULL, memory_order_acquire), *fifo = NULL;
    while (list) {
        trace_block *next = list->next;
        list->next = fifo;
        fifo = list;
        list = next;
    }
    pthread_mutex_lock(&s->meta_lock);
    if (s->meta && s->meta_chunk.events) {
        ts_meta_retire(s);
    }
    trace_block *meta = s->meta_done;
    s->meta_done = NULL;
    s->meta_tail = &s->meta_done;
    pthread_mutex_unlock(&s->meta_lock);
    while (meta) {
        trace_block *next = meta->next;
        ts_write_block(s, meta);
        meta = next;
    }
    while (fifo) {
        trace_block *next = fifo->next;
        ts_write_block(s, fifo);
        fifo = next;
    }
    return (size_t)(s->bytes - before);
}

void trace_stream_stats_get(const trace_stream *s, trace_stream_stats *out)
{
    out->bytes = s->bytes;
    out->chunks = s->chunks;
    out->events = s->events;
    out->dropped_events = atomic_load_explicit(&((trace_stream *)s)->dropped, memory_order_relaxed);
    out->full = !trace_stream_taking(s);
    out->write_errno = s->write_errno;
}

void trace_stream_retire(trace_stream *s, trace_stream_stats *out)
{
    trace_stream_write(s);
    if (out)
        trace_stream_stats_get(s, out);
    atomic_store(&s->taking, false);
    pthread_mutex_lock(&s->meta_lock);
    free(s->meta);
    s->meta = NULL;
    pthread_mutex_unlock(&s->meta_lock);
}

void trace_stream_close(trace_stream *s, trace_stream_stats *out)
{
    trace_stream_retire(s, out);
    pthread_mutex_destroy(&s->meta_lock);
    free(s);
}
