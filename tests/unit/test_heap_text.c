/* test_heap_text.c — the HPROF binary heap dump to ASCII converter on dumps
 * built here with the real writer (hprof_heap.c, 8-byte ids, tiny segments)
 * and one built byte by byte (4-byte ids, one HEAP DUMP record): exact lines
 * for every root kind, class dumps with statics, instances whose values span
 * a class and its superclass, object and primitive arrays; every truncation
 * and some corruptions end in JP_ERR_FORMAT with nothing written. */
#include "harness.h"

#include <time.h>

#include "common/buf.h"
#include "format/hprof_heap.h"
#include "format/sink.h"
#include "heapdump/hprof_heap_text.h"

#define T_TIME_MS 1700000000000ull /* Tue Nov 14 22:13:20 2023 UTC */
#define T_BASE 0x7f00deadbeef0010ull

enum {
    S_OBJECT = 1, S_BASE, S_DERIVED, S_STRING, S_STRING_ARR, S_INT_ARR, S_OBJ_ARR2, S_NEXT, S_COUNT, S_LONGNAME,
    S_LABEL, S_FLAG, S_VALUE, S_INSTANCE, S_ZERO, S_LIMIT, S_GHOST,
};

static void t_utf8(hprof_heap *h, uint64_t id, const char *s) { hprof_heap_utf8(h, id, s, strlen(s)); }

static void t_put8(unsigned char *p, uint64_t v) { be_store_u8(p, v); }

/* What the converter should accept: the model dump. `variant` breaks it:
 * 1 an instance of a class without CLASS DUMP, 2 an instance with a wrong
 * byte count, 3 a superclass cycle. */
