/* test_flame.c — the flame graph formats (src/format/collapsed.c,
 * collapsed_read.c, flame_html.c, trace_stacks.c): exact collapsed text of a
 * model built in code (merging, kind suffixes, thread roots, state leaves,
 * ';' and newlines in names), the round trip collapsed -> model ->
 * collapsed, the reader's errors, the HTML page's escaping and
 * self-containedness, its timeline of record=y's recording, HPROF traces
 * turned into stacks, and size: a 2000-frame stack and 50,000 distinct stacks. */
#include "harness.h"

#include <time.h>

#include "format/format.h"
#include "model/recording.h"

/* ---- helpers ------------------------------------------------------------ */

static method_id method(model *m, const char *cls, const char *name, const char *sig)
{
    class_id c = model_class_intern(m, model_cstring(m, cls), (str_id){ 0 });
    return model_method_intern(m, c, model_cstring(m, name), model_cstring(m, sig));
}

/* Adds samples to the stack of `n` frames given top first. */
static void stack(model *m, uint32_t thread, sample_state st, const uint32_t *frames, uint32_t n, uint64_t samples)
{
    model_stack_add(m, model_stack_intern(m, thread, st, frames, n), samples);
}

/* Writes m with f into a NUL-terminated malloc'ed string (NULL on failure). */
static char *write_str(const model *m, const jp_format_ops *f, const report_opts *o, size_t *len)
{
    buf out;
    buf_init(&out);
    sink *s = sink_open_memory(&out);
    if (!s)
        return NULL;
    jp_status st = f->write(m, o, s);
    char err[128];
    if (st != JP_OK) {
        sink_abort(s);
        buf_free(&out);
        return NULL;
    }
    if (sink_commit(s, err, sizeof err) != JP_OK) {
        buf_free(&out);
        return NULL;
    }
    buf_put(&out, "", 1);
    if (len)
        *len = out.len - 1;
    return (char *)out.data;
}

static char *collapsed_str(const model *m) { return write_str(m, &collapsed_format, NULL, NULL); }

/* (Not strstr in a loop: under ASan each call rescans the rest of the string.) */
static size_t count_substr(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = hay; *p;)
        if (*p == needle[0] && strncmp(p, needle, k) == 0) {
            n++;
            p += k;
        } else {
            p++;
        }
    return n;
}

/* ---- the collapsed writer ----------------------------------------------- */

