/* test_heap_fixup.c — hprof_heap_fixup on dumps built here with the real
 * writer (hprof_heap.c, 8-byte ids spaced like HotSpot's addresses, tiny
 * segments): every kind of reference to an object the dump does not hold
 * (instance fields of the class and of its superclass, object array elements,
 * static fields, loader/signers/domain, a GC root) becomes null and nothing
 * else changes; a second run changes nothing; ids at a spacing of 1 work, the
 * sparse ids of our dumper=jvmti dumps (kept in a sorted array, not a bitmap),
 * ids spanning 1..2^64-1, and 4-byte ids; a truncated or corrupt dump is
 * refused with the bytes untouched. */
#include "harness.h"

#include "common/buf.h"
#include "format/hprof_heap.h"
#include "format/sink.h"
#include "heapdump/hprof_heap_fixup.h"

#define F_BASE 0x7ff000000ull      /* "addresses": 8-byte spaced */
#define F_GONE 0x7ff000f08ull      /* in range and spaced, but not in the dump */
#define F_FAR 0x900000000ull       /* above every id */
#define F_ODD 0x7ff000013ull       /* in range, not on the spacing */

enum { S_OBJECT = 1, S_BASE, S_DERIVED, S_ARR, S_NEXT, S_COUNT, S_LABEL, S_STAT, S_STAT2 };

static uint64_t f_id(unsigned k) { return F_BASE + 8ull * k; }

static void f_utf8(hprof_heap *h, uint64_t id, const char *s) { hprof_heap_utf8(h, id, s, strlen(s)); }

/* The ids of f_build's dump: its 4 classes, 2 instances, 2 arrays, and 3
 * ids it does not define. */
typedef struct f_ids {
    uint64_t cls_obj, cls_base, cls_der, cls_arr, a, b, arr, prim;
    uint64_t gone, far, odd; /* in the range, above it (or anywhere), between the ids */
} f_ids;

enum f_scheme {
    F_HOTSPOT,    /* addresses at 8-byte spacing: the bitmap */
    F_SPACING1,   /* consecutive small numbers: the bitmap */
    F_JVMTI,      /* heap_dump.c's: sequence numbers, arrays (length + 1) << 32 | seq, left-out objects
                   * 1 << 63 | n: sparse, the sorted id array */
    F_FULL_RANGE, /* ids 1 and 2^64-1 at spacing 1: 2^64 - 1 bits of bitmap once wrapped to 0 bytes */
};

static f_ids f_scheme_ids(enum f_scheme k)
{
    switch (k) {
    case F_HOTSPOT:
        return (f_ids){ f_id(1), f_id(2), f_id(3), f_id(4), f_id(10), f_id(11), f_id(12), f_id(13), F_GONE, F_FAR, F_ODD };
    case F_SPACING1:
        return (f_ids){ 1, 2, 3, 4, 10, 11, 12, 13, 50, 1000, 51 };
    case F_JVMTI:
        return (f_ids){ 1, 2, 3, 4, 10, 11, 12 | 5ull << 32, 13 | 41ull << 32,
                        1ull << 63 | 7, 50, 14 | 4ull << 32 };
    case F_FULL_RANGE:
    default:
        return (f_ids){ 1, 2, 3, 4, 10, UINT64_MAX, 12, 13, 50, UINT64_MAX - 1, 51 };
    }
}

/* A dump with 7 dangling references (one a GC root) to ids that are not in
 * it (gone, far, odd); `nulled`: the same dump with those references written
 * as null, which is what the fix-up must make of it. Sets *n_refs to the
 * number of non-null references in the first. */
