/* test_formats.c — the HPROF writers and reader (src/format): a small model
 * built in code is written with the text and binary writers into memory and
 * byte-compared with tests/golden/model1.hprof.txt and model1.hprof
 * (UPDATE_GOLDEN=1 rewrites them; tests/golden/hprof_dump.py prints the
 * binary one record by record, independently of our reader). Also: cutoff,
 * the round trip model -> binary -> reader -> text, and the reader on
 * truncated, corrupt and hand-made files (4-byte ids, unknown records). */
#include "harness.h"

#include <sys/stat.h>
#include <time.h>

#include "format/format.h"
#include "format/hprof_bin.h"
#include "model/recording.h"

#define GOLDEN_TXT "tests/golden/model1.hprof.txt"
#define GOLDEN_BIN "tests/golden/model1.hprof"

static const report_opts opts_all = { 0.0001, true, true };
static const report_opts opts_cpu = { 0.0001, true, false };

/* ---- the model ---------------------------------------------------------- */

typedef struct model1_ids {
    trace_id hot, worker, empty, waiting, sleeping, locker;
} model1_ids;

static frame_id frame(model *m, const char *cls, const char *src, const char *name, const char *sig, int32_t line)
{
    class_id c = model_class_intern(m, model_cstring(m, cls), src ? model_cstring(m, src) : (str_id){ 0 });
    method_id me = model_method_intern(m, c, model_cstring(m, name), model_cstring(m, sig));
    return model_frame_intern(m, me, line);
}

/* Three threads (one ends), five classes (one without a source file),
 * frames with a line, native, unknown and compiled lines, six traces
 * (one empty, one with a thread serial, one only a monitor refers to),
 * 100 CPU samples with a tie, two monitors. */
static model *model1(model1_ids *ids)
{
    model *m = model_new();
    if (!m)
        return NULL;
    m->start_time_ms = UINT64_C(1700000000000); /* Tue Nov 14 22:13:20 2023 UTC */
    m->dump_time_ms = m->start_time_ms + 12345;
    m->depth = 4;

    str_id grp = model_cstring(m, "main"), sys = model_cstring(m, "system");
    model_thread_start(m, 1, 0x7f0001, model_cstring(m, "main"), grp, sys);
    model_thread_start(m, 2, 0x7f0002, model_cstring(m, "worker-1"), grp, sys);
    model_thread_start(m, 3, 0x7f0003, model_cstring(m, "short-lived"), grp, sys);
    model_thread_end(m, 3);

    frame_id compute = frame(m, "demo.Hot", "Hot.java", "compute", "(I)J", 42);
    frame_id hot_main = frame(m, "demo.Hot", "Hot.java", "main", "([Ljava/lang/String;)V", 17);
    frame_id work = frame(m, "demo.Worker", "Worker.java", "run", "()V", FRAME_LINE_COMPILED);
    frame_id trun = frame(m, "java.lang.Thread", "Thread.java", "run", "()V", FRAME_LINE_UNKNOWN);
    frame_id wait = frame(m, "java.lang.Object", NULL, "wait", "(J)V", FRAME_LINE_NATIVE);
    frame_id sleep = frame(m, "java.lang.Thread", "Thread.java", "sleep", "(J)V", FRAME_LINE_NATIVE);
    frame_id lock = frame(m, "demo.Lock", "Lock.java", "take", "()V", 8);

    frame_id t_hot[] = { compute, hot_main };
    frame_id t_worker[] = { work, trun };
    frame_id t_waiting[] = { wait, work, trun };
    frame_id t_sleeping[] = { sleep };
    frame_id t_locker[] = { lock, hot_main };
    ids->hot = model_trace_intern(m, 0, t_hot, 2);
    ids->worker = model_trace_intern(m, 0, t_worker, 2);
    ids->empty = model_trace_intern(m, 0, NULL, 0);
    ids->waiting = model_trace_intern(m, 2, t_waiting, 3);
    ids->sleeping = model_trace_intern(m, 0, t_sleeping, 1);
    ids->locker = model_trace_intern(m, 0, t_locker, 2);

    model_trace_add_samples(m, ids->hot, 50);
    model_trace_add_samples(m, ids->worker, 30);
    model_trace_add_samples(m, ids->empty, 16);
    model_trace_add_samples(m, ids->sleeping, 2); /* ties with waiting: the lower trace id ranks first */
    model_trace_add_samples(m, ids->waiting, 2);

    monitor_id mon1 = model_monitor_intern(m, ids->waiting, model_cstring(m, "java.lang.Object"), MONITOR_BLOCKED);
    monitor_id mon2 = model_monitor_intern(m, ids->locker, model_cstring(m, "demo.Lock"), MONITOR_BLOCKED);
    model_monitor_add(m, mon1, 3, UINT64_C(1500000000));
    model_monitor_add(m, mon2, 1, UINT64_C(500000000));
    return m;
}

/* ---- helpers -------------------------------------------------------------- */

static jp_status write_with(const jp_format_ops *f, const model *m, const report_opts *o, buf *out)
{
    buf_init(out);
    sink *s = sink_open_memory(out);
    if (!s)
        return JP_ERR_NOMEM;
    jp_status st = f->write(m, o, s);
    char err[256];
    jp_status st2 = sink_commit(s, err, sizeof err);
    return st != JP_OK ? st : st2;
}

/* Compares out with a golden file, or rewrites it under UPDATE_GOLDEN=1.
 * On a mismatch the output is left in build/golden/ for diffing. */
static void golden(const char *path, const buf *out)
{
    const char *base = strrchr(path, '/') + 1;
    if (getenv("UPDATE_GOLDEN")) {
        CHECK(th_write_file(path, out->data, out->len));
        fprintf(stderr, "updated %s (%zu bytes)\n", path, out->len);
        return;
    }
    size_t len = 0;
    char *want = th_read_file(path, &len);
    if (!CHECK(want != NULL)) {
        fprintf(stderr, "    cannot read %s (run from the repository root; UPDATE_GOLDEN=1 creates it)\n", path);
        return;
    }
    if (!CHECK_EQ_MEM(out->data, out->len, want, len)) {
        char actual[256];
        mkdir("build", 0755);
        mkdir("build/golden", 0755);
        snprintf(actual, sizeof actual, "build/golden/%s", base);
        if (th_write_file(actual, out->data, out->len))
            fprintf(stderr, "    output differs from %s: see %s\n", path, actual);
    }
    free(want);
}

/* The text after the explanatory header (which ends with the separator). */
static const char *txt_body(const buf *b)
{
    static const char sep[] = "\n--------\n\n";
    const char *p = memmem(b->data, b->len, sep, sizeof sep - 1);
    return p ? p + sizeof sep - 1 : "";
}

static bool has(const buf *b, const char *needle) { return memmem(b->data, b->len, needle, strlen(needle)) != NULL; }

static void buf_terminate(buf *b)
{
    buf_put_u1(b, 0);
    b->len--;
}

/* ---- golden files ----------------------------------------------------------- */

static void test_golden_text(void)
{
    model1_ids ids;
    model *m = model1(&ids);
    ASSERT(m != NULL && !m->oom);
    buf out;
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &opts_all, &out), JP_OK);
    golden(GOLDEN_TXT, &out);
    /* spot checks that do not depend on the golden file */
    buf_terminate(&out);
    CHECK(strncmp((char *)out.data, "JAVA PROFILE 1.0.1, created Tue Nov 14 22:13:20 2023\n", 53) == 0);
    CHECK(has(&out, "THREAD END (id = 200003)\n"));
    CHECK(has(&out, "TRACE 300004: (thread=200002)\n\tjava.lang.Object.wait(Unknown Source:Native method)\n"));
    CHECK(has(&out, "\tdemo.Worker.run(Worker.java:Compiled method)\n\tjava.lang.Thread.run(Thread.java:Unknown line)\n"));
    CHECK(has(&out, "TRACE 300003:\n\t<empty>\n"));
    CHECK(has(&out, "CPU SAMPLES BEGIN (total = 100) Tue Nov 14 22:13:32 2023\n"));
    CHECK(has(&out, "   4  2.00% 98.00%       2 300004 java.lang.Object.wait\n"));
    CHECK(has(&out, "   3 16.00% 96.00%      16 300003 <empty trace>\n"));
    CHECK(has(&out, "MONITOR TIME BEGIN (total = 2000 ms) Tue Nov 14 22:13:32 2023\n"));
    CHECK(has(&out, "   2 25.00% 100.00%       1 300006 demo.Lock (Java)\n"));
    CHECK(has(&out, "MONITOR TIME END\n"));

    /* the same model writes the same bytes again */
    buf again;
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &opts_all, &again), JP_OK);
    CHECK_EQ_MEM(again.data, again.len, out.data, out.len);
    buf_free(&again);
    buf_free(&out);
    model_free(m);
}

