/* test_heap_diff.c — heap_diff_finish: rows of the same class name folded
 * (each side's numbers kept apart), then sorted by retained growth, then
 * shallow, then instances, then name; a class in one dump only. */
#include "harness.h"

#include "../../src/heapdump/heap_diff.h"

static void row(heap_diff *d, const char *name, int side, uint64_t inst, uint64_t shallow, uint64_t retained)
{
    if (d->nrows == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->rows = realloc(d->rows, d->cap * sizeof *d->rows);
    }
    heap_diff_row *r = &d->rows[d->nrows++];
    memset(r, 0, sizeof *r);
    r->name = strdup(name);
    r->instances[side] = inst;
    r->shallow[side] = shallow;
    r->retained[side] = retained;
}

static void test_fold_and_sort(void)
{
    heap_diff d = { 0 };
    row(&d, "Leak", 0, 1000, 16000, 136000);
    row(&d, "byte[]", 0, 5000, 600000, 600000);
    row(&d, "Gone", 0, 10, 160, 160);
    row(&d, "Leak", 1, 3000, 48000, 408000);
    row(&d, "byte[]", 1, 7000, 840000, 840000);
    row(&d, "New", 1, 1, 24, 24);
    row(&d, "Same", 0, 5, 80, 80);
    row(&d, "Same", 1, 5, 80, 80);
    row(&d, "Same", 1, 1, 16, 16); /* a second class of that name in B: summed */
    ASSERT(heap_diff_finish(&d));
    ASSERT(d.nrows == 5);
    CHECK_EQ_STR(d.rows[0].name, "Leak");
    CHECK_EQ_INT(d.rows[0].instances[0], 1000);
    CHECK_EQ_INT(d.rows[0].instances[1], 3000);
    CHECK_EQ_INT(heap_diff_change(d.rows[0].retained), 272000);
    CHECK_EQ_STR(d.rows[1].name, "byte[]");
    CHECK_EQ_INT(heap_diff_change(d.rows[1].retained), 240000);
    CHECK_EQ_STR(d.rows[2].name, "New");
    CHECK_EQ_INT(d.rows[2].instances[0], 0);
    CHECK_EQ_STR(d.rows[3].name, "Same");
    CHECK_EQ_INT(d.rows[3].instances[1], 6);
    CHECK_EQ_INT(heap_diff_change(d.rows[3].retained), 16);
    CHECK_EQ_STR(d.rows[4].name, "Gone");
    CHECK_EQ_INT(heap_diff_change(d.rows[4].retained), -160);
    heap_diff_free(&d);
    CHECK(d.rows == NULL && d.nrows == 0);
}

static void test_empty(void)
{
    heap_diff d = { 0 };
    CHECK(heap_diff_finish(&d));
    CHECK_EQ_INT(d.nrows, 0);
    heap_diff_free(&d);
}

int main(void)
{
    RUN(test_fold_and_sort);
    RUN(test_empty);
    return DONE();
}
