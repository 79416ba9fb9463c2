/* test_pub_table.c — the lock-free table of published pointers: an entry
 * reads back as put, numbers out of range are refused, a missing entry or
 * chunk reads as NULL, and 4 threads putting entries at once (chunks raced
 * for) lose none: each reads back what was put, with what it points to. */
#include "harness.h"

#include <pthread.h>

#include "common/pub_table.h"

PUB_TABLE(tbl, 20000u);

static void test_put_get(void)
{
    static int a, b;
    CHECK(pub_get(&tbl, 0) == NULL);
    CHECK(pub_get(&tbl, 19999) == NULL);   /* its chunk not made yet */
    CHECK(pub_put(&tbl, 7, &a));
    CHECK(pub_get(&tbl, 7) == &a);
    CHECK(pub_get(&tbl, 8) == NULL);
    CHECK(pub_put(&tbl, 7, &b));            /* replaced */
    CHECK(pub_get(&tbl, 7) == &b);
    CHECK(pub_put(&tbl, 19999, &a));        /* the last number the chunks hold: 20000 rounded up */
    CHECK(pub_get(&tbl, 19999) == &a);
    CHECK(!pub_put(&tbl, 5u * PUB_CHUNK, &a)); /* past the chunks */
    CHECK(pub_get(&tbl, 5u * PUB_CHUNK) == NULL);
    CHECK(pub_get(&tbl, UINT32_MAX) == NULL);
}

PUB_TABLE(shared, 4u * PUB_CHUNK);
enum { THREADS = 4, PER = PUB_CHUNK };
static uint32_t values[THREADS * PER];

static void *putter(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    /* thread t puts every THREADS-th number, so all threads race for every chunk */
    for (uint32_t i = t; i < THREADS * PER; i += THREADS) {
        values[i] = i * 2654435761u;
        if (!pub_put(&shared, i, &values[i]))
            return (void *)1;
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t th[THREADS];
    for (uintptr_t t = 0; t < THREADS; t++)
        ASSERT(pthread_create(&th[t], NULL, putter, (void *)t) == 0);
    int failed = 0;
    for (int t = 0; t < THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        failed += r != NULL;
    }
    CHECK_EQ_INT(failed, 0);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < THREADS * PER; i++) {
        const uint32_t *p = pub_get(&shared, i);
        bad += !p || p != &values[i] || *p != i * 2654435761u;
    }
    CHECK_EQ_INT(bad, 0);
}

int main(void)
{
    RUN(test_put_get);
    RUN(test_threads);
    return DONE();
}