static void test_golden_binary(void)
{
    model1_ids ids;
    model *m = model1(&ids);
    ASSERT(m != NULL);
    buf out;
    CHECK_EQ_INT(write_with(&hprof_bin_format, m, &opts_cpu, &out), JP_OK);
    golden(GOLDEN_BIN, &out);
    /* the header, read by hand */
    ASSERT(out.len > 31);
    CHECK(memcmp(out.data, "JAVA PROFILE 1.0.2\0", 19) == 0);
    buf_rd r;
    buf_rd_init(&r, out.data + 19, out.len - 19);
    CHECK_EQ_INT(buf_get_u4(&r), 8);
    CHECK(buf_get_u8(&r) == UINT64_C(1700000000000));
    /* first record: CONTROL SETTINGS, cpu sampling, depth 4, dump time 12.345 s in */
    CHECK_EQ_INT(buf_get_u1(&r), HPROF_TAG_CONTROL_SETTINGS);
    CHECK_EQ_INT(buf_get_u4(&r), 12345000);
    CHECK_EQ_INT(buf_get_u4(&r), 6);
    CHECK_EQ_INT(buf_get_u4(&r), HPROF_CONTROL_CPU_SAMPLING);
    CHECK_EQ_INT(buf_get_u2(&r), 4);
    /* last record: CPU SAMPLES, ranked by count */
    static const unsigned char cpu_tail[] = {
        HPROF_TAG_CPU_SAMPLES, 0, 0xbc, 0x5e, 0xa8, 0, 0, 0, 48, 0, 0, 0, 100, 0, 0, 0, 5,
        0, 0, 0, 50, 0, 0x04, 0x93, 0xe1, 0, 0, 0, 30, 0, 0x04, 0x93, 0xe2, 0, 0, 0, 16, 0, 0x04, 0x93, 0xe3,
        0, 0, 0, 2,  0, 0x04, 0x93, 0xe4, 0, 0, 0, 2,  0, 0x04, 0x93, 0xe5,
    };
    CHECK(out.len > sizeof cpu_tail &&
          CHECK_EQ_MEM(out.data + out.len - sizeof cpu_tail, sizeof cpu_tail, cpu_tail, sizeof cpu_tail));

    /* monitors: jvmprof's MONITORS record, after CPU SAMPLES: two rows, blocked */
    buf mon;
    CHECK_EQ_INT(write_with(&hprof_bin_format, m, &opts_all, &mon), JP_OK);
    static const unsigned char mon_tail[] = {
        HPROF_TAG_JVMPROF_MONITORS, 0, 0xbc, 0x5e, 0xa8, 0, 0, 0, 62, 0, 0, 0, 2,
    };
    CHECK(mon.len == out.len + 9 + 62 &&
          CHECK_EQ_MEM(mon.data + out.len, sizeof mon_tail, mon_tail, sizeof mon_tail));
    buf_free(&mon);
    buf_free(&out);
    model_free(m);
}

/* ---- cutoff ---------------------------------------------------------------- */

/* CPU TIME (ms): rows ranked by self time, count = calls, total in ms, only
 * when asked for; model_times_reset zeroes the table for the next dump. */
/* wall=: the WALL SAMPLES table has a row per (trace, state), with the state. */
static void test_wall_samples(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    m->start_time_ms = m->dump_time_ms = UINT64_C(1700000000000);
    m->wall = true;
    m->interval_us = 10000;
    frame_id comp = frame(m, "demo.SleepCompute", "SleepCompute.java", "compute", "(J)V", 12);
    frame_id slp = frame(m, "java.lang.Thread", "Thread.java", "sleep", "(J)V", FRAME_LINE_NATIVE);
    trace_id tc = model_trace_intern(m, 0, &comp, 1), ts = model_trace_intern(m, 0, &slp, 1);
    model_trace_add_samples(m, tc, 60);
    model_trace_add_state_samples(m, tc, SAMPLE_RUNNING, 50);
    model_trace_add_state_samples(m, tc, SAMPLE_BLOCKED, 10);
    model_trace_add_samples(m, ts, 40);
    model_trace_add_state_samples(m, ts, SAMPLE_SLEEPING, 40);
    CHECK_EQ_INT(model_trace_state_samples(m, tc, SAMPLE_BLOCKED), 10);
    CHECK_EQ_INT(model_trace_state_samples(m, ts, SAMPLE_RUNNING), 0);
    CHECK_EQ_INT(model_trace_state_samples(m, (trace_id){ 99 }, SAMPLE_RUNNING), 0);
    report_opts o = { 0.0001, true, false, false };
    buf out;
    ASSERT(write_with(&hprof_txt_format, m, &o, &out) == JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "WALL SAMPLES BEGIN (total = 100, every 10 ms) "));
    CHECK(has(&out, "rank   self  accum   count trace state    method\n"
                    "   1 50.00% 50.00%      50 300001 running  demo.SleepCompute.compute\n"
                    "   2 40.00% 90.00%      40 300002 sleeping java.lang.Thread.sleep\n"
                    "   3 10.00% 100.00%      10 300001 blocked  demo.SleepCompute.compute\n"
                    "WALL SAMPLES END\n"));
    CHECK(!has(&out, "CPU SAMPLES BEGIN"));
    CHECK(has(&out, "TRACE 300002:\n\tjava.lang.Thread.sleep(Thread.java:Native method)\n"));
    buf_free(&out);
    model_free(m);
}

static void test_cpu_times(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    m->start_time_ms = m->dump_time_ms = UINT64_C(1700000000000);
    frame_id fib = frame(m, "demo.Calls", "Calls.java", "fib", "(I)I", FRAME_LINE_UNKNOWN);
    frame_id run = frame(m, "demo.Calls", "Calls.java", "main", "([Ljava/lang/String;)V", FRAME_LINE_UNKNOWN);
    frame_id deep[] = { fib, fib }, top[] = { fib, run }, root[] = { run };
    trace_id t_deep = model_trace_intern(m, 0, deep, 2), t_top = model_trace_intern(m, 0, top, 2);
    trace_id t_root = model_trace_intern(m, 0, root, 1);
    model_trace_add_time(m, t_deep, 3000000000u, 242784);
    model_trace_add_time(m, t_top, 500000000u, 1);
    model_trace_add_time(m, t_root, 1500000000u, 1);
    CHECK_EQ_INT(m->total_time_ns, 5000000000u);
    CHECK_EQ_INT(model_trace_calls(m, t_deep), 242784);
    report_opts o = { 0.0001, false, false, true };
    buf out;
    ASSERT(write_with(&hprof_txt_format, m, &o, &out) == JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "CPU TIME (ms) BEGIN (total = 5000) "));
    CHECK(has(&out, "rank   self  accum   count trace method\n"
                    "   1 60.00% 60.00%  242784 300001 demo.Calls.fib\n"
                    "   2 30.00% 90.00%       1 300003 demo.Calls.main\n"
                    "   3 10.00% 100.00%       1 300002 demo.Calls.fib\n"
                    "CPU TIME (ms) END\n"));
    CHECK(has(&out, "TRACE 300001:\n\tdemo.Calls.fib(Calls.java:Unknown line)\n\tdemo.Calls.fib(Calls.java:Unknown line)\n"));
    CHECK(!has(&out, "CPU SAMPLES BEGIN"));
    CHECK(!has(&out, "CALLS COUNTED BEGIN")); /* none counted */
    buf_free(&out);
    /* counted methods: their own section, by calls, with descriptors (bridges share names) */
    frame_id get = frame(m, "demo.Calls", "Calls.java", "get", "()I", FRAME_LINE_UNKNOWN);
    frame_id get2 = frame(m, "demo.Calls", "Calls.java", "get", "()Ljava/lang/Object;", FRAME_LINE_UNKNOWN);
    model_method_add_counted(m, model_frame_get(m, get)->method, 7000);
    model_method_add_counted(m, model_frame_get(m, get2)->method, 2000);
    model_method_add_counted(m, model_frame_get(m, get)->method, 1000);
    CHECK_EQ_INT(m->total_counted, 10000);
    ASSERT(write_with(&hprof_txt_format, m, &o, &out) == JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "CALLS COUNTED BEGIN (total = 10000 calls, 2 methods) "));
    CHECK(has(&out, "rank  share  accum      calls method\n"
                    "   1 80.00% 80.00%       8000 demo.Calls.get()I\n"
                    "   2 20.00% 100.00%       2000 demo.Calls.get()Ljava/lang/Object;\n"
                    "CALLS COUNTED END\n"));
    buf_free(&out);
    o.cutoff = 0.5;
    ASSERT(write_with(&hprof_txt_format, m, &o, &out) == JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "   1 80.00% 80.00%       8000 demo.Calls.get()I\nCALLS COUNTED END\n"));
    buf_free(&out);
    o.cutoff = 0.0001;
    /* cutoff applies to shares of the time */
    o.cutoff = 0.2;
    ASSERT(write_with(&hprof_txt_format, m, &o, &out) == JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "   2 30.00% 90.00%"));
    CHECK(!has(&out, "   3 10.00%"));
    CHECK(!has(&out, "TRACE 300002:"));
    buf_free(&out);
    /* without cpu_times the section is absent */
    o = (report_opts){ 0.0001, true, false, false };
    ASSERT(write_with(&hprof_txt_format, m, &o, &out) == JP_OK);
    buf_terminate(&out);
    CHECK(!has(&out, "CPU TIME (ms) BEGIN"));
    buf_free(&out);
    model_times_reset(m);
    CHECK_EQ_INT(m->total_time_ns, 0);
    CHECK_EQ_INT(m->total_counted, 0);
    CHECK_EQ_INT(model_method_counted(m, model_frame_get(m, get)->method), 0);
    CHECK_EQ_INT(model_trace_calls(m, t_deep), 0);
    CHECK_EQ_INT(model_trace_time_ns(m, t_deep), 0);
    model_free(m);
}

