/* test_heap_histogram.c — the heap dump class histogram on small dumps built
 * here byte by byte: names, counts and shallow bytes of instances, object and
 * primitive arrays and classes without LOAD CLASS, with 4- and 8-byte ids, in
 * HEAP DUMP and HEAP DUMP SEGMENT records; every truncation of a valid dump
 * and random corruption end in an error or a result, never a crash. */
#include "harness.h"

#include "heapdump/heap_histogram.h"
#include "hprof_builder.h"

/* ---- a tiny HPROF writer (hprof_builder.h), and what this test adds ---- */
static void hb_zeros(hb *b, size_t n)
{
    while (n--)
        hb_u1(b, 0);
}

static void hist_instance(hb *b, uint64_t obj, uint64_t cls, uint32_t nbytes)
{
    hb_u1(b, 0x21);
    hb_id(b, obj);
    hb_u4(b, 1);
    hb_id(b, cls);
    hb_u4(b, nbytes);
    hb_zeros(b, nbytes);
}
static void hist_obj_array(hb *b, uint64_t obj, uint64_t cls, uint32_t n)
{
    hb_u1(b, 0x22);
    hb_id(b, obj);
    hb_u4(b, 1);
    hb_u4(b, n);
    hb_id(b, cls);
    for (uint32_t i = 0; i < n; i++)
        hb_id(b, 0x5000 + i);
}
static void hist_prim_array(hb *b, uint64_t obj, unsigned type, uint32_t n, unsigned elem_size)
{
    hb_u1(b, 0x23);
    hb_id(b, obj);
    hb_u4(b, 1);
    hb_u4(b, n);
    hb_u1(b, type);
    hb_zeros(b, (size_t)n * elem_size);
}
static void hb_roots(hb *b)
{
    hb_u1(b, 0xFF); hb_id(b, 1);
    hb_u1(b, 0x01); hb_id(b, 1); hb_id(b, 2);
    hb_u1(b, 0x02); hb_id(b, 1); hb_u4(b, 1); hb_u4(b, 0);
    hb_u1(b, 0x03); hb_id(b, 1); hb_u4(b, 1); hb_u4(b, 0);
    hb_u1(b, 0x04); hb_id(b, 1); hb_u4(b, 1);
    hb_u1(b, 0x05); hb_id(b, 1);
    hb_u1(b, 0x06); hb_id(b, 1); hb_u4(b, 1);
    hb_u1(b, 0x07); hb_id(b, 1);
    hb_u1(b, 0x08); hb_id(b, 1); hb_u4(b, 1); hb_u4(b, 1);
}
/* CLASS DUMP with one constant, two statics (object, long), two fields (int, object) */
static void hb_class_dump(hb *b, uint64_t cls)
{
    hb_u1(b, 0x20);
    hb_id(b, cls);
    hb_u4(b, 1);
    for (int i = 0; i < 6; i++)
        hb_id(b, 0);
    hb_u4(b, 12);
    hb_u2(b, 1); hb_u2(b, 7); hb_u1(b, 10); hb_u4(b, 42);
    hb_u2(b, 2); hb_id(b, 3); hb_u1(b, 2); hb_id(b, 0); hb_id(b, 3); hb_u1(b, 11); hb_u8(b, 5);
    hb_u2(b, 2); hb_id(b, 3); hb_u1(b, 10); hb_id(b, 3); hb_u1(b, 2);
}

/* The reference dump: String x3 (12 bytes of fields), an Object[3], an
 * instance of a class without LOAD CLASS, int[5], byte[3], boolean[0], an
 * int[][] of 2, and a skipped unknown top-level record. Segments when seg. */
static void build_dump(hb *b, unsigned idsize, bool seg)
{
    hb_start(b, idsize, seg ? "1.0.2" : "1.0.1");
    hb_utf8(b, 1, "java/lang/String");
    hb_utf8(b, 2, "[Ljava/lang/Object;");
    hb_utf8(b, 3, "value");
    hb_utf8(b, 4, "[[I");
    hb_load_class(b, 1, 0x100, 1, 1);
    hb_load_class(b, 2, 0x200, 1, 2);
    hb_rec(b, 0x99); /* unknown: skipped by length */
    hb_u4(b, 0xdeadbeef);
    hb_u1(b, 0x21);
    hb_end(b);
    hb_rec(b, seg ? 0x1C : 0x0C);
    hb_roots(b);
    hb_class_dump(b, 0x100);
    for (int i = 0; i < 3; i++)
        hist_instance(b, 0x1000 + i, 0x100, 12);
    hist_obj_array(b, 0x2000, 0x200, 3);
    hist_instance(b, 0x3000, 0x999, 0);
    if (seg) {
        hb_end(b);
        hb_rec(b, 0x1C);
    }
    hist_prim_array(b, 0x4000, 10, 5, 4);
    hist_prim_array(b, 0x4001, 8, 3, 1);
    hist_prim_array(b, 0x4002, 4, 0, 1);
    hist_obj_array(b, 0x4003, 0x400, 2);
    hb_end(b);
    hb_load_class(b, 3, 0x400, 1, 4); /* after its instances: still names them */
    if (seg) {
        hb_rec(b, 0x2C);
        hb_end(b);
    }
}