static void t_build(buf *out, int variant, hprof_heap_stats *stats)
{
    buf_init(out);
    sink *s = sink_open_memory(out);
    hprof_heap *h = hprof_heap_begin(s, T_TIME_MS, 100);
    t_utf8(h, S_OBJECT, "java/lang/Object");
    t_utf8(h, S_BASE, "demo/Base");
    t_utf8(h, S_DERIVED, "demo/Derived");
    t_utf8(h, S_STRING, "java/lang/String");
    t_utf8(h, S_STRING_ARR, "[Ljava/lang/String;");
    t_utf8(h, S_INT_ARR, "[I");
    t_utf8(h, S_OBJ_ARR2, "[[Ljava/lang/Object;");
    t_utf8(h, S_NEXT, "next");
    t_utf8(h, S_COUNT, "count");
    t_utf8(h, S_LONGNAME, "longName");
    t_utf8(h, S_LABEL, "label");
    t_utf8(h, S_FLAG, "flag");
    t_utf8(h, S_VALUE, "value");
    t_utf8(h, S_INSTANCE, "INSTANCE");
    t_utf8(h, S_ZERO, "ZERO");
    t_utf8(h, S_LIMIT, "limit");
    hprof_heap_load_class(h, 1, 0x100, 0, S_OBJECT);
    hprof_heap_load_class(h, 2, 0x200, 0, S_BASE);
    hprof_heap_load_class(h, 3, 0x300, 0, S_DERIVED);
    hprof_heap_load_class(h, 4, 0x400, 0, S_STRING_ARR);
    hprof_heap_load_class(h, 5, 0x500, 0, S_STRING);
    hprof_heap_load_class(h, 6, 0x600, 0, S_INT_ARR);
    hprof_heap_load_class(h, 7, 0x700, 0, S_OBJ_ARR2);

    hprof_heap_root(h, HPROF_ROOT_THREAD_OBJECT, 0x5000, 1, 2);
    hprof_heap_root(h, HPROF_ROOT_UNKNOWN, 0x5001, 0, 0);
    hprof_heap_root(h, HPROF_ROOT_JNI_GLOBAL, 0x2000, 0xabc, 0);
    hprof_heap_root(h, HPROF_ROOT_JNI_LOCAL, 0x1000, 1, 0xffffffffu);
    hprof_heap_root(h, HPROF_ROOT_STICKY_CLASS, 0x500, 0, 0);
    hprof_heap_root(h, HPROF_ROOT_MONITOR_USED, T_BASE, 0, 0);
    hprof_heap_root(h, HPROF_ROOT_THREAD_BLOCK, 0x1000, 1, 0);
    hprof_heap_root(h, HPROF_ROOT_JAVA_FRAME, 0x2000, 1, 3);
    hprof_heap_root(h, HPROF_ROOT_NATIVE_STACK, 0x3000, 2, 0);

    /* instances before the classes, as our agent writes them */
    unsigned char v[64] = { 0 };
    /* Derived: label (ref), flag (boolean); then Base: next (ref), count (int), longName (ref) */
    t_put8(v, 0x2000);
    v[8] = 1;
    t_put8(v + 9, T_BASE);
    be_store_u4(v + 17, 7);
    t_put8(v + 21, 0);
    hprof_heap_instance(h, 0x1000, 5, variant == 1 ? 0x999 : 0x300, v, variant == 2 ? 28 : 29);
    memset(v, 0, sizeof v);
    be_store_u4(v + 8, 9);
    t_put8(v + 12, 0x2000); /* Base: next null, count 9, longName */
    hprof_heap_instance(h, T_BASE, 0, 0x200, v, 20);
    t_put8(v, 0x3000);
    hprof_heap_instance(h, 0x2000, 0, 0x500, v, 8);
    hprof_heap_obj_array_begin(h, 0x4000, 0, 3, 0x400);
    hprof_heap_obj_array_element(h, 0, 0x2000);
    hprof_heap_obj_array_element(h, 2, 0x2000);
    hprof_heap_obj_array_end(h);
    hprof_heap_obj_array_begin(h, 0x4001, 0, 1, 0x700);
    hprof_heap_obj_array_element(h, 0, 0x4000);
    hprof_heap_obj_array_end(h);
    int32_t ints[3] = { 1, 2, 3 };
    hprof_heap_prim_array(h, 0x3000, 0, HPROF_INT, 3, ints);
    uint16_t chars[5] = { 'h', 'e', 'l', 'l', 'o' };
    hprof_heap_prim_array(h, 0x3001, 0, HPROF_CHAR, 5, chars);

    hprof_class_dump c = { .id = 0x100, .trace = 0 };
    hprof_heap_class(h, &c);
    hprof_field base_st[3] = { { S_INSTANCE, HPROF_OBJECT, T_BASE }, { S_ZERO, HPROF_OBJECT, 0 },
                               { S_LIMIT, HPROF_INT, 42 } };
    hprof_field base_f[3] = { { S_NEXT, HPROF_OBJECT, 0 }, { S_COUNT, HPROF_INT, 0 },
                              { S_LONGNAME, HPROF_OBJECT, 0 } };
    c = (hprof_class_dump){ .id = 0x200, .super = variant == 3 ? 0x300 : 0x100, .trace = 0, .instance_size = 20,
                            .nstatics = 3, .statics = base_st, .nfields = 3, .fields = base_f };
    hprof_heap_class(h, &c);
    hprof_field der_f[2] = { { S_LABEL, HPROF_OBJECT, 0 }, { S_FLAG, HPROF_BOOLEAN, 0 } };
    c = (hprof_class_dump){ .id = 0x300, .super = 0x200, .loader = 0x6000, .signers = 0x6001, .domain = 0x6002,
                            .trace = 4, .instance_size = 29, .nfields = 2, .fields = der_f };
    hprof_heap_class(h, &c);
    hprof_field str_f[1] = { { S_VALUE, HPROF_OBJECT, 0 } };
    c = (hprof_class_dump){ .id = 0x500, .super = 0x100, .instance_size = 8, .nfields = 1, .fields = str_f };
    hprof_heap_class(h, &c);
    c = (hprof_class_dump){ .id = 0x400, .super = 0x100 }; /* array classes are dumped, as HotSpot does */
    hprof_heap_class(h, &c);
    c = (hprof_class_dump){ .id = 0x600, .super = 0x100 };
    hprof_heap_class(h, &c);
    /* no CLASS DUMP for java/lang/Object[] nor java/lang/Object[][] */
    hprof_heap_stats st;
    jp_status rc = hprof_heap_end(h, &st);
    if (stats)
        *stats = st;
    char err[128];
    if (rc != JP_OK || sink_commit(s, err, sizeof err) != JP_OK)
        abort();
}

