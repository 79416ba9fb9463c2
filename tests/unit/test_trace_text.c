/* test_trace_text.c — a trace file as text (src/trace/trace_text.c, what
 * `jvmprof trace` prints): two threads' chunks interleaved in the file come
 * out merged in time order, with method, class and thread names; each
 * filter; text the program chose escaped; a file cut short prints what it
 * holds and says where it stopped; data that is no trace is refused. */
#include "../../src/trace/trace_text.h"

#include "../../src/common/buf.h"
#include "harness.h"

static uint8_t file[8192];
static size_t file_len;

static void meta(trace_chunk *c, unsigned type, uint64_t a, uint64_t b, uint64_t d, uint64_t e, uint64_t f,
                 const char *text)
{
    uint64_t fields[] = { a, b, d, e, f };
    CHECK(trace_chunk_put(c, type, 0, fields, text, text ? strlen(text) : 0));
}

/* Metadata; then thread 1's first chunk, thread 2's chunk, thread 1's second
 * chunk, each in time order, the threads' times interleaved. */
static void write_file(void)
{
    trace_file_header(file, 0);
    file_len = TRACE_HEADER_SIZE;
    trace_chunk c;
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 0, 0);
    meta(&c, TRACE_EV_STRING, 1, 0, 0, 0, 0, "demo/Calls");
    meta(&c, TRACE_EV_STRING, 2, 0, 0, 0, 0, "fib");
    meta(&c, TRACE_EV_STRING, 3, 0, 0, 0, 0, "(I)I");
    meta(&c, TRACE_EV_STRING, 4, 0, 0, 0, 0, "main");
    meta(&c, TRACE_EV_STRING, 5, 0, 0, 0, 0, "worker");
    meta(&c, TRACE_EV_STRING, 6, 0, 0, 0, 0, "run");
    meta(&c, TRACE_EV_STRING, 7, 0, 0, 0, 0, "()V");
    meta(&c, TRACE_EV_CLASS, 1, 1, 0, 0, 0, NULL);
    meta(&c, TRACE_EV_METHOD, 10, 1, 2, 3, TRACE_METHOD_STATIC, NULL);
    meta(&c, TRACE_EV_METHOD, 11, 1, 6, 7, 0, NULL);
    meta(&c, TRACE_EV_THREAD, 1, 4, 0, 0, 0, NULL);
    meta(&c, TRACE_EV_THREAD, 2, 5, 0, 0, 0, NULL);
    file_len += trace_chunk_finish(&c);

    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 1, 100);
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER, 100, (uint64_t[]){ 10 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER, 300, (uint64_t[]){ 10 }, NULL, 0));
    file_len += trace_chunk_finish(&c);
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 2, 200);
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER, 200, (uint64_t[]){ 11 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_USER, 400, NULL, "checkpoint", 10));
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT, 1500000000, NULL, NULL, 0));
    file_len += trace_chunk_finish(&c);
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 1, 350);
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT_THROW, 350, NULL, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT, 500, NULL, NULL, 0));
    file_len += trace_chunk_finish(&c);
}

static char text[8192];

typedef jp_status (*view_fn)(const void *data, size_t len, const trace_text_filter *f, sink *s,
                             trace_text_summary *sum, char *why, size_t whylen);

/* The file's first len bytes through a view into text[] (or its error). */
static jp_status as_view(view_fn view, size_t len, const trace_text_filter *f, trace_text_summary *sum)
{
    buf out;
    buf_init(&out);
    sink *s = sink_open_memory(&out);
    char why[256] = "", err[256];
    jp_status st = view(file, len, f, s, sum, why, sizeof why);
    sink_commit(s, err, sizeof err);
    snprintf(text, sizeof text, "%.*s", (int)out.len, out.data ? (const char *)out.data : "");
    if (st != JP_OK)
        snprintf(text, sizeof text, "%s", why);
    buf_free(&out);
    return st;
}

static jp_status as_text(size_t len, const trace_text_filter *f, trace_text_summary *sum)
{
    return as_view(trace_text_write, len, f, sum);
}

