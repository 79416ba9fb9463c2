/* test_hprof_traces.c — the TRACE and FRAME records of a heap dump
 * (hprof_traces.h) and an object's stack-trace serial
 * (heap_graph_trace_serial), on small dumps written by hand, ids of 4 and 8
 * bytes: a class Leak (LOAD CLASS serial 5) allocated at Leak.keep
 * (Leak.java:31) called from Leak.main (line 54), as a dump with heap=sites
 * writes it (trace 300006); objects with that trace and with the empty
 * trace 1; a frame without line or source; a class serial without LOAD
 * CLASS; a trace naming a missing FRAME; files cut short. */
#include "harness.h"
#include "hprof_builder.h"

#include "../../src/heapdump/heap_graph.h"
#include "../../src/heapdump/hprof_traces.h"

enum { S_OBJECT = 1, S_LEAK, S_KEEP, S_MAIN, S_SIG_V, S_SIG_MAIN, S_SRC, S_INTS };
#define C_OBJECT 0x100u
#define C_LEAK 0x110u

/* the dump: traces 300006 (keep, main), 1 (empty), 300009 (a frame with no line and source, in a class
 * with no LOAD CLASS), 300010 (a frame id without FRAME); objects 0x200 (300006), 0x210 (1), an int[]
 * 0x300 (300006), an Object[] 0x310 (300009) */