static void test_collapsed_text(void)
{
    model *m = model_new();
    ASSERT(m);
    model_thread_start(m, 1, 0x1, model_cstring(m, "main"), (str_id){ 0 }, (str_id){ 0 });
    model_thread_start(m, 2, 0x2, model_cstring(m, "pool;1\nx"), (str_id){ 0 }, (str_id){ 0 });
    method_id run = method(m, "demo.App", "main", "([Ljava/lang/String;)V");
    method_id work = method(m, "demo.Work", "run", "()V");
    method_id calc1 = method(m, "demo.Work", "calc", "(I)J");
    method_id calc2 = method(m, "demo.Work", "calc", "(J)J");   /* same name, other signature */
    method_id rd = method(m, "java.io.FileInputStream", "readBytes", "([BII)I");
    method_id odd = method(m, "odd;pkg.C$1", "do\nit", "()V");
    method_id nocls = method(m, "", "bare", "()V");

    uint32_t a[] = { stack_frame_pack(calc1, FRAME_KIND_JIT), stack_frame_pack(work, FRAME_KIND_INLINED),
                     stack_frame_pack(run, FRAME_KIND_INTERPRETED) };
    uint32_t b[] = { stack_frame_pack(calc2, FRAME_KIND_JIT), stack_frame_pack(work, FRAME_KIND_INLINED),
                     stack_frame_pack(run, FRAME_KIND_INTERPRETED) };
    uint32_t c[] = { stack_frame_pack(calc1, FRAME_KIND_INTERPRETED), stack_frame_pack(work, FRAME_KIND_INLINED),
                     stack_frame_pack(run, FRAME_KIND_INTERPRETED) };
    uint32_t d[] = { stack_frame_pack(rd, FRAME_KIND_NATIVE), stack_frame_pack(run, FRAME_KIND_UNKNOWN) };
    uint32_t e[] = { stack_frame_pack(odd, FRAME_KIND_UNKNOWN), stack_frame_pack(nocls, FRAME_KIND_JIT) };
    stack(m, 0, SAMPLE_RUNNING, a, 3, 5);
    stack(m, 0, SAMPLE_RUNNING, b, 3, 2);    /* merges with a: same line */
    stack(m, 0, SAMPLE_RUNNING, c, 3, 1);    /* another kind: another line */
    stack(m, 1, SAMPLE_RUNNING, d, 2, 4);    /* per thread */
    stack(m, 7, SAMPLE_RUNNING, d, 2, 1);    /* a thread without a start record */
    stack(m, 2, SAMPLE_RUNNING, e, 2, 3);    /* ';' and newlines in names */
    stack(m, 0, SAMPLE_RUNNING, NULL, 0, 6); /* no frames at all */
    stack(m, 0, SAMPLE_RUNNING, d + 1, 1, 0); /* no samples: no line */

    char *out = collapsed_str(m);
    ASSERT(out);
    CHECK_EQ_STR(out, "<empty> 6\n"
                      "[main];demo.App.main;java.io.FileInputStream.readBytes_[n] 4\n"
                      "[pool_1_x];bare_[j];odd_pkg.C$1.do_it 3\n"
                      "[thread 7];demo.App.main;java.io.FileInputStream.readBytes_[n] 1\n"
                      "demo.App.main_[0];demo.Work.run_[i];demo.Work.calc_[0] 1\n"
                      "demo.App.main_[0];demo.Work.run_[i];demo.Work.calc_[j] 7\n");
    free(out);

    /* wall-clock samples end in their thread state */
    m->wall = true;
    stack(m, 1, SAMPLE_SLEEPING, d, 2, 9);
    stack(m, 1, SAMPLE_BLOCKED, NULL, 0, 2);
    out = collapsed_str(m);
    ASSERT(out);
    CHECK(strstr(out, "[main];demo.App.main;java.io.FileInputStream.readBytes_[n];[sleeping] 9\n"));
    CHECK(strstr(out, "[main];demo.App.main;java.io.FileInputStream.readBytes_[n];[running] 4\n"));
    CHECK(strstr(out, "[main];[blocked] 2\n"));
    CHECK(strstr(out, "\n[running] 6\n"));
    free(out);
    model_free(m);
}

static void test_collapsed_empty_model(void)
{
    model *m = model_new();
    ASSERT(m);
    char *out = collapsed_str(m);
    CHECK(out && out[0] == '\0');
    free(out);
    report_opts o = { 0 };
    out = write_str(m, &flame_html_format, &o, NULL);
    ASSERT(out);
    CHECK(strstr(out, "\"nodes\": [7,0,0]}"));
    CHECK(strstr(out, "'No ' + UNIT + '.'")); /* the page says "No samples." (UNIT: D.unit or samples) */
    CHECK(strstr(out, "<h1 id=\"title\">CPU samples</h1>"));
    free(out);
    model_free(m);
}

/* ---- the reader ---------------------------------------------------------- */

static model *read_str(const char *text, char *err, size_t errlen)
{
    return collapsed_read(text, strlen(text), err, errlen);
}

static void round_trip(const char *text)
{
    char err[256] = "";
    model *m = read_str(text, err, sizeof err);
    if (!CHECK(m)) {
        fprintf(stderr, "    error: %s\n", err);
        return;
    }
    char *out = collapsed_str(m);
    CHECK_EQ_STR(out, text);
    free(out);
    model_free(m);
}

