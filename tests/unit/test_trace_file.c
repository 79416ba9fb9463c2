/* test_trace_file.c — the trace file format (src/trace/trace_file.c): every
 * event type written and read back, chunks that fill up, a file cut at every
 * byte, a damaged chunk, malformed events inside a sound chunk, and headers
 * that are not ours. */
#include "../../src/trace/trace_file.h"

#include "harness.h"

static uint8_t file[4096];
static size_t file_len;

static void file_start(void)
{
    trace_file_header(file, 1700000000000000000ull);
    file_len = TRACE_HEADER_SIZE;
}

static void file_add(trace_chunk *c)
{
    file_len += trace_chunk_finish(c);
}

/* Two chunks: metadata (thread 0), then thread 7's events. */
static void write_sample(void)
{
    file_start();
    trace_chunk c;
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 0, 0);
    CHECK(trace_chunk_put(&c, TRACE_EV_STRING, 0, (uint64_t[]){ 1 }, "demo/Calls", 10));
    CHECK(trace_chunk_put(&c, TRACE_EV_STRING, 0, (uint64_t[]){ 2 }, "fib", 3));
    CHECK(trace_chunk_put(&c, TRACE_EV_STRING, 0, (uint64_t[]){ 3 }, "(I)I", 4));
    CHECK(trace_chunk_put(&c, TRACE_EV_CLASS, 0, (uint64_t[]){ 1, 1 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_METHOD, 0, (uint64_t[]){ 300, 1, 2, 3, TRACE_METHOD_STATIC }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_THREAD, 0, (uint64_t[]){ 7, 2, 3, 5, TRACE_THREAD_DAEMON }, NULL, 0));
    CHECK_EQ_INT(c.events, 6);
    file_add(&c);
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 7, 1000);
    CHECK(trace_chunk_put(&c, TRACE_EV_THREAD_START, 1000, (uint64_t[]){ 7 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER, 1100, (uint64_t[]){ 300 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER_AT, 1150, (uint64_t[]){ 300, 2 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT_THROW, 1400, NULL, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_USER, 1500, NULL, "half way", 8));
    CHECK(trace_chunk_put(&c, TRACE_EV_ALLOC, 1600, (uint64_t[]){ 9, 1, 24, 0 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_GC_START, 1700, (uint64_t[]){ 1 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_GC_END, 5000000000ull, (uint64_t[]){ 1 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_GC, 0, (uint64_t[]){ 1, TRACE_GC_YOUNG, 2, 3, 1ull << 40, 12345 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_FREE, 5000000001ull, (uint64_t[]){ 9 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_CALL, 5000000002ull, (uint64_t[]){ 300, 3, 4999999999ull, 1 }, NULL, 0));
    /* a time before the last counts as the last */
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT, 4000, NULL, NULL, 0));
    file_add(&c);
}

static void test_round_trip(void)
{
    write_sample();
    trace_reader r;
    ASSERT(trace_reader_open(&r, file, file_len) == JP_OK);
    CHECK_EQ_INT(r.start_wall_ns, 1700000000000000000ull);
    trace_event e;
    static const unsigned types[] = { TRACE_EV_STRING, TRACE_EV_STRING, TRACE_EV_STRING, TRACE_EV_CLASS,
                                      TRACE_EV_METHOD, TRACE_EV_THREAD, TRACE_EV_THREAD_START, TRACE_EV_ENTER,
                                      TRACE_EV_ENTER_AT, TRACE_EV_EXIT_THROW, TRACE_EV_USER, TRACE_EV_ALLOC,
                                      TRACE_EV_GC_START, TRACE_EV_GC_END, TRACE_EV_GC, TRACE_EV_FREE,
                                      TRACE_EV_CALL, TRACE_EV_EXIT };
    static const uint64_t times[] = { 0, 0, 0, 0, 0, 0, 1000, 1100, 1150, 1400, 1500, 1600, 1700,
                                      5000000000ull, 0, 5000000001ull, 5000000002ull, 5000000002ull };
    size_t n = 0;
    while (trace_reader_next(&r, &e)) {
        if (n < sizeof types / sizeof types[0]) {
            CHECK_EQ_INT(e.type, types[n]);
            CHECK_EQ_INT(e.time_ns, times[n]);
            CHECK_EQ_INT(e.thread, n < 6 ? 0 : 7);
        }
        if (n == 0)
            CHECK(e.text_len == 10 && memcmp(e.text, "demo/Calls", 10) == 0);
        if (n == 4)
            CHECK(e.f[0] == 300 && e.f[1] == 1 && e.f[2] == 2 && e.f[3] == 3 && e.f[4] == TRACE_METHOD_STATIC);
        if (n == 7)
            CHECK(e.f[0] == 300 && e.f[1] == 0);
        if (n == 8)
            CHECK(e.f[0] == 300 && e.f[1] == 2);
        if (n == 10)
            CHECK(e.text_len == 8 && memcmp(e.text, "half way", 8) == 0);
        if (n == 5)
            CHECK(e.f[0] == 7 && e.f[1] == 2 && e.f[2] == 3 && e.f[3] == 5 && e.f[4] == TRACE_THREAD_DAEMON);
        if (n == 13)
            CHECK(e.f[0] == 1);
        if (n == 14)
            CHECK(e.f[0] == 1 && e.f[1] == TRACE_GC_YOUNG && e.f[2] == 2 && e.f[3] == 3 && e.f[4] == 1ull << 40 &&
                  e.f[5] == 12345);
        if (n == 16)
            CHECK(e.f[0] == 300 && e.f[1] == 3 && e.f[2] == 4999999999ull && e.f[3] == 1);
        n++;
    }
    CHECK_EQ_INT(n, sizeof types / sizeof types[0]);
    CHECK(!r.stopped);
    CHECK_EQ_INT(r.chunks, 2);
    CHECK_EQ_INT(r.events, n);
    CHECK_EQ_STR(trace_event_name(TRACE_EV_GC_END), "gc-end");
    CHECK(trace_event_name(9) == NULL && trace_event_name(TRACE_EV_PROBE) != NULL && trace_event_name(200) == NULL);
}

/* The events of the complete chunks, and only those, whatever byte the file ends at. */
static void test_cut_everywhere(void)
{
    write_sample();
    size_t full = file_len;
    trace_reader r;
    ASSERT(trace_reader_open(&r, file, full) == JP_OK);
    trace_event e;
    trace_reader_next(&r, &e);
    size_t second = 0; /* where the second chunk starts */
    while (trace_reader_next(&r, &e))
        if (e.thread == 7 && !second)
            second = e.offset - TRACE_CHUNK_HEADER_SIZE;
    ASSERT(second > TRACE_HEADER_SIZE);
    for (size_t len = 0; len <= full; len++) {
        if (trace_reader_open(&r, file, len) != JP_OK) {
            CHECK(len < TRACE_HEADER_SIZE);
            continue;
        }
        size_t n = 0;
        while (trace_reader_next(&r, &e))
            n++;
        size_t want = len == full ? 18 : len >= second ? 6 : 0;
        if (!CHECK_EQ_INT(n, want))
            fprintf(stderr, "    cut at %zu\n", len);
        bool whole = len == full || len == second || len == TRACE_HEADER_SIZE;
        CHECK(r.stopped == !whole);
        if (r.stopped)
            CHECK(strstr(r.why, "stopped at offset ") && strstr(r.why, "cut short"));
    }
}

static void test_damaged(void)
{
    write_sample();
    /* a byte flipped in the second chunk: the first chunk's events, then a stop naming the offset */
    file[file_len - 3] ^= 0x40;
    trace_reader r;
    ASSERT(trace_reader_open(&r, file, file_len) == JP_OK);
    trace_event e;
    size_t n = 0;
    while (trace_reader_next(&r, &e))
        n++;
    CHECK_EQ_INT(n, 6);
    CHECK(r.stopped);
    CHECK(strstr(r.why, "checksum does not match") != NULL);
    CHECK(strstr(r.why, "1 complete chunks before it") != NULL);
    /* garbage where a chunk should start */
    write_sample();
    memset(file + file_len, 0xAB, 40);
    ASSERT(trace_reader_open(&r, file, file_len + 40) == JP_OK);
    n = 0;
    while (trace_reader_next(&r, &e))
        n++;
    CHECK_EQ_INT(n, 18);
    CHECK(r.stopped && strstr(r.why, "chunk (\"TCHK\") expected") != NULL);
    char want[64];
    snprintf(want, sizeof want, "stopped at offset %zu:", file_len);
    CHECK(strstr(r.why, want) != NULL);
}

/* A chunk whose checksum is right but whose events are not: a stop, never a read past it. */
static void test_malformed_events(void)
{
    static const uint8_t bad[][6] = {
        { 99 },                         /* unknown type */
        { TRACE_EV_ENTER, 0x80, 0x80 }, /* the time's LEB128 never ends */
        { TRACE_EV_ALLOC, 5, 1 },       /* one of four numbers */
        { TRACE_EV_USER, 1, 200, 'x' }, /* text longer than the chunk */
        { TRACE_EV_STRING, 1 },         /* no length */
    };
    static const size_t lens[] = { 1, 3, 3, 4, 2 };
    static const char *const why[] = { "unknown type 99", "time runs past", "field 2 runs past", "text runs past",
                                       "text runs past" };
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        file_start();
        trace_chunk c;
        trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 3, 0);
        CHECK(trace_chunk_put(&c, TRACE_EV_THREAD_START, 10, (uint64_t[]){ 3 }, NULL, 0));
        memcpy(file + file_len + c.len, bad[k], lens[k]);
        c.len += lens[k];
        file_add(&c);
        trace_reader r;
        ASSERT(trace_reader_open(&r, file, file_len) == JP_OK);
        trace_event e;
        CHECK(trace_reader_next(&r, &e) && e.type == TRACE_EV_THREAD_START && e.time_ns == 10);
        CHECK(!trace_reader_next(&r, &e));
        CHECK(r.stopped);
        if (!CHECK(strstr(r.why, why[k]) != NULL))
            fprintf(stderr, "    case %zu: %s\n", k, r.why);
    }
}

static void test_headers_and_room(void)
{
    trace_reader r;
    CHECK(trace_reader_open(&r, "JAVA PROFILE 1.0.2\0......................", 40) == JP_ERR_FORMAT);
    CHECK(strstr(r.why, "not a jvmprof trace") != NULL);
    file_start();
    file[16] = 9;
    CHECK(trace_reader_open(&r, file, file_len) == JP_ERR_FORMAT);
    CHECK(strstr(r.why, "version 9") != NULL);
    /* an empty trace: a header and no chunk */
    file_start();
    ASSERT(trace_reader_open(&r, file, file_len) == JP_OK);
    trace_event e;
    CHECK(!trace_reader_next(&r, &e) && !r.stopped);
    /* a chunk fills up: put says no and writes nothing */
    uint8_t small[TRACE_CHUNK_HEADER_SIZE + 9];
    trace_chunk c;
    trace_chunk_begin(&c, small, sizeof small, 1, 0);
    CHECK(trace_chunk_put(&c, TRACE_EV_ALLOC, 100, (uint64_t[]){ 1, 1, 1, 0 }, NULL, 0)); /* 6 bytes */
    size_t was = c.len;
    CHECK(!trace_chunk_put(&c, TRACE_EV_ENTER_AT, 200, (uint64_t[]){ 1, 2 }, NULL, 0)); /* 4 bytes: no */
    CHECK_EQ_INT(c.len, was);
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER, 150, (uint64_t[]){ 1 }, NULL, 0)); /* 3 bytes: just fits */
    CHECK_EQ_INT(c.len, sizeof small);
    CHECK(!trace_chunk_put(&c, 77, 300, NULL, NULL, 0));
}

/* A virtual thread's events on its carrier's chunk: between its mount and unmount they name it, with
 * the carrier; the next chunk of the carrier begins as the carrier's own. */
static void test_virtual_threads(void)
{
    file_start();
    trace_chunk c;
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 0, 0);
    CHECK(trace_chunk_put(&c, TRACE_EV_VTHREAD, 0, (uint64_t[]){ 20, 0, 1234 }, NULL, 0));
    file_add(&c);
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 7, 100);
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER, 100, (uint64_t[]){ 300 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_MOUNT, 110, (uint64_t[]){ 20 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_ENTER, 120, (uint64_t[]){ 301 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_UNMOUNT, 130, (uint64_t[]){ 20 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT, 140, NULL, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_MOUNT, 150, (uint64_t[]){ 20 }, NULL, 0));
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT, 160, NULL, NULL, 0));
    file_add(&c); /* ends with 20 mounted */
    trace_chunk_begin(&c, file + file_len, sizeof file - file_len, 7, 200);
    CHECK(trace_chunk_put(&c, TRACE_EV_EXIT, 200, NULL, NULL, 0));
    file_add(&c);
    trace_reader r;
    ASSERT(trace_reader_open(&r, file, file_len) == JP_OK);
    trace_event e;
    static const unsigned types[] = { TRACE_EV_VTHREAD, TRACE_EV_ENTER, TRACE_EV_MOUNT, TRACE_EV_ENTER, TRACE_EV_UNMOUNT,
                                      TRACE_EV_EXIT, TRACE_EV_MOUNT, TRACE_EV_EXIT, TRACE_EV_EXIT };
    static const uint32_t threads[] = { 0, 7, 20, 20, 20, 7, 20, 20, 7 };
    static const uint32_t carriers[] = { 0, 0, 7, 7, 7, 0, 7, 7, 0 };
    size_t n = 0;
    while (trace_reader_next(&r, &e)) {
        if (n < sizeof types / sizeof types[0]) {
            CHECK_EQ_INT(e.type, types[n]);
            CHECK_EQ_INT(e.thread, threads[n]);
            CHECK_EQ_INT(e.carrier, carriers[n]);
        }
        if (n == 0)
            CHECK(e.f[0] == 20 && e.f[1] == 0 && e.f[2] == 1234);
        n++;
    }
    CHECK_EQ_INT(n, sizeof types / sizeof types[0]);
    CHECK(!r.stopped);
    CHECK_EQ_STR(trace_event_name(TRACE_EV_MOUNT), "mount");
    CHECK_EQ_STR(trace_event_name(TRACE_EV_UNMOUNT), "unmount");
}

int main(void)
{
    RUN(test_round_trip);
    RUN(test_virtual_threads);
    RUN(test_cut_everywhere);
    RUN(test_damaged);
    RUN(test_malformed_events);
    RUN(test_headers_and_room);
    return DONE();
}