static void tt_dump(hb *b, unsigned idsize)
{
    hb_start(b, idsize, "1.0.2");
    hb_utf8(b, S_OBJECT, "java/lang/Object");
    hb_utf8(b, S_LEAK, "Leak");
    hb_utf8(b, S_KEEP, "keep");
    hb_utf8(b, S_MAIN, "main");
    hb_utf8(b, S_SIG_V, "()V");
    hb_utf8(b, S_SIG_MAIN, "([Ljava/lang/String;)V");
    hb_utf8(b, S_SRC, "Leak.java");
    hb_load_class(b, 1, C_OBJECT, 1, S_OBJECT);
    hb_load_class(b, 5, C_LEAK, 1, S_LEAK);
    hb_trace(b, 1, 0, 0, NULL);
    hb_frame(b, 11, S_KEEP, S_SIG_V, S_SRC, 5, 31);
    hb_frame(b, 12, S_MAIN, S_SIG_MAIN, S_SRC, 5, 54);
    hb_frame(b, 13, S_KEEP, S_SIG_V, 0, 99, -3);
    const uint64_t f6[] = { 11, 12 }, f9[] = { 13 }, f10[] = { 11, 777 };
    hb_trace(b, 300006, 0, 2, f6);
    hb_trace(b, 300009, 3, 1, f9);
    hb_trace(b, 300010, 0, 2, f10);
    hb_rec(b, 0x1c);
    hb_class(b, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_LEAK, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_instance_traced(b, 0x200, 300006, C_LEAK, 0, NULL);
    hb_instance_traced(b, 0x210, 1, C_LEAK, 0, NULL);
    hb_u1(b, 0x23); /* int[2] */
    hb_id(b, 0x300);
    hb_u4(b, 300006);
    hb_u4(b, 2);
    hb_u1(b, 10);
    hb_u4(b, 1);
    hb_u4(b, 2);
    hb_u1(b, 0x22); /* Object[1] */
    hb_id(b, 0x310);
    hb_u4(b, 300009);
    hb_u4(b, 1);
    hb_id(b, C_OBJECT);
    hb_id(b, 0x200);
    hb_u1(b, 0x05); /* sticky roots */
    hb_id(b, 0x200);
    hb_end(b);
    hb_rec(b, 0x2c);
    hb_end(b);
}

static void test_traces(void)
{
    for (unsigned idsize = 4; idsize <= 8; idsize += 4) {
        hb b;
        tt_dump(&b, idsize);
        hprof_traces t;
        char err[256] = "";
        ASSERT(hprof_traces_read(&t, b.p, b.len, err, sizeof err));
        CHECK_EQ_INT(t.ntraces, 4);
        CHECK_EQ_INT(t.nframes, 3);
        uint32_t n = 99, thread = 99;
        CHECK(hprof_traces_find(&t, 300006, &n, &thread));
        CHECK_EQ_INT(n, 2);
        CHECK_EQ_INT(thread, 0);
        CHECK(hprof_traces_find(&t, 1, &n, NULL));
        CHECK_EQ_INT(n, 0);
        CHECK(!hprof_traces_find(&t, 300007, &n, NULL));
        hprof_trace_frame f;
        char text[128];
        ASSERT(hprof_traces_frame(&t, 300006, 0, &f));
        CHECK_EQ_MEM(f.method.p, f.method.len, "keep", 4);
        CHECK_EQ_MEM(f.sig.p, f.sig.len, "()V", 3);
        CHECK_EQ_MEM(f.source.p, f.source.len, "Leak.java", 9);
        CHECK_EQ_MEM(f.class_name.p, f.class_name.len, "Leak", 4);
        CHECK_EQ_INT(f.class_serial, 5);
        CHECK_EQ_INT(f.line, 31);
        hprof_traces_frame_text(&f, text, sizeof text);
        CHECK_EQ_STR(text, "Leak.keep(Leak.java:31)");
        ASSERT(hprof_traces_frame(&t, 300006, 1, &f));
        CHECK_EQ_MEM(f.sig.p, f.sig.len, "([Ljava/lang/String;)V", 22);
        hprof_traces_frame_text(&f, text, sizeof text);
        CHECK_EQ_STR(text, "Leak.main(Leak.java:54)");
        CHECK(!hprof_traces_frame(&t, 300006, 2, &f));
        CHECK(!hprof_traces_frame(&t, 1, 0, &f));
        /* no source, a native line, a class serial without LOAD CLASS */
        ASSERT(hprof_traces_frame(&t, 300009, 0, &f));
        CHECK(f.source.p == NULL && f.class_name.p == NULL);
        hprof_traces_frame_text(&f, text, sizeof text);
        CHECK_EQ_STR(text, "<unknown class>.keep(Unknown Source:Native method)");
        hprof_traces_frame_text(&f, text, 10); /* cut, terminated */
        CHECK_EQ_STR(text, "<unknown ");
        /* a frame id without FRAME */
        CHECK(hprof_traces_frame(&t, 300010, 0, &f));
        CHECK(!hprof_traces_frame(&t, 300010, 1, &f));
        hprof_traces_free(&t);
        /* the objects' serials, through the graph */
        heap_graph g;
        ASSERT(heap_graph_build(&g, b.p, b.len, 0, NULL, NULL, err, sizeof err));
        CHECK_EQ_INT(heap_graph_trace_serial(&g, heap_graph_find(&g, 0x200)), 300006);
        CHECK_EQ_INT(heap_graph_trace_serial(&g, heap_graph_find(&g, 0x210)), 1);
        CHECK_EQ_INT(heap_graph_trace_serial(&g, heap_graph_find(&g, 0x300)), 300006);
        CHECK_EQ_INT(heap_graph_trace_serial(&g, heap_graph_find(&g, 0x310)), 300009);
        CHECK_EQ_INT(heap_graph_trace_serial(&g, heap_graph_find(&g, C_LEAK)), 0); /* its CLASS DUMP says 0 (hb_class) */
        CHECK_EQ_INT(heap_graph_trace_serial(&g, HEAP_GRAPH_NONE), 0);
        heap_graph_free(&g);
        free(b.p);
    }
}

/* every prefix of the file: refused with a reason, or read (a cut at a record's end), never a crash */
static void test_cut(void)
{
    hb b;
    tt_dump(&b, 8);
    unsigned refused = 0;
    for (size_t len = 0; len < b.len; len++) {
        unsigned char *copy = malloc(len + 1);
        ASSERT(copy);
        memcpy(copy, b.p, len);
        hprof_traces t;
        char err[256] = "";
        if (hprof_traces_read(&t, copy, len, err, sizeof err)) {
            hprof_trace_frame f;
            for (uint32_t k = 0; k < 3; k++)
                hprof_traces_frame(&t, 300006, k, &f);
            hprof_traces_free(&t);
        } else {
            refused++;
            CHECK(err[0] != '\0');
        }
        free(copy);
    }
    CHECK(refused > b.len / 2);
    hprof_traces t;
    char err[256] = "";
    CHECK(!hprof_traces_read(&t, "JAVA PROFILE 2.0\0", 17, err, sizeof err));
    CHECK(strstr(err, "not an HPROF binary file") != NULL);
    free(b.p);
}

int main(void)
{
    RUN(test_traces);
    RUN(test_cut);
    return DONE();
}