/* Converts; the text (NUL-terminated) stays in out. */
static jp_status t_convert(const void *data, size_t len, buf *out, char *err, size_t errlen)
{
    buf_init(out);
    sink *s = sink_open_memory(out);
    jp_status st = hprof_heap_text_write(data, len, s, err, errlen);
    char e2[128];
    jp_status st2 = sink_commit(s, e2, sizeof e2);
    buf_put(out, "", 1);
    out->len--;
    return st != JP_OK ? st : st2;
}

static const char t_golden[] =
    "JAVA PROFILE 1.0.1, created Tue Nov 14 22:13:20 2023\n"
    "\n"
    "HEAP DUMP BEGIN (7 objects, 256 bytes) Tue Nov 14 22:13:20 2023\n"
    "ROOT 5000 (kind=<thread>, id=1, trace=2)\n"
    "ROOT 5001 (kind=<unknown>)\n"
    "ROOT 2000 (kind=<JNI global ref>, id=abc)\n"
    "ROOT 1000 (kind=<JNI local ref>, thread=1, frame=-1)\n"
    "ROOT 500 (kind=<system class>, name=java.lang.String)\n"
    "ROOT 7f00deadbeef0010 (kind=<busy monitor>)\n"
    "ROOT 1000 (kind=<thread block>, thread=1)\n"
    "ROOT 2000 (kind=<Java stack>, thread=1, frame=3)\n"
    "ROOT 3000 (kind=<native stack>, thread=2)\n"
    "OBJ 1000 (sz=48, trace=5, class=demo.Derived@300)\n"
    "\tlabel\t\t2000\n"
    "\tnext\t\t7f00deadbeef0010\n"
    "OBJ 7f00deadbeef0010 (sz=40, trace=0, class=demo.Base@200)\n"
    "\tlongName\t2000\n"
    "OBJ 2000 (sz=24, trace=0, class=java.lang.String@500)\n"
    "\tvalue\t\t3000\n"
    "ARR 4000 (sz=48, trace=0, nelems=3, elem type=java.lang.String@500)\n"
    "\t[0]\t\t2000\n"
    "\t[2]\t\t2000\n"
    "ARR 4001 (sz=32, trace=0, nelems=1, elem type=java.lang.Object[]@700)\n"
    "\t[0]\t\t4000\n"
    "ARR 3000 (sz=32, trace=0, nelems=3, elem type=int)\n"
    "ARR 3001 (sz=32, trace=0, nelems=5, elem type=char)\n"
    "CLS 100 (name=java.lang.Object, trace=0)\n"
    "CLS 200 (name=demo.Base, trace=0)\n"
    "\tsuper\t\t100\n"
    "\tstatic INSTANCE\t7f00deadbeef0010\n"
    "CLS 300 (name=demo.Derived, trace=4)\n"
    "\tsuper\t\t200\n"
    "\tloader\t\t6000\n"
    "\tsigners\t\t6001\n"
    "\tdomain\t\t6002\n"
    "CLS 500 (name=java.lang.String, trace=0)\n"
    "\tsuper\t\t100\n"
    "CLS 400 (name=java.lang.String[], trace=0)\n"
    "\tsuper\t\t100\n"
    "CLS 600 (name=int[], trace=0)\n"
    "\tsuper\t\t100\n"
    "HEAP DUMP END\n";