/* Blocked and waiting monitors go to MONITOR TIME and MONITOR WAIT TIME, each
 * with its own total; cpu=times' waits to CPU WAIT TIME. */
static void test_monitor_kinds(void)
{
    model1_ids ids;
    model *m = model1(&ids);
    ASSERT(m != NULL);
    monitor_id w = model_monitor_intern(m, ids.sleeping, model_cstring(m, "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"), MONITOR_WAITING);
    model_monitor_add(m, w, 4, UINT64_C(6000000000));
    model_trace_add_time(m, ids.sleeping, 1000000u, 5);
    model_trace_add_wait(m, ids.sleeping, 3000000u);
    CHECK_EQ_INT(model_monitor_total_ns(m, MONITOR_BLOCKED), 2000000000);
    report_opts o = { 0, true, true, .cpu_times = true };
    buf out;
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "MONITOR TIME BEGIN (total = 2000 ms)"));
    CHECK(has(&out, "   2 25.00% 100.00%       1 300006 demo.Lock (Java)\nMONITOR TIME END\n"));
    CHECK(has(&out, "MONITOR WAIT TIME BEGIN (total = 6000 ms)"));
    CHECK(has(&out, "rank   self  accum   count trace monitor\n   1 100.00% 100.00%       4 300005 "
                    "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject (Java)\nMONITOR WAIT TIME END\n"));
    CHECK(has(&out, "CPU WAIT TIME (ms) BEGIN (total = 3)"));
    CHECK(has(&out, "   1 100.00% 100.00%       5 300005 java.lang.Thread.sleep\nCPU WAIT TIME (ms) END\n"));
    buf_free(&out);
    model_free(m);
}

/* heap=sites as stacks: each site's trace under its class, in bytes; a flame
 * graph of them says bytes. */
static void test_site_stacks(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    class_id demo = model_class_intern(m, model_cstring(m, "Demo"), (str_id){ 0 });
    method_id mm = model_method_intern(m, demo, model_cstring(m, "main"), model_cstring(m, "()V"));
    method_id ma = model_method_intern(m, demo, model_cstring(m, "alloc"), model_cstring(m, "()V"));
    frame_id deep[2] = { model_frame_intern(m, ma, 20), model_frame_intern(m, mm, 10) };   /* top first */
    frame_id other[2] = { model_frame_intern(m, ma, 21), model_frame_intern(m, mm, 10) };  /* another line */
    trace_id t1 = model_trace_intern(m, 0, deep, 2), t2 = model_trace_intern(m, 0, deep + 1, 1);
    trace_id t3 = model_trace_intern(m, 0, other, 2);
    class_id bytes = model_class_intern(m, model_cstring(m, "byte[]"), (str_id){ 0 });
    class_id str = model_class_intern(m, model_cstring(m, "java.lang.String"), (str_id){ 0 });
    model_site_alloc(m, model_site_intern(m, t1, bytes, true), 3, 300, true);
    model_site_alloc(m, model_site_intern(m, t3, bytes, true), 1, 16, true);   /* same methods: adds up */
    model_site_alloc(m, model_site_intern(m, t2, str, false), 4, 96, true);
    model_site_intern(m, t2, bytes, true);                                     /* nothing allocated: no stack */
    CHECK_EQ_INT(site_stacks_build(m), JP_OK);
    CHECK(m->stacks_alloc);
    CHECK_EQ_INT(m->total_stack_samples, 412);
    buf out;
    report_opts o = { 0 };
    CHECK_EQ_INT(write_with(&collapsed_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK_EQ_STR((char *)out.data, "Demo.main;Demo.alloc;byte[] 316\nDemo.main;java.lang.String 96\n");
    buf_free(&out);
    /* built again (the next report): the same counts, not twice */
    CHECK_EQ_INT(site_stacks_build(m), JP_OK);
    CHECK_EQ_INT(m->total_stack_samples, 412);
    CHECK_EQ_INT(write_with(&flame_html_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "<h1 id=\"title\">Allocations (bytes allocated)</h1>"));
    CHECK(has(&out, "412 bytes allocated (estimated from samples)"));
    CHECK(has(&out, "\"unit\": \"bytes\""));
    CHECK(has(&out, "\"byte[]\""));
    buf_free(&out);
    model_free(m);
}

static void test_cutoff(void)
{
    model1_ids ids;
    model *m = model1(&ids);
    ASSERT(m != NULL);
    buf out;

    /* 5%: the 2% rows go, and with them the traces only they printed */
    report_opts o = { 0.05, true, true };
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "   3 16.00% 96.00%      16 300003 <empty trace>\nCPU SAMPLES END\n"));
    CHECK(!has(&out, "300005 java.lang.Thread.sleep"));
    CHECK(!has(&out, "TRACE 300005:"));
    CHECK(has(&out, "TRACE 300004:")); /* the first monitor still refers to it */
    CHECK(has(&out, "TRACE 300006:"));
    CHECK(has(&out, "   1 75.00% 75.00%       3 300004 java.lang.Object (Java)\n"));
    buf_free(&out);

    /* the same with cpu only: monitor-only traces are not printed either */
    o = (report_opts){ 0.05, true, false };
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "TRACE 300001:") && has(&out, "TRACE 300002:") && has(&out, "TRACE 300003:"));
    CHECK(!has(&out, "TRACE 300004:") && !has(&out, "TRACE 300005:") && !has(&out, "TRACE 300006:"));
    CHECK(strstr(txt_body(&out), "MONITOR TIME") == NULL);
    buf_free(&out);

    /* a row exactly at the cutoff stays; 30% drops the monitor at 25% */
    o = (report_opts){ 0.3, true, true };
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "   2 30.00% 80.00%      30 300002 demo.Worker.run\nCPU SAMPLES END\n"));
    CHECK(has(&out, "   1 75.00% 75.00%       3 300004 java.lang.Object (Java)\nMONITOR TIME END\n"));
    CHECK(!has(&out, "TRACE 300003:") && !has(&out, "TRACE 300006:"));
    CHECK(has(&out, "TRACE 300004:"));
    buf_free(&out);

    /* cutoff 1: nothing reaches 100%, so the tables are empty, and no TRACE */
    o = (report_opts){ 1.0, true, true };
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "rank   self  accum   count trace method\nCPU SAMPLES END\n"));
    CHECK(has(&out, "rank   self  accum   count trace monitor\nMONITOR TIME END\n"));
    CHECK(!has(&out, "TRACE 3"));
    buf_free(&out);

    /* cutoff 0: every sampled trace; neither section: threads only */
    o = (report_opts){ 0.0, true, false };
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    CHECK(has(&out, "   5  2.00% 100.00%       2 300005 java.lang.Thread.sleep\n"));
    buf_free(&out);
    o = (report_opts){ 0.0001, false, false };
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &o, &out), JP_OK);
    buf_terminate(&out);
    const char *body = txt_body(&out);
    CHECK(!strstr(body, "TRACE") && !strstr(body, "CPU SAMPLES") && !strstr(body, "MONITOR TIME"));
    CHECK(has(&out, "THREAD END (id = 200003)\n"));
    buf_free(&out);
    model_free(m);
}

/* ---- round trip -------------------------------------------------------------- */

static void test_round_trip(void)
{
    model1_ids ids;
    model *m = model1(&ids);
    ASSERT(m != NULL);
    buf direct, bin, via;
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &opts_cpu, &direct), JP_OK);
    CHECK_EQ_INT(write_with(&hprof_bin_format, m, &opts_cpu, &bin), JP_OK);
    char err[256] = "";
    report_opts ro;
    model *back = hprof_bin_read(bin.data, bin.len, &ro, err, sizeof err);
    if (!CHECK(back != NULL)) {
        fprintf(stderr, "    %s\n", err);
        goto out;
    }
    CHECK(ro.cpu_samples);
    CHECK(!ro.monitor);
    CHECK_EQ_INT(back->start_time_ms, m->start_time_ms);
    CHECK_EQ_INT(back->dump_time_ms, m->dump_time_ms);
    CHECK_EQ_INT(back->depth, 4);
    CHECK_EQ_INT(back->total_samples, 100);
    CHECK_EQ_INT(model_trace_count(back), model_trace_count(m));
    CHECK_EQ_INT(model_frame_count(back), model_frame_count(m));
    CHECK_EQ_INT(back->thread_events_len, 4);
    CHECK_EQ_INT(write_with(&hprof_txt_format, back, &opts_cpu, &via), JP_OK);
    CHECK_EQ_MEM(via.data, via.len, direct.data, direct.len);
    /* and once more: binary from the model read back is the same binary,
     * except for string and class numbering, which follows reading order */
    buf bin2, via2;
    CHECK_EQ_INT(write_with(&hprof_bin_format, back, &opts_cpu, &bin2), JP_OK);
    model *back2 = hprof_bin_read(bin2.data, bin2.len, &ro, err, sizeof err);
    if (CHECK(back2 != NULL)) {
        CHECK_EQ_INT(write_with(&hprof_txt_format, back2, &opts_cpu, &via2), JP_OK);
        CHECK_EQ_MEM(via2.data, via2.len, direct.data, direct.len);
        buf_free(&via2);
        model_free(back2);
    }
    buf_free(&bin2);
    buf_free(&via);
    model_free(back);