static void f_build(buf *out, enum f_scheme k, bool nulled, unsigned *n_refs)
{
    f_ids ids = f_scheme_ids(k);
    uint64_t gone = ids.gone, far = ids.far, odd = ids.odd, bits = F_GONE;
    uint64_t cls_obj = ids.cls_obj, cls_base = ids.cls_base, cls_der = ids.cls_der, cls_arr = ids.cls_arr;
    if (nulled)
        gone = far = odd = 0;
    uint64_t a = ids.a, b = ids.b, arr = ids.arr, prim = ids.prim;
    buf_init(out);
    sink *s = sink_open_memory(out);
    hprof_heap *h = hprof_heap_begin(s, 1, 100);
    f_utf8(h, S_OBJECT, "java/lang/Object");
    f_utf8(h, S_BASE, "demo/Base");
    f_utf8(h, S_DERIVED, "demo/Derived");
    f_utf8(h, S_ARR, "[Ljava/lang/Object;");
    f_utf8(h, S_NEXT, "next");
    f_utf8(h, S_COUNT, "count");
    f_utf8(h, S_LABEL, "label");
    f_utf8(h, S_STAT, "S");
    f_utf8(h, S_STAT2, "T");
    hprof_heap_load_class(h, 1, cls_obj, 0, S_OBJECT);
    hprof_heap_load_class(h, 2, cls_base, 0, S_BASE);
    hprof_heap_load_class(h, 3, cls_der, 0, S_DERIVED);
    hprof_heap_load_class(h, 4, cls_arr, 0, S_ARR);
    hprof_heap_root(h, HPROF_ROOT_STICKY_CLASS, cls_der, 0, 0);  /* 1 */
    hprof_heap_root(h, HPROF_ROOT_JAVA_FRAME, a, 1, 0);           /* 2 */
    hprof_heap_root(h, HPROF_ROOT_JNI_GLOBAL, gone, 0x1234, 0);   /* 3: dangling root */
    /* Derived a: label -> b, then Base: next -> gone, count 7 */
    unsigned char v[32] = { 0 };
    be_store_u8(v, b);
    be_store_u8(v + 8, gone);
    be_store_u4(v + 16, 7);
    hprof_heap_instance(h, a, 0, cls_der, v, 20);                 /* 4, 5: dangling */
    /* Derived b: label -> far (dangling), Base: next -> a */
    be_store_u8(v, far);
    be_store_u8(v + 8, a);
    hprof_heap_instance(h, b, 0, cls_der, v, 20);                 /* 6: dangling, 7 */
    hprof_heap_obj_array_begin(h, arr, 0, 4, cls_arr);
    hprof_heap_obj_array_element(h, 0, a);                        /* 8 */
    hprof_heap_obj_array_element(h, 1, odd);                      /* 9: dangling */
    hprof_heap_obj_array_element(h, 3, prim);                     /* 10 */
    hprof_heap_obj_array_end(h);
    int32_t ints[40] = { 1, 2 }; /* 40: the jvmti scheme's id (41 << 32 | 13) spans more than 2^37 */
    hprof_heap_prim_array(h, prim, 0, HPROF_INT, 40, ints);
    hprof_class_dump c = { .id = cls_obj };
    hprof_heap_class(h, &c);
    hprof_field st[3] = { { S_STAT, HPROF_OBJECT, gone }, { S_STAT2, HPROF_OBJECT, arr }, { S_COUNT, HPROF_LONG, bits } };
    hprof_field base_f[2] = { { S_NEXT, HPROF_OBJECT, 0 }, { S_COUNT, HPROF_INT, 0 } };
    c = (hprof_class_dump){ .id = cls_base, .super = cls_obj, .loader = gone, .instance_size = 12, .nstatics = 3,
                            .statics = st, .nfields = 2, .fields = base_f };
    hprof_heap_class(h, &c);                                      /* 11 super, 12 loader: dangling, 13 static: dangling, 14 */
    hprof_field der_f[1] = { { S_LABEL, HPROF_OBJECT, 0 } };
    c = (hprof_class_dump){ .id = cls_der, .super = cls_base, .domain = far, .instance_size = 20, .nfields = 1,
                            .fields = der_f };
    hprof_heap_class(h, &c);                                      /* 15 super, 16 domain: dangling */
    c = (hprof_class_dump){ .id = cls_arr, .super = cls_obj };
    hprof_heap_class(h, &c);                                      /* 17 */
    hprof_heap_stats hs;
    char err[128];
    if (hprof_heap_end(h, &hs) != JP_OK || sink_commit(s, err, sizeof err) != JP_OK)
        abort();
    *n_refs = 17;
}