static size_t slowest_n;
static jp_status slowest_view(const void *data, size_t len, const trace_text_filter *f, sink *s,
                              trace_text_summary *sum, char *why, size_t whylen)
{
    return trace_slowest_write(data, len, f, slowest_n, s, sum, why, whylen);
}

static void test_time_order(void)
{
    write_file();
    trace_text_filter f = { 0 };
    trace_text_summary sum;
    ASSERT(as_text(file_len, &f, &sum) == JP_OK);
    CHECK_EQ_STR(text, "     0.000000100 main enter demo.Calls.fib(I)I depth=1\n"
                       "     0.000000200 worker enter demo.Calls.run()V depth=1\n"
                       "     0.000000300 main enter demo.Calls.fib(I)I depth=2\n"
                       "     0.000000350 main exit-throw demo.Calls.fib(I)I depth=2\n"
                       "     0.000000400 worker user checkpoint\n"
                       "     0.000000500 main exit demo.Calls.fib(I)I depth=1\n"
                       "     1.500000000 worker exit demo.Calls.run()V depth=1\n");
    CHECK_EQ_INT(sum.events, 7);
    CHECK_EQ_INT(sum.printed, 7);
    CHECK_EQ_INT(sum.chunks, 4);
    CHECK(!sum.stopped);
}

static void test_filters(void)
{
    write_file();
    trace_text_summary sum;
    trace_text_filter f = { .thread = 2 };
    ASSERT(as_text(file_len, &f, &sum) == JP_OK);
    CHECK_EQ_INT(sum.printed, 3);
    CHECK(strstr(text, "main") == NULL);
    f = (trace_text_filter){ .types = 1ull << TRACE_EV_EXIT | 1ull << TRACE_EV_EXIT_THROW };
    ASSERT(as_text(file_len, &f, &sum) == JP_OK);
    CHECK_EQ_INT(sum.printed, 3);
    f = (trace_text_filter){ .method = "Calls.run" };
    ASSERT(as_text(file_len, &f, &sum) == JP_OK);
    CHECK_EQ_STR(text, "     0.000000200 worker enter demo.Calls.run()V depth=1\n"
                       "     1.500000000 worker exit demo.Calls.run()V depth=1\n");
    f = (trace_text_filter){ .from_ns = 300, .to_ns = 400 };
    ASSERT(as_text(file_len, &f, &sum) == JP_OK);
    CHECK_EQ_INT(sum.printed, 3);
    CHECK_EQ_INT(sum.events, 7);
}

static void test_chrome(void)
{
    write_file();
    trace_text_filter f = { .thread = 2 };
    trace_text_summary sum;
    ASSERT(as_view(trace_chrome_write, file_len, &f, &sum) == JP_OK);
    CHECK_EQ_STR(text, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
                       "{\"pid\":1,\"tid\":1,\"ph\":\"M\",\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}},\n"
                       "{\"pid\":1,\"tid\":2,\"ph\":\"M\",\"name\":\"thread_name\",\"args\":{\"name\":\"worker\"}},\n"
                       "{\"pid\":1,\"tid\":2,\"ts\":0.200,\"ph\":\"B\",\"name\":\"demo.Calls.run\","
                       "\"args\":{\"signature\":\"()V\",\"depth\":1}},\n"
                       "{\"pid\":1,\"tid\":2,\"ts\":0.400,\"ph\":\"i\",\"s\":\"t\",\"name\":\"checkpoint\"},\n"
                       "{\"pid\":1,\"tid\":2,\"ts\":1500000.000,\"ph\":\"E\",\"name\":\"demo.Calls.run\"}\n"
                       "]}\n");
    /* a message with a quote, a backslash and a line break stays one JSON string */
    file_len = TRACE_HEADER_SIZE;
    trace_chunk c;
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 1, 0);
    CHECK(trace_chunk_put(&c, TRACE_EV_USER, 5, NULL, "a\"b\\c\nd", 7));
    file_len += trace_chunk_finish(&c);
    f = (trace_text_filter){ 0 };
    ASSERT(as_view(trace_chrome_write, file_len, &f, &sum) == JP_OK);
    CHECK(strstr(text, "\"name\":\"a\\\"b\\\\c\\u000ad\"") != NULL);
}