static const heap_class_row *find_row(const heap_histogram *h, const char *name)
{
    for (size_t i = 0; i < h->nrows; i++)
        if (strcmp(h->rows[i].name, name) == 0)
            return &h->rows[i];
    return NULL;
}

static void check_dump(unsigned idsize, bool seg)
{
    hb b;
    build_dump(&b, idsize, seg);
    heap_histogram h;
    char err[256];
    bool ok = heap_histogram_read(b.p, b.len, &h, err, sizeof err);
    if (!ok)
        fprintf(stderr, "    error: %s\n", err);
    free(b.p);
    ASSERT(ok);
    CHECK_EQ_STR(h.version, seg ? "1.0.2" : "1.0.1");
    CHECK_EQ_INT(h.idsize, idsize);
    CHECK_EQ_INT(h.nrows, 7);
    CHECK_EQ_INT(h.class_dumps, 1);
    CHECK_EQ_INT(h.gc_roots, 9);
    struct { const char *name; uint64_t n, bytes; } want[] = {
        { "java.lang.String", 3, 3 * 32 },                    /* 16 + 12 = 28 -> 32 */
        { "java.lang.Object[]", 1, idsize == 8 ? 48 : 32 },   /* 20 + 3 ids */
        { "int[][]", 1, idsize == 8 ? 40 : 32 },              /* 20 + 2 ids */
        { "<unknown class 0x999>", 1, 16 },                   /* 16 + 0 */
        { "int[]", 1, 40 },                                   /* 20 + 20 */
        { "byte[]", 1, 24 },                                  /* 20 + 3 = 23 -> 24 */
        { "boolean[]", 1, 24 },                               /* 20 -> 24 */
    };
    uint64_t total_n = 0, total_b = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const heap_class_row *r = find_row(&h, want[i].name);
        if (!CHECK(r != NULL)) {
            fprintf(stderr, "    missing row %s\n", want[i].name);
            continue;
        }
        CHECK_EQ_INT(r->instances, want[i].n);
        CHECK_EQ_INT(r->bytes, want[i].bytes);
        total_n += want[i].n;
        total_b += want[i].bytes;
    }
    CHECK_EQ_INT(h.instances, total_n);
    CHECK_EQ_INT(h.bytes, total_b);
    for (size_t i = 1; i < h.nrows; i++)
        CHECK(h.rows[i - 1].bytes >= h.rows[i].bytes);
    CHECK_EQ_STR(h.rows[0].name, "java.lang.String");
    heap_histogram_free(&h);
}

static void test_segments_id8(void) { check_dump(8, true); }
static void test_segments_id4(void) { check_dump(4, true); }
static void test_heap_dump_id8(void) { check_dump(8, false); }
static void test_heap_dump_id4(void) { check_dump(4, false); }

static void test_every_truncation(void)
{
    for (unsigned idsize = 4; idsize <= 8; idsize += 4) {
        hb b;
        build_dump(&b, idsize, true);
        unsigned failures = 0;
        for (size_t n = 0; n < b.len; n++) {
            unsigned char *cut = malloc(n ? n : 1); /* exact size: ASan sees any overread */
            memcpy(cut, b.p, n);
            heap_histogram h;
            char err[256] = "";
            bool ok = heap_histogram_read(cut, n, &h, err, sizeof err);
            free(cut);
            if (ok || !err[0] || strchr(err, '\n') || h.nrows || h.rows) {
                if (failures++ < 3)
                    fprintf(stderr, "    idsize %u, cut at %zu of %zu: ok=%d err=\"%s\"\n", idsize, n, b.len, ok, err);
                if (ok)
                    heap_histogram_free(&h);
            }
        }
        CHECK_EQ_INT(failures, 0);
        free(b.p);
    }
}