out:
    buf_free(&direct);
    buf_free(&bin);
    model_free(m);
}

static bool one_line(const char *s) { return s[0] != '\0' && strchr(s, '\n') == NULL; }

/* Reads data from an exact-size heap copy (so ASan sees any read past it). */
static model *read_copy(const void *data, size_t len, report_opts *ro, char *err, size_t errlen)
{
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy)
        return NULL;
    if (len)
        memcpy(copy, data, len);
    model *m = hprof_bin_read(copy, len, ro, err, errlen);
    free(copy);
    return m;
}

/* wall=, cpu=times (with time waiting and counted methods), monitor=y (blocked and waiting) and
 * COUNTS, all in one model: model1's traces and threads, worker-1 a virtual thread carried by main. */
static model *model_jvmprof_records(void)
{
    model1_ids ids;
    model *m = model1(&ids);
    if (!m)
        return NULL;
    m->wall = true;
    m->interval_us = 20000;
    model_thread_set_virtual(m, 2, 1);
    for (trace_id t = { 1 }; t.v <= model_trace_count(m); t.v++) {
        uint64_t n = model_trace_samples(m, t);
        model_trace_add_state_samples(m, t, t.v == ids.sleeping.v ? SAMPLE_SLEEPING : SAMPLE_RUNNING, n - n / 4);
        model_trace_add_state_samples(m, t, t.v == ids.waiting.v ? SAMPLE_WAITING : SAMPLE_BLOCKED, n / 4);
    }
    model_trace_add_time(m, ids.hot, 3000000000u, 242784);
    model_trace_add_time(m, ids.worker, 1000000000u, 12);
    model_trace_add_time(m, ids.locker, 7000000u, 3);
    model_trace_add_wait(m, ids.locker, 400000000u);
    model_trace_add_wait(m, ids.sleeping, 250000000u); /* waited, no time of its own */
    frame_id get = frame(m, "demo.Tiny", "Tiny.java", "get", "()I", FRAME_LINE_UNKNOWN);
    model_method_add_counted(m, model_frame_get(m, get)->method, 9000);
    /* a counted method in no trace and of a class in no frame */
    class_id leaf = model_class_intern(m, model_cstring(m, "demo.Leaf"), (str_id){ 0 });
    model_method_add_counted(m, model_method_intern(m, leaf, model_cstring(m, "id"), model_cstring(m, "(I)I")), 1000);
    monitor_id w = model_monitor_intern(m, ids.waiting, model_cstring(m, "<no blocker>"), MONITOR_WAITING);
    model_monitor_add(m, w, 4, UINT64_C(6000000000));
    model_count_set(m, "samples not walkable (counted under <unknown frame>)", 7);
    model_count_set(m, "cpu=times: exits without their entry", 0);
    return m;
}

/* Each of them through format=b and back: the ASCII report and the pprof
 * profile of what was read are byte for byte those of the model itself. */
static void test_jvmprof_records_round_trip(void)
{
    model *m = model_jvmprof_records();
    ASSERT(m != NULL && !m->oom);
    static const report_opts cases[] = {
        { 0.0001, true, false, false, false, NULL },  /* wall= */
        { 0.0001, false, false, true, false, NULL },  /* cpu=times */
        { 0.0001, false, true, false, false, NULL },  /* monitor=y */
        { 0, true, true, true, false, NULL },         /* all three, every row */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const report_opts *o = &cases[i];
        buf txt, pp, bin, txt2, pp2;
        CHECK_EQ_INT(write_with(&hprof_txt_format, m, o, &txt), JP_OK);
        CHECK_EQ_INT(write_with(&pprof_format, m, o, &pp), JP_OK);
        CHECK_EQ_INT(write_with(&hprof_bin_format, m, o, &bin), JP_OK);
        char err[256] = "";
        report_opts ro;
        model *back = hprof_bin_read(bin.data, bin.len, &ro, err, sizeof err);
        if (CHECK(back != NULL)) {
            CHECK(ro.cpu_samples == o->cpu_samples && ro.cpu_times == o->cpu_times && ro.monitor == o->monitor);
            CHECK(back->wall && back->interval_us == 20000);
            ro.cutoff = o->cutoff;
            CHECK_EQ_INT(write_with(&hprof_txt_format, back, &ro, &txt2), JP_OK);
            if (!CHECK_EQ_MEM(txt2.data, txt2.len, txt.data, txt.len))
                fprintf(stderr, "    case %zu: the report read back differs\n", i);
            CHECK_EQ_INT(write_with(&pprof_format, back, &ro, &pp2), JP_OK);
            if (!CHECK_EQ_MEM(pp2.data, pp2.len, pp.data, pp.len))
                fprintf(stderr, "    case %zu: the pprof profile read back differs\n", i);
            buf_free(&txt2);
            buf_free(&pp2);
            model_free(back);
        } else {
            fprintf(stderr, "    case %zu: %s\n", i, err);
        }
        buf_terminate(&txt);
        /* the sections are there (the round trip alone would pass with none) */
        CHECK(!o->cpu_samples || has(&txt, "WALL SAMPLES BEGIN (total = 100, every 20 ms)"));
        CHECK(!o->cpu_samples || has(&txt, " 300005 sleeping java.lang.Thread.sleep\n"));
        CHECK(!o->cpu_times || has(&txt, "CPU TIME (ms) BEGIN (total = 4007)"));
        CHECK(!o->cpu_times || has(&txt, "CPU WAIT TIME (ms) BEGIN (total = 650)"));
        CHECK(!o->cpu_times || has(&txt, "CALLS COUNTED BEGIN (total = 10000 calls, 2 methods)"));
        CHECK(!o->cpu_times || has(&txt, "       1000 demo.Leaf.id(I)I\n"));
        CHECK(!o->monitor || has(&txt, "MONITOR WAIT TIME BEGIN (total = 6000 ms)"));
        CHECK(has(&txt, "samples not walkable (counted under <unknown frame>) 7\ncpu=times: exits without their entry 0\n"));
        CHECK(has(&txt, "name=\"worker-1\", group=\"main\", carrier=200001)\n"));
        buf_free(&txt);
        buf_free(&pp);

        /* every prefix of the file: a one-line refusal, or (at a record boundary) a model the writers write */
        unsigned long wrong = 0;
        for (size_t n = 0; n < bin.len; n++) {
            char e[256] = "";
            model *p = read_copy(bin.data, n, &ro, e, sizeof e);
            if (!p) {
                wrong += !one_line(e);
                continue;
            }
            static const jp_format_ops *const fs[] = { &hprof_txt_format, &pprof_format, &jfr_format, &hprof_bin_format };
            for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
                buf out;
                wrong += write_with(fs[k], p, &ro, &out) != JP_OK;
                buf_free(&out);
            }
            model_free(p);
        }
        CHECK_EQ_INT(wrong, 0);
        buf_free(&bin);
    }
    model_free(m);
}

/* jvmprof's records, damaged: a kind, a state or a reference out of range, a
 * row count past the record, are each refused in one line that names the record. */