static void f_check(enum f_scheme k)
{
    buf dump, want;
    unsigned n_refs, unused;
    f_build(&dump, k, false, &n_refs);
    f_build(&want, k, true, &unused);
    ASSERT(want.len == dump.len);
    uint8_t *w = malloc(dump.len);
    ASSERT(w);
    memcpy(w, dump.data, dump.len);
    hprof_fixup_stats fs;
    char err[256];
    CHECK_EQ_INT(hprof_heap_fixup(w, dump.len, &fs, err, sizeof err), JP_OK);
    CHECK_EQ_STR(err, "");
    CHECK_EQ_INT(fs.references, n_refs);
    CHECK_EQ_INT(fs.nulled, 7);
    CHECK_EQ_INT(fs.roots_nulled, 1);
    CHECK_EQ_INT(fs.objects, 4 + 4); /* 4 classes, 2 instances, 2 arrays */
    CHECK(memcmp(w, want.data, want.len) == 0); /* those 7 nulled, every other byte as it was */
    /* a second run finds nothing more */
    CHECK_EQ_INT(hprof_heap_fixup(w, dump.len, &fs, err, sizeof err), JP_OK);
    CHECK_EQ_INT(fs.references, n_refs - 7);
    CHECK_EQ_INT(fs.nulled, 0);
    free(w);
    buf_free(&dump);
    buf_free(&want);
}

static void test_hotspot_spacing(void) { f_check(F_HOTSPOT); }

static void test_spacing_one(void) { f_check(F_SPACING1); }

/* jvmprof's own dumper=jvmti dumps: ids up to 2^63, sparse (once refused:
 * "more than 4 GiB of bitmap"); the defined ids go to a sorted array. */
static void test_jvmti_ids(void) { f_check(F_JVMTI); }

/* Ids 1 .. 2^64-1 at spacing 1: the bitmap's size once wrapped to 0 bytes
 * and pass 2 wrote past it. */
static void test_full_range(void) { f_check(F_FULL_RANGE); }

