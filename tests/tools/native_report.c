/* native_report.c — writes a binary report (format=b) whose samples carry
 * native frames of real libraries of this machine, for t6110: the C
 * functions write (libc) and deflate (libz, linked in) are found with
 * dladdr, which gives their library's path and the symbol's name, and the
 * libraries' GNU build ids are read from their loaded PT_NOTE segments
 * (dl_iterate_phdr). Above them two kernel frames, below them Java frames;
 * a GC thread and a compiler thread of the JVM's own with frames of libjvm
 * (named, and one without a symbol). Usage: native_report OUT [wall]
 * (wall: wall-clock samples, the Java thread's in native code). Prints
 * "libc PATH BUILDID", "libz PATH BUILDID" and "symbols WRITE DEFLATE" for
 * the test to compare with what the readers show. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, dl_iterate_phdr */
#endif
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "format/format.h"

typedef struct nr_lib { const char *path; char build_id[128]; } nr_lib;

static int nr_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    nr_lib *lib = arg;
    if (!info->dlpi_name || strcmp(info->dlpi_name, lib->path) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                nh->n_descsz * 2 < sizeof lib->build_id) {
                for (unsigned k = 0; k < nh->n_descsz; k++)
                    sprintf(lib->build_id + 2 * k, "%02x", desc[k]);
                return 1;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

/* The library of a function and the function's symbol. */
static bool nr_find(void *fn, nr_lib *lib, const char **sym)
{
    Dl_info di;
    if (!dladdr(fn, &di) || !di.dli_fname || !di.dli_sname)
        return false;
    lib->path = di.dli_fname;
    lib->build_id[0] = '\0';
    *sym = di.dli_sname;
    dl_iterate_phdr(nr_phdr, lib);
    return true;
}

static method_id nr_method(model *m, class_id c, const char *name, const char *sig)
{
    return model_method_intern(m, c, model_cstring(m, name), model_cstring(m, sig));
}

static class_id nr_lib_class(model *m, const nr_lib *lib)
{
    const char *base = strrchr(lib->path, '/');
    return model_class_intern_lib(m, model_cstring(m, base ? base + 1 : lib->path), MODEL_CODE_NATIVE,
                                  model_cstring(m, lib->path),
                                  lib->build_id[0] ? model_cstring(m, lib->build_id) : (str_id){ 0 });
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc == 3 && strcmp(argv[2], "wall") != 0) || argc > 3) {
        fprintf(stderr, "usage: native_report OUT [wall]\n");
        return 2;
    }
    bool wall = argc == 3;
    nr_lib libc, libz;
    const char *write_sym, *deflate_sym;
    if (!nr_find((void *)&write, &libc, &write_sym) || !nr_find((void *)&deflate, &libz, &deflate_sym)) {
        fprintf(stderr, "native_report: dladdr found no library for write or deflate\n");
        return 1;
    }
    model *m = model_new();
    if (!m)
        return 1;
    m->start_time_ms = 1700000000000ull;
    m->dump_time_ms = m->start_time_ms + 2000;
    m->interval_us = 10000;
    m->depth = 16;
    m->wall = wall;
    class_id c_libc = nr_lib_class(m, &libc), c_libz = nr_lib_class(m, &libz);
    class_id c_jvm = model_class_intern_lib(m, model_cstring(m, "libjvm.so"), MODEL_CODE_NATIVE, (str_id){ 0 },
                                            (str_id){ 0 });
    class_id c_kernel = model_class_intern_lib(m, model_cstring(m, "kernel"), MODEL_CODE_KERNEL, (str_id){ 0 },
                                               (str_id){ 0 });
    class_id c_fos = model_class_intern(m, model_cstring(m, "java.io.FileOutputStream"),
                                        model_cstring(m, "FileOutputStream.java"));
    class_id c_def = model_class_intern(m, model_cstring(m, "java.util.zip.Deflater"), model_cstring(m, "Deflater.java"));
    class_id c_app = model_class_intern(m, model_cstring(m, "demo.NativeApp"), model_cstring(m, "NativeApp.java"));

    model_thread_start(m, 1, 0x7f001000, model_cstring(m, "main"), model_cstring(m, "main"),
                       model_cstring(m, "system"));
    model_thread_start_jvm(m, 2, model_cstring(m, "G1 Conc#0"));
    model_thread_start_jvm(m, 3, model_cstring(m, "C2 CompilerThre"));

    method_id vfs = nr_method(m, c_kernel, "vfs_write", ""), ksys = nr_method(m, c_kernel, "ksys_write", "");
    method_id wr = nr_method(m, c_libc, write_sym, ""), defl = nr_method(m, c_libz, deflate_sym, "");
    method_id wb = nr_method(m, c_fos, "writeBytes", "([BIIZ)V"), dbytes = nr_method(m, c_def, "deflateBytesBytes",
                                                                                     "(J[BIII[BIIII)J");
    method_id run = nr_method(m, c_app, "run", "()V"), main_m = nr_method(m, c_app, "main", "([Ljava/lang/String;)V");
    method_id mark = nr_method(m, c_jvm, "G1ConcurrentMark::mark_from_roots", "");
    method_id noname = nr_method(m, c_jvm, "libjvm.so+0x5a3f10", "");
    method_id call_run = nr_method(m, c_jvm, "Thread::call_run", "");
    method_id compile = nr_method(m, c_jvm, "C2Compiler::compile_method", "");

    struct { uint32_t thread; method_id fr[8]; int32_t line[8]; frame_kind kind[8]; uint32_t n; uint64_t samples; }
    traces[] = {
        { 1, { vfs, ksys, wr, wb, run, main_m }, { -3, -3, -3, -3, 21, 9 },
          { FRAME_KIND_KERNEL, FRAME_KIND_KERNEL, FRAME_KIND_CPP, FRAME_KIND_NATIVE, FRAME_KIND_JIT,
            FRAME_KIND_INTERPRETED }, 6, 50 },
        { 1, { defl, dbytes, run, main_m }, { -3, -3, 17, 9 },
          { FRAME_KIND_CPP, FRAME_KIND_NATIVE, FRAME_KIND_JIT, FRAME_KIND_INTERPRETED }, 4, 20 },
        { 2, { mark, noname, call_run }, { -3, -3, -3 }, { FRAME_KIND_CPP, FRAME_KIND_CPP, FRAME_KIND_CPP }, 3, 20 },
        { 3, { compile, call_run }, { -3, -3 }, { FRAME_KIND_CPP, FRAME_KIND_CPP }, 2, 10 },
    };
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        frame_id f[8];
        uint32_t packed[8];
        for (uint32_t k = 0; k < traces[i].n; k++) {
            f[k] = model_frame_intern(m, traces[i].fr[k], traces[i].line[k]);
            packed[k] = stack_frame_pack(traces[i].fr[k], traces[i].kind[k]);
        }
        trace_id t = model_trace_intern(m, traces[i].thread, f, traces[i].n);
        model_trace_add_samples(m, t, traces[i].samples);
        /* wall=: the Java thread is in native code (write, deflate), the JVM's threads run */
        sample_state st = wall && traces[i].thread == 1 ? SAMPLE_NATIVE : SAMPLE_RUNNING;
        if (wall)
            model_trace_add_state_samples(m, t, st, traces[i].samples);
        model_stack_add(m, model_stack_intern(m, traces[i].thread, st, packed, traces[i].n), traces[i].samples);
    }
    if (m->oom)
        return 1;
    char err[256];
    sink *s = sink_open_file(argv[1], 0, err, sizeof err);
    if (!s) {
        fprintf(stderr, "native_report: %s\n", err);
        return 1;
    }
    report_opts o = { 0.0001, true, false, false, false, NULL };
    jp_status st = hprof_bin_format.write(m, &o, s);
    jp_status st2 = sink_commit(s, err, sizeof err);
    model_free(m);
    if (st != JP_OK || st2 != JP_OK) {
        fprintf(stderr, "native_report: writing %s failed\n", argv[1]);
        return 1;
    }
    printf("libc %s %s\nlibz %s %s\nsymbols %s %s\n", libc.path, libc.build_id[0] ? libc.build_id : "-", libz.path,
           libz.build_id[0] ? libz.build_id : "-", write_sym, deflate_sym);
    return 0;
}