static void test_jvmprof_records_bad(void)
{
    model *m = model_jvmprof_records();
    ASSERT(m != NULL);
    buf bin;
    CHECK_EQ_INT(write_with(&hprof_bin_format, m, &(report_opts){ 0, true, true, true, false, NULL }, &bin), JP_OK);
    model_free(m);
    /* the offsets of the new records' bodies */
    size_t at[256] = { 0 }, off = 31;
    while (off + 9 <= bin.len) {
        uint32_t rlen = (uint32_t)bin.data[off + 5] << 24 | (uint32_t)bin.data[off + 6] << 16 |
                        (uint32_t)bin.data[off + 7] << 8 | bin.data[off + 8];
        at[bin.data[off]] = off + 9;
        off += 9 + (size_t)rlen;
    }
    ASSERT(at[HPROF_TAG_JVMPROF_WALL_STATES] && at[HPROF_TAG_JVMPROF_CPU_TIMES] && at[HPROF_TAG_JVMPROF_MONITORS] &&
           at[HPROF_TAG_JVMPROF_COUNTS] && at[HPROF_TAG_JVMPROF_VIRTUAL_THREADS]);
    static const struct { unsigned char tag; size_t pos; unsigned char v; const char *err; } cases[] = {
        { HPROF_TAG_JVMPROF_WALL_STATES, 4 + 4, 5, "WALL STATES: thread state 5 (expected 0..4)" },
        { HPROF_TAG_JVMPROF_WALL_STATES, 4 + 2, 0x77, "WALL STATES refers to an unknown TRACE" },
        { HPROF_TAG_JVMPROF_WALL_STATES, 0, 0x10, "malformed record (tag 0xa3)" },
        /* billions of samples by state where CPU SAMPLES gave the trace 50: a JFR file would be an event each */
        { HPROF_TAG_JVMPROF_WALL_STATES, 4 + 5, 1, "WALL STATES: TRACE 300001 has more samples by state than CPU SAMPLES gave it (50)" },
        { HPROF_TAG_JVMPROF_CPU_TIMES, 4 + 2, 0x77, "CPU TIMES refers to an unknown TRACE" },
        { HPROF_TAG_JVMPROF_MONITORS, 4 + 4 + 8, 2, "MONITORS: kind 2 (expected 0 blocked or 1 waiting)" },
        { HPROF_TAG_JVMPROF_MONITORS, 4 + 4 + 1, 0x77, "MONITORS refers to an unknown string" },
        { HPROF_TAG_JVMPROF_COUNTS, 0, 0x10, "malformed record (tag 0xa6)" },
        { HPROF_TAG_JVMPROF_COUNTS, 4, 0x10, "malformed record (tag 0xa6)" },
        { HPROF_TAG_JVMPROF_VIRTUAL_THREADS, 4 + 3, 0x49, "VIRTUAL THREADS refers to thread 200009, which no START THREAD" },
        { HPROF_TAG_JVMPROF_VIRTUAL_THREADS, 4 + 4, 0x7f, "VIRTUAL THREADS: carrier serial" },
        { HPROF_TAG_JVMPROF_VIRTUAL_THREADS, 3, 2, "malformed record (tag 0xa7)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *copy = malloc(bin.len);
        ASSERT(copy != NULL);
        memcpy(copy, bin.data, bin.len);
        copy[at[cases[i].tag] + cases[i].pos] = cases[i].v;
        char err[256] = "";
        report_opts ro;
        model *back = hprof_bin_read(copy, bin.len, &ro, err, sizeof err);
        if (!CHECK(back == NULL) || !CHECK(strstr(err, cases[i].err) != NULL) || !CHECK(one_line(err)))
            fprintf(stderr, "    case %zu: \"%s\"\n", i, err);
        model_free(back);
        free(copy);
    }
    /* the CPU TIMES' counted methods: an unknown class */
    size_t counted = at[HPROF_TAG_JVMPROF_CPU_TIMES] + 4 + 28 * 4; /* the four traces with a time */
    unsigned char *copy = malloc(bin.len);
    ASSERT(copy != NULL);
    memcpy(copy, bin.data, bin.len);
    CHECK_EQ_INT(copy[counted + 3], 2); /* two counted methods */
    copy[counted + 4 + 1] = 0x55;
    char err[256] = "";
    report_opts ro;
    model *back = hprof_bin_read(copy, bin.len, &ro, err, sizeof err);
    CHECK(back == NULL && strstr(err, "CPU TIMES refers to an unknown class") && one_line(err));
    model_free(back);
    free(copy);
    buf_free(&bin);
}

/* record=y's SAMPLE TIMES: a session's recording (CPU samples of two traces, a lock wait that is not a
 * sample) written in format=b and read back as the model's sample times; the stacks made from the traces
 * give each its stack; a window keeps the samples of its times; the flame page of the file has the
 * timeline of them; corrupt rows are refused in one line. */
static void test_sample_times(void)
{
    const uint64_t ms = 1000000u, t0 = UINT64_C(1700000000000);
    model *m = model_new();
    ASSERT(m != NULL);
    m->start_time_ms = m->dump_time_ms = t0;
    m->recording = recording_new(1u << 20, UINT64_C(3600000000000));
    ASSERT(m->recording != NULL);
    frame_id comp = frame(m, "demo.Hot", "Hot.java", "compute", "(I)J", 42);
    frame_id hmain = frame(m, "demo.Hot", "Hot.java", "main", "([Ljava/lang/String;)V", 17);
    frame_id slp = frame(m, "java.lang.Thread", "Thread.java", "sleep", "(J)V", FRAME_LINE_NATIVE);
    frame_id hot_frames[] = { comp, hmain };
    trace_id hot = model_trace_intern(m, 0, hot_frames, 2), idle = model_trace_intern(m, 0, &slp, 1);
    model_trace_add_samples(m, hot, 3);
    model_trace_add_samples(m, idle, 1);
    const recording_event evs[] = {
        { t0 * ms + 100 * ms, 0, 1, hot.v, 0, 1, RECORDING_CPU, SAMPLE_RUNNING },
        { t0 * ms + 110 * ms, 0, 1, hot.v, 0, 2, RECORDING_CPU, SAMPLE_RUNNING },
        { t0 * ms + 900 * ms, 5000, 1, idle.v, 1, 1, RECORDING_LOCK, 0 },
        { t0 * ms + 2500 * ms, 0, 1, idle.v, 0, 1, RECORDING_CPU, SAMPLE_RUNNING },
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        CHECK(recording_add(m->recording, &evs[i]));
    buf bin;
    ASSERT(write_with(&hprof_bin_format, m, &opts_cpu, &bin) == JP_OK);
    model_free(m);
    char err[256] = "";
    report_opts ro;
    model *back = hprof_bin_read(bin.data, bin.len, &ro, err, sizeof err);
    ASSERT(back != NULL);
    ASSERT(back->sample_times_len == 3);
    CHECK_EQ_INT(back->sample_times[0].wall_ns, t0 * ms + 100 * ms);
    CHECK_EQ_INT(back->sample_times[1].weight, 2);
    CHECK_EQ_INT(back->sample_times[2].wall_ns, t0 * ms + 2500 * ms);
    CHECK_EQ_INT(back->sample_times[0].trace, back->sample_times[1].trace);
    CHECK(back->sample_times[0].trace != back->sample_times[2].trace);
    CHECK_EQ_INT(model_trace_samples(back, (trace_id){ back->sample_times[0].trace }), 3);
    ASSERT(trace_stacks_build(back) == JP_OK);
    CHECK(model_sample_time_stack(back, 0) != 0 && model_sample_time_stack(back, 0) == model_sample_time_stack(back, 1));
    CHECK(model_sample_time_stack(back, 2) != 0 && model_sample_time_stack(back, 2) != model_sample_time_stack(back, 0));
    /* the page: slices of 10 ms from 100 ms (2400 ms: 240 steps, 241 slices); nodes in preorder: all,
     * demo.Hot.main, demo.Hot.compute (1 sample in slice 0, 2 in slice 1), java.lang.Thread.sleep (slice 240) */
    buf page;
    ASSERT(write_with(&flame_html_format, back, &opts_cpu, &page) == JP_OK);
    buf_terminate(&page);
    CHECK(has(&page, ",\n\"timeline\": {\"t0\": 1700000000000, \"from\": 100.000, \"slice\": 10.000, \"n\": 241, "
                     "\"samples\": 4, \"cells\": [2,2,0,1,1,2,3,1,240,1]}"));
    buf_free(&page);
    /* the window from 105 ms to 3 s: the second hot sample and the idle one */
    model_sample_times_keep(back, t0 * ms + 105 * ms, t0 * ms + 3000 * ms);
    CHECK_EQ_INT(back->sample_times_len, 2);
    CHECK_EQ_INT(back->total_samples, 3);
    CHECK_EQ_INT(model_trace_samples(back, (trace_id){ back->sample_times[0].trace }), 2);
    CHECK(model_sample_time_stack(back, 1) != 0 && model_sample_time_stack(back, 1) != model_sample_time_stack(back, 0));
    model_free(back);

    /* the record, its rows corrupted one at a time (model1 without times has none: the golden file) */
    size_t off = 31;
    while (off + 9 <= bin.len && bin.data[off] != HPROF_TAG_JVMPROF_SAMPLE_TIMES) {
        uint32_t rlen = (uint32_t)bin.data[off + 5] << 24 | (uint32_t)bin.data[off + 6] << 16 |
                        (uint32_t)bin.data[off + 7] << 8 | bin.data[off + 8];
        off += 9 + (size_t)rlen;
    }
    ASSERT(off + 9 <= bin.len);
    size_t body = off + 9;
    CHECK_EQ_INT(bin.data[body + 3], 3); /* three rows: the lock wait is not a sample */
    static const struct { size_t pos; unsigned char v; const char *err; } cases[] = {
        { 4 + 14, 9, "SAMPLE TIMES: thread state 9 (expected 0..4)" },
        { 4 + 10, 0x77, "SAMPLE TIMES refers to an unknown TRACE" },
        { 3, 4, "malformed record (tag 0xa9)" },
        { 3, 2, "malformed record (tag 0xa9)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *copy = malloc(bin.len);
        ASSERT(copy != NULL);
        memcpy(copy, bin.data, bin.len);
        copy[body + cases[i].pos] = cases[i].v;
        char e2[256] = "";
        model *bad = hprof_bin_read(copy, bin.len, &ro, e2, sizeof e2);
        if (!CHECK(bad == NULL) || !CHECK(strstr(e2, cases[i].err) != NULL) || !CHECK(one_line(e2)))
            fprintf(stderr, "    case %zu: \"%s\"\n", i, e2);
        model_free(bad);
        free(copy);
    }
    buf_free(&bin);
}

/* An empty model: both writers work, the reader reads it back. */
/* The ASCII report of an empty model with CPU samples and monitors asked for. */
#define EMPTY_REPORT \
    "CPU SAMPLES BEGIN (total = 0) Thu Jan  1 00:00:00 1970\n" \
    "rank   self  accum   count trace method\n" \
    "CPU SAMPLES END\n" \
    "MONITOR TIME BEGIN (total = 0 ms) Thu Jan  1 00:00:00 1970\n" \
    "rank   self  accum   count trace monitor\n" \
    "MONITOR TIME END\n" \
    "METHODS (CPU samples) BEGIN (total = 0) Thu Jan  1 00:00:00 1970\n" \
    "rank   self  accum  total    self#   total# method\n" \
    "METHODS (CPU samples) END\n"

static void test_empty_model(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    buf txt, bin;
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &opts_all, &txt), JP_OK);
    buf_terminate(&txt);
    CHECK_EQ_STR(txt_body(&txt), EMPTY_REPORT);
    CHECK_EQ_INT(write_with(&hprof_bin_format, m, &opts_cpu, &bin), JP_OK);
    char err[256];
    report_opts ro;
    model *back = hprof_bin_read(bin.data, bin.len, &ro, err, sizeof err);
    CHECK(back != NULL);
    if (back) {
        CHECK(ro.cpu_samples);
        CHECK_EQ_INT(model_trace_count(back), 0);
    }
    model_free(back);
    buf_free(&txt);
    buf_free(&bin);
    model_free(m);
}

/* Counts a collector sets are the ASCII report's last section, in the order
 * first set; setting one again changes its value; no counts, no section. */
static void test_counts(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    CHECK(model_count_set(m, "threads started", 3));
    CHECK(model_count_set(m, "samples dropped", 0));
    CHECK(model_count_set(m, "threads started", 64));
    buf txt;
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &opts_all, &txt), JP_OK);
    buf_terminate(&txt);
    CHECK_EQ_STR(txt_body(&txt), EMPTY_REPORT
                                 "COUNTS BEGIN Thu Jan  1 00:00:00 1970\n"
                                 "threads started 64\n"
                                 "samples dropped 0\n"
                                 "COUNTS END\n");
    /* room for MODEL_COUNTS_MAX, then refused */
    static char names[MODEL_COUNTS_MAX + 1][8];
    for (unsigned i = 2; i <= MODEL_COUNTS_MAX; i++) {
        snprintf(names[i], sizeof names[i], "c%u", i);
        CHECK_EQ_INT(model_count_set(m, names[i], i), i < MODEL_COUNTS_MAX);
    }
    CHECK_EQ_INT(m->ncounts, MODEL_COUNTS_MAX);
    buf_free(&txt);
    model_free(m);
}

