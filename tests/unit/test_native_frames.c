/* test_native_frames.c — native (C/C++) and kernel frames and the JVM's own
 * threads in every writer and reader: a model built in code mixing Java,
 * CPP and KERNEL frames, a GC and a compiler thread, written as the ASCII
 * report (frames, THREAD KINDS shares), collapsed stacks (bare symbols,
 * _[k]; read back with their kinds), the binary report (the NATIVE record:
 * round trip, damaged forms refused), pprof (one Mapping per library, decoded
 * here), the flame graph (the libraries for the tooltip) and JFR. */
#include "harness.h"

#include <zlib.h>

#include "format/format.h"
#include "format/hprof_bin.h"

#define LIBC_PATH "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LIBJVM_PATH "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"

static const report_opts nf_opts = { 0, true, false, false, false, NULL };

/* ---- the model ---------------------------------------------------------- */

typedef struct nf_ids {
    class_id libc, libjvm, kernel;
    method_id vfs_write, ksys_write, write, write_bytes, app_main, mark, unnamed, call_run, compile;
} nf_ids;

static method_id nf_method(model *m, class_id c, const char *name, const char *sig)
{
    return model_method_intern(m, c, model_cstring(m, name), model_cstring(m, sig));
}

static frame_id nf_frame(model *m, method_id me, int32_t line) { return model_frame_intern(m, me, line); }

/* main (Java): 60 samples writing a file, down into the kernel; "G1 Conc#0"
 * (GC): 30 samples in libjvm, one frame without a symbol; "C2 CompilerThre"
 * (compiler): 10 samples. Traces and stacks alike (the stacks with kinds). */
static model *nf_model(nf_ids *ids)
{
    model *m = model_new();
    if (!m)
        return NULL;
    m->start_time_ms = m->dump_time_ms = 1700000000000ull;
    m->interval_us = 10000;
    m->depth = 8;
    ids->libc = model_class_intern_lib(m, model_cstring(m, "libc.so.6"), MODEL_CODE_NATIVE, model_cstring(m, LIBC_PATH),
                                       model_cstring(m, "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"));
    ids->libjvm = model_class_intern_lib(m, model_cstring(m, "libjvm.so"), MODEL_CODE_NATIVE,
                                         model_cstring(m, LIBJVM_PATH), (str_id){ 0 });
    ids->kernel = model_class_intern_lib(m, model_cstring(m, "kernel"), MODEL_CODE_KERNEL, (str_id){ 0 }, (str_id){ 0 });
    class_id app = model_class_intern(m, model_cstring(m, "demo.App"), model_cstring(m, "App.java"));
    class_id fos = model_class_intern(m, model_cstring(m, "java.io.FileOutputStream"),
                                      model_cstring(m, "FileOutputStream.java"));
    ids->vfs_write = nf_method(m, ids->kernel, "vfs_write", "");
    ids->ksys_write = nf_method(m, ids->kernel, "ksys_write", "");
    ids->write = nf_method(m, ids->libc, "__write", "");
    ids->write_bytes = nf_method(m, fos, "writeBytes", "([BIIZ)V");
    ids->app_main = nf_method(m, app, "main", "([Ljava/lang/String;)V");
    ids->mark = nf_method(m, ids->libjvm, "G1ConcurrentMark::mark_from_roots", "");
    ids->unnamed = nf_method(m, ids->libjvm, "libjvm.so+0x1a2b", "");
    ids->call_run = nf_method(m, ids->libjvm, "Thread::call_run", "");
    ids->compile = nf_method(m, ids->libjvm, "C2Compiler::compile_method", "");

    model_thread_start(m, 1, 0x1000, model_cstring(m, "main"), model_cstring(m, "main"), model_cstring(m, "system"));
    model_thread_start_jvm(m, 2, model_cstring(m, "G1 Conc#0"));
    model_thread_start_jvm(m, 3, model_cstring(m, "C2 CompilerThre"));

    frame_id t1[] = { nf_frame(m, ids->vfs_write, FRAME_LINE_NATIVE), nf_frame(m, ids->ksys_write, FRAME_LINE_NATIVE),
                      nf_frame(m, ids->write, FRAME_LINE_NATIVE), nf_frame(m, ids->write_bytes, FRAME_LINE_NATIVE),
                      nf_frame(m, ids->app_main, 12) };
    frame_id t2[] = { nf_frame(m, ids->mark, FRAME_LINE_NATIVE), nf_frame(m, ids->unnamed, FRAME_LINE_NATIVE),
                      nf_frame(m, ids->call_run, FRAME_LINE_NATIVE) };
    frame_id t3[] = { nf_frame(m, ids->compile, FRAME_LINE_NATIVE), nf_frame(m, ids->call_run, FRAME_LINE_NATIVE) };
    model_trace_add_samples(m, model_trace_intern(m, 1, t1, 5), 60);
    model_trace_add_samples(m, model_trace_intern(m, 2, t2, 3), 30);
    model_trace_add_samples(m, model_trace_intern(m, 3, t3, 2), 10);

    uint32_t s1[] = { stack_frame_pack(ids->vfs_write, FRAME_KIND_KERNEL),
                      stack_frame_pack(ids->ksys_write, FRAME_KIND_KERNEL),
                      stack_frame_pack(ids->write, FRAME_KIND_CPP), stack_frame_pack(ids->write_bytes, FRAME_KIND_NATIVE),
                      stack_frame_pack(ids->app_main, FRAME_KIND_JIT) };
    uint32_t s2[] = { stack_frame_pack(ids->mark, FRAME_KIND_CPP), stack_frame_pack(ids->unnamed, FRAME_KIND_CPP),
                      stack_frame_pack(ids->call_run, FRAME_KIND_CPP) };
    uint32_t s3[] = { stack_frame_pack(ids->compile, FRAME_KIND_CPP), stack_frame_pack(ids->call_run, FRAME_KIND_CPP) };
    model_stack_add(m, model_stack_intern(m, 1, SAMPLE_RUNNING, s1, 5), 60);
    model_stack_add(m, model_stack_intern(m, 2, SAMPLE_RUNNING, s2, 3), 30);
    model_stack_add(m, model_stack_intern(m, 3, SAMPLE_RUNNING, s3, 2), 10);
    m->total_samples = 100;
    return m;
}

