/* test_heap_dump_sites.c — the list of heap=sites' live sampled objects a
 * heap dump gets (src/agent/heap/heap_dump_sites.c: pure C in the agent's
 * tree, compiled in here): tags looked up by binary search after sealing,
 * in any order added, 0 for a tag not in it; traces found by serial, their
 * frames and strings copied (the model's may go). */
#include "harness.h"

#include "../../src/agent/heap/heap_dump_sites.c"

static void test_objects(void)
{
    heap_dump_sites s;
    heap_dump_sites_init(&s);
    /* 5000 tags added backwards, odd ones only; serial = 300000 + tag % 7 */
    for (int64_t tag = 9999; tag >= 1; tag -= 2)
        heap_dump_sites_object(&s, tag, 300000u + (uint32_t)(tag % 7));
    heap_dump_sites_seal(&s);
    CHECK_EQ_INT(s.nobjects, 5000);
    CHECK(!s.failed);
    unsigned wrong = 0;
    for (int64_t tag = 0; tag <= 10001; tag++) {
        uint32_t want = tag % 2 && tag < 10000 ? 300000u + (uint32_t)(tag % 7) : 0;
        wrong += heap_dump_sites_serial_of(&s, tag) != want;
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(heap_dump_sites_serial_of(&s, -5), 0);
    heap_dump_sites_free(&s);
    /* empty */
    heap_dump_sites_init(&s);
    heap_dump_sites_seal(&s);
    CHECK_EQ_INT(heap_dump_sites_serial_of(&s, 1), 0);
    CHECK(heap_dump_sites_find_trace(&s, 300001) == NULL);
    heap_dump_sites_free(&s);
}

static void test_traces(void)
{
    heap_dump_sites s;
    heap_dump_sites_init(&s);
    char method[16], cls[16];
    for (uint32_t i = 0; i < 600; i++) { /* past the first growth (256) */
        snprintf(method, sizeof method, "m%u", i);
        snprintf(cls, sizeof cls, "p.C%u", i);
        heap_dump_frame f[2] = { { method, "()V", i % 2 ? NULL : "C.java", cls, (int32_t)i + 1 },
                                 { "main", "([Ljava/lang/String;)V", "Main.java", "Main", -3 } };
        heap_dump_sites_trace(&s, 300600u - i, f, i % 3 ? 2 : 1);
        strcpy(method, "overwritten");
    }
    heap_dump_sites_seal(&s);
    CHECK_EQ_INT(s.ntraces, 600);
    const heap_dump_trace *t = heap_dump_sites_find_trace(&s, 300600u - 7);
    ASSERT(t);
    CHECK_EQ_INT(t->serial, 300593);
    CHECK_EQ_INT(t->nframes, 2);
    CHECK_EQ_STR(t->frames[0].method, "m7");
    CHECK_EQ_STR(t->frames[0].class_name, "p.C7");
    CHECK(t->frames[0].source == NULL);
    CHECK_EQ_INT(t->frames[0].line, 8);
    CHECK_EQ_STR(t->frames[1].sig, "([Ljava/lang/String;)V");
    CHECK_EQ_INT(t->frames[1].line, -3);
    t = heap_dump_sites_find_trace(&s, 300600u - 9); /* i = 9: one frame, no source */
    ASSERT(t);
    CHECK_EQ_INT(t->nframes, 1);
    CHECK(t->frames[0].source == NULL);
    t = heap_dump_sites_find_trace(&s, 300600u - 12); /* i = 12: one frame, a source */
    ASSERT(t);
    CHECK_EQ_INT(t->nframes, 1);
    CHECK_EQ_STR(t->frames[0].source, "C.java");
    CHECK_EQ_STR(t->frames[0].method, "m12");
    CHECK(heap_dump_sites_find_trace(&s, 300601) == NULL);
    CHECK(heap_dump_sites_find_trace(&s, 300000) == NULL);
    heap_dump_sites_free(&s);
}

int main(void)
{
    RUN(test_objects);
    RUN(test_traces);
    return DONE();
}