/* The formats' declarations, which the option checks follow: every format is
 * listed once with its option, description and summary; the ASCII report is
 * the complete one (every record); the binary format has CPU samples and
 * sites only (as HPROF's); the stack formats carry samples of both kinds. */
/* The per-method view: a method hot through many call paths comes first,
 * with its self and total summed over them; a recursive trace adds to a
 * method's total once; lines of one method are one method; cpu=times gives
 * time and calls; cutoff, top and prefix choose rows. */
static void test_methods(void)
{
    model *m = model_new();
    ASSERT(m != NULL);
    frame_id hot = frame(m, "p.Hot", "Hot.java", "hot", "()V", 10);
    frame_id hot2 = frame(m, "p.Hot", "Hot.java", "hot", "()V", 12);   /* another line, the same method */
    frame_id a = frame(m, "p.A", "A.java", "a", "()V", 1), b = frame(m, "p.B", "B.java", "b", "()V", 2);
    frame_id c = frame(m, "q.C", "C.java", "c", "()V", 3), mainf = frame(m, "p.Main", "Main.java", "main", "()V", 4);
    frame_id t1[] = { hot, a, mainf }, t2[] = { hot2, b, mainf }, t3[] = { hot, c, mainf }, t4[] = { a, mainf },
             t5[] = { hot, hot, a, mainf };
    uint64_t n[] = { 10, 10, 10, 15, 5 };
    const frame_id *ts[] = { t1, t2, t3, t4, t5 };
    uint32_t lens[] = { 3, 3, 3, 2, 4 };
    for (int i = 0; i < 5; i++) {
        trace_id t = model_trace_intern(m, 0, ts[i], lens[i]);
        model_trace_add_samples(m, t, n[i]);
        model_trace_add_time(m, t, n[i] * 1000000u, n[i] * 2);
    }
    method_row rows[16];
    uint32_t k = method_rows(m, false, rows);
    ASSERT(k == 5);
    const model_method *top = model_method_get(m, (method_id){ rows[0].method });
    CHECK_EQ_STR(model_string_get(m, top->name, NULL), "hot");
    CHECK_EQ_INT(rows[0].self, 35);    /* 10 + 10 + 10 + 5, over three callers and two lines */
    CHECK_EQ_INT(rows[0].total, 35);   /* the recursive trace once */
    CHECK_EQ_STR(model_string_get(m, model_method_get(m, (method_id){ rows[1].method })->name, NULL), "a");
    CHECK_EQ_INT(rows[1].self, 15);
    CHECK_EQ_INT(rows[1].total, 30);   /* t1, t4, t5 */
    for (uint32_t i = 0; i < k; i++)
        if (strcmp(model_string_get(m, model_method_get(m, (method_id){ rows[i].method })->name, NULL), "main") == 0) {
            CHECK_EQ_INT(rows[i].self, 0);
            CHECK_EQ_INT(rows[i].total, 50);
        }
    k = method_rows(m, true, rows);
    ASSERT(k == 5);
    CHECK_EQ_INT(rows[0].self, 35000000);
    CHECK_EQ_INT(rows[0].calls, 70);

    m->dump_time_ms = 0;
    buf out;
    buf_init(&out);
    sink *s = sink_open_memory(&out);
    ASSERT(s != NULL);
    CHECK(method_rows_write(m, false, &(method_filter){ 0.0, 2, NULL }, "now", s) == JP_OK);
    CHECK(method_rows_write(m, true, &(method_filter){ 0.0, 0, "q." }, "now", s) == JP_OK);
    CHECK(method_rows_write(m, false, &(method_filter){ 0.25, 0, NULL }, "now", s) == JP_OK);
    char err[256];
    CHECK(sink_commit(s, err, sizeof err) == JP_OK);
    buf_terminate(&out);
    CHECK_EQ_STR((const char *)out.data,
              "METHODS (CPU samples) BEGIN (total = 50) now\n"
              "rank   self  accum  total    self#   total# method\n"
              "   1 70.00% 70.00% 70.00%       35       35 p.Hot.hot\n"
              "   2 30.00% 100.00% 60.00%       15       30 p.A.a\n"
              "METHODS (CPU samples) END\n"
              "METHODS (CPU time) BEGIN (total = 50 ms) now\n"
              "rank   self  accum  total  self ms total ms    calls method\n"
              "   1  0.00% 100.00% 20.00%        0       10        0 q.C.c\n"
              "METHODS (CPU time) END\n"
              "METHODS (CPU samples) BEGIN (total = 50) now\n"
              "rank   self  accum  total    self#   total# method\n"
              "   1 70.00% 70.00% 70.00%       35       35 p.Hot.hot\n"
              "   2 30.00% 100.00% 60.00%       15       30 p.A.a\n"
              "   3  0.00% 100.00% 100.00%        0       50 p.Main.main\n"
              "METHODS (CPU samples) END\n");
    buf_free(&out);
    model_free(m);
}

static void test_format_declarations(void)
{
    const unsigned all = FMT_CPU_SAMPLES | FMT_WALL_SAMPLES | FMT_CPU_TIMES | FMT_MONITORS | FMT_SITES;
    CHECK_EQ_INT(jp_format_count, 6);
    for (size_t i = 0; i < jp_format_count; i++) {
        const jp_format_ops *f = jp_formats[i];
        CHECK(f->name && f->option && f->description && f->write && f->summary);
        CHECK((f->records & ~all) == 0 && f->records != 0);
        for (size_t j = 0; j < i; j++)
            CHECK(jp_formats[j] != f && strcmp(jp_formats[j]->option, f->option) != 0);
    }
    CHECK_EQ_INT(hprof_txt_format.records, all);
    CHECK_EQ_INT(hprof_bin_format.records, all);
    CHECK_EQ_INT(flame_html_format.records, FMT_CPU_SAMPLES | FMT_WALL_SAMPLES);
    CHECK_EQ_INT(collapsed_format.records, FMT_CPU_SAMPLES | FMT_WALL_SAMPLES);
    CHECK_EQ_INT(pprof_format.records, all);
    CHECK_EQ_INT(jfr_format.records, FMT_CPU_SAMPLES | FMT_WALL_SAMPLES | FMT_MONITORS | FMT_SITES);
    /* the summaries the log prints */
    model *m = model_new();
    ASSERT(m != NULL);
    char line[256];
    hprof_txt_format.summary(m, line, sizeof line);
    CHECK_EQ_STR(line, "0 traces");
    flame_html_format.summary(m, line, sizeof line);
    CHECK_EQ_STR(line, "flame graph of 0 samples in 0 stacks");
    collapsed_format.summary(m, line, sizeof line);
    CHECK_EQ_STR(line, "0 collapsed stacks");
    model_free(m);
}