static void test_round_trip(void)
{
    /* sorted, merged, our own kind suffixes: comes back byte for byte */
    round_trip("a.b.C.<init>_[j];java.lang.String.valueOf(Ljava/lang/Object;)_[i] 3\n"
               "demo.App$$Lambda$14.0x0000000800c03000.run;demo.App.lambda$main$0 2\n"
               "main;work;compute_[j] 100\n"
               "main;work;compute_[j];helper_[i] 20\n"
               "main;work;io_[n] 50\n"
               "x.;.y;[z];_[j];__[k];a b c 7\n");
    round_trip("[main];App.main_[0];App.work 5\n"
               "[pool-1 thread-2];App.run_[j] 8\n");
    round_trip("[main];App.main;Thread.sleep_[n];[sleeping] 4\n"
               "[main];App.main;[running] 10\n"
               "[native] 2\n"
               "[worker];Object.wait_[n];[waiting] 3\n"
               "[worker];[blocked] 1\n");
}

static void test_reader_parses(void)
{
    char err[256] = "";
    /* unsorted, repeated, CRLF, no final newline, tabs before the count */
    model *m = read_str("b;c 2\r\na;b 1\r\nb;c  3\r\n[t1];x\t4\r\n[t1];x 1", err, sizeof err);
    ASSERT(m);
    CHECK_EQ_INT(m->total_stack_samples, 11);
    CHECK(!m->wall);
    char *out = collapsed_str(m);
    CHECK_EQ_STR(out, "[t1];x 5\na;b 1\nb;c 5\n");
    free(out);
    /* the stack of "b;c" holds the top of the stack first */
    CHECK_EQ_INT(model_stack_count(m), 3);
    model_stack s = model_stack_get(m, (stack_id){ 1 });
    ASSERT(s.nframes == 2);
    const model_method *top = model_method_get(m, stack_frame_method(s.frames[0]));
    ASSERT(top);
    CHECK_EQ_STR(model_string_get(m, top->name, NULL), "c");
    /* the thread root became a thread */
    s = model_stack_get(m, (stack_id){ 3 });
    ASSERT(s.thread != 0);
    const model_thread *t = model_thread_get(m, s.thread);
    ASSERT(t);
    CHECK_EQ_STR(model_string_get(m, t->name, NULL), "t1");
    model_free(m);

    /* class and method split at the last '.' before '(' ; kinds decoded */
    m = read_str("java.lang.Thread.run_[i];java.util.Foo.bar(java.lang.String)_[n] 1\n", err, sizeof err);
    ASSERT(m);
    s = model_stack_get(m, (stack_id){ 1 });
    ASSERT(s.nframes == 2);
    CHECK_EQ_INT(stack_frame_kind(s.frames[0]), FRAME_KIND_NATIVE);
    CHECK_EQ_INT(stack_frame_kind(s.frames[1]), FRAME_KIND_INLINED);
    const model_method *me = model_method_get(m, stack_frame_method(s.frames[0]));
    ASSERT(me);
    CHECK_EQ_STR(model_string_get(m, me->name, NULL), "bar(java.lang.String)");
    CHECK_EQ_STR(model_string_get(m, model_class_get(m, me->cls)->name, NULL), "java.util.Foo");
    me = model_method_get(m, stack_frame_method(s.frames[1]));
    CHECK_EQ_STR(model_string_get(m, me->name, NULL), "run");
    CHECK_EQ_STR(model_string_get(m, model_class_get(m, me->cls)->name, NULL), "java.lang.Thread");
    model_free(m);

    /* a known [state] leaf marks wall-clock samples */
    m = read_str("[main];Thread.sleep_[n];[sleeping] 3\n", err, sizeof err);
    ASSERT(m);
    CHECK(m->wall);
    s = model_stack_get(m, (stack_id){ 1 });
    CHECK_EQ_INT(s.state, SAMPLE_SLEEPING);
    CHECK_EQ_INT(s.nframes, 1);
    model_free(m);
}