/* ---- helpers -------------------------------------------------------------- */

static jp_status nf_write(const jp_format_ops *f, const model *m, const report_opts *o, buf *out)
{
    buf_init(out);
    sink *s = sink_open_memory(out);
    if (!s)
        return JP_ERR_NOMEM;
    jp_status st = f->write(m, o, s);
    char err[256];
    jp_status st2 = sink_commit(s, err, sizeof err);
    buf_put(out, "", 1); /* NUL-terminated for strstr; len counts it */
    return st != JP_OK ? st : st2;
}

static bool nf_has(const buf *b, const char *needle)
{
    bool ok = b->data && memmem(b->data, b->len, needle, strlen(needle)) != NULL;
    if (!ok)
        fprintf(stderr, "    missing: \"%s\"\n", needle);
    return ok;
}

static const char *nf_str(const model *m, str_id id) { return model_string_get(m, id, NULL); }

/* ---- the model itself ----------------------------------------------------- */

static void test_thread_kinds(void)
{
    static const struct { const char *name; thread_kind k; } names[] = {
        { "GC Thread#0", THREAD_KIND_GC },        { "G1 Conc#0", THREAD_KIND_GC },
        { "G1 Refine#0", THREAD_KIND_GC },        { "G1 Main Marker", THREAD_KIND_GC },
        { "G1 Service", THREAD_KIND_GC },         { "ZWorker#0", THREAD_KIND_GC },
        { "C1 CompilerThre", THREAD_KIND_COMPILER }, { "C2 CompilerThre", THREAD_KIND_COMPILER },
        { "Sweeper thread", THREAD_KIND_COMPILER }, { "VM Thread", THREAD_KIND_VM },
        { "VM Periodic Tas", THREAD_KIND_VM },    { "Unknown thread", THREAD_KIND_JVM_OTHER },
        { "Service Thread", THREAD_KIND_JVM_OTHER },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!CHECK_EQ_INT(thread_kind_of_name(names[i].name, strlen(names[i].name)), names[i].k))
            fprintf(stderr, "    %s\n", names[i].name);
    model *m = model_new();
    ASSERT(m);
    /* a Java thread named like a GC thread is a Java thread: only the JVM's own are told by name */
    model_thread_start(m, 1, 0x10, model_cstring(m, "GC Thread#0"), (str_id){ 0 }, (str_id){ 0 });
    model_thread_start_jvm(m, 2, model_cstring(m, "GC Thread#0"));
    CHECK_EQ_INT(model_thread_kind(m, 1), THREAD_KIND_JAVA);
    CHECK_EQ_INT(model_thread_kind(m, 2), THREAD_KIND_GC);
    CHECK_EQ_INT(model_thread_kind(m, 7), THREAD_KIND_JAVA);
    const model_thread *t = model_thread_get(m, 2);
    ASSERT(t);
    CHECK(t->jvm_internal && t->object_id == 0);
    CHECK_EQ_STR(nf_str(m, t->group), "jvm");
    CHECK(!model_thread_get(m, 1)->jvm_internal);
    model_free(m);
}

static void test_lib_classes(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m && !m->oom);
    const model_class *c = model_class_get(m, ids.libc);
    CHECK_EQ_INT(c->code, MODEL_CODE_NATIVE);
    CHECK_EQ_STR(nf_str(m, c->source_file), "libc.so.6");
    CHECK_EQ_STR(nf_str(m, c->path), LIBC_PATH);
    c = model_class_get(m, ids.kernel);
    CHECK_EQ_INT(c->code, MODEL_CODE_KERNEL);
    CHECK_EQ_STR(nf_str(m, c->source_file), "vmlinux");
    CHECK_EQ_STR(nf_str(m, c->path), "[kernel.kallsyms]");
    CHECK_EQ_INT(model_method_native_kind(m, ids.write), FRAME_KIND_CPP);
    CHECK_EQ_INT(model_method_native_kind(m, ids.vfs_write), FRAME_KIND_KERNEL);
    CHECK_EQ_INT(model_method_native_kind(m, ids.write_bytes), FRAME_KIND_UNKNOWN);
    /* the same library again: the same class, its path kept */
    CHECK_EQ_INT(model_class_intern_lib(m, model_cstring(m, "libc.so.6"), MODEL_CODE_NATIVE, (str_id){ 0 },
                                        (str_id){ 0 }).v, ids.libc.v);
    CHECK_EQ_STR(nf_str(m, model_class_get(m, ids.libc)->path), LIBC_PATH);
    CHECK_EQ_INT(model_class_intern_lib(m, model_cstring(m, "x"), 7, (str_id){ 0 }, (str_id){ 0 }).v, 0);
    CHECK(model_native_unnamed("libjvm.so+0x1a2b", 16));
    CHECK(!model_native_unnamed("libjvm.so+0x", 12));
    CHECK(!model_native_unnamed("operator+", 9));
    CHECK(!model_native_unnamed("a+0x1g", 6));
    model_free(m);
}