/* Prints the first differing line of two texts. */
static void t_diff(const char *got, const char *want)
{
    int line = 1;
    while (*got && *got == *want) {
        line += *got == '\n';
        got++, want++;
    }
    fprintf(stderr, "    first difference on line %d:\n    got:  %.*s\n    want: %.*s\n", line,
            (int)strcspn(got, "\n"), got, (int)strcspn(want, "\n"), want);
}

static void test_golden(void)
{
    buf dump, out;
    hprof_heap_stats st;
    t_build(&dump, 0, &st);
    CHECK(st.segments >= 4); /* several segments */
    char err[256];
    CHECK_EQ_INT(t_convert(dump.data, dump.len, &out, err, sizeof err), JP_OK);
    CHECK_EQ_STR(err, "");
    if (!CHECK_EQ_STR((const char *)out.data, t_golden))
        t_diff((const char *)out.data, t_golden);
    buf_free(&out);
    buf_free(&dump);
}

/* Every proper prefix is an error with a one-line message, and nothing is written. */
static void test_truncated(void)
{
    buf dump, out;
    t_build(&dump, 0, NULL);
    unsigned bad = 0, wrote = 0, multiline = 0;
    for (size_t n = 0; n < dump.len; n++) {
        unsigned char *copy = malloc(n ? n : 1); /* exactly n bytes, so ASan sees any overrun */
        ASSERT(copy);
        memcpy(copy, dump.data, n);
        char err[256] = "";
        jp_status st = t_convert(copy, n, &out, err, sizeof err);
        bad += st != JP_ERR_FORMAT;
        wrote += out.len != 0;
        multiline += err[0] == '\0' || strchr(err, '\n') != NULL;
        if (st != JP_ERR_FORMAT && bad == 1)
            fprintf(stderr, "    prefix of %zu bytes: status %d\n", n, (int)st);
        buf_free(&out);
        free(copy);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(wrote, 0);
    CHECK_EQ_INT(multiline, 0);
    /* one message in full */
    char err[256];
    CHECK_EQ_INT(t_convert(dump.data, dump.len - 10, &out, err, sizeof err), JP_ERR_FORMAT);
    CHECK(strstr(err, "truncated HEAP DUMP END record") || strstr(err, "truncated"));
    CHECK(strstr(err, "offset") != NULL);
    buf_free(&out);
    buf_free(&dump);
}

static void t_expect_error(int variant, const char *want1, const char *want2)
{
    buf dump, out;
    t_build(&dump, variant, NULL);
    char err[256] = "";
    CHECK_EQ_INT(t_convert(dump.data, dump.len, &out, err, sizeof err), JP_ERR_FORMAT);
    CHECK_EQ_INT(out.len, 0);
    if (!CHECK(strstr(err, want1) && strstr(err, want2)))
        fprintf(stderr, "    message: %s\n", err);
    buf_free(&out);
    buf_free(&dump);
}

static void test_bad_instances(void)
{
    t_expect_error(1, "INSTANCE DUMP 0x1000 at offset ", "class <unknown class 0x999> (0x999) has no CLASS DUMP");
    t_expect_error(2, "INSTANCE DUMP 0x1000 at offset ", "28 bytes of field values, but class demo.Derived (0x300) lays out 29");
    t_expect_error(3, "INSTANCE DUMP 0x7f00deadbeef0010 at offset ", "class demo.Base (0x200) has a superclass cycle through 0x200");
}

/* The offset of the first sub-record with this tag and id (8-byte ids). */
static size_t t_find_sub(const buf *dump, uint8_t tag, uint64_t id)
{
    unsigned char want[9];
    want[0] = tag;
    be_store_u8(want + 1, id);
    for (size_t i = 0; i + 9 <= dump->len; i++)
        if (memcmp(dump->data + i, want, 9) == 0)
            return i;
    return 0;
}

static void test_corrupt(void)
{
    buf dump, out;
    t_build(&dump, 0, NULL);
    char err[256];
    /* an unknown sub-record tag */
    size_t at = t_find_sub(&dump, 0x23, 0x3001);
    ASSERT(at);
    dump.data[at] = 0x42;
    CHECK_EQ_INT(t_convert(dump.data, dump.len, &out, err, sizeof err), JP_ERR_FORMAT);
    char want[96];
    snprintf(want, sizeof want, "unknown heap dump sub-record tag 0x42 at offset %zu", at);
    CHECK_EQ_STR(err, want);
    buf_free(&out);
    dump.data[at] = 0x23;
    /* a bad primitive array element type */
    dump.data[at + 1 + 8 + 4 + 4] = 3;
    CHECK_EQ_INT(t_convert(dump.data, dump.len, &out, err, sizeof err), JP_ERR_FORMAT);
    CHECK(strstr(err, "PRIMITIVE ARRAY DUMP at offset") != NULL);
    buf_free(&out);
    dump.data[at + 1 + 8 + 4 + 4] = HPROF_CHAR;
    /* an object array whose count runs past its segment */
    at = t_find_sub(&dump, 0x22, 0x4000);
    ASSERT(at);
    dump.data[at + 1 + 8 + 4] = 0x40;
    CHECK_EQ_INT(t_convert(dump.data, dump.len, &out, err, sizeof err), JP_ERR_FORMAT);
    snprintf(want, sizeof want, "truncated OBJECT ARRAY DUMP sub-record (tag 0x22) at offset %zu", at);
    CHECK_EQ_STR(err, want);
    buf_free(&out);
    dump.data[at + 1 + 8 + 4] = 0;
    /* a bad header */
    dump.data[3] = 'x';
    CHECK_EQ_INT(t_convert(dump.data, dump.len, &out, err, sizeof err), JP_ERR_FORMAT);
    CHECK(strstr(err, "not an HPROF binary file") != NULL);
    buf_free(&out);
    dump.data[3] = 'A';
    CHECK_EQ_INT(t_convert(dump.data, dump.len, &out, err, sizeof err), JP_OK);
    buf_free(&out);
    /* every byte set to three values in turn: an error or a text, never a
     * crash (in an exactly sized copy, so ASan sees any overrun) */
    unsigned ok = 0, format = 0, other = 0;
    static const unsigned char vals[3] = { 0x00, 0xff, 0x21 };
    unsigned char *d = malloc(dump.len);
    ASSERT(d);
    memcpy(d, dump.data, dump.len);
    for (size_t i = 0; i < dump.len; i++) {
        unsigned char old = d[i];
        for (int k = 0; k < 3; k++) {
            d[i] = vals[k];
            jp_status st = t_convert(d, dump.len, &out, err, sizeof err);
            ok += st == JP_OK;
            format += st == JP_ERR_FORMAT;
            other += st != JP_OK && st != JP_ERR_FORMAT;
            buf_free(&out);
        }
        d[i] = old;
    }
    CHECK(ok > 0);
    CHECK(format > 0);
    CHECK_EQ_INT(other, 0);
    free(d);
    buf_free(&dump);
}

/* ---- a 1.0.1 dump with 4-byte ids and one HEAP DUMP record, by hand ---- */

static void b_u1(buf *b, unsigned v) { buf_put_u1(b, (uint8_t)v); }
static void b_u2(buf *b, unsigned v) { buf_put_u2(b, (uint16_t)v); }
static void b_u4(buf *b, uint32_t v) { buf_put_u4(b, v); }
static void b_str(buf *b, const char *s) { buf_put(b, s, strlen(s)); }
static void b_rec(buf *b, unsigned tag, uint32_t len)
{
    b_u1(b, tag);
    b_u4(b, 0);
    b_u4(b, len);
}
static void b_utf8(buf *b, uint32_t id, const char *s)
{
    b_rec(b, 0x01, (uint32_t)(4 + strlen(s)));
    b_u4(b, id);
    b_str(b, s);
}

static void test_idsize4(void)
{
    buf b;
    buf_init(&b);
    b_str(&b, "JAVA PROFILE 1.0.1");
    b_u1(&b, 0);
    b_u4(&b, 4);
    b_u4(&b, (uint32_t)(T_TIME_MS >> 32));
    b_u4(&b, (uint32_t)T_TIME_MS);
    b_utf8(&b, 1, "Node");
    b_utf8(&b, 2, "link");
    b_utf8(&b, 3, "[LNode;");
    b_rec(&b, 0x02, 16);
    b_u4(&b, 1), b_u4(&b, 0x10), b_u4(&b, 0), b_u4(&b, 1);
    b_rec(&b, 0x02, 16);
    b_u4(&b, 2), b_u4(&b, 0x20), b_u4(&b, 0), b_u4(&b, 3);
    size_t at = b.len;
    b_rec(&b, 0x0C, 0);
    size_t body = b.len;
    /* CLASS DUMP Node: one instance field "link" and a constant pool entry */
    b_u1(&b, 0x20), b_u4(&b, 0x10), b_u4(&b, 7);
    for (int i = 0; i < 6; i++)
        b_u4(&b, 0);
    b_u4(&b, 4);
    b_u2(&b, 1), b_u2(&b, 3), b_u1(&b, 2), b_u4(&b, 0x30);
    b_u2(&b, 0);
    b_u2(&b, 1), b_u4(&b, 2), b_u1(&b, 2);
    /* INSTANCE DUMP 0x30 -> 0x31, 0x31 -> null */
    b_u1(&b, 0x21), b_u4(&b, 0x30), b_u4(&b, 8), b_u4(&b, 0x10), b_u4(&b, 4), b_u4(&b, 0x31);
    b_u1(&b, 0x21), b_u4(&b, 0x31), b_u4(&b, 8), b_u4(&b, 0x10), b_u4(&b, 4), b_u4(&b, 0);
    /* OBJECT ARRAY DUMP of Node[] */
    b_u1(&b, 0x22), b_u4(&b, 0x40), b_u4(&b, 0), b_u4(&b, 2), b_u4(&b, 0x20), b_u4(&b, 0), b_u4(&b, 0x31);
    be_store_u4(b.data + at + 5, (uint32_t)(b.len - body));
    buf out;
    char err[256];
    CHECK_EQ_INT(t_convert(b.data, b.len, &out, err, sizeof err), JP_OK);
    static const char want[] =
        "JAVA PROFILE 1.0.1, created Tue Nov 14 22:13:20 2023\n"
        "\n"
        "HEAP DUMP BEGIN (3 objects, 80 bytes) Tue Nov 14 22:13:20 2023\n"
        "CLS 10 (name=Node, trace=7)\n"
        "\tconstant pool entry 3\t30\n"
        "OBJ 30 (sz=24, trace=8, class=Node@10)\n"
        "\tlink\t\t31\n"
        "OBJ 31 (sz=24, trace=8, class=Node@10)\n"
        "ARR 40 (sz=32, trace=0, nelems=2, elem type=Node@10)\n"
        "\t[1]\t\t31\n"
        "HEAP DUMP END\n";
    if (!CHECK_EQ_STR((const char *)out.data, want))
        t_diff((const char *)out.data, want);
    buf_free(&out);
    /* every prefix: an error (a 1.0.1 dump ends with its HEAP DUMP record, so the full length is the only success) */
    unsigned bad = 0;
    for (size_t n = 0; n < b.len; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        ASSERT(copy);
        memcpy(copy, b.data, n);
        jp_status st = t_convert(copy, n, &out, err, sizeof err);
        bad += st != JP_ERR_FORMAT;
        buf_free(&out);
        free(copy);
    }
    CHECK_EQ_INT(bad, 0);
    buf_free(&b);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    RUN(test_golden);
    RUN(test_truncated);
    RUN(test_bad_instances);
    RUN(test_corrupt);
    RUN(test_idsize4);
    return DONE();
}