/* Blank lines anywhere (a trailing one, as many editors and scripts leave),
 * CRLF line ends, no final line break: all read like the plain file. */
static void test_reader_blank_lines(void)
{
    static const char *const texts[] = {
        "a;b 1\nc 2\n\n",
        "a;b 1\nc 2\n\n\n",
        "\na;b 1\n\n \t\nc 2",
        "a;b 1\r\nc 2\r\n\r\n",
        "a;b 1\r\n\r\nc 2",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char err[256] = "";
        model *m = read_str(texts[i], err, sizeof err);
        if (!CHECK(m)) {
            fprintf(stderr, "    text %zu: %s\n", i, err);
            continue;
        }
        CHECK_EQ_INT(m->total_stack_samples, 3);
        char *out = collapsed_str(m);
        CHECK_EQ_STR(out, "a;b 1\nc 2\n");
        free(out);
        model_free(m);
    }
}

static void expect_error(const char *text, size_t len, const char *want)
{
    char err[256] = "";
    model *m = collapsed_read(text, len, err, sizeof err);
    CHECK(m == NULL);
    model_free(m);
    if (!CHECK(strstr(err, want) != NULL))
        fprintf(stderr, "    error was: \"%s\", wanted \"%s\"\n", err, want);
    CHECK(strchr(err, '\n') == NULL);
}

static void test_reader_errors(void)
{
    expect_error("", 0, "empty file");
    expect_error("a;b 1\na;b x\n", 12, "line 2: bad sample count 'x'");
    expect_error("a;b 1\na;b -3\n", 13, "line 2: bad sample count '-3'");
    expect_error("a;b 1\na;b 1.5\n", 14, "line 2: bad sample count '1.5'");
    expect_error("a;b\n", 4, "line 1: no sample count in 'a;b'");
    expect_error("\n", 1, "no stacks: 1 blank line");
    expect_error("\r\n \n\t\r\n", 7, "no stacks: 3 blank lines");
    expect_error("\na 1\nb\n", 7, "line 3: no sample count in 'b'"); /* blank lines are counted */
    expect_error(" 5\n", 3, "line 1: no frames before the count");
    expect_error("a 99999999999999999999\n", 23, "line 1: sample count '99999999999999999999' is too large");
    expect_error("a 18446744073709551615\nb 1\n", 27, "line 2: sample counts add up to more than 2^64");
    expect_error("a\0b 1\n", 6, "line 1: NUL byte");
    /* long junk is cut in the message */
    char junk[300];
    memset(junk, 'x', sizeof junk);
    memcpy(junk, "a ", 2);
    expect_error(junk, sizeof junk, "...'");
}

/* ---- HPROF traces -> stacks ---------------------------------------------- */

static void test_trace_stacks(void)
{
    model *m = model_new();
    ASSERT(m);
    model_thread_start(m, 3, 0x3, model_cstring(m, "worker"), (str_id){ 0 }, (str_id){ 0 });
    method_id mn = method(m, "App", "main", "()V"), rd = method(m, "Io", "read", "()I");
    frame_id main10 = model_frame_intern(m, mn, 10), main11 = model_frame_intern(m, mn, 11);
    frame_id read = model_frame_intern(m, rd, FRAME_LINE_NATIVE);
    frame_id t1[] = { read, main10 }, t2[] = { read, main11 }, t3[] = { main10 };
    model_trace_add_samples(m, model_trace_intern(m, 0, t1, 2), 4);
    model_trace_add_samples(m, model_trace_intern(m, 0, t2, 2), 3);   /* same methods: merges */
    model_trace_add_samples(m, model_trace_intern(m, 3, t3, 1), 2);
    model_trace_intern(m, 0, t3, 1);                                  /* no samples */
    CHECK_EQ_INT(trace_stacks_build(m), JP_OK);
    CHECK_EQ_INT(m->total_stack_samples, 9);
    char *out = collapsed_str(m);
    CHECK_EQ_STR(out, "App.main;Io.read_[n] 7\n[worker];App.main 2\n");
    free(out);
    model_free(m);
}