/* ---- ASCII ---------------------------------------------------------------- */

static void test_ascii(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m);
    buf out;
    CHECK_EQ_INT(nf_write(&hprof_txt_format, m, &nf_opts, &out), JP_OK);
    CHECK(nf_has(&out, "\tkernel.vfs_write(vmlinux:Native method)\n\tkernel.ksys_write(vmlinux:Native method)\n"
                       "\tlibc.so.6.__write(libc.so.6:Native method)\n"
                       "\tjava.io.FileOutputStream.writeBytes(FileOutputStream.java:Native method)\n"
                       "\tdemo.App.main(App.java:12)\n"));
    CHECK(nf_has(&out, "\tlibjvm.so.libjvm.so+0x1a2b(libjvm.so:Native method)\n"));
    CHECK(nf_has(&out, "name=\"G1 Conc#0\", group=\"jvm\", kind=gc)\n"));
    CHECK(nf_has(&out, "name=\"C2 CompilerThre\", group=\"jvm\", kind=compiler)\n"));
    CHECK(nf_has(&out, "name=\"main\", group=\"main\")\n"));
    CHECK(nf_has(&out, "CPU SAMPLES END\nTHREAD KINDS BEGIN (total = 100) "));
    CHECK(nf_has(&out, "\njava       60.0% (60)\ngc         30.0% (30)\ncompiler   10.0% (10)\nTHREAD KINDS END\n"));
    CHECK(nf_has(&out, "  A frame of native code"));
    buf_free(&out);

    /* no sample of the JVM's threads: no THREAD KINDS */
    model *j = model_new();
    ASSERT(j);
    model_thread_start(j, 1, 0x1000, model_cstring(j, "main"), (str_id){ 0 }, (str_id){ 0 });
    frame_id f = nf_frame(j, nf_method(j, model_class_intern(j, model_cstring(j, "A"), (str_id){ 0 }), "f", "()V"), 3);
    model_trace_add_samples(j, model_trace_intern(j, 1, &f, 1), 5);
    CHECK_EQ_INT(nf_write(&hprof_txt_format, j, &nf_opts, &out), JP_OK);
    CHECK(strstr((const char *)out.data, "THREAD KINDS") == NULL);
    CHECK(strstr((const char *)out.data, "A frame of native code") == NULL);
    buf_free(&out);
    model_free(j);
    model_free(m);
}

/* ---- collapsed ------------------------------------------------------------ */

#define NF_COLLAPSED                                                                                                  \
    "[C2 CompilerThre];Thread::call_run;C2Compiler::compile_method 10\n"                                             \
    "[G1 Conc#0];Thread::call_run;libjvm.so+0x1a2b;G1ConcurrentMark::mark_from_roots 30\n"                           \
    "[main];demo.App.main_[j];java.io.FileOutputStream.writeBytes_[n];__write;ksys_write_[k];vfs_write_[k] 60\n"

