/* test_timeline_bins.c — the flame graph's timeline (src/format/timeline_bins.c):
 * the round slice widths, the slices aligned on the profile's start, the
 * samples of each key cut into them and merged, those outside dropped. */
#include "harness.h"

#include "format/timeline_bins.h"

#define MS 1000000ull

static void test_widths(void)
{
    CHECK_EQ_INT(timeline_slice_ns(0, 1000), 10 * MS);           /* never below 10 ms */
    CHECK_EQ_INT(timeline_slice_ns(6000 * MS, 1000), 10 * MS);   /* 600 slices of 10 ms */
    CHECK_EQ_INT(timeline_slice_ns(10000 * MS, 1000), 20 * MS);  /* 10 s: 1000 of 10 ms is one too many */
    CHECK_EQ_INT(timeline_slice_ns(600000 * MS, 1000), 1000 * MS); /* 10 minutes: 600 of 1 s (500 ms: 1200) */
    CHECK_EQ_INT(timeline_slice_ns(3600000 * MS, 1000), 5000 * MS); /* an hour: 720 of 5 s */
    CHECK_EQ_INT(timeline_slice_ns(90 * MS, 2), 50 * MS);        /* 90 ms in 2: 50 ms (1 of them, then 40 ms over) */
    CHECK(timeline_slice_ns(UINT64_MAX, 1000) > 0);
}

/* Origin 1000 ms; samples from 1234 ms to 1789 ms, at most 100 slices: a span of 555 ms wants 10 ms
 * slices (55 < 99); they start at 1230 ms (1000 + 23 widths) and the last, 1780..1790, is the 56th. */
static void test_bins(void)
{
    timeline_bins b;
    timeline_bins_init(&b, 1000 * MS, 1234 * MS, 1789 * MS, 100);
    CHECK_EQ_INT(b.slice_ns, 10 * MS);
    CHECK_EQ_INT(b.from_ns, 1230 * MS);
    CHECK_EQ_INT(b.nslices, 56);
    /* key 7: 2 samples at 1234 and 1 at 1239 (slice 0), 1 at 1240 (slice 1); key 3: 5 at 1789 (slice 55),
     * then 1 at 1235 (slice 0), not in time order; key 7 again in slice 0 after key 3's */
    timeline_bins_add(&b, 1234 * MS, 7, 2);
    timeline_bins_add(&b, 1239 * MS, 7, 1);
    timeline_bins_add(&b, 1240 * MS, 7, 1);
    timeline_bins_add(&b, 1789 * MS, 3, 5);
    timeline_bins_add(&b, 1235 * MS, 3, 1);
    timeline_bins_add(&b, 1236 * MS, 7, 4);
    timeline_bins_add(&b, 1229 * MS, 7, 9);     /* before the first slice */
    timeline_bins_add(&b, 1790 * MS, 7, 11);    /* past the last */
    CHECK(timeline_bins_finish(&b));
    CHECK_EQ_INT(b.dropped, 20);
    ASSERT(b.ncells == 4);
    CHECK(b.cells[0].key == 3 && b.cells[0].slice == 0 && b.cells[0].count == 1);
    CHECK(b.cells[1].key == 3 && b.cells[1].slice == 55 && b.cells[1].count == 5);
    CHECK(b.cells[2].key == 7 && b.cells[2].slice == 0 && b.cells[2].count == 7);
    CHECK(b.cells[3].key == 7 && b.cells[3].slice == 1 && b.cells[3].count == 1);
    timeline_bins_free(&b);
}

/* Ten minutes of 100 samples a second on 3 keys: 1 s slices, 600 of them, 100 samples in each slice
 * of each key (the origin is the first sample: the slices start with it). */
static void test_many(void)
{
    timeline_bins b;
    uint64_t t0 = 1700000000000ull * MS;
    timeline_bins_init(&b, t0, t0, t0 + 599990 * MS, 1000);
    CHECK_EQ_INT(b.slice_ns, 1000 * MS);
    CHECK_EQ_INT(b.nslices, 600);
    for (uint64_t i = 0; i < 60000; i++)
        timeline_bins_add(&b, t0 + i * 10 * MS, (uint32_t)(i % 3), 1);
    CHECK(timeline_bins_finish(&b));
    CHECK_EQ_INT(b.dropped, 0);
    ASSERT(b.ncells == 1800);
    uint64_t sum = 0;
    bool each = true;
    for (uint32_t i = 0; i < b.ncells; i++) {
        sum += b.cells[i].count;
        each &= b.cells[i].key == i / 600 && b.cells[i].slice == i % 600 &&
                (b.cells[i].count == 33 || b.cells[i].count == 34);
    }
    CHECK(each);
    CHECK_EQ_INT(sum, 60000);
    timeline_bins_free(&b);
}

/* A first sample before the origin (a window's file read back): the slices start at it. */
static void test_before_origin(void)
{
    timeline_bins b;
    timeline_bins_init(&b, 5000 * MS, 4990 * MS, 4990 * MS, 1000);
    CHECK_EQ_INT(b.from_ns, 4990 * MS);
    CHECK_EQ_INT(b.nslices, 1);
    timeline_bins_add(&b, 4990 * MS, 1, 1);
    CHECK(timeline_bins_finish(&b));
    CHECK_EQ_INT(b.ncells, 1);
    timeline_bins_free(&b);
}

int main(void)
{
    RUN(test_widths);
    RUN(test_bins);
    RUN(test_many);
    RUN(test_before_origin);
    return DONE();
}