/* ---- HTML ---------------------------------------------------------------- */

static void test_html(void)
{
    model *m = model_new();
    ASSERT(m);
    m->interval_us = 10000;
    model_thread_start(m, 1, 0x1, model_cstring(m, "main </script>"), (str_id){ 0 }, (str_id){ 0 });
    method_id a = method(m, "demo.Outer$Inner", "<init>", "()V");
    method_id b = method(m, "demo.Q\"uote's", "back\\slash&amp", "()V");
    method_id u = method(m, "d\xc3\xa9mo.\xe6\x97\xa5\xe6\x9c\xac", "m\xe2\x80\xa8", "()V");
    method_id bad = method(m, "bad\xff\xc3", "cesu\xed\xa0\xbd\xed\xb8\x80", "()V");
    uint32_t s1[] = { stack_frame_pack(b, FRAME_KIND_JIT), stack_frame_pack(a, FRAME_KIND_INTERPRETED) };
    uint32_t s2[] = { stack_frame_pack(u, FRAME_KIND_NATIVE), stack_frame_pack(a, FRAME_KIND_INTERPRETED) };
    uint32_t s3[] = { stack_frame_pack(bad, FRAME_KIND_INLINED) };
    stack(m, 1, SAMPLE_RUNNING, s1, 2, 30);
    stack(m, 1, SAMPLE_RUNNING, s2, 2, 10);
    stack(m, 0, SAMPLE_RUNNING, s3, 1, 1);
    report_opts o = { 0 };
    o.title = "Profile of <App> & \"friends\"";
    size_t len;
    char *html = write_str(m, &flame_html_format, &o, &len);
    ASSERT(html);
    CHECK_EQ_INT(strlen(html), len);
    CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    CHECK(strstr(html, "<title>Profile of &lt;App&gt; &amp; &quot;friends&quot;</title>"));
    CHECK(strstr(html, "41 CPU samples, one every 10 ms"));
    /* names: JSON strings with no <, >, & and no raw U+2028; UTF-8 kept */
    CHECK(strstr(html, "\"[main \\u003c/script\\u003e]\""));
    CHECK(strstr(html, "\"demo.Outer$Inner.\\u003cinit\\u003e\""));
    CHECK(strstr(html, "\"demo.Q\\\"uote's.back\\\\slash\\u0026amp\""));
    CHECK(strstr(html, "\"d\xc3\xa9mo.\xe6\x97\xa5\xe6\x9c\xac.m\\u2028\""));
    CHECK(strstr(html, "\"bad\\ufffd\\ufffd.cesu\\ud83d\\ude00\""));
    /* the only </script> are the two that close our scripts; no network */
    CHECK_EQ_INT(count_substr(html, "</script>"), 2);
    CHECK_EQ_INT(count_substr(html, "<script>"), 2);
    CHECK(!strstr(html, "http://") && !strstr(html, "https://") && !strstr(html, "//cdn"));
    CHECK(!strstr(html, " src=") && !strstr(html, "<link") && !strstr(html, "@import") && !strstr(html, "url("));
    /* the test hooks and the handlers they drive */
    CHECK(strstr(html, "'search'") && strstr(html, "'click'") && strstr(html, "new MouseEvent('click'"));
    /* the tree: root (name 0, kind 7) with 41 samples, the thread under it with 40 */
    CHECK(strstr(html, "\"nodes\": [7,41,0,"));
    CHECK(strstr(html, ",40,1,"));
    free(html);

    /* the default titles */
    o.title = NULL;
    html = write_str(m, &flame_html_format, &o, NULL);
    CHECK(html && strstr(html, "<title>CPU samples</title>"));
    free(html);
    m->wall = true;
    html = write_str(m, &flame_html_format, NULL, NULL);
    CHECK(html && strstr(html, "<title>Wall-clock samples</title>") && strstr(html, "\"[running]\""));
    free(html);
    model_free(m);
}