static void test_collapsed(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m);
    buf out;
    CHECK_EQ_INT(nf_write(&collapsed_format, m, &nf_opts, &out), JP_OK);
    CHECK_EQ_STR((const char *)out.data, NF_COLLAPSED);
    char err[256] = "";
    model *back = collapsed_read(out.data, out.len - 1, err, sizeof err);
    if (!CHECK(back)) {
        fprintf(stderr, "    %s\n", err);
    } else {
        /* the main stack: kernel frames KERNEL of the "kernel" class, __write CPP, the Java frames as written */
        model_stack st = { 0 };
        for (uint32_t i = 1; i <= model_stack_count(back); i++)
            if (model_stack_get(back, (stack_id){ i }).nframes == 5)
                st = model_stack_get(back, (stack_id){ i });
        ASSERT(st.nframes == 5);
        static const frame_kind want[] = { FRAME_KIND_KERNEL, FRAME_KIND_KERNEL, FRAME_KIND_CPP, FRAME_KIND_NATIVE,
                                           FRAME_KIND_JIT };
        for (int i = 0; i < 5; i++)
            CHECK_EQ_INT(stack_frame_kind(st.frames[i]), want[i]);
        const model_method *me = model_method_get(back, stack_frame_method(st.frames[0]));
        CHECK_EQ_STR(nf_str(back, me->name), "vfs_write");
        CHECK_EQ_INT(model_class_get(back, me->cls)->code, MODEL_CODE_KERNEL);
        me = model_method_get(back, stack_frame_method(st.frames[2]));
        CHECK_EQ_STR(nf_str(back, me->name), "__write");
        CHECK_EQ_INT(model_class_get(back, me->cls)->code, MODEL_CODE_NATIVE);
        /* an unnamed frame names its library */
        for (uint32_t i = 1; i <= intern_count(&back->methods); i++) {
            me = model_method_get(back, (method_id){ i });
            if (strcmp(nf_str(back, me->name), "libjvm.so+0x1a2b") == 0)
                CHECK_EQ_STR(nf_str(back, model_class_get(back, me->cls)->name), "libjvm.so");
        }
        buf again;
        CHECK_EQ_INT(nf_write(&collapsed_format, back, &nf_opts, &again), JP_OK);
        CHECK_EQ_STR((const char *)again.data, NF_COLLAPSED);
        buf_free(&again);
        model_free(back);
    }
    buf_free(&out);
    model_free(m);

    /* which suffix-less frames are C/C++ */
    static const struct { const char *frame; frame_kind k; } frames[] = {
        { "java.lang.Thread.run", FRAME_KIND_UNKNOWN }, { "App.<init>", FRAME_KIND_UNKNOWN },
        { "Foo$$Lambda/0x0000000800c03000.run", FRAME_KIND_UNKNOWN }, { "memcpy", FRAME_KIND_UNKNOWN },
        { "JavaThread::run()", FRAME_KIND_CPP }, { "foo.part.0", FRAME_KIND_CPP }, { "bar.cold", FRAME_KIND_CPP },
        { "libfoo.so+0xbeef", FRAME_KIND_CPP }, { "int[]", FRAME_KIND_UNKNOWN }, { "<empty>", FRAME_KIND_UNKNOWN },
        { "do_syscall_64_[k]", FRAME_KIND_KERNEL },
        /* a bare name called from native code is C/C++; from Java, or a Java name, not */
        { "a.B.read_[n];memcpy", FRAME_KIND_CPP }, { "Thread::call_run;thread_entry", FRAME_KIND_CPP },
        { "a.B.f_[j];memcpy", FRAME_KIND_UNKNOWN }, { "a.B.read_[n];c.D.callback", FRAME_KIND_UNKNOWN },
        { "a.B.read_[n];c.D.callback;memcpy", FRAME_KIND_UNKNOWN }, { "main;work", FRAME_KIND_UNKNOWN },
        { "main;work;io_[n]", FRAME_KIND_NATIVE },
    };
    /* the callers of C/C++ code are C/C++ too, up to the thread's start; Java callers and names stay */
    static const char start[] = "[GC Thread#0];__clone3;start_thread;thread_native_entry(Thread*);Thread::call_run();"
                                "WorkerThread::run() 3\n"
                                "[main];main;work;io_[n] 1\n"
                                "[main];a.B.main_[j];memcpy;x::y 1\n";
    model *sr = collapsed_read(start, strlen(start), err, sizeof err);
    if (CHECK(sr)) {
        model *r = sr;
        for (uint32_t i = 1; i <= model_stack_count(r); i++) {
            model_stack st = model_stack_get(r, (stack_id){ i });
            for (uint32_t k = 0; k < st.nframes; k++) {
                const model_method *me = model_method_get(r, stack_frame_method(st.frames[k]));
                const char *name = nf_str(r, me->name);
                frame_kind want = st.nframes == 5 || strcmp(name, "memcpy") == 0 || strcmp(name, "x::y") == 0
                                      ? FRAME_KIND_CPP
                                  : strcmp(name, "io") == 0 ? FRAME_KIND_NATIVE
                                  : strcmp(nf_str(r, model_class_get(r, me->cls)->name), "a.B") == 0 ? FRAME_KIND_JIT
                                                                                                       : FRAME_KIND_UNKNOWN;
                if (!CHECK_EQ_INT(stack_frame_kind(st.frames[k]), want))
                    fprintf(stderr, "    stack %u frame %u %s\n", i, k, name);
                if (want == FRAME_KIND_CPP)
                    CHECK_EQ_INT(model_class_get(r, me->cls)->code, MODEL_CODE_NATIVE);
            }
        }
        buf again;
        CHECK_EQ_INT(nf_write(&collapsed_format, r, &nf_opts, &again), JP_OK);
        CHECK_EQ_STR((const char *)again.data, "[GC Thread#0];__clone3;start_thread;thread_native_entry(Thread*);"
                                               "Thread::call_run();WorkerThread::run() 3\n"
                                               "[main];a.B.main_[j];memcpy;x::y 1\n"
                                               "[main];main;work;io_[n] 1\n");
        buf_free(&again);
        model_free(sr);
    }
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "%s 1\n", frames[i].frame);
        model *r = collapsed_read(line, strlen(line), err, sizeof err);
        if (!CHECK(r))
            continue;
        model_stack st = model_stack_get(r, (stack_id){ 1 });
        /* the leaf's kind */
        if (!CHECK(st.nframes >= 1) || !CHECK_EQ_INT(stack_frame_kind(st.frames[0]), frames[i].k))
            fprintf(stderr, "    %s\n", frames[i].frame);
        model_free(r);
    }
}