static void test_errors(void)
{
    heap_histogram h;
    char err[256];
    CHECK(!heap_histogram_read("hello", 5, &h, err, sizeof err));
    CHECK(strstr(err, "not an HPROF binary file") != NULL);

    hb b;
    hb_start(&b, 3, "1.0.2");
    CHECK(!heap_histogram_read(b.p, b.len, &h, err, sizeof err));
    CHECK(strstr(err, "identifier size 3") != NULL);
    free(b.p);

    /* no heap dump at all */
    hb_start(&b, 8, "1.0.2");
    hb_utf8(&b, 1, "x");
    CHECK(!heap_histogram_read(b.p, b.len, &h, err, sizeof err));
    CHECK(strstr(err, "no HEAP DUMP") != NULL);
    free(b.p);

    /* unknown sub-record tag, named with its offset */
    hb_start(&b, 8, "1.0.2");
    hb_rec(&b, 0x0C);
    size_t at = b.len;
    hb_u1(&b, 0x42);
    hb_zeros(&b, 8);
    hb_end(&b);
    CHECK(!heap_histogram_read(b.p, b.len, &h, err, sizeof err));
    char want[128];
    snprintf(want, sizeof want, "unknown heap dump sub-record tag 0x42 at offset %zu", at);
    CHECK_EQ_STR(err, want);
    free(b.p);

    /* an instance whose byte count runs past its segment */
    hb_start(&b, 8, "1.0.2");
    hb_rec(&b, 0x0C);
    at = b.len;
    hist_instance(&b, 1, 2, 8);
    b.p[b.len - 9] = 9; /* claims 9 bytes, has 8 */
    hb_end(&b);
    CHECK(!heap_histogram_read(b.p, b.len, &h, err, sizeof err));
    snprintf(want, sizeof want, "truncated INSTANCE DUMP sub-record (tag 0x21) at offset %zu", at);
    CHECK_EQ_STR(err, want);
    free(b.p);

    /* a bad primitive array type */
    hb_start(&b, 4, "1.0.1");
    hb_rec(&b, 0x0C);
    hist_prim_array(&b, 1, 3, 1, 1);
    hb_end(&b);
    CHECK(!heap_histogram_read(b.p, b.len, &h, err, sizeof err));
    CHECK(strstr(err, "bad element type 3") != NULL);
    free(b.p);

    /* a huge array count must not overflow the length check */
    hb_start(&b, 8, "1.0.2");
    hb_rec(&b, 0x0C);
    hist_prim_array(&b, 1, 11, 0, 8);
    memcpy(b.p + b.len - 5, "\xff\xff\xff\xff", 4);
    hb_end(&b);
    CHECK(!heap_histogram_read(b.p, b.len, &h, err, sizeof err));
    CHECK(strstr(err, "truncated PRIMITIVE ARRAY DUMP") != NULL);
    free(b.p);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static void test_random_corruption(void)
{
    hb b;
    build_dump(&b, 8, true);
    unsigned char *copy = malloc(b.len);
    unsigned ok_count = 0, runs = 20000;
    for (unsigned i = 0; i < runs; i++) {
        memcpy(copy, b.p, b.len);
        unsigned flips = 1 + rng() % 4;
        for (unsigned k = 0; k < flips; k++) {
            size_t at = 24 + rng() % (b.len - 24); /* keep the header so records get parsed */
            copy[at] = (unsigned char)(rng() % 3 == 0 ? 0xff : rng());
        }
        size_t n = rng() % 8 == 0 ? rng() % b.len : b.len;
        heap_histogram h;
        char err[256] = "";
        if (heap_histogram_read(copy, n, &h, err, sizeof err)) {
            ok_count++;
            uint64_t sum = 0;
            for (size_t r = 0; r < h.nrows; r++)
                sum += h.rows[r].instances;
            if (sum != h.instances)
                CHECK_EQ_INT(sum, h.instances);
            heap_histogram_free(&h);
        } else if (!err[0]) {
            CHECK(err[0]);
        }
    }
    free(copy);
    free(b.p);
    CHECK(ok_count < runs); /* corruption was noticed at least sometimes */
}

int main(void)
{
    RUN(test_segments_id8);
    RUN(test_segments_id4);
    RUN(test_heap_dump_id8);
    RUN(test_heap_dump_id4);
    RUN(test_every_truncation);
    RUN(test_errors);
    RUN(test_random_corruption);
    return DONE();
}