/* The timeline of a session's recording: stack A counted in the model (30 samples) and recorded at 0.2 s
 * and 0.35 s; stack B recorded at 1.2 s but no longer counted (a reset=y report): B's frames are in the
 * tree with 0 samples, so that a range can show them; a lock wait and a stack-less sample are not drawn.
 * Slices of 10 ms from 200 ms: 101 of them; nodes in preorder: all, main, a (A's leaf), b (B's leaf). */
static void test_html_timeline(void)
{
    model *m = model_new();
    ASSERT(m);
    m->start_time_ms = 1700000000000ull;
    uint64_t t0 = m->start_time_ms * 1000000ull, ms = 1000000ull;
    m->recording = recording_new(1u << 20, 3600000ull * ms);
    ASSERT(m->recording);
    method_id mm = method(m, "demo.App", "main", "()V"), ma = method(m, "demo.App", "a", "()V"),
              mb = method(m, "demo.App", "b", "()V");
    uint32_t sa[] = { stack_frame_pack(ma, FRAME_KIND_JIT), stack_frame_pack(mm, FRAME_KIND_JIT) };
    uint32_t sb[] = { stack_frame_pack(mb, FRAME_KIND_JIT), stack_frame_pack(mm, FRAME_KIND_JIT) };
    stack_id a = model_stack_intern(m, 0, SAMPLE_RUNNING, sa, 2), b = model_stack_intern(m, 0, SAMPLE_RUNNING, sb, 2);
    model_stack_add(m, a, 30);
    const recording_event evs[] = {
        { t0 + 200 * ms, 0, 1, 1, a.v, 2, RECORDING_CPU, SAMPLE_RUNNING },
        { t0 + 350 * ms, 0, 1, 1, a.v, 1, RECORDING_CPU, SAMPLE_RUNNING },
        { t0 + 500 * ms, 9, 1, 1, 1, 1, RECORDING_LOCK, 0 },
        { t0 + 900 * ms, 0, 1, 1, 0, 1, RECORDING_CPU, SAMPLE_RUNNING },
        { t0 + 1200 * ms, 0, 1, 1, b.v, 4, RECORDING_CPU, SAMPLE_RUNNING },
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        CHECK(recording_add(m->recording, &evs[i]));
    char *html = write_str(m, &flame_html_format, NULL, NULL);
    ASSERT(html);
    CHECK(strstr(html, "\"nodes\": [7,30,0,"));
    CHECK(strstr(html, "\"demo.App.b\""));
    CHECK(strstr(html, ",\n\"timeline\": {\"t0\": 1700000000000, \"from\": 200.000, \"slice\": 10.000, \"n\": 101, "
                       "\"samples\": 7, \"cells\": [2,2,0,2,15,1,3,1,100,4]}"));
    CHECK(strstr(html, "2 frames in the call tree") == NULL && strstr(html, "3 frames in the call tree"));
    free(html);
    /* allocation stacks and a diff have no timeline */
    m->stacks_alloc = true;
    html = write_str(m, &flame_html_format, NULL, NULL);
    CHECK(html && !strstr(html, "\"timeline\": {"));
    free(html);
    m->stacks_alloc = false;
    buf out;
    buf_init(&out);
    sink *s = sink_open_memory(&out);
    ASSERT(s);
    CHECK_EQ_INT(flame_html_write_diff(m, m, "d", s), JP_OK);
    char err[64];
    CHECK_EQ_INT(sink_commit(s, err, sizeof err), JP_OK);
    CHECK(!memmem(out.data, out.len, "\"timeline\": {", 13));
    buf_free(&out);
    model_free(m);
}

/* ---- size ---------------------------------------------------------------- */

static double seconds(clock_t since) { return (double)(clock() - since) / CLOCKS_PER_SEC; }

static void test_deep_stack(void)
{
    enum { DEPTH = 2000 };
    model *m = model_new();
    ASSERT(m);
    uint32_t *frames = malloc(DEPTH * sizeof *frames);
    ASSERT(frames);
    for (uint32_t i = 0; i < DEPTH; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%u", DEPTH - 1 - i);   /* f0 at the root */
        frames[i] = stack_frame_pack(method(m, "deep.Rec", name, "()V"), FRAME_KIND_JIT);
    }
    stack(m, 0, SAMPLE_RUNNING, frames, DEPTH, 3);
    stack(m, 0, SAMPLE_RUNNING, frames + 1, DEPTH - 1, 2);
    free(frames);
    char *out = collapsed_str(m);
    ASSERT(out);
    CHECK_EQ_INT(count_substr(out, "\n"), 2);
    CHECK_EQ_INT(count_substr(out, ";"), 2 * DEPTH - 3);
    CHECK(strncmp(out, "deep.Rec.f0_[j];deep.Rec.f1_[j];", 32) == 0);
    CHECK(strstr(out, "deep.Rec.f1999_[j] 3\n"));
    round_trip(out);
    free(out);
    report_opts o = { 0 };
    char *html = write_str(m, &flame_html_format, &o, NULL);
    ASSERT(html);
    CHECK(strstr(html, ",3,2000]}"));   /* the last node: the leaf at depth 2000 */
    free(html);
    model_free(m);
}

static void test_many_stacks(void)
{
    enum { N = 50000 };
    clock_t t0 = clock();
    model *m = model_new();
    ASSERT(m);
    method_id top[100], mid[25], root[20];
    char name[32];
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "leaf%d", i);
        top[i] = method(m, "many.Leaf", name, "()V");
    }
    for (int i = 0; i < 25; i++) {
        snprintf(name, sizeof name, "mid%d", i);
        mid[i] = method(m, "many.Mid", name, "()V");
    }
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "root%d", i);
        root[i] = method(m, "many.Root", name, "()V");
    }
    for (uint32_t i = 0; i < N; i++) {   /* 100 x 25 x 20 = 50,000 distinct stacks */
        uint32_t f[4] = { stack_frame_pack(top[i % 100], FRAME_KIND_JIT),
                          stack_frame_pack(mid[i / 100 % 25], FRAME_KIND_INLINED),
                          stack_frame_pack(root[i / 2500], FRAME_KIND_INTERPRETED),
                          stack_frame_pack(root[0], FRAME_KIND_UNKNOWN) };
        stack(m, 1 + i % 4, SAMPLE_RUNNING, f, 4, 1 + i % 7);
    }
    CHECK_EQ_INT(model_stack_count(m), N);
    size_t len;
    char *out = write_str(m, &collapsed_format, NULL, &len);
    ASSERT(out);
    CHECK_EQ_INT(count_substr(out, "\n"), N);
    char err[256] = "";
    model *back = collapsed_read(out, len, err, sizeof err);
    ASSERT(back);
    CHECK_EQ_INT(back->total_stack_samples, m->total_stack_samples);
    char *again = collapsed_str(back);
    CHECK(again && strcmp(again, out) == 0);
    free(again);
    model_free(back);
    free(out);
    char *html = write_str(m, &flame_html_format, NULL, &len);
    ASSERT(html);
    CHECK(len < 4u * 1024 * 1024);
    free(html);
    model_free(m);
    double took = seconds(t0);
    if (!CHECK(took < 10.0))
        fprintf(stderr, "    50,000 stacks took %.2f s\n", took);
}

int main(void)
{
    RUN(test_collapsed_text);
    RUN(test_collapsed_empty_model);
    RUN(test_round_trip);
    RUN(test_reader_parses);
    RUN(test_reader_blank_lines);
    RUN(test_reader_errors);
    RUN(test_trace_stacks);
    RUN(test_html);
    RUN(test_html_timeline);
    RUN(test_deep_stack);
    RUN(test_many_stacks);
    return DONE();
}