/* ---- binary --------------------------------------------------------------- */

static void nf_stacks_text(const model *m, buf *out)
{
    CHECK_EQ_INT(nf_write(&collapsed_format, m, &nf_opts, out), JP_OK);
}

static void test_binary_round_trip(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m);
    buf bin, txt, pp, txt2, pp2;
    CHECK_EQ_INT(nf_write(&hprof_bin_format, m, &nf_opts, &bin), JP_OK);
    CHECK_EQ_INT(nf_write(&hprof_txt_format, m, &nf_opts, &txt), JP_OK);
    CHECK_EQ_INT(nf_write(&pprof_format, m, &nf_opts, &pp), JP_OK);
    char err[256] = "";
    report_opts ro;
    model *back = hprof_bin_read(bin.data, bin.len - 1, &ro, err, sizeof err);
    if (!CHECK(back)) {
        fprintf(stderr, "    %s\n", err);
        goto out;
    }
    ro.cutoff = 0;
    CHECK_EQ_INT(nf_write(&hprof_txt_format, back, &ro, &txt2), JP_OK);
    CHECK_EQ_MEM(txt2.data, txt2.len, txt.data, txt.len);
    CHECK_EQ_INT(nf_write(&pprof_format, back, &ro, &pp2), JP_OK);
    CHECK_EQ_MEM(pp2.data, pp2.len, pp.data, pp.len);
    buf_free(&txt2);
    buf_free(&pp2);
    /* the libraries, their paths and build ids, the JVM's threads */
    bool libc = false, kernel = false;
    for (uint32_t i = 1; i <= model_class_count(back); i++) {
        const model_class *c = model_class_get(back, (class_id){ i });
        if (strcmp(nf_str(back, c->name), "libc.so.6") == 0) {
            libc = true;
            CHECK_EQ_INT(c->code, MODEL_CODE_NATIVE);
            CHECK_EQ_STR(nf_str(back, c->path), LIBC_PATH);
            CHECK_EQ_STR(nf_str(back, c->build_id), "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567");
        } else if (strcmp(nf_str(back, c->name), "kernel") == 0) {
            kernel = true;
            CHECK_EQ_INT(c->code, MODEL_CODE_KERNEL);
            CHECK_EQ_INT(c->build_id.v, 0);
        } else if (strcmp(nf_str(back, c->name), "demo.App") == 0) {
            CHECK_EQ_INT(c->code, MODEL_CODE_JAVA);
        }
    }
    CHECK(libc && kernel);
    CHECK(!model_thread_get(back, 1)->jvm_internal);
    CHECK(model_thread_get(back, 2)->jvm_internal);
    CHECK_EQ_INT(model_thread_kind(back, 3), THREAD_KIND_COMPILER);
    /* the stacks rebuilt from the traces: CPP and KERNEL again (the Java frames' kinds HPROF does not keep) */
    CHECK_EQ_INT(trace_stacks_build(back), JP_OK);
    buf col;
    nf_stacks_text(back, &col);
    CHECK_EQ_STR((const char *)col.data,
                 "[C2 CompilerThre];Thread::call_run;C2Compiler::compile_method 10\n"
                 "[G1 Conc#0];Thread::call_run;libjvm.so+0x1a2b;G1ConcurrentMark::mark_from_roots 30\n"
                 "[main];demo.App.main;java.io.FileOutputStream.writeBytes_[n];__write;ksys_write_[k];vfs_write_[k] 60\n");
    buf_free(&col);
    /* written again: the same file */
    buf bin2;
    CHECK_EQ_INT(nf_write(&hprof_bin_format, back, &ro, &bin2), JP_OK);
    CHECK_EQ_MEM(bin2.data, bin2.len, bin.data, bin.len);
    buf_free(&bin2);
    model_free(back);
out:
    buf_free(&bin);
    buf_free(&txt);
    buf_free(&pp);
    model_free(m);
}

static bool nf_one_line(const char *s) { return s[0] != '\0' && strchr(s, '\n') == NULL; }