/* Text the program chose (a user event, a thread's name) cannot forge a line
 * or reach the terminal: control characters and backslashes escaped */
static void test_escaped(void)
{
    static const char forged[] = "ok\n     0.000000001 main user forged\x1b[2J\t\\x0a\r\x7f\xc2\x9b\xc3\xa9";
    static const char name[] = "evil\nthread";
    file_len = TRACE_HEADER_SIZE;
    trace_chunk c;
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 0, 0);
    meta(&c, TRACE_EV_STRING, 1, 0, 0, 0, 0, name);
    meta(&c, TRACE_EV_THREAD, 1, 1, 0, 0, 0, NULL);
    file_len += trace_chunk_finish(&c);
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 1, 0);
    CHECK(trace_chunk_put(&c, TRACE_EV_USER, 5, NULL, forged, strlen(forged)));
    file_len += trace_chunk_finish(&c);
    trace_text_filter f = { 0 };
    trace_text_summary sum;
    ASSERT(as_text(file_len, &f, &sum) == JP_OK);
    CHECK_EQ_STR(text, "     0.000000005 evil\\nthread user ok\\n     0.000000001 main user forged\\x1b[2J\\t"
                       "\\\\x0a\\r\\x7f\\xc2\\x9b\xc3\xa9\n");
    CHECK_EQ_INT(sum.printed, 1);
}

static void test_slowest(void)
{
    write_file();
    trace_text_filter f = { 0 };
    trace_text_summary sum;
    slowest_n = 2;
    ASSERT(as_view(slowest_view, file_len, &f, &sum) == JP_OK);
    /* run: 200 ns .. 1.5 s; the outer fib: 100 .. 500 ns; the inner fib: 300 .. 350 ns */
    CHECK_EQ_STR(text, "SLOWEST CALLS (2 of 3 calls)\n"
                       "rank     duration ms       start s thread / method, then its callers\n"
                       "   1            1499.999800       0.000000 worker\n"
                       "           demo.Calls.run()V\n"
                       "   2               0.000400       0.000000 main\n"
                       "           demo.Calls.fib(I)I\n");
    CHECK_EQ_INT(sum.printed, 2);
    /* by method: the inner fib and its caller */
    f.method = "fib";
    slowest_n = 5;
    ASSERT(as_view(slowest_view, file_len, &f, &sum) == JP_OK);
    CHECK(strstr(text, "SLOWEST CALLS (2 of 2 calls)") != NULL);
    CHECK(strstr(text, "   2               0.000050       0.000000 main\n"
                       "           demo.Calls.fib(I)I\n"
                       "        <- demo.Calls.fib(I)I\n") != NULL);
}

static void test_cut_and_bad(void)
{
    write_file();
    trace_text_summary sum;
    trace_text_filter f = { 0 };
    /* cut inside the last chunk: thread 1's second chunk is gone */
    ASSERT(as_text(file_len - 3, &f, &sum) == JP_OK);
    CHECK_EQ_INT(sum.printed, 5);
    CHECK(sum.stopped);
    CHECK(strstr(sum.why, "stopped at offset") && strstr(sum.why, "cut short"));
    CHECK(strstr(text, "exit-throw") == NULL);
    /* every cut: never a crash, never more events than the whole file's */
    for (size_t len = 0; len < file_len; len++) {
        jp_status st = as_text(len, &f, &sum);
        CHECK(st == (len < TRACE_HEADER_SIZE ? JP_ERR_FORMAT : JP_OK));
        CHECK(sum.printed <= 7);
    }
    static const char hprof[] = "JAVA PROFILE 1.0.2\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
    memcpy(file, hprof, sizeof hprof);
    CHECK(as_text(sizeof hprof, &f, &sum) == JP_ERR_FORMAT);
    CHECK(strstr(text, "not a jvmprof trace") != NULL);
}

int main(void)
{
    RUN(test_time_order);
    RUN(test_filters);
    RUN(test_chrome);
    RUN(test_escaped);
    RUN(test_slowest);
    RUN(test_cut_and_bad);
    return DONE();
}
