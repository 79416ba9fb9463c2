/* test_upload_queue.c — upload='s queue (src/upload/upload_queue.c): first in
 * first out; bounded in bytes and in items, the oldest pushed out first (an
 * item larger than the whole bound drops itself); an item put back at the
 * front is the oldest, and the first to go; the back-off between failed
 * attempts: 1 s doubling to the cap. */
#include "harness.h"

#include "upload/upload_queue.h"

static upload_item item(size_t len, uint64_t from)
{
    return (upload_item){ calloc(1, len ? len : 1), len, from, from + 10 };
}

static void test_fifo_and_bytes(void)
{
    upload_queue q;
    ASSERT(upload_queue_init(&q, 1000, 100));
    CHECK_EQ_INT(upload_queue_push(&q, item(300, 0), false), 0);
    CHECK_EQ_INT(upload_queue_push(&q, item(300, 10), false), 0);
    CHECK_EQ_INT(upload_queue_push(&q, item(300, 20), false), 0);
    CHECK_EQ_INT(q.bytes, 900);
    /* 1200 bytes: the oldest (0) goes */
    CHECK_EQ_INT(upload_queue_push(&q, item(300, 30), false), 1);
    CHECK_EQ_INT(q.count, 3);
    CHECK_EQ_INT(q.bytes, 900);
    /* 700 more: 10 and 20 go (1600, then 1300, then 1000) */
    CHECK_EQ_INT(upload_queue_push(&q, item(700, 40), false), 2);
    CHECK_EQ_INT(q.count, 2);
    CHECK_EQ_INT(q.bytes, 1000);
    upload_item it;
    ASSERT(upload_queue_pop(&q, &it));
    CHECK_EQ_INT(it.from_s, 30);
    CHECK_EQ_INT(it.until_s, 40);
    /* put back at the front: taken first again */
    CHECK_EQ_INT(upload_queue_push(&q, it, true), 0);
    ASSERT(upload_queue_pop(&q, &it));
    CHECK_EQ_INT(it.from_s, 30);
    free(it.data);
    ASSERT(upload_queue_pop(&q, &it));
    CHECK_EQ_INT(it.from_s, 40);
    CHECK_EQ_INT(it.len, 700);
    free(it.data);
    CHECK(!upload_queue_pop(&q, &it));
    CHECK_EQ_INT(q.bytes, 0);
    /* an item larger than the whole bound: the older ones go first, then the item itself */
    CHECK_EQ_INT(upload_queue_push(&q, item(100, 50), false), 0);
    CHECK_EQ_INT(upload_queue_push(&q, item(1001, 60), false), 2);
    CHECK_EQ_INT(q.count, 0);
    CHECK_EQ_INT(q.bytes, 0);
    upload_queue_free(&q);
}

static void test_items_bound(void)
{
    upload_queue q;
    ASSERT(upload_queue_init(&q, 1u << 20, 3));
    for (uint64_t i = 0; i < 3; i++)
        CHECK_EQ_INT(upload_queue_push(&q, item(10, i * 10), false), 0);
    CHECK_EQ_INT(upload_queue_push(&q, item(10, 30), false), 1); /* 0 goes */
    upload_item it;
    ASSERT(upload_queue_pop(&q, &it));
    CHECK_EQ_INT(it.from_s, 10);
    /* a full queue and an item put back: the item put back is the oldest, and it goes */
    CHECK_EQ_INT(upload_queue_push(&q, item(10, 40), false), 0);
    CHECK_EQ_INT(q.count, 3);
    CHECK_EQ_INT(upload_queue_push(&q, it, true), 1);
    ASSERT(upload_queue_pop(&q, &it));
    CHECK_EQ_INT(it.from_s, 20);
    free(it.data);
    /* the ring wraps: many pushes and pops keep the order */
    uint64_t want = 30;
    for (uint64_t i = 5; i < 50; i++) {
        upload_queue_push(&q, item(10, i * 10), false);
        ASSERT(upload_queue_pop(&q, &it));
        CHECK_EQ_INT(it.from_s, want);
        want += 10;
        free(it.data);
    }
    CHECK_EQ_INT(q.count, 2);
    upload_queue_free(&q);
    CHECK(q.items == NULL);
}

static void test_backoff(void)
{
    CHECK_EQ_INT(upload_backoff_ms(1, 10000), 1000);
    CHECK_EQ_INT(upload_backoff_ms(2, 10000), 2000);
    CHECK_EQ_INT(upload_backoff_ms(3, 10000), 4000);
    CHECK_EQ_INT(upload_backoff_ms(4, 10000), 8000);
    CHECK_EQ_INT(upload_backoff_ms(5, 10000), 10000);
    CHECK_EQ_INT(upload_backoff_ms(400, 10000), 10000);
    CHECK_EQ_INT(upload_backoff_ms(3, 2000), 2000);
    CHECK_EQ_INT(upload_backoff_ms(1, 10), 1000); /* at least 1 s */
}

int main(void)
{
    RUN(test_fifo_and_bytes);
    RUN(test_items_bound);
    RUN(test_backoff);
    return DONE();
}