static void test_binary_native_bad(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m);
    buf bin;
    CHECK_EQ_INT(nf_write(&hprof_bin_format, m, &nf_opts, &bin), JP_OK);
    model_free(m);
    size_t len = bin.len - 1, at = 0, off = 31, rlen_at = 0;
    while (off + 9 <= len) {
        uint32_t rlen = (uint32_t)bin.data[off + 5] << 24 | (uint32_t)bin.data[off + 6] << 16 |
                        (uint32_t)bin.data[off + 7] << 8 | bin.data[off + 8];
        if (bin.data[off] == HPROF_TAG_JVMPROF_NATIVE) {
            at = off + 9;
            rlen_at = off + 5;
        }
        off += 9 + (size_t)rlen;
    }
    ASSERT(at != 0);
    /* 3 libraries of 21 bytes, then 2 threads */
    CHECK_EQ_INT(bin.data[at + 3], 3);
    CHECK_EQ_INT(bin.data[at + 4 + 3 * 21 + 3], 2);
    static const struct { size_t pos; unsigned char v; const char *err; } cases[] = {
        { 4 + 4, 3, "NATIVE: class 100001 has code 3 (expected 1 a library or 2 the kernel)" },
        { 4 + 4, 0, "NATIVE: class 100001 has code 0" },
        { 4 + 2, 0x77, "NATIVE refers to an unknown class" },
        { 4 + 5 + 6, 0x77, "NATIVE refers to an unknown string" },
        { 4 + 5 + 8 + 6, 0x77, "NATIVE refers to an unknown string" },
        { 4 + 3 * 21 + 4 + 2, 0x77, "NATIVE refers to thread" },
        { 3, 9, "malformed record (tag 0xa8)" },
        { 4 + 3 * 21 + 3, 3, "malformed record (tag 0xa8)" },
        { 4 + 3 * 21 + 3, 1, "malformed record (tag 0xa8)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *copy = malloc(len);
        ASSERT(copy);
        memcpy(copy, bin.data, len);
        copy[at + cases[i].pos] = cases[i].v;
        char err[256] = "";
        report_opts ro;
        model *back = hprof_bin_read(copy, len, &ro, err, sizeof err);
        if (!CHECK(back == NULL) || !CHECK(strstr(err, cases[i].err) != NULL) || !CHECK(nf_one_line(err)))
            fprintf(stderr, "    case %zu: \"%s\"\n", i, err);
        model_free(back);
        free(copy);
    }
    /* the record cut short (its length says less): refused, not read past */
    unsigned char *copy = malloc(len);
    ASSERT(copy);
    memcpy(copy, bin.data, len);
    copy[rlen_at + 3] = (unsigned char)(copy[rlen_at + 3] - 1);
    char err[256] = "";
    report_opts ro;
    model *back = hprof_bin_read(copy, len, &ro, err, sizeof err);
    CHECK(back == NULL && nf_one_line(err));
    model_free(back);
    free(copy);
    /* every prefix: a one-line refusal or a model */
    unsigned long wrong = 0;
    for (size_t n = 0; n < len; n++) {
        unsigned char *p = malloc(n ? n : 1);
        ASSERT(p);
        memcpy(p, bin.data, n);
        char e[256] = "";
        model *r = hprof_bin_read(p, n, &ro, e, sizeof e);
        wrong += !r && !nf_one_line(e);
        model_free(r);
        free(p);
    }
    CHECK_EQ_INT(wrong, 0);
    buf_free(&bin);
}

/* ---- pprof: a small decoder of what we check ------------------------------ */

typedef struct nf_pb { const unsigned char *p, *end; } nf_pb;

static bool nf_uleb(nf_pb *b, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; b->p < b->end && shift < 64; shift += 7) {
        unsigned char c = *b->p++;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return true;
    }
    return false;
}

/* The next field: its number, wire type, varint value or bytes. */
static bool nf_field(nf_pb *b, unsigned *field, uint64_t *v, nf_pb *sub)
{
    uint64_t key;
    if (b->p >= b->end || !nf_uleb(b, &key))
        return false;
    *field = (unsigned)(key >> 3);
    if ((key & 7) == 0)
        return nf_uleb(b, v);
    if ((key & 7) != 2 || !nf_uleb(b, v) || *v > (uint64_t)(b->end - b->p))
        return false;
    sub->p = b->p;
    sub->end = b->p + *v;
    b->p += *v;
    return true;
}

#define NF_MAX 64
typedef struct nf_profile {
    unsigned char *raw;
    const unsigned char *str[1024];
    size_t str_len[1024];
    unsigned nstr;
    struct { uint64_t id, filename, build_id, has_functions; } map[NF_MAX];
    unsigned nmap;
    struct { uint64_t id, mapping, function; } loc[NF_MAX];
    unsigned nloc;
    struct { uint64_t id, name, system_name, filename; } fn[NF_MAX];
    unsigned nfn;
} nf_profile;

static bool nf_decode(const buf *gz, nf_profile *pr)
{
    memset(pr, 0, sizeof *pr);
    size_t cap = 1 << 20;
    pr->raw = malloc(cap);
    if (!pr->raw)
        return false;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return false;
    z.next_in = gz->data;
    z.avail_in = (uInt)(gz->len - 1);
    z.next_out = pr->raw;
    z.avail_out = (uInt)cap;
    int rc = inflate(&z, Z_FINISH);
    size_t n = cap - z.avail_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
        return false;
    nf_pb b = { pr->raw, pr->raw + n }, sub, in;
    unsigned f, g;
    uint64_t v, w;
    while (nf_field(&b, &f, &v, &sub)) {
        if (f == 6 && pr->nstr < 1024) {
            pr->str[pr->nstr] = sub.p;
            pr->str_len[pr->nstr++] = (size_t)(sub.end - sub.p);
        } else if (f == 3 && pr->nmap < NF_MAX) {
            while (nf_field(&sub, &g, &w, &in)) {
                if (g == 1) pr->map[pr->nmap].id = w;
                if (g == 5) pr->map[pr->nmap].filename = w;
                if (g == 6) pr->map[pr->nmap].build_id = w;
                if (g == 7) pr->map[pr->nmap].has_functions = w;
            }
            pr->nmap++;
        } else if (f == 4 && pr->nloc < NF_MAX) {
            while (nf_field(&sub, &g, &w, &in)) {
                if (g == 1) pr->loc[pr->nloc].id = w;
                if (g == 2) pr->loc[pr->nloc].mapping = w;
                if (g == 4) {
                    nf_pb l = in, x;
                    unsigned h;
                    uint64_t u;
                    while (nf_field(&l, &h, &u, &x))
                        if (h == 1) pr->loc[pr->nloc].function = u;
                }
            }
            pr->nloc++;
        } else if (f == 5 && pr->nfn < NF_MAX) {
            while (nf_field(&sub, &g, &w, &in)) {
                if (g == 1) pr->fn[pr->nfn].id = w;
                if (g == 2) pr->fn[pr->nfn].name = w;
                if (g == 3) pr->fn[pr->nfn].system_name = w;
                if (g == 4) pr->fn[pr->nfn].filename = w;
            }
            pr->nfn++;
        }
    }
    return b.p == b.end;
}

