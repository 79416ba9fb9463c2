/* test_hprof_heap.c — the streaming heap dump writer: a dump built with it is
 * read back by the histogram reader (counts, classes, roots), its HEAP DUMP
 * SEGMENTs never pass the segment limit and their patched lengths add up
 * (in memory and in a file past the sink's buffer, where the length is
 * patched with pwrite), arrays are big-endian, sparse object arrays get
 * their nulls, an array too long for a segment is cut, and a full disk ends
 * in an error with no file under the final name. */
#include "harness.h"

#include <errno.h>
#include <unistd.h>

#include "format/hprof_bin.h"
#include "format/hprof_heap.h"
#include "heapdump/heap_histogram.h"

enum { CLS_OBJECT = 1, CLS_NODE = 2, CLS_INTS = 3, CLS_NODES = 4, N_NODES = 100 };

static uint32_t rd4(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
static uint64_t rd8(const unsigned char *p) { return (uint64_t)rd4(p) << 32 | rd4(p + 4); }

/* A small dump: Object, Node {int value; Node next}, int[], Node[]. */
static void build(sink *s, uint64_t limit, hprof_heap_stats *st)
{
    hprof_heap *h = hprof_heap_begin(s, 1700000000000ull, limit);
    const char *names[] = { "", "java/lang/Object", "Node", "[I", "[LNode;", "value", "next", "count" };
    for (uint64_t i = 1; i < 8; i++)
        hprof_heap_utf8(h, i, names[i], strlen(names[i]));
    for (uint32_t c = 1; c <= 4; c++)
        hprof_heap_load_class(h, c, c, 1, c);
    hprof_heap_trace(h, 1, 0, 0, NULL);
    hprof_heap_root(h, HPROF_ROOT_UNKNOWN, 1000, 0, 0);
    hprof_heap_root(h, HPROF_ROOT_JNI_GLOBAL, 1000, 77, 0);
    hprof_heap_root(h, HPROF_ROOT_JNI_LOCAL, 1000, 1, 2);
    hprof_heap_root(h, HPROF_ROOT_JAVA_FRAME, 1000, 1, 0);
    hprof_heap_root(h, HPROF_ROOT_NATIVE_STACK, 1000, 1, 0);
    hprof_heap_root(h, HPROF_ROOT_STICKY_CLASS, CLS_NODE, 0, 0);
    hprof_heap_root(h, HPROF_ROOT_THREAD_BLOCK, 1000, 1, 0);
    hprof_heap_root(h, HPROF_ROOT_MONITOR_USED, 1000, 0, 0);
    hprof_heap_root(h, HPROF_ROOT_THREAD_OBJECT, 1000, 1, 1);
    for (uint64_t i = 0; i < N_NODES; i++) {
        unsigned char v[12];
        be_store_u4(v, (uint32_t)i);
        be_store_u8(v + 4, i ? 1000 + i - 1 : 0);
        hprof_heap_instance(h, 1000 + i, 1, CLS_NODE, v, sizeof v);
    }
    int32_t ints[3] = { 1, 0x01020304, -1 };
    hprof_heap_prim_array(h, 5000, 1, HPROF_INT, 3, ints);
    hprof_heap_obj_array_begin(h, 5001, 1, 5, CLS_NODES);
    hprof_heap_obj_array_element(h, 1, 1001);
    hprof_heap_obj_array_element(h, 3, 1003);
    hprof_heap_obj_array_end(h);
    hprof_field statics[1] = { { 7, HPROF_INT, 42 } };
    hprof_field fields[2] = { { 5, HPROF_INT, 0 }, { 6, HPROF_OBJECT, 0 } };
    hprof_class_dump obj = { .id = CLS_OBJECT, .trace = 1 };
    hprof_class_dump node = { .id = CLS_NODE, .trace = 1, .super = CLS_OBJECT, .instance_size = 12,
                              .nstatics = 1, .statics = statics, .nfields = 2, .fields = fields };
    hprof_class_dump ints_c = { .id = CLS_INTS, .trace = 1, .super = CLS_OBJECT };
    hprof_class_dump nodes_c = { .id = CLS_NODES, .trace = 1, .super = CLS_OBJECT };
    hprof_heap_class(h, &obj);
    hprof_heap_class(h, &node);
    hprof_heap_class(h, &ints_c);
    hprof_heap_class(h, &nodes_c);
    hprof_heap_start_thread(h, 1, 1000, 1, 1, 1, 1);
    CHECK_EQ_INT(hprof_heap_end(h, st), JP_OK);
}

/* Walks the top-level records: every segment within limit, sub-records found
 * where expected. Returns the number of segments, or -1. */
static long segments_of(const unsigned char *d, size_t len, uint64_t limit)
{
    size_t at = sizeof HPROF_BIN_MAGIC + 4 + 8;
    long n = 0;
    while (at + 9 <= len) {
        uint32_t rlen = rd4(d + at + 5);
        if (d[at] == HPROF_TAG_HEAP_DUMP_SEGMENT) {
            if (rlen > limit || rlen == 0)
                return -1;
            n++;
        }
        at += 9 + (size_t)rlen;
    }
    return at == len ? n : -1;
}

static const unsigned char *find_sub(const unsigned char *d, size_t len, uint8_t tag, uint64_t id)
{
    for (size_t i = 0; i + 9 <= len; i++)
        if (d[i] == tag && rd8(d + i + 1) == id)
            return d + i;
    return NULL;
}

static void check_dump(const unsigned char *d, size_t len, uint64_t limit, const hprof_heap_stats *st)
{
    heap_histogram hh;
    char err[256];
    ASSERT(heap_histogram_read(d, len, &hh, err, sizeof err));
    CHECK_EQ_INT(hh.class_dumps, 4);
    CHECK_EQ_INT(hh.gc_roots, 9);
    CHECK_EQ_INT(hh.instances, N_NODES + 2);
    bool node = false;
    for (size_t i = 0; i < hh.nrows; i++)
        if (strcmp(hh.rows[i].name, "Node") == 0) {
            node = true;
            CHECK_EQ_INT(hh.rows[i].instances, N_NODES);
            CHECK_EQ_INT(hh.rows[i].bytes, N_NODES * heap_shallow(HEAP_HDR_INSTANCE, 12));
        }
    CHECK(node);
    heap_histogram_free(&hh);
    long segs = segments_of(d, len, limit);
    CHECK(segs >= 1);
    CHECK_EQ_INT(segs, st->segments);
    CHECK_EQ_INT(st->instances, N_NODES);
    CHECK_EQ_INT(st->roots, 9);
    /* int[] {1, 0x01020304, -1} big-endian */
    const unsigned char *p = find_sub(d, len, HPROF_SUB_PRIM_ARRAY_DUMP, 5000);
    ASSERT(p);
    CHECK_EQ_INT(rd4(p + 13), 3);
    CHECK_EQ_INT(p[17], HPROF_INT);
    static const unsigned char want[12] = { 0, 0, 0, 1, 1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff };
    CHECK_EQ_MEM(p + 18, 12, want, 12);
    /* Node[5] {null, 1001, null, 1003, null} */
    p = find_sub(d, len, HPROF_SUB_OBJ_ARRAY_DUMP, 5001);
    ASSERT(p);
    CHECK_EQ_INT(rd4(p + 13), 5);
    CHECK_EQ_INT(rd8(p + 17), CLS_NODES);
    uint64_t el[5];
    for (int i = 0; i < 5; i++)
        el[i] = rd8(p + 25 + 8 * i);
    CHECK(el[0] == 0 && el[1] == 1001 && el[2] == 0 && el[3] == 1003 && el[4] == 0);
    /* the last node points at the one before it */
    p = find_sub(d, len, HPROF_SUB_INSTANCE_DUMP, 1000 + N_NODES - 1);
    ASSERT(p);
    CHECK_EQ_INT(rd4(p + 21), 12);
    CHECK_EQ_INT(rd4(p + 25), N_NODES - 1);
    CHECK_EQ_INT(rd8(p + 29), 1000 + N_NODES - 2);
}

static void test_one_segment(void)
{
    buf b;
    buf_init(&b);
    sink *s = sink_open_memory(&b);
    hprof_heap_stats st;
    build(s, 0, &st);
    char err[128];
    CHECK_EQ_INT(sink_commit(s, err, sizeof err), JP_OK);
    CHECK_EQ_INT(st.segments, 1);
    check_dump(b.data, b.len, HPROF_HEAP_SEGMENT_LIMIT, &st);
    buf_free(&b);
}

/* A 200-byte limit: many segments, each within the limit. */
static void test_small_segments(void)
{
    buf b;
    buf_init(&b);
    sink *s = sink_open_memory(&b);
    hprof_heap_stats st;
    build(s, 200, &st);
    char err[128];
    CHECK_EQ_INT(sink_commit(s, err, sizeof err), JP_OK);
    CHECK(st.segments > 5);
    check_dump(b.data, b.len, 200, &st);
    buf_free(&b);
}

/* Past the sink's buffer: segment lengths are patched in the file itself. */
static void test_file_patch(void)
{
    char path[] = "/tmp/test_hprof_heap.XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    close(fd);
    char err[256];
    sink *s = sink_open_file(path, 0, err, sizeof err);
    ASSERT(s);
    hprof_heap *h = hprof_heap_begin(s, 0, 3u << 20);
    hprof_heap_utf8(h, 1, "[J", 2);
    hprof_heap_load_class(h, 1, 1, 0, 1);
    static int64_t longs[100000];
    for (int i = 0; i < 100000; i++)
        longs[i] = i;
    for (uint64_t i = 0; i < 10; i++)   /* 8 MB: several segments of at most 3 MiB, several sink flushes */
        hprof_heap_prim_array(h, 10 + i, 0, HPROF_LONG, 100000, longs);
    hprof_heap_stats st;
    CHECK_EQ_INT(hprof_heap_end(h, &st), JP_OK);
    CHECK_EQ_INT(sink_commit(s, err, sizeof err), JP_OK);
    size_t len;
    unsigned char *d = th_read_file(path, &len);
    ASSERT(d);
    CHECK_EQ_INT(segments_of(d, len, 3u << 20), st.segments);
    CHECK(st.segments >= 3);
    heap_histogram hh;
    CHECK(heap_histogram_read(d, len, &hh, err, sizeof err));
    CHECK_EQ_INT(hh.instances, 10);
    heap_histogram_free(&hh);
    const unsigned char *p = find_sub(d, len, HPROF_SUB_PRIM_ARRAY_DUMP, 19);
    CHECK(p && rd8(p + 18 + 8 * 99999) == 99999);
    free(d);
    unlink(path);
}

/* An array longer than a segment holds is cut to fit. */
static void test_array_cut(void)
{
    buf b;
    buf_init(&b);
    sink *s = sink_open_memory(&b);
    hprof_heap *h = hprof_heap_begin(s, 0, 1000);
    static int32_t ints[1000];
    hprof_heap_prim_array(h, 7, 0, HPROF_INT, 1000, ints);
    hprof_heap_obj_array_begin(h, 8, 0, 1000, 1);
    hprof_heap_obj_array_element(h, 999, 5);   /* past the cut: dropped */
    hprof_heap_obj_array_end(h);
    hprof_heap_stats st;
    CHECK_EQ_INT(hprof_heap_end(h, &st), JP_OK);
    char err[128];
    CHECK_EQ_INT(sink_commit(s, err, sizeof err), JP_OK);
    CHECK_EQ_INT(st.arrays_cut, 2);
    CHECK_EQ_INT(segments_of(b.data, b.len, 1000), 2);
    const unsigned char *p = find_sub(b.data, b.len, HPROF_SUB_PRIM_ARRAY_DUMP, 7);
    CHECK(p && rd4(p + 13) == (1000 - 18) / 4);
    p = find_sub(b.data, b.len, HPROF_SUB_OBJ_ARRAY_DUMP, 8);
    CHECK(p && rd4(p + 13) == (1000 - 25) / 8);
    buf_free(&b);
}

/* A full disk: the error comes back and no file appears under the name. */
static void test_full_disk(void)
{
    char path[] = "/tmp/test_hprof_heap_full.XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    close(fd);
    unlink(path);
    char err[256];
    sink *s = sink_open_file(path, 0, err, sizeof err);
    ASSERT(s);
    sink_inject_fault(s, 3000, ENOSPC, 0);
    hprof_heap_stats st;
    hprof_heap *h = hprof_heap_begin(s, 0, 0);
    static int64_t longs[200000];   /* past the sink's buffer */
    hprof_heap_prim_array(h, 1, 0, HPROF_LONG, 200000, longs);
    CHECK_EQ_INT(hprof_heap_end(h, &st), JP_ERR_NOSPC);
    CHECK_EQ_INT(sink_commit(s, err, sizeof err), JP_ERR_NOSPC);
    CHECK(strstr(err, "No space left") != NULL);
    CHECK(access(path, F_OK) != 0);
}

int main(void)
{
    RUN(test_one_segment);
    RUN(test_small_segments);
    RUN(test_file_patch);
    RUN(test_array_cut);
    RUN(test_full_disk);
    return DONE();
}
