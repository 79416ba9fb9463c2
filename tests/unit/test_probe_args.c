/* test_probe_args.c — a probe firing's arguments in the trace's encoding
 * (src/trace/probe_args.c): every kind round-trips, extreme values, null and
 * empty Strings, bytes that do not match the kinds, and the text forms. */
#include "../../src/trace/probe_args.h"

#include <math.h>
#include <string.h>

#include "harness.h"

static void test_round_trip(void)
{
    const char *kinds = "ZBCSIJFDso";
    float f = -2.5f;
    double d = 1.0 / 3.0;
    uint32_t fbits;
    uint64_t dbits;
    memcpy(&fbits, &f, sizeof f);
    memcpy(&dbits, &d, sizeof d);
    int64_t values[] = { 1, -128, 65535, -32768, INT32_MIN, INT64_MIN, (int32_t)fbits, (int64_t)dbits, 0, 0 };
    const char *strs[10] = { [8] = "h\xc3\xa9llo" };
    size_t lens[10] = { [8] = 6 };
    uint8_t buf[256];
    size_t n = probe_args_encode(kinds, values, strs, lens, buf, sizeof buf);
    ASSERT(n > 0);
    probe_arg a[10];
    ASSERT(probe_args_decode(kinds, buf, n, a));
    CHECK_EQ_INT(a[0].i, 1);
    CHECK_EQ_INT(a[1].i, -128);
    CHECK_EQ_INT(a[2].i, 65535);
    CHECK_EQ_INT(a[3].i, -32768);
    CHECK_EQ_INT(a[4].i, INT32_MIN);
    CHECK(a[5].i == INT64_MIN);
    CHECK(a[6].d == -2.5 && a[6].i == (int64_t)fbits);
    CHECK(a[7].d == d && (uint64_t)a[7].i == dbits);
    CHECK_EQ_MEM(a[8].s, a[8].len, "h\xc3\xa9llo", 6);
    CHECK(a[9].kind == 'o' && a[9].i == 0);
    /* a byte short, a byte more: refused */
    CHECK(!probe_args_decode(kinds, buf, n - 1, a));
    buf[n] = 0;
    CHECK(!probe_args_decode(kinds, buf, n + 1, a));
    /* too small a buffer: 0, never a partial write past cap */
    CHECK_EQ_INT(probe_args_encode(kinds, values, strs, lens, buf, 5), 0);
}

static void test_strings(void)
{
    int64_t values[3] = { 0 };
    const char *strs[3] = { NULL, "", "x" };
    size_t lens[3] = { 0, 0, 1 };
    uint8_t buf[32];
    size_t n = probe_args_encode("sss", values, strs, lens, buf, sizeof buf);
    CHECK_EQ_INT(n, 4); /* null: 0; "": 1; "x": 2, 'x' */
    probe_arg a[3];
    ASSERT(probe_args_decode("sss", buf, n, a));
    CHECK(a[0].s == NULL);
    CHECK(a[1].s != NULL && a[1].len == 0);
    CHECK_EQ_MEM(a[2].s, a[2].len, "x", 1);
    /* a length past the end */
    uint8_t bad[] = { 9, 'a' };
    CHECK(!probe_args_decode("s", bad, sizeof bad, a));
    /* no strings array: every String is null */
    CHECK_EQ_INT(probe_args_encode("s", values, NULL, NULL, buf, sizeof buf), 1);
}

static void test_kinds_and_text(void)
{
    CHECK(probe_kinds_valid(""));
    CHECK(probe_kinds_valid("ZBCSIJFDso"));
    CHECK(!probe_kinds_valid("IX"));
    CHECK(!probe_kinds_valid("IIIIIIIIIIIII")); /* 13 */
    char out[64];
    probe_arg a = { .kind = 'Z', .i = 1 };
    probe_arg_format(&a, out, sizeof out);
    CHECK_EQ_STR(out, "true");
    a = (probe_arg){ .kind = 'J', .i = -42 };
    probe_arg_format(&a, out, sizeof out);
    CHECK_EQ_STR(out, "-42");
    a = (probe_arg){ .kind = 'D', .d = -0.25 };
    probe_arg_format(&a, out, sizeof out);
    CHECK_EQ_STR(out, "-0.25");
    a = (probe_arg){ .kind = 's', .s = "a\"b\\c\n", .len = 6 };
    probe_arg_format(&a, out, sizeof out);
    CHECK_EQ_STR(out, "\"a\\\"b\\\\c\\x0a\"");
    a = (probe_arg){ .kind = 's' };
    probe_arg_format(&a, out, sizeof out);
    CHECK_EQ_STR(out, "null");
    a = (probe_arg){ .kind = 's', .s = "abcdefgh", .len = 8 };
    CHECK_EQ_INT(probe_arg_format(&a, out, 5), 10); /* cut, the whole length returned */
    CHECK_EQ_STR(out, "\"abc");
}

int main(void)
{
    RUN(test_round_trip);
    RUN(test_strings);
    RUN(test_kinds_and_text);
    return DONE();
}