static bool nf_str_is(const nf_profile *pr, uint64_t i, const char *s)
{
    return i < pr->nstr && pr->str_len[i] == strlen(s) && memcmp(pr->str[i], s, pr->str_len[i]) == 0;
}

/* The mapping id of the location of the function named name (0: none; UINT64_MAX: no such function). */
static uint64_t nf_mapping_of(const nf_profile *pr, const char *name, uint64_t *filename)
{
    for (unsigned i = 0; i < pr->nfn; i++) {
        if (!nf_str_is(pr, pr->fn[i].name, name))
            continue;
        *filename = pr->fn[i].filename;
        if (!strchr(name, '.') || strstr(name, ".so")) /* native: the symbol alone */
            CHECK(nf_str_is(pr, pr->fn[i].system_name, name));
        for (unsigned k = 0; k < pr->nloc; k++)
            if (pr->loc[k].function == pr->fn[i].id)
                return pr->loc[k].mapping;
    }
    return UINT64_MAX;
}

static void nf_check_pprof(const model *m, const char *what)
{
    buf pp;
    CHECK_EQ_INT(nf_write(&pprof_format, m, &nf_opts, &pp), JP_OK);
    nf_profile *pr = malloc(sizeof *pr);
    ASSERT(pr);
    if (!CHECK(nf_decode(&pp, pr))) {
        fprintf(stderr, "    %s: the profile does not decode\n", what);
        goto out;
    }
    CHECK_EQ_INT(pr->nmap, 3);
    uint64_t libc = 0, libjvm = 0, kernel = 0;
    for (unsigned i = 0; i < pr->nmap; i++) {
        CHECK(pr->map[i].id != 0 && pr->map[i].has_functions == 1);
        if (nf_str_is(pr, pr->map[i].filename, LIBC_PATH)) {
            libc = pr->map[i].id;
            CHECK(nf_str_is(pr, pr->map[i].build_id, "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"));
        } else if (nf_str_is(pr, pr->map[i].filename, LIBJVM_PATH)) {
            libjvm = pr->map[i].id;
            CHECK_EQ_INT(pr->map[i].build_id, 0);
        } else if (nf_str_is(pr, pr->map[i].filename, "[kernel.kallsyms]")) {
            kernel = pr->map[i].id;
        }
    }
    if (!CHECK(libc && libjvm && kernel))
        fprintf(stderr, "    %s: mappings libc %llu libjvm %llu kernel %llu\n", what, (unsigned long long)libc,
                (unsigned long long)libjvm, (unsigned long long)kernel);
    uint64_t file = 0;
    CHECK_EQ_INT(nf_mapping_of(pr, "__write", &file), libc);
    CHECK(nf_str_is(pr, file, LIBC_PATH));
    CHECK_EQ_INT(nf_mapping_of(pr, "vfs_write", &file), kernel);
    CHECK_EQ_INT(nf_mapping_of(pr, "libjvm.so+0x1a2b", &file), libjvm);
    CHECK(nf_str_is(pr, file, LIBJVM_PATH));
    CHECK_EQ_INT(nf_mapping_of(pr, "demo.App.main", &file), 0);
out:
    free(pr->raw);
    free(pr);
    buf_free(&pp);
}

static void test_pprof(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m);
    nf_check_pprof(m, "traces");
    /* a model of stacks alone (collapsed stacks read back) has the same mappings, by name */
    model *s = model_new();
    ASSERT(s);
    class_id libc = model_class_intern_lib(s, model_cstring(s, "libc.so.6"), MODEL_CODE_NATIVE,
                                           model_cstring(s, LIBC_PATH),
                                           model_cstring(s, "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"));
    class_id jvm = model_class_intern_lib(s, model_cstring(s, "libjvm.so"), MODEL_CODE_NATIVE,
                                          model_cstring(s, LIBJVM_PATH), (str_id){ 0 });
    class_id k = model_class_intern_lib(s, model_cstring(s, "kernel"), MODEL_CODE_KERNEL, (str_id){ 0 }, (str_id){ 0 });
    class_id app = model_class_intern(s, model_cstring(s, "demo.App"), (str_id){ 0 });
    uint32_t st[] = { stack_frame_pack(nf_method(s, k, "vfs_write", ""), FRAME_KIND_KERNEL),
                      stack_frame_pack(nf_method(s, libc, "__write", ""), FRAME_KIND_CPP),
                      stack_frame_pack(nf_method(s, jvm, "libjvm.so+0x1a2b", ""), FRAME_KIND_CPP),
                      stack_frame_pack(nf_method(s, app, "main", ""), FRAME_KIND_JIT) };
    model_stack_add(s, model_stack_intern(s, 0, SAMPLE_RUNNING, st, 4), 7);
    nf_check_pprof(s, "stacks");
    model_free(s);
    model_free(m);
}

