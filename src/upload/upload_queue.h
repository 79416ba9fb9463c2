/* upload_queue.h — the profiles waiting to be sent (upload=): a FIFO bounded
 * in bytes and in items, where a profile that does not fit pushes out the
 * oldest ones (counted by the caller), and the back-off between failed
 * attempts. Pure C, no locks (the uploader holds its own). */
#ifndef UPLOAD_QUEUE_H
#define UPLOAD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct upload_item {
    unsigned char *data;           /* the request (malloc'ed; the queue frees what it drops) */
    size_t len;
    uint64_t from_s, until_s;      /* the interval it holds */
} upload_item;

typedef struct upload_queue {
    upload_item *items;            /* a ring of max_items */
    size_t head, count, max_items;
    size_t bytes, max_bytes;       /* the items' len summed, and its bound */
} upload_queue;

/* False when out of memory. max_items >= 1. */
bool upload_queue_init(upload_queue *q, size_t max_bytes, size_t max_items);
void upload_queue_free(upload_queue *q);
/* Appends it at the back (at_front: at the front, a failed item put back),
 * then drops the oldest items (freeing them) until the queue is within its
 * bounds: the item itself when it alone is larger than max_bytes. Returns
 * how many items were dropped. */
size_t upload_queue_push(upload_queue *q, upload_item it, bool at_front);
/* Takes the oldest item out (false when empty); the caller owns its data. */
bool upload_queue_pop(upload_queue *q, upload_item *out);

/* The wait before the next attempt after `failures` failures in a row
 * (>= 1): 1 s, doubling, at most cap_ms (and at least 1 s). */
unsigned upload_backoff_ms(unsigned failures, unsigned cap_ms);

#endif
