/* upload_queue.c — see upload_queue.h. */
#include "upload_queue.h"

#include <stdlib.h>
#include <string.h>

bool upload_queue_init(upload_queue *q, size_t max_bytes, size_t max_items)
{
    memset(q, 0, sizeof *q);
    q->max_items = max_items ? max_items : 1;
    q->max_bytes = max_bytes;
    q->items = calloc(q->max_items, sizeof *q->items);
    return q->items != NULL;
}

void upload_queue_free(upload_queue *q)
{
    upload_item it;
    while (upload_queue_pop(q, &it))
        free(it.data);
    free(q->items);
    memset(q, 0, sizeof *q);
}

bool upload_queue_pop(upload_queue *q, upload_item *out)
{
    if (!q->count)
        return false;
    *out = q->items[q->head];
    q->head = (q->head + 1) % q->max_items;
    q->count--;
    q->bytes -= out->len;
    return true;
}

size_t upload_queue_push(upload_queue *q, upload_item it, bool at_front)
{
    size_t dropped = 0;
    upload_item old = { 0 };
    if (q->count == q->max_items) { /* no slot: the oldest goes first */
        if (at_front) { /* the item put back is the oldest */
            free(it.data);
            return 1;
        }
        upload_queue_pop(q, &old);
        free(old.data);
        dropped++;
    }
    if (at_front) {
        q->head = (q->head + q->max_items - 1) % q->max_items;
        q->items[q->head] = it;
    } else {
        q->items[(q->head + q->count) % q->max_items] = it;
    }
    q->count++;
    q->bytes += it.len;
    while (q->bytes > q->max_bytes && upload_queue_pop(q, &old)) {
        free(old.data);
        dropped++;
    }
    return dropped;
}

unsigned upload_backoff_ms(unsigned failures, unsigned cap_ms)
{
    if (cap_ms < 1000)
        cap_ms = 1000;
    unsigned ms = 1000;
    for (unsigned i = 1; i < failures && ms < cap_ms; i++)
        ms *= 2;
    return ms < cap_ms ? ms : cap_ms;
}