/* ---- flame graph, JFR ---------------------------------------------------- */

static void test_flame_html(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m);
    buf out;
    CHECK_EQ_INT(nf_write(&flame_html_format, m, &nf_opts, &out), JP_OK);
    CHECK(nf_has(&out, "\"__write\""));
    CHECK(nf_has(&out, "\"vfs_write\""));
    CHECK(nf_has(&out, "\"libs\": {"));
    CHECK(nf_has(&out, ":\"libc.so.6\""));
    CHECK(nf_has(&out, ":\"kernel\""));
    CHECK(nf_has(&out, "name: 'C/C++', hue: 58"));
    CHECK(nf_has(&out, "name: 'kernel', hue: 28"));
    /* the node of __write has kind 5 (C/C++): find its name index */
    const char *names = strstr((const char *)out.data, "\"names\": [");
    ASSERT(names);
    unsigned idx = 0;
    for (const char *p = names + 10; *p && *p != '\n'; p++) {
        if (strncmp(p, "\"__write\"", 9) == 0)
            break;
        if (*p == ',')
            idx++;
    }
    char key[32];
    snprintf(key, sizeof key, "[%u,", idx * 16 + 5);
    char key2[32];
    snprintf(key2, sizeof key2, ",%u,", idx * 16 + 5);
    if (!CHECK(strstr((const char *)out.data, key) || strstr((const char *)out.data, key2)))
        fprintf(stderr, "    %s\n", names);
    buf_free(&out);
    /* jvmprof diff over a model of the same frames read from collapsed stacks: matched by name and kind */
    buf col;
    CHECK_EQ_INT(nf_write(&collapsed_format, m, &nf_opts, &col), JP_OK);
    char err[256];
    model *before = collapsed_read(col.data, col.len - 1, err, sizeof err);
    ASSERT(before);
    buf d;
    buf_init(&d);
    sink *s = sink_open_memory(&d);
    ASSERT(s);
    CHECK_EQ_INT(flame_html_write_diff(m, before, NULL, s), JP_OK);
    CHECK_EQ_INT(sink_commit(s, err, sizeof err), JP_OK);
    buf_put(&d, "", 1);
    /* every frame had the same samples before: the before column is the after one */
    const char *nodes = strstr((const char *)d.data, "\"nodes\": [");
    const char *bef = strstr((const char *)d.data, "\"before\": [");
    ASSERT(nodes && bef);
    unsigned long totals[64], befores[64];
    unsigned nn = 0, nb = 0;
    const char *p = nodes + 10;
    for (unsigned i = 0; *p != ']' && nn < 64; i++) {
        unsigned long v = strtoul(p, (char **)&p, 10);
        if (i % 3 == 1)
            totals[nn++] = v;
        if (*p == ',')
            p++;
    }
    for (p = bef + 11; *p != ']' && nb < 64;) {
        befores[nb++] = strtoul(p, (char **)&p, 10);
        if (*p == ',')
            p++;
    }
    CHECK_EQ_INT(nn, nb);
    CHECK(nn > 10);
    for (unsigned i = 0; i < nn && i < nb; i++)
        if (i != 0 && totals[i] != befores[i]) /* the root may differ: none here, but only frames must match */
            CHECK_EQ_INT(totals[i], befores[i]);
    buf_free(&d);
    buf_free(&col);
    model_free(before);
    model_free(m);
}

static void test_jfr(void)
{
    nf_ids ids;
    model *m = nf_model(&ids);
    ASSERT(m);
    /* wall samples: main's 60 in native code become jdk.NativeMethodSample events */
    m->wall = true;
    model_trace_add_state_samples(m, (trace_id){ 1 }, SAMPLE_NATIVE, 60);
    model_trace_add_state_samples(m, (trace_id){ 2 }, SAMPLE_RUNNING, 30);
    model_trace_add_state_samples(m, (trace_id){ 3 }, SAMPLE_RUNNING, 10);
    buf out;
    CHECK_EQ_INT(nf_write(&jfr_format, m, &nf_opts, &out), JP_OK);
    CHECK(out.len > 100 && memcmp(out.data, "FLR\0", 4) == 0);
    CHECK(nf_has(&out, "Native"));
    CHECK(nf_has(&out, "jdk.NativeMethodSample"));
    CHECK(nf_has(&out, "G1ConcurrentMark::mark_from_roots"));
    buf_free(&out);
    model_free(m);
}

int main(void)
{
    RUN(test_thread_kinds);
    RUN(test_lib_classes);
    RUN(test_ascii);
    RUN(test_collapsed);
    RUN(test_binary_round_trip);
    RUN(test_binary_native_bad);
    RUN(test_pprof);
    RUN(test_flame_html);
    RUN(test_jfr);
    return DONE();
}