/* ---- reader robustness ------------------------------------------------------------ */

/* Every proper prefix of the golden binary: refused with a one-line error,
 * except a prefix that ends exactly between records, which is a valid
 * (shorter) file: the format has no end marker. */
static void test_truncated(void)
{
    size_t len = 0;
    unsigned char *data = th_read_file(GOLDEN_BIN, &len);
    ASSERT(data != NULL && len > 31);
    /* record boundaries, found by walking the record headers */
    unsigned char *boundary = calloc(len + 1, 1);
    ASSERT(boundary != NULL);
    size_t off = 31, nrec = 0;
    while (off + 9 <= len) {
        boundary[off] = 1;
        uint32_t rlen = (uint32_t)data[off + 5] << 24 | (uint32_t)data[off + 6] << 16 |
                        (uint32_t)data[off + 7] << 8 | data[off + 8];
        off += 9 + (size_t)rlen;
        nrec++;
    }
    CHECK_EQ_INT(off, len);
    unsigned long refused = 0, accepted = 0, wrong = 0;
    for (size_t n = 0; n < len; n++) {
        char err[256];
        memset(err, 'x', sizeof err);
        err[sizeof err - 1] = '\0';
        report_opts ro;
        model *m = read_copy(data, n, &ro, err, sizeof err);
        if (m) {
            accepted++;
            if (!boundary[n]) {
                wrong++;
                fprintf(stderr, "    prefix of %zu bytes accepted\n", n);
            }
            /* whatever was read can be written */
            buf out;
            if (write_with(&hprof_txt_format, m, &ro, &out) != JP_OK)
                wrong++;
            buf_free(&out);
            model_free(m);
        } else {
            refused++;
            if (boundary[n] || !one_line(err) || strlen(err) > 200) {
                wrong++;
                fprintf(stderr, "    prefix of %zu bytes: error \"%s\"\n", n, err);
            }
        }
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(accepted, nrec); /* the header alone, and after each record but the last */
    CHECK_EQ_INT(refused + accepted, len);
    free(boundary);
    free(data);
}

static void test_bad_header(void)
{
    static const struct { const char *what; const char *data; size_t len; } cases[] = {
        { "empty", "", 0 },
        { "one byte", "J", 1 },
        { "no NUL", "JAVA PROFILE 1.0.2", 18 },
        { "other version", "JAVA PROFILE 1.0.3\0\0\0\0\x08\0\0\0\0\0\0\0\0", 31 },
        { "other magic", "JAVA PROFILE\0\0\0\0\x08\0\0\0\0\0\0\0\0", 25 },
        { "text file", "JAVA PROFILE 1.0.1, created Tue Nov 14 22:13:20 2023\n\nWritten by jvmprof, an "
                       "HPROF-compatible profiler for the Java virtual machine.\n", 127 },
        { "id size 0", "JAVA PROFILE 1.0.2\0\0\0\0\0\0\0\0\0\0\0\0\0", 31 },
        { "id size 2", "JAVA PROFILE 1.0.2\0\0\0\0\x02\0\0\0\0\0\0\0\0", 31 },
        { "id size 16", "JAVA PROFILE 1.0.2\0\0\0\0\x10\0\0\0\0\0\0\0\0", 31 },
        { "short time", "JAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0", 26 },
        { "short id size", "JAVA PROFILE 1.0.1\0\0\0", 22 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[256] = "";
        report_opts ro;
        model *m = read_copy(cases[i].data, cases[i].len, &ro, err, sizeof err);
        if (!CHECK(m == NULL) || !CHECK(one_line(err)))
            fprintf(stderr, "    case %s: \"%s\"\n", cases[i].what, err);
        model_free(m);
    }
    char err[256] = "";
    report_opts ro;
    CHECK(read_copy("XAVA PROFILE 1.0.2\0\0\0\0\x08\0\0\0\0\0\0\0\0", 31, &ro, err, sizeof err) == NULL);
    CHECK(strstr(err, "not an HPROF binary file") != NULL);
    CHECK(read_copy("JAVA PROFILE 1.0.2\0\0\0\0\x03\0\0\0\0\0\0\0\0", 31, &ro, err, sizeof err) == NULL);
    CHECK(strstr(err, "identifier size 3") != NULL);
    /* a valid header and nothing else is a valid, empty file */
    model *m = read_copy("JAVA PROFILE 1.0.1\0\0\0\0\x04\0\0\0\0\0\0\0\x07", 31, &ro, err, sizeof err);
    CHECK(m != NULL);
    if (m) {
        CHECK_EQ_INT(m->start_time_ms, 7);
        CHECK(!ro.cpu_samples);
    }
    model_free(m);
}

/* ---- hand-made files ----------------------------------------------------------------- */

typedef struct hfile {
    buf b;
    unsigned idsize;
} hfile;

static void hf_begin(hfile *h, const char *magic, unsigned idsize, uint64_t start_ms)
{
    buf_init(&h->b);
    h->idsize = idsize;
    buf_put(&h->b, magic, strlen(magic) + 1);
    buf_put_u4(&h->b, idsize);
    buf_put_u8(&h->b, start_ms);
}

static void hf_id(hfile *h, buf *body, uint64_t id)
{
    if (h->idsize == 4)
        buf_put_u4(body, (uint32_t)id);
    else
        buf_put_u8(body, id);
}

static void hf_record(hfile *h, uint8_t tag, uint32_t micros, buf *body)
{
    buf_put_u1(&h->b, tag);
    buf_put_u4(&h->b, micros);
    buf_put_u4(&h->b, (uint32_t)body->len);
    buf_put(&h->b, body->data, body->len);
    buf_reset(body);
}

static void hf_utf8(hfile *h, buf *body, uint64_t id, const char *s)
{
    hf_id(h, body, id);
    buf_put(body, s, strlen(s));
    hf_record(h, HPROF_TAG_UTF8, 0, body);
}

static void hf_frame(hfile *h, buf *body, uint64_t id, uint64_t name, uint64_t sig, uint64_t src, uint32_t cls,
                     int32_t line)
{
    hf_id(h, body, id);
    hf_id(h, body, name);
    hf_id(h, body, sig);
    hf_id(h, body, src);
    buf_put_u4(body, cls);
    buf_put_u4(body, (uint32_t)line);
    hf_record(h, HPROF_TAG_FRAME, 0, body);
}

/* A JDK 8 HPROF-style file: version 1.0.1, 4-byte ids that are not dense,
 * internal class names, serials with HPROF's bases, an unknown record and a
 * heap summary in between, both skipped. */
static void build_id4_file(hfile *h)
{
    buf body;
    buf_init(&body);
    hf_begin(h, "JAVA PROFILE 1.0.1", 4, UINT64_C(1000000000000)); /* Sun Sep  9 01:46:40 2001 UTC */
    buf_put(&body, "\x01\x02\x03\x04\x05", 5);
    hf_record(h, 0x99, 2000000, &body); /* unknown tag; its time sets the dump time */
    hf_utf8(h, &body, 0x1000, "demo/Hot");
    hf_utf8(h, &body, 0x1004, "compute");
    hf_utf8(h, &body, 0x1008, "(I)J");
    hf_utf8(h, &body, 0x100c, "Hot.java");
    hf_utf8(h, &body, 0x1010, "main");
    hf_utf8(h, &body, 0x1014, "system");
    buf_put_u4(&body, 100001);
    hf_id(h, &body, 0xdead);
    buf_put_u4(&body, 0);
    hf_id(h, &body, 0x1000);
    hf_record(h, HPROF_TAG_LOAD_CLASS, 0, &body);
    buf_put_u4(&body, 200001);
    hf_id(h, &body, 0xbeef);
    buf_put_u4(&body, 0);
    hf_id(h, &body, 0x1010);
    hf_id(h, &body, 0x1014);
    hf_id(h, &body, 0);
    hf_record(h, HPROF_TAG_START_THREAD, 0, &body);
    for (int i = 0; i < 24; i++)
        buf_put_u1(&body, 0);
    hf_record(h, HPROF_TAG_HEAP_SUMMARY, 0, &body);
    hf_frame(h, &body, 0x2000, 0x1004, 0x1008, 0x100c, 100001, 42);
    hf_frame(h, &body, 0x2004, 0x1004, 0x1008, 0x100c, 100001, FRAME_LINE_NATIVE);
    buf_put_u4(&body, 300007);
    buf_put_u4(&body, 200001);
    buf_put_u4(&body, 2);
    hf_id(h, &body, 0x2000);
    hf_id(h, &body, 0x2004);
    hf_record(h, HPROF_TAG_TRACE, 0, &body);
    buf_put_u4(&body, 300009);
    buf_put_u4(&body, 0);
    buf_put_u4(&body, 0);
    hf_record(h, HPROF_TAG_TRACE, 0, &body);
    hf_record(h, HPROF_TAG_HEAP_DUMP_END, 0, &body); /* empty body */
    buf_put_u4(&body, 10);
    buf_put_u4(&body, 2);
    buf_put_u4(&body, 7);
    buf_put_u4(&body, 300007);
    buf_put_u4(&body, 3);
    buf_put_u4(&body, 300009);
    hf_record(h, HPROF_TAG_CPU_SAMPLES, 0, &body);
    buf_put_u4(&body, 200001);
    hf_record(h, HPROF_TAG_END_THREAD, 0, &body);
    buf_free(&body);
}

static void test_id4_file(void)
{
    hfile h;
    build_id4_file(&h);
    char err[256] = "";
    report_opts ro;
    model *m = read_copy(h.b.data, h.b.len, &ro, err, sizeof err);
    if (!CHECK(m != NULL)) {
        fprintf(stderr, "    %s\n", err);
        buf_free(&h.b);
        return;
    }
    CHECK(ro.cpu_samples);
    CHECK_EQ_INT(m->start_time_ms, UINT64_C(1000000000000));
    CHECK_EQ_INT(m->dump_time_ms, UINT64_C(1000000002000));
    CHECK_EQ_INT(m->total_samples, 10);
    buf out;
    CHECK_EQ_INT(write_with(&hprof_txt_format, m, &ro, &out), JP_OK);
    buf_terminate(&out);
    /* trace serials are renumbered in reading order: model ids, as always */
    CHECK_EQ_STR(txt_body(&out), "THREAD START (obj=beef, id = 200001, name=\"main\", group=\"system\")\n"
                                 "THREAD END (id = 200001)\n"
                                 "TRACE 300001: (thread=200001)\n"
                                 "\tdemo.Hot.compute(Hot.java:42)\n"
                                 "\tdemo.Hot.compute(Hot.java:Native method)\n"
                                 "TRACE 300002:\n"
                                 "\t<empty>\n"
                                 "CPU SAMPLES BEGIN (total = 10) Sun Sep  9 01:46:42 2001\n"
                                 "rank   self  accum   count trace method\n"
                                 "   1 70.00% 70.00%       7 300001 demo.Hot.compute\n"
                                 "   2 30.00% 100.00%       3 300002 <empty trace>\n"
                                 "CPU SAMPLES END\n"
                                 "METHODS (CPU samples) BEGIN (total = 10) Sun Sep  9 01:46:42 2001\n"
                                 "rank   self  accum  total    self#   total# method\n"
                                 "   1 70.00% 70.00% 70.00%        7        7 demo.Hot.compute\n"
                                 "METHODS (CPU samples) END\n");
    buf_free(&out);
    model_free(m);

    /* every prefix of it too */
    unsigned long crashes_avoided = 0;
    for (size_t n = 0; n < h.b.len; n++) {
        model *p = read_copy(h.b.data, n, &ro, err, sizeof err);
        if (!p && !one_line(err))
            crashes_avoided++;
        model_free(p);
    }
    CHECK_EQ_INT(crashes_avoided, 0);
    buf_free(&h.b);
}

/* The reader refuses the file built in h with a one-line error containing
 * msg (if not NULL); h's buffer is freed. */
static void expect_refused(hfile *h, const char *msg)
{
    char err[256] = "";
    report_opts ro;
    model *m = read_copy(h->b.data, h->b.len, &ro, err, sizeof err);
    CHECK(m == NULL);
    CHECK(one_line(err));
    if (msg && !strstr(err, msg)) {
        printf("  expected an error containing \"%s\", got \"%s\"\n", msg, err);
        CHECK(strstr(err, msg) != NULL);
    }
    model_free(m);
    buf_free(&h->b);
}

/* Files that are well-formed record by record but wrong in content. */
static void test_bad_references(void)
{
    buf body;
    buf_init(&body);

    /* a TRACE naming a FRAME that was never defined */
    hfile h;
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    hf_utf8(&h, &body, 1, "f");
    hf_frame(&h, &body, 10, 1, 1, 0, 100001, 3);
    buf_put_u4(&body, 300001);
    buf_put_u4(&body, 0);
    buf_put_u4(&body, 2);
    buf_put_u8(&body, 10);
    buf_put_u8(&body, 11);
    hf_record(&h, HPROF_TAG_TRACE, 0, &body);
    expect_refused(&h, "TRACE 300001 refers to an unknown FRAME");

    /* CPU SAMPLES naming a TRACE that was never defined */
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    buf_put_u4(&body, 300001);
    buf_put_u4(&body, 0);
    buf_put_u4(&body, 0);
    hf_record(&h, HPROF_TAG_TRACE, 0, &body);
    buf_put_u4(&body, 2);
    buf_put_u4(&body, 2);
    buf_put_u4(&body, 1);
    buf_put_u4(&body, 300001);
    buf_put_u4(&body, 1);
    buf_put_u4(&body, 300002);
    hf_record(&h, HPROF_TAG_CPU_SAMPLES, 0, &body);
    expect_refused(&h, "unknown TRACE 300002");

    /* counts that promise more than the record holds */
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    buf_put_u4(&body, 300001);
    buf_put_u4(&body, 0);
    buf_put_u4(&body, 0xffffffffu);
    hf_record(&h, HPROF_TAG_TRACE, 0, &body);
    expect_refused(&h, NULL);
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    buf_put_u4(&body, 0);
    buf_put_u4(&body, 0x20000000u);
    hf_record(&h, HPROF_TAG_CPU_SAMPLES, 0, &body);
    expect_refused(&h, NULL);

    /* a record shorter than its fixed fields */
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    buf_put_u4(&body, 200001);
    hf_record(&h, HPROF_TAG_START_THREAD, 0, &body);
    expect_refused(&h, "malformed record (tag 0x0a)");

    /* a record length running past the end of the file */
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    buf_put_u1(&h.b, HPROF_TAG_UTF8);
    buf_put_u4(&h.b, 0);
    buf_put_u4(&h.b, 0xfffffff0u);
    buf_put(&h.b, "abcdefgh", 8);
    expect_refused(&h, "truncated record (tag 0x01) at offset 31");

    /* a thread serial far beyond what the file could hold: refused without
     * allocating a table for a billion threads */
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    buf_put_u4(&body, 1000000000u);
    buf_put_u8(&body, 1);
    buf_put_u4(&body, 0);
    buf_put_u8(&body, 0);
    buf_put_u8(&body, 0);
    buf_put_u8(&body, 0);
    hf_record(&h, HPROF_TAG_START_THREAD, 0, &body);
    expect_refused(&h, "START THREAD serial 1000000000 out of range");

    /* ... and in a TRACE, whose thread the flame graph writer looks up in a
     * table by serial (the readers' fuzzer found this one) */
    hf_begin(&h, HPROF_BIN_MAGIC, 8, 0);
    buf_put_u4(&body, 300001);
    buf_put_u4(&body, 0xffff0000u);
    buf_put_u4(&body, 0);
    hf_record(&h, HPROF_TAG_TRACE, 0, &body);
    expect_refused(&h, "TRACE 300001: thread serial 4294901760 out of range");
    buf_free(&body);
}

/* Random corruption of the golden binary (fixed seed): the reader either
 * refuses the file with one line or returns a model the writers can write;
 * it never crashes, hangs or trips ASan/UBSan. */
static void test_corrupt(void)
{
    size_t len = 0;
    unsigned char *data = th_read_file(GOLDEN_BIN, &len);
    ASSERT(data != NULL && len > 31);
    unsigned char *copy = malloc(len);
    ASSERT(copy != NULL);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned long bad = 0, accepted = 0;
    for (int iter = 0; iter < 4000; iter++) {
        memcpy(copy, data, len);
        int flips = 1 + iter % 4;
        for (int k = 0; k < flips; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t at = 19 + (size_t)(x % (len - 19));
            copy[at] = iter % 3 == 0 ? (unsigned char)(x >> 32) : (unsigned char)(copy[at] ^ (1u << ((x >> 40) % 8)));
        }
        char err[256] = "";
        report_opts ro;
        model *m = hprof_bin_read(copy, len, &ro, err, sizeof err);
        if (m) {
            accepted++;
            buf out;
            if (write_with(&hprof_txt_format, m, &ro, &out) != JP_OK)
                bad++;
            buf_free(&out);
            if (write_with(&hprof_bin_format, m, &ro, &out) != JP_OK)
                bad++;
            buf_free(&out);
            model_free(m);
        } else if (!one_line(err)) {
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(accepted > 0); /* flips in strings or counts still give a readable file */
    free(copy);
    free(data);
}

int main(void)
{
    /* the text writer prints local time */
    setenv("TZ", "UTC", 1);
    tzset();
    RUN(test_golden_text);
    RUN(test_golden_binary);
    RUN(test_cpu_times);
    RUN(test_wall_samples);
    RUN(test_cutoff);
    RUN(test_monitor_kinds);
    RUN(test_site_stacks);
    RUN(test_round_trip);
    RUN(test_jvmprof_records_round_trip);
    RUN(test_jvmprof_records_bad);
    RUN(test_sample_times);
    RUN(test_empty_model);
    RUN(test_counts);
    RUN(test_methods);
    RUN(test_format_declarations);
    RUN(test_truncated);
    RUN(test_bad_header);
    RUN(test_id4_file);
    RUN(test_bad_references);
    RUN(test_corrupt);
    return DONE();
}