/* Every proper prefix is refused with a one-line message and left as it was. */
static void test_truncated(void)
{
    buf dump;
    unsigned n_refs;
    f_build(&dump, F_HOTSPOT, false, &n_refs);
    unsigned bad = 0, changed = 0, multiline = 0;
    for (size_t n = 0; n < dump.len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees any overrun */
        ASSERT(copy);
        memcpy(copy, dump.data, n);
        char err[256] = "";
        hprof_fixup_stats fs;
        jp_status st = hprof_heap_fixup(copy, n, &fs, err, sizeof err);
        bad += st != JP_ERR_FORMAT;
        changed += n && memcmp(copy, dump.data, n) != 0;
        multiline += err[0] == '\0' || strchr(err, '\n') != NULL;
        free(copy);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(changed, 0);
    CHECK_EQ_INT(multiline, 0);
    buf_free(&dump);
}

/* A corrupt sub-record deep in the file: refused before any byte changes
 * (the dangling references before it stay as they were). */
static void test_corrupt(void)
{
    buf dump;
    unsigned n_refs;
    f_build(&dump, F_HOTSPOT, false, &n_refs);
    unsigned char want[9] = { 0x23 };
    be_store_u8(want + 1, f_id(13));
    size_t at = 0;
    for (size_t i = 0; i + 9 <= dump.len && !at; i++)
        if (memcmp(dump.data + i, want, 9) == 0)
            at = i;
    ASSERT(at);
    dump.data[at + 1 + 8 + 4 + 4] = 3; /* a bad primitive array element type */
    uint8_t *w = malloc(dump.len);
    ASSERT(w);
    memcpy(w, dump.data, dump.len);
    char err[256];
    CHECK_EQ_INT(hprof_heap_fixup(w, dump.len, NULL, err, sizeof err), JP_ERR_FORMAT);
    CHECK(strstr(err, "PRIMITIVE ARRAY DUMP at offset") != NULL);
    CHECK(memcmp(w, dump.data, dump.len) == 0);
    free(w);
    buf_free(&dump);
}

/* A 1.0.1 dump with 4-byte ids, by hand: a constant pool entry, an instance
 * field and an array element name missing objects (`nulled`: written as 0). */
static void f_build4(buf *b, bool nulled)
{
    uint32_t gone = nulled ? 0 : 0x99, cp = nulled ? 0 : 0x55, elem = nulled ? 0 : 0x77;
    buf_init(b);
    buf_put(b, "JAVA PROFILE 1.0.1", 18);
    buf_put_u1(b, 0);
    buf_put_u4(b, 4);
    buf_put_u4(b, 0), buf_put_u4(b, 1);
    buf_put_u1(b, 0x01), buf_put_u4(b, 0), buf_put_u4(b, 8), buf_put_u4(b, 1), buf_put(b, "Node", 4);
    buf_put_u1(b, 0x01), buf_put_u4(b, 0), buf_put_u4(b, 8), buf_put_u4(b, 2), buf_put(b, "link", 4);
    size_t at = b->len;
    buf_put_u1(b, 0x0C), buf_put_u4(b, 0), buf_put_u4(b, 0);
    size_t body = b->len;
    /* CLASS DUMP 0x10: constant pool entry 3 -> cp; one instance field "link" */
    buf_put_u1(b, 0x20), buf_put_u4(b, 0x10), buf_put_u4(b, 0);
    for (int i = 0; i < 6; i++)
        buf_put_u4(b, 0);
    buf_put_u4(b, 4);
    buf_put_u2(b, 1), buf_put_u2(b, 3), buf_put_u1(b, 2), buf_put_u4(b, cp);
    buf_put_u2(b, 0);
    buf_put_u2(b, 1), buf_put_u4(b, 2), buf_put_u1(b, 2);
    /* INSTANCE DUMP 0x30 -> gone, 0x31 -> 0x30 */
    buf_put_u1(b, 0x21), buf_put_u4(b, 0x30), buf_put_u4(b, 0), buf_put_u4(b, 0x10), buf_put_u4(b, 4), buf_put_u4(b, gone);
    buf_put_u1(b, 0x21), buf_put_u4(b, 0x31), buf_put_u4(b, 0), buf_put_u4(b, 0x10), buf_put_u4(b, 4), buf_put_u4(b, 0x30);
    /* OBJECT ARRAY DUMP 0x40 of class 0x10: [0x31, elem] */
    buf_put_u1(b, 0x22), buf_put_u4(b, 0x40), buf_put_u4(b, 0), buf_put_u4(b, 2), buf_put_u4(b, 0x10);
    buf_put_u4(b, 0x31), buf_put_u4(b, elem);
    be_store_u4(b->data + at + 5, (uint32_t)(b->len - body));
}

static void test_idsize4(void)
{
    buf dump, want;
    f_build4(&dump, false);
    f_build4(&want, true);
    hprof_fixup_stats fs;
    char err[256];
    CHECK_EQ_INT(hprof_heap_fixup(dump.data, dump.len, &fs, err, sizeof err), JP_OK);
    CHECK_EQ_STR(err, "");
    CHECK_EQ_INT(fs.references, 5); /* cp, gone, 0x30, 0x31, elem */
    CHECK_EQ_INT(fs.nulled, 3);
    CHECK_EQ_INT(fs.objects, 4);
    CHECK(dump.len == want.len && memcmp(dump.data, want.data, want.len) == 0);
    buf_free(&dump);
    buf_free(&want);
}

int main(void)
{
    RUN(test_hotspot_spacing);
    RUN(test_spacing_one);
    RUN(test_jvmti_ids);
    RUN(test_full_range);
    RUN(test_truncated);
    RUN(test_corrupt);
    RUN(test_idsize4);
    return DONE();
}
