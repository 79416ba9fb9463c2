/* test_native_unwind.c — src/native on this machine's real files and stacks:
 * the symbols of libc (from its debug file when installed) and libjvm; the CFI
 * tables of both (a function's first instruction is CFA=rsp+8, libc's PLT has
 * the PLT rule); the code map of this process; real unwinds from a signal
 * handler through a chain of functions built with frame pointers and without
 * (libchain_fp.so, libchain_nofp.so: tests/unit/native_chain.c), where the one
 * without is found only with its CFI; a leaf pc at a function's first
 * instruction; walks from garbage registers; the CFI reader on truncated and
 * corrupted copies of libc. Prints the load times, rows and ns per step. */
#include "../../src/native/code_map.h"
#include "../../src/native/dwarf_cfi.h"
#include "../../src/native/elf_image.h"
#include "../../src/native/elf_symbols.h"
#include "../../src/native/unwind.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBJVM "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"
#define TN_MAX_FRAMES 64

typedef int (*tn_chain_fn)(volatile int *stop, int mode);

static double tn_ms_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static bool tn_exists(const char *path)
{
    return access(path, R_OK) == 0;
}

static void test_symbols_libc(void)
{
    elf_symbols *s = elf_symbols_load(LIBC);
    ASSERT(s != NULL);
    uint64_t w = elf_symbols_address(s, "write"), start = 0;
    CHECK(w != 0);
    const char *name = elf_symbols_find(s, w + 3, &start);
    CHECK(name && strstr(name, "write"));
    CHECK_EQ_INT(start, w);
    CHECK(strlen(elf_symbols_build_id(s)) == 40);
    CHECK(elf_symbols_find(s, 0x10, NULL) == NULL);   /* below every function (the ELF header) */
    printf("libc: %zu symbols%s, build id %s\n", elf_symbols_count(s),
           elf_symbols_from_debug_file(s) ? " (with its debug file)" : "", elf_symbols_build_id(s));
    elf_symbols_free(s);
    CHECK(elf_symbols_load("/nonexistent/libc.so") == NULL);
    CHECK(elf_symbols_load("/proc/self/maps") == NULL);   /* not a regular file */
}

static void test_symbols_libjvm(void)
{
    if (!tn_exists(LIBJVM)) {
        printf("skipped: test_symbols_libjvm (no %s)\n", LIBJVM);
        CHECK(1);
        return;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    elf_symbols *s = elf_symbols_load(LIBJVM);
    double ms = tn_ms_since(&t0);
    ASSERT(s != NULL);
    printf("libjvm.so symbols: %zu, loaded in %.1f ms\n", elf_symbols_count(s), ms);
    CHECK(elf_symbols_count(s) > 10000);
    /* a local C++ function (.symtab only) and an exported C one (.dynsym too) */
    const char *names[] = { "_ZN7Threads10destroy_vmEv", "JNI_CreateJavaVM" };
    for (int i = 0; i < 2; i++) {
        uint64_t a = elf_symbols_address(s, names[i]), start = 0;
        CHECK(a != 0);
        CHECK_EQ_STR(elf_symbols_find(s, a + 1, &start), names[i]);
        CHECK_EQ_INT(start, a);
    }
    CHECK(elf_symbols_address(s, "no_such_function_anywhere") == 0);
    elf_symbols_free(s);
}

/* The rule at name's first instruction in path: CFA = rsp + 8, rbp unchanged. */
static void tn_check_entry_rule(const char *path, const char *name, bool timing)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dwarf_cfi *c = dwarf_cfi_load(path);
    double ms = tn_ms_since(&t0);
    ASSERT(c != NULL);
    size_t fdes, skipped;
    dwarf_cfi_stats(c, &fdes, &skipped);
    printf("%s CFI: %zu rows from %zu FDEs (%zu skipped)%s", path, dwarf_cfi_rows(c), fdes, skipped,
           timing ? "" : "\n");
    if (timing)
        printf(", loaded in %.1f ms\n", ms);
    CHECK(dwarf_cfi_rows(c) > 10000);
    CHECK(skipped < fdes / 100);
    elf_symbols *s = elf_symbols_load(path);
    uint64_t at = elf_symbols_address(s, name);
    CHECK(at != 0);
    cfi_rule r = { 0xff, 0, 0 };
    CHECK(dwarf_cfi_find(c, at, &r));
    CHECK_EQ_INT(r.cfa_reg, CFI_REG_SP);
    CHECK_EQ_INT(r.cfa_off, 8);
    CHECK_EQ_INT(r.fp_off, CFI_FP_SAME);
    CHECK(!dwarf_cfi_find(c, 0x10, &r));   /* the ELF header: no FDE */
    elf_symbols_free(s);
    dwarf_cfi_free(c);
}

static void test_cfi_libc_libjvm(void)
{
    tn_check_entry_rule(LIBC, "write", false);
    if (tn_exists(LIBJVM))
        tn_check_entry_rule(LIBJVM, "JNI_CreateJavaVM", true);
    else
        printf("skipped: libjvm's CFI (no %s)\n", LIBJVM);
    CHECK(dwarf_cfi_load("/nonexistent.so") == NULL);
}

/* libc's .plt: its FDE's CFA is the PLT expression (rsp + 8, + 8 more from byte 11 of an entry). */
static void test_cfi_plt(void)
{
    size_t len;
    uint8_t *data = th_read_file(LIBC, &len);
    ASSERT(data != NULL);
    elf_image img;
    Elf64_Shdr plt;
    CHECK(elf_image_open(&img, data, len));
    if (elf_image_section(&img, ".plt", &plt) < 0 || plt.sh_size < 32) {
        printf("skipped: test_cfi_plt (libc has no .plt)\n");
        free(data);
        return;
    }
    dwarf_cfi *c = dwarf_cfi_load_image(data, len);
    ASSERT(c != NULL);
    cfi_rule r = { 0xff, 0, 0 };
    if (CHECK(dwarf_cfi_find(c, plt.sh_addr + 16 + 3, &r))) {
        CHECK_EQ_INT(r.cfa_reg, CFI_REG_PLT);
        CHECK(r.cfa_off == 11 || r.cfa_off == 10);
    }
    dwarf_cfi_free(c);
    free(data);
}

/* libc with its section headers gone (e_shoff, e_shnum 0): .eh_frame is found through PT_GNU_EH_FRAME and
 * .eh_frame_hdr, and gives the same table. */
static void test_cfi_without_sections(void)
{
    size_t len;
    uint8_t *data = th_read_file(LIBC, &len);
    ASSERT(data != NULL);
    dwarf_cfi *full = dwarf_cfi_load_image(data, len);
    ASSERT(full != NULL);
    Elf64_Ehdr eh;
    memcpy(&eh, data, sizeof eh);
    eh.e_shoff = 0;
    eh.e_shnum = 0;
    eh.e_shstrndx = 0;
    memcpy(data, &eh, sizeof eh);
    dwarf_cfi *bare = dwarf_cfi_load_image(data, len);
    ASSERT(bare != NULL);
    CHECK_EQ_INT(dwarf_cfi_rows(bare), dwarf_cfi_rows(full));
    long differ = 0;
    for (uint64_t a = 0; a < 0x200000; a += 7) {
        cfi_rule x = { 0 }, y = { 0 };
        bool fx = dwarf_cfi_find(full, a, &x), fy = dwarf_cfi_find(bare, a, &y);
        differ += fx != fy || (fx && (x.cfa_reg != y.cfa_reg || x.cfa_off != y.cfa_off || x.fp_off != y.fp_off));
    }
    CHECK_EQ_INT(differ, 0);
    dwarf_cfi_free(bare);
    dwarf_cfi_free(full);
    free(data);
}

/* Every row of a library's CFI as readelf interprets it (readelf -wF: LOC, CFA, rbp, ra) against dwarf_cfi_find at
 * that row's address: the same CFA rule, the same place for rbp, END where ra is undefined, no rule where
 * readelf shows one this table does not hold (an expression, a register); "exp" CFAs are the PLT rule or none. */
static void tn_cfi_vs_readelf(const char *path)
{
    char cmd[300], line[512];
    snprintf(cmd, sizeof cmd, "readelf -wF %s 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(line, sizeof line, p)) {
        printf("skipped: test_cfi_vs_readelf (no readelf)\n");
        if (p)
            pclose(p);
        CHECK(1);
        return;
    }
    dwarf_cfi *c = dwarf_cfi_load(path);
    ASSERT(c != NULL);
    int col_rbp = -1, col_ra = -1;
    long rows = 0, wrong = 0, plt = 0, sig = 0;
    uint64_t fde_start = 0;
    do {
        char *tok[24];
        int n = 0;
        const char *pc = strstr(line, " pc=");
        if (pc)
            fde_start = strtoull(pc + 4, NULL, 16);   /* FDEs of discarded code start at 0: not in the table */
        else if (strstr(line, " CIE "))
            fde_start = 0;   /* a CIE's own initial row */
        for (char *t = strtok(line, " \t\n"); t && n < 24; t = strtok(NULL, " \t\n"))
            if (t[0] != '(')   /* "r10 (r10)": a register's name after its number is one column */
                tok[n++] = t;
        if (n >= 2 && strcmp(tok[0], "LOC") == 0) {
            col_rbp = col_ra = -1;
            for (int i = 2; i < n; i++) {
                if (strcmp(tok[i], "rbp") == 0)
                    col_rbp = i;
                if (strcmp(tok[i], "ra") == 0)
                    col_ra = i;
            }
            continue;
        }
        if (n < 2 || fde_start == 0 || strlen(tok[0]) != 16 || strspn(tok[0], "0123456789abcdef") != 16 ||
            col_ra < 0 || n <= col_ra)
            continue;
        uint64_t loc = strtoull(tok[0], NULL, 16);
        const char *cfa = tok[1], *ra = tok[col_ra], *rbp = col_rbp > 0 && n > col_rbp ? tok[col_rbp] : "u";
        cfi_rule r = { 0xff, 0, 0 };
        bool found = dwarf_cfi_find(c, loc, &r), ok;
        int off = 0;
        rows++;
        if (strcmp(ra, "u") == 0) {
            ok = found && r.cfa_reg == CFI_END;
        } else if (strcmp(ra, "c-8") != 0) {
            ok = !found || r.cfa_reg == CFI_SIGNAL;   /* a signal trampoline's ra is an expression */
            sig += found;
        } else if (strcmp(cfa, "exp") == 0) {
            ok = !found || r.cfa_reg == CFI_REG_PLT;
            plt += found;
        } else if (sscanf(cfa, "rsp+%d", &off) == 1 || sscanf(cfa, "rbp+%d", &off) == 1) {
            int want_reg = cfa[1] == 's' ? CFI_REG_SP : CFI_REG_FP, fp = 0;
            if (strcmp(rbp, "u") == 0 || strcmp(rbp, "s") == 0)
                ok = found && r.cfa_reg == want_reg && r.cfa_off == off && r.fp_off == CFI_FP_SAME;
            else if (sscanf(rbp, "c%d", &fp) == 1)
                ok = found && r.cfa_reg == want_reg && r.cfa_off == off && r.fp_off == fp;
            else
                ok = !found;
        } else {
            ok = !found;
        }
        if (!ok && ++wrong <= 5)
            fprintf(stderr, "row at 0x%" PRIx64 " (CFA %s, rbp %s, ra %s): found %d, rule %u %d %d\n", loc, cfa, rbp,
                    ra, found, r.cfa_reg, r.cfa_off, r.fp_off);
    } while (fgets(line, sizeof line, p));
    pclose(p);
    printf("%s CFI against readelf -wF: %ld rows, %ld wrong, %ld PLT rows, %ld signal frames\n", path, rows, wrong,
           plt, sig);
    CHECK(strcmp(path, LIBC) != 0 || sig == 1);   /* __restore_rt */
    CHECK(rows > 10000);
    CHECK_EQ_INT(wrong, 0);
    CHECK(plt > 0);
    dwarf_cfi_free(c);
}

static void test_cfi_vs_readelf(void)
{
    tn_cfi_vs_readelf(LIBC);
    if (tn_exists(LIBJVM))
        tn_cfi_vs_readelf(LIBJVM);
}

/* The library at build/unit/<file> beside this test (build/unit or build/unit-asan). */
static void *tn_open_chain(const char *file, char *path, size_t cap)
{
    char exe[4096];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return NULL;
    exe[k] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    snprintf(path, cap, "%s/../unit/%s", exe, file);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fprintf(stderr, "cannot load %s (make builds it with the test): %s\n", path, dlerror());
    return h;
}

static __attribute__((noinline)) int tn_marker(int x)
{
    return x * 3 + 1;
}

static void test_code_map_self(void)
{
    code_libs *libs = code_libs_new();
    code_map *m = code_map_read(libs, NULL);
    ASSERT(m != NULL);
    const code_lib *self = code_map_find(m, (uint64_t)(uintptr_t)&tn_marker);
    ASSERT(self != NULL);
    CHECK(strstr(self->name, "test_native_unwind") != NULL);
    CHECK(self->cfi != NULL);
    const char *sym = NULL;
    uint64_t vaddr = 0;
    CHECK(code_map_symbol(m, (uint64_t)(uintptr_t)&tn_marker + 2, &sym, &vaddr) == self);
    CHECK(sym && strstr(sym, "tn_marker"));
    uint64_t w = code_map_function_address(m, "write", NULL);
    CHECK(w != 0);
    const code_lib *libc = code_map_find(m, w);
    CHECK(libc && strcmp(libc->name, "libc.so.6") == 0);
    /* libc's write as the dynamic linker resolves it: the same place (ASan's build interposes its own write) */
    void *dl = dlsym(RTLD_DEFAULT, "write");
    if (libc && code_map_find(m, (uint64_t)(uintptr_t)dl) == libc)
        CHECK_EQ_INT((uint64_t)(uintptr_t)dl, w);
    CHECK(code_map_function_address(m, "write", "libc.so") != w);   /* libc skipped */
    CHECK(code_map_function_address(m, "no_such_function_anywhere", NULL) == 0);
    /* readable: this stack; not: page 0 */
    int local = 1;
    uint64_t lo, hi, sp = (uint64_t)(uintptr_t)&local;
    CHECK(code_map_readable(m, sp, &lo, &hi) && lo <= sp && sp < hi);
    CHECK(!code_map_readable(m, 0x100, &lo, &hi));
    CHECK(code_map_find(m, 0x100) == NULL);
    /* a second snapshot reuses the libs */
    unsigned n = code_libs_count(libs);
    code_map *m2 = code_map_read(libs, NULL);
    ASSERT(m2 != NULL);
    CHECK(code_map_find(m2, (uint64_t)(uintptr_t)&tn_marker) == self);
    CHECK_EQ_INT(code_libs_count(libs), n);
    /* the vDSO, read from memory */
    uint64_t vdso = code_map_function_address(m, "__vdso_clock_gettime", NULL);
    if (vdso) {
        const code_lib *v = code_map_find(m, vdso);
        CHECK(v && strcmp(v->name, "[vdso]") == 0 && v->cfi != NULL);
    } else {
        printf("note: no vDSO clock_gettime found\n");
    }
    CHECK(tn_marker(1) == 4);
    code_map_free(m2);
    code_map_free(m);
    code_libs_free(libs);
    libs = code_libs_new();
    CHECK(code_map_read(libs, "/nonexistent/maps") == NULL);
    code_libs_free(libs);
}

/* A maps file written here: libc mapped at a made-up base (its load bias from its real PT_LOAD headers), anonymous
 * executable memory, a guard page and a stack; then libc again at another base (a new lib) and at the first (the
 * same lib, reused). */
static void tn_write_maps(const char *path, uint64_t base, const Elf64_Phdr *x)
{
    uint64_t xoff = x->p_offset & ~0xfffull, xend = (x->p_offset + x->p_filesz + 0xfff) & ~0xfffull;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "%" PRIx64 "-%" PRIx64 " r--p 00000000 fd:01 4242 " LIBC "\n", base, base + xoff);
    fprintf(f, "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " fd:01 4242 " LIBC "\n", base + xoff, base + xend, xoff);
    fprintf(f, "%" PRIx64 "-%" PRIx64 " r--p %08" PRIx64 " fd:01 4242 " LIBC "\n", base + xend,
            base + xend + 0x10000, xend);
    fprintf(f, "7f0000200000-7f0000300000 rwxp 00000000 00:00 0 \n");
    fprintf(f, "7f0000300000-7f0000301000 ---p 00000000 00:00 0 \n");
    fprintf(f, "7f0000301000-7f0000400000 rw-p 00000000 00:00 0                          [stack]\n");
    fprintf(f, "this line is not a mapping\n");
    fclose(f);
}

static void test_code_map_file(void)
{
    size_t len;
    uint8_t *data = th_read_file(LIBC, &len);
    ASSERT(data != NULL);
    elf_image img;
    Elf64_Phdr x = { 0 }, ph;
    CHECK(elf_image_open(&img, data, len));
    for (unsigned i = 0; elf_image_phdr(&img, i, &ph); i++)
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
            x = ph;
    ASSERT(x.p_filesz != 0);
    char path[] = "/tmp/test_native_maps_XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    close(fd);
    const uint64_t base = 0x7f0000000000ull, xpc = base + x.p_vaddr + 0x40;
    tn_write_maps(path, base, &x);
    code_libs *libs = code_libs_new();
    code_map *m = code_map_read(libs, path);
    ASSERT(m != NULL);
    const code_lib *l = code_map_find(m, xpc);
    ASSERT(l != NULL);
    CHECK_EQ_STR(l->name, "libc.so.6");
    CHECK_EQ_INT(l->load_bias, base + (x.p_offset & ~0xfffull) - (x.p_offset & ~0xfffull) + x.p_offset - x.p_vaddr);
    CHECK(l->cfi != NULL);
    CHECK(code_map_find(m, base) == NULL);   /* the read-only part of libc is not code */
    uint64_t w = code_map_function_address(m, "write", NULL);
    const char *sym = NULL;
    uint64_t vaddr = 0;
    CHECK(code_map_symbol(m, w + 2, &sym, &vaddr) == l);
    CHECK(sym && strstr(sym, "write"));
    CHECK_EQ_INT(vaddr, w + 2 - l->load_bias);
    const code_lib *anon = code_map_find(m, 0x7f0000250000);
    ASSERT(anon != NULL);
    CHECK_EQ_STR(anon->name, "[anon]");
    CHECK_EQ_STR(anon->path, "");
    CHECK(anon->cfi == NULL);
    CHECK(code_map_symbol(m, 0x7f0000250000, &sym, &vaddr) == anon && sym == NULL);
    uint64_t lo = 0, hi = 0, xend = (x.p_offset + x.p_filesz + 0xfff) & ~0xfffull;
    CHECK(code_map_readable(m, xpc, &lo, &hi));   /* libc's three mappings, merged */
    CHECK_EQ_INT(lo, base);
    CHECK_EQ_INT(hi, base + xend + 0x10000);
    CHECK(code_map_readable(m, 0x7f0000350000, &lo, &hi));   /* the stack, not its guard page */
    CHECK_EQ_INT(lo, 0x7f0000301000);
    CHECK_EQ_INT(hi, 0x7f0000400000);
    CHECK(!code_map_readable(m, 0x7f0000300800, &lo, &hi));
    CHECK(!code_map_readable(m, base + xend + 0x10000, &lo, &hi));
    unsigned n = code_libs_count(libs);
    CHECK_EQ_INT(n, 2);   /* libc and anonymous memory */
    /* libc moved: a new lib with its own bias; back at the first base: the first lib again */
    tn_write_maps(path, base + 0x100000000ull, &x);
    code_map *m2 = code_map_read(libs, path);
    ASSERT(m2 != NULL);
    const code_lib *l2 = code_map_find(m2, xpc + 0x100000000ull);
    CHECK(l2 && l2 != l && l2->load_bias == l->load_bias + 0x100000000ull);
    CHECK(code_map_find(m2, 0x7f0000250000) == anon);
    CHECK_EQ_INT(code_libs_count(libs), 3);
    tn_write_maps(path, base, &x);
    code_map *m3 = code_map_read(libs, path);
    ASSERT(m3 != NULL);
    CHECK(code_map_find(m3, xpc) == l);
    CHECK_EQ_INT(code_libs_count(libs), 3);
    unlink(path);
    code_map_free(m3);
    code_map_free(m2);
    code_map_free(m);
    code_libs_free(libs);
    free(data);
}

/* The load bias of every object the dynamic linker reports (dl_iterate_phdr: the executable, libc, the vDSO,
 * libchain_nofp.so whose vaddrs start at 256 MiB) is the one code_map computed from maps and PT_LOAD. */
typedef struct tn_bias_ctx {
    const code_map *m;
    int checked, wrong;
} tn_bias_ctx;

static int tn_bias_of(struct dl_phdr_info *info, size_t size, void *arg)
{
    tn_bias_ctx *ctx = arg;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const Elf64_Phdr *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        const code_lib *l = code_map_find(ctx->m, info->dlpi_addr + ph->p_vaddr);
        if (!l)
            continue;
        ctx->checked++;
        if (l->load_bias != info->dlpi_addr) {
            ctx->wrong++;
            fprintf(stderr, "load bias of %s: 0x%" PRIx64 ", the dynamic linker's 0x%" PRIx64 "\n", l->name,
                    l->load_bias, (uint64_t)info->dlpi_addr);
        }
        break;
    }
    return 0;
}

static void test_code_map_bias(void)
{
    char path[4200];
    void *h = tn_open_chain("libchain_nofp.so", path, sizeof path);
    ASSERT(h != NULL);
    code_libs *libs = code_libs_new();
    code_map *m = code_map_read(libs, NULL);
    ASSERT(m != NULL);
    tn_bias_ctx ctx = { m, 0, 0 };
    dl_iterate_phdr(tn_bias_of, &ctx);
    CHECK(ctx.checked >= 4);
    CHECK_EQ_INT(ctx.wrong, 0);
    const code_lib *l = code_map_find(m, (uint64_t)(uintptr_t)dlsym(h, "chain_b"));
    ASSERT(l != NULL);
    const char *sym = NULL;
    uint64_t vaddr = 0;
    code_map_symbol(m, (uint64_t)(uintptr_t)dlsym(h, "chain_b") + 1, &sym, &vaddr);
    CHECK_EQ_STR(sym, "chain_b");
    CHECK(vaddr > 0x10000000);
    code_map_free(m);
    code_libs_free(libs);
    dlclose(h);
}

/* The maps of another process (sleep, exec'd: its own layout): its libc found with its CFI, its vDSO (at an address
 * this process may not map) named but never read from here. */
static void test_code_map_other_process(void)
{
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        execlp("sleep", "sleep", "5", (char *)NULL);
        _exit(127);
    }
    char maps[64];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    code_map *m = NULL;
    code_libs *libs = code_libs_new();
    for (int i = 0; i < 100; i++) {   /* until the exec has happened and libc is mapped */
        usleep(10000);
        code_map_free(m);
        m = code_map_read(libs, maps);
        if (m && code_map_function_address(m, "write", NULL))
            break;
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ASSERT(m != NULL);
    uint64_t w = code_map_function_address(m, "write", NULL);
    const code_lib *l = code_map_find(m, w);
    CHECK(l && strcmp(l->name, "libc.so.6") == 0 && l->cfi != NULL);
    const char *sym = NULL;
    uint64_t vaddr;
    code_map_symbol(m, w, &sym, &vaddr);
    CHECK_EQ_STR(sym, "write");   /* of its aliases (__write, __libc_write), the plain name */
    code_map_free(m);
    code_libs_free(libs);
}

/* ---- real unwinds: a signal handler walks its own interrupted stack ---- */

static code_libs *tn_libs;
static code_map *tn_map;
static const code_lib *tn_chain_lib;      /* the library the chain runs in */
static code_lib *tn_disable;              /* whose CFI the handler's second walk hides */
static uint64_t tn_pcs[TN_MAX_FRAMES], tn_pcs_nocfi[TN_MAX_FRAMES];
static int tn_n, tn_n_nocfi;
static volatile int tn_stop, tn_done, tn_ticks;
static int tn_signal_frames;              /* of the last tn_walk */
static long tn_bench_steps;
static double tn_bench_ns;

/* The walk from a ucontext into pcs (no allocation: the handler calls it). */
static int tn_walk(const void *uc, uint64_t *pcs)
{
    unwind_regs r;
    unwind_regs_from_ucontext(uc, &r);
    uint64_t lo, hi;
    if (!code_map_readable(tn_map, r.sp, &lo, &hi))
        return 0;
    int n = 0;
    bool leaf = true;
    pcs[n++] = r.pc;
    tn_signal_frames = 0;
    while (n < TN_MAX_FRAMES && unwind_step_ex(tn_map, &r, leaf, lo, hi, &leaf)) {
        pcs[n++] = r.pc;
        tn_signal_frames += leaf;   /* went through a signal frame: r.pc is an interrupted pc */
    }
    return n;
}

static void tn_record(void *uc)
{
    tn_n = tn_walk(uc, tn_pcs);
    if (tn_disable) {
        dwarf_cfi *saved = tn_disable->cfi;
        tn_disable->cfi = NULL;
        tn_n_nocfi = tn_walk(uc, tn_pcs_nocfi);
        tn_disable->cfi = saved;
    }
    if (tn_bench_steps == 0) {
        /* the fastest of 10 batches of 200 walks: the machine may be shared */
        uint64_t scratch[TN_MAX_FRAMES];
        for (int batch = 0; batch < 10; batch++) {
            struct timespec t0, t1;
            long steps = 0;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            for (int i = 0; i < 200; i++)
                steps += tn_walk(uc, scratch) - 1;
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
            if (batch == 0 || ns / (double)steps < tn_bench_ns / (double)tn_bench_steps) {
                tn_bench_ns = ns;
                tn_bench_steps = steps;
            }
        }
    }
}

static void tn_on_usr1(int sig, siginfo_t *info, void *uc)
{
    (void)sig, (void)info;
    tn_record(uc);
}

static void tn_on_prof(int sig, siginfo_t *info, void *uc)
{
    (void)sig, (void)info;
    if (tn_done)
        return;
    unwind_regs r;
    unwind_regs_from_ucontext(uc, &r);
    if (code_map_find(tn_map, r.pc) == tn_chain_lib) {   /* interrupted in the chain itself */
        tn_record(uc);
        tn_done = 1;
        tn_stop = 1;
    } else if (++tn_ticks > 20000) {
        tn_stop = 1;   /* never in the chain: give up (the checks fail) rather than spin for ever */
    }
}

static int tn_sink;
static __attribute__((noinline)) int tn_call_chain(tn_chain_fn a, int mode)
{
    int r = a(&tn_stop, mode);
    tn_sink += r;
    return r + 1;
}

/* The names of pcs (the first an interrupted pc, the others return addresses), into names. */
static void tn_symbolize(const uint64_t *pcs, int n, const char **names)
{
    for (int i = 0; i < n; i++) {
        uint64_t vaddr;
        const char *sym = NULL;
        const code_lib *lib = code_map_symbol(tn_map, i ? pcs[i] - 1 : pcs[i], &sym, &vaddr);
        names[i] = sym ? sym : lib ? lib->name : "?";
    }
}

/* Whether names hold chain_c, chain_b, chain_a, the test's caller, in a row. */
static int tn_chain_at(const char **names, int n)
{
    for (int i = 0; i + 3 < n; i++)
        if (strstr(names[i], "chain_c") && strstr(names[i + 1], "chain_b") && strstr(names[i + 2], "chain_a") &&
            strstr(names[i + 3], "tn_call_chain"))
            return i;
    return -1;
}

static void tn_print(const char *what, const char **names, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++)
        printf(" %s", names[i]);
    printf("\n");
}

/* One chain: walked from mode 0 (SIGUSR1 raised in chain_c: the walk starts in libc) and mode 1 (a profiling
 * timer while chain_c spins: the walk starts in chain_c); with the lib's CFI, and without it, where it must
 * succeed with frame pointers (fp) and fail without (nofp). */
static void tn_chain_test(const char *file, bool has_fp)
{
    char path[4200];
    void *h = tn_open_chain(file, path, sizeof path);
    ASSERT(h != NULL);
    tn_chain_fn a = (tn_chain_fn)(uintptr_t)dlsym(h, "chain_a");
    ASSERT(a != NULL);
    tn_libs = code_libs_new();
    tn_map = code_map_read(tn_libs, NULL);
    ASSERT(tn_map != NULL);
    tn_chain_lib = code_map_find(tn_map, (uint64_t)(uintptr_t)a);
    ASSERT(tn_chain_lib != NULL && tn_chain_lib->cfi != NULL);
    CHECK(strcmp(tn_chain_lib->name, file) == 0);
    tn_disable = (code_lib *)tn_chain_lib;

    struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART }, old_usr1, old_prof;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = tn_on_usr1;
    sigaction(SIGUSR1, &sa, &old_usr1);
    sa.sa_sigaction = tn_on_prof;
    sigaction(SIGPROF, &sa, &old_prof);

    for (int mode = 0; mode < 2; mode++) {
        tn_n = tn_n_nocfi = 0;
        tn_stop = tn_done = tn_ticks = 0;
        if (mode == 1) {
            struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
            setitimer(ITIMER_PROF, &it, NULL);
        }
        tn_call_chain(a, mode);
        if (mode == 1) {
            struct itimerval off = { { 0, 0 }, { 0, 0 } };
            setitimer(ITIMER_PROF, &off, NULL);
        }
        const char *names[TN_MAX_FRAMES], *names_nocfi[TN_MAX_FRAMES];
        tn_symbolize(tn_pcs, tn_n, names);
        tn_symbolize(tn_pcs_nocfi, tn_n_nocfi, names_nocfi);
        char what[160];
        snprintf(what, sizeof what, "%s mode %d (%s)", file, mode, mode ? "timer in chain_c" : "raise in chain_c");
        tn_print(what, names, tn_n);
        int at = tn_chain_at(names, tn_n);
        CHECK(at >= 0);
        CHECK(mode == 1 ? at == 0 : at > 0);   /* the timer interrupts chain_c itself; raise() runs in libc */
        bool main_seen = false;
        for (int i = at + 4; at >= 0 && i < tn_n; i++)
            main_seen |= strcmp(names[i], "main") == 0;
        CHECK(main_seen);
        snprintf(what, sizeof what, "  the same without %s's CFI", file);
        tn_print(what, names_nocfi, tn_n_nocfi);
        if (has_fp)
            CHECK(tn_chain_at(names_nocfi, tn_n_nocfi) >= 0);   /* frame pointers suffice */
        else
            CHECK(tn_chain_at(names_nocfi, tn_n_nocfi) < 0);    /* DWARF was needed */
    }
    sigaction(SIGUSR1, &old_usr1, NULL);
    sigaction(SIGPROF, &old_prof, NULL);
    tn_disable = NULL;
    code_map_free(tn_map);
    tn_map = NULL;
    code_libs_free(tn_libs);
    dlclose(h);
}

static void test_unwind_chain_fp(void)
{
    tn_chain_test("libchain_fp.so", true);
}

static void test_unwind_chain_nofp(void)
{
    tn_chain_test("libchain_nofp.so", false);
    if (tn_bench_steps)
        printf("unwind_step: %.0f ns per step (%ld steps)\n", tn_bench_ns / (double)tn_bench_steps, tn_bench_steps);
}

/* A signal handler interrupted by a signal (SA_NODEFER: SIGUSR1 raised again inside its handler): the walk goes
 * through the trampoline (__restore_rt) into the first handler's frames and on into the chain it interrupted. */
static volatile int tn_nest;

static void tn_on_usr1_nested(int sig, siginfo_t *info, void *uc)
{
    (void)info;
    if (tn_nest == 0) {
        tn_nest = 1;
        raise(sig);
        tn_nest = 0;
        return;
    }
    tn_record(uc);
}

static void test_unwind_through_signal(void)
{
    char path[4200];
    void *h = tn_open_chain("libchain_nofp.so", path, sizeof path);
    ASSERT(h != NULL);
    tn_chain_fn a = (tn_chain_fn)(uintptr_t)dlsym(h, "chain_a");
    ASSERT(a != NULL);
    tn_libs = code_libs_new();
    tn_map = code_map_read(tn_libs, NULL);
    ASSERT(tn_map != NULL);
    tn_disable = NULL;
    tn_n = 0;
    struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_NODEFER }, old;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = tn_on_usr1_nested;
    sigaction(SIGUSR1, &sa, &old);
    tn_call_chain(a, 0);
    sigaction(SIGUSR1, &old, NULL);
    const char *names[TN_MAX_FRAMES];
    int signal_frames = tn_signal_frames;   /* of the handler's walk (tn_disable NULL: its only one) */
    tn_symbolize(tn_pcs, tn_n, names);
    tn_print("nested signal", names, tn_n);
    CHECK_EQ_INT(signal_frames, 1);
    int handler = -1;
    for (int i = 0; i < tn_n && handler < 0; i++)
        if (strstr(names[i], "tn_on_usr1_nested"))
            handler = i;
    CHECK(handler > 0);
    int at = tn_chain_at(names, tn_n);
    CHECK(at > handler);
    code_map_free(tn_map);
    tn_map = NULL;
    code_libs_free(tn_libs);
    dlclose(h);
}

/* unwind_walk with a stop callback: the walk from raise() in chain_c stops at the first frame of this executable
 * (as the agent's stops at the first Java frame), with that frame's registers for whoever goes on. */
static const code_lib *tn_self_lib;
static uint64_t tn_walk_pcs[TN_MAX_FRAMES];
static int tn_walk_n;
static bool tn_walk_stopped;
static unwind_regs tn_walk_last;

static bool tn_stop_at_self(uint64_t pc, void *arg)
{
    (void)arg;
    return code_map_find(tn_map, pc) == tn_self_lib;
}

static void tn_on_usr1_walk(int sig, siginfo_t *info, void *uc)
{
    (void)sig, (void)info;
    tn_walk_n = unwind_walk(tn_map, uc, tn_walk_pcs, TN_MAX_FRAMES, tn_stop_at_self, NULL, &tn_walk_last,
                            &tn_walk_stopped);
}

static void test_unwind_walk_stop(void)
{
    char path[4200];
    void *h = tn_open_chain("libchain_nofp.so", path, sizeof path);
    ASSERT(h != NULL);
    tn_chain_fn a = (tn_chain_fn)(uintptr_t)dlsym(h, "chain_a");
    ASSERT(a != NULL);
    tn_libs = code_libs_new();
    tn_map = code_map_read(tn_libs, NULL);
    ASSERT(tn_map != NULL);
    tn_self_lib = code_map_find(tn_map, (uint64_t)(uintptr_t)&tn_marker);
    struct sigaction sa = { .sa_flags = SA_SIGINFO }, old;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = tn_on_usr1_walk;
    sigaction(SIGUSR1, &sa, &old);
    tn_call_chain(a, 0);
    sigaction(SIGUSR1, &old, NULL);
    const char *names[TN_MAX_FRAMES + 1];
    tn_symbolize(tn_walk_pcs, tn_walk_n, names);
    tn_print("walk to the first frame of the test", names, tn_walk_n);
    CHECK(tn_walk_stopped);
    CHECK(tn_walk_n >= 3 && strstr(names[tn_walk_n - 1], "chain_a") && strstr(names[tn_walk_n - 2], "chain_b") &&
          strstr(names[tn_walk_n - 3], "chain_c"));
    const char *sym = NULL;
    uint64_t vaddr;
    code_map_symbol(tn_map, tn_walk_last.pc - 1, &sym, &vaddr);
    CHECK(sym && strstr(sym, "tn_call_chain"));
    code_map_free(tn_map);
    tn_map = NULL;
    code_libs_free(tn_libs);
    dlclose(h);
}

/* A leaf pc at a function's first instruction (before any push): CFI says the return address is at [rsp]. */
static void test_unwind_prologue(void)
{
    char path[4200];
    void *h = tn_open_chain("libchain_nofp.so", path, sizeof path);
    ASSERT(h != NULL);
    void *c = dlsym(h, "chain_c"), *b = dlsym(h, "chain_b");
    ASSERT(c && b);
    code_libs *libs = code_libs_new();
    code_map *m = code_map_read(libs, NULL);
    ASSERT(m != NULL);
    static uint64_t stack[64];
    stack[10] = (uint64_t)(uintptr_t)b + 5;   /* a return address into chain_b */
    uint64_t lo = (uint64_t)(uintptr_t)stack, hi = lo + sizeof stack;
    unwind_regs r = { (uint64_t)(uintptr_t)c, lo + 10 * 8, 0x1234 };
    CHECK(unwind_step(m, &r, true, lo, hi));
    CHECK_EQ_INT(r.pc, stack[10]);
    CHECK_EQ_INT(r.sp, lo + 11 * 8);
    CHECK_EQ_INT(r.fp, 0x1234);
    /* the same with the bounds ending before the return address: refused, r unchanged */
    unwind_regs r2 = { (uint64_t)(uintptr_t)c, lo + 10 * 8, 0x1234 };
    CHECK(!unwind_step(m, &r2, true, lo, lo + 10 * 8));
    CHECK_EQ_INT(r2.pc, (uint64_t)(uintptr_t)c);
    code_map_free(m);
    code_libs_free(libs);
    dlclose(h);
}

/* Random registers over a stack of random words (some of them code addresses or pointers into the stack): every
 * step reads inside the bounds (ASan checks), every successful step moves sp up, and every walk ends. */
static void test_unwind_garbage(void)
{
    char path[4200];
    void *h = tn_open_chain("libchain_fp.so", path, sizeof path);
    ASSERT(h != NULL);
    code_libs *libs = code_libs_new();
    code_map *m = code_map_read(libs, NULL);
    ASSERT(m != NULL);
    uint64_t code[] = { (uint64_t)(uintptr_t)dlsym(h, "chain_a"), (uint64_t)(uintptr_t)dlsym(h, "chain_c"),
                        (uint64_t)(uintptr_t)&tn_marker, code_map_function_address(m, "write", NULL),
                        code_map_function_address(m, "memcpy", NULL) };
    enum { WORDS = 2048 };
    static uint64_t stack[WORDS];
    uint64_t lo = (uint64_t)(uintptr_t)stack, hi = lo + sizeof stack;
    srand(12345);
    long steps = 0, walks_ok = 0, bad_moves = 0;
    for (int round = 0; round < 300; round++) {
        for (int i = 0; i < WORDS; i++) {
            uint64_t v = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)rand();
            switch (rand() % 4) {
            case 0: stack[i] = code[rand() % 5] + (uint64_t)(rand() % 300); break;
            case 1: stack[i] = lo + (uint64_t)(rand() % (WORDS * 8 + 64)) - 32; break;
            default: stack[i] = v; break;
            }
        }
        for (int w = 0; w < 50; w++) {
            unwind_regs r;
            int k = rand() % 3;
            r.pc = k == 0   ? code[rand() % 5] + (uint64_t)(rand() % 200)
                   : k == 1 ? stack[rand() % WORDS]
                            : (uint64_t)rand();
            r.sp = lo + (uint64_t)(rand() % (WORDS * 8 + 64)) - 32;
            r.fp = rand() % 2 ? stack[rand() % WORDS] : lo + (uint64_t)(rand() % (WORDS * 8 + 64));
            if (rand() % 8 == 0)
                r.fp = hi + 64;   /* fp past the bounds */
            int n = 0;
            bool leaf = true;
            unwind_regs before = r;
            while (unwind_step(m, &r, leaf, lo, hi)) {
                if (r.sp <= before.sp || r.sp > hi)
                    bad_moves++;
                before = r;
                leaf = false;
                steps++;
                if (++n > WORDS)
                    break;
            }
            CHECK_EQ_INT(memcmp(&before, &r, sizeof r), 0);   /* a refused step leaves r as it was */
            walks_ok += n <= WORDS;
        }
    }
    CHECK_EQ_INT(bad_moves, 0);
    CHECK_EQ_INT(walks_ok, 300 * 50);
    CHECK(steps > 0);
    printf("garbage walks: %ld steps taken in 15000 walks\n", steps);
    /* unmapped pc, fp below sp, fp outside the bounds (no CFI: the fp chain) */
    unwind_regs r = { 0x10, lo + 64, lo + 128 };
    CHECK(!unwind_step(m, &r, true, lo, hi));
    code_lib *fp_lib = (code_lib *)code_map_find(m, code[0]);
    ASSERT(fp_lib != NULL);
    dwarf_cfi *saved = fp_lib->cfi;
    fp_lib->cfi = NULL;
    r = (unwind_regs){ code[0] + 20, lo + 256, lo + 128 };
    CHECK(!unwind_step(m, &r, false, lo, hi));
    r = (unwind_regs){ code[0] + 20, lo + 256, hi };
    CHECK(!unwind_step(m, &r, false, lo, hi));
    r = (unwind_regs){ code[0] + 20, lo + 256, hi - 8 };   /* the return address would be past hi */
    CHECK(!unwind_step(m, &r, false, lo, hi));
    stack[40] = lo + 80 * 8;                   /* a sound frame: [fp] = caller's fp, [fp + 8] = return address */
    stack[41] = code[2] + 4;
    r = (unwind_regs){ code[0] + 20, lo + 256, lo + 40 * 8 };
    CHECK(unwind_step(m, &r, false, lo, hi));
    CHECK_EQ_INT(r.pc, code[2] + 4);
    CHECK_EQ_INT(r.sp, lo + 42 * 8);
    CHECK_EQ_INT(r.fp, lo + 80 * 8);
    fp_lib->cfi = saved;
    code_map_free(m);
    code_libs_free(libs);
    dlclose(h);
}

/* The CFI reader and the symbol reader on copies of libc truncated at 20 points and with random bytes of its
 * .eh_frame (and its headers) changed: never a crash or a read out of bounds (ASan), lookups still bounded. */
static void test_cfi_corrupt(void)
{
    size_t len;
    uint8_t *orig = th_read_file(LIBC, &len);
    ASSERT(orig != NULL);
    elf_image img;
    Elf64_Shdr eh;
    ASSERT(elf_image_open(&img, orig, len) && elf_image_section(&img, ".eh_frame", &eh) >= 0);
    uint8_t *copy = malloc(len);
    ASSERT(copy != NULL);
    char path[] = "/tmp/test_native_unwind_XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    close(fd);
    int loaded = 0, runs = 0;
    cfi_rule r;
    for (int i = 1; i <= 20; i++) {   /* truncated: the .eh_frame's end at 10 points, the file's at 10 */
        size_t cut = i <= 10 ? (size_t)(eh.sh_offset + eh.sh_size * (uint64_t)i / 11) : len * (size_t)(i - 10) / 11;
        CHECK(th_write_file(path, orig, cut));
        dwarf_cfi *c = dwarf_cfi_load(path);
        elf_symbols *s = elf_symbols_load(path);
        loaded += c != NULL;
        for (uint64_t a = 0; c && a < eh.sh_addr; a += 4099)
            dwarf_cfi_find(c, a, &r);
        elf_symbols_find(s, 0x30000, NULL);
        dwarf_cfi_free(c);
        elf_symbols_free(s);
        runs++;
    }
    srand(777);
    for (int i = 0; i < 40; i++) {   /* flips: 200 random bytes of .eh_frame, a few in the ELF headers */
        memcpy(copy, orig, len);
        for (int k = 0; k < 200; k++)
            copy[eh.sh_offset + (uint64_t)rand() % eh.sh_size] = (uint8_t)rand();
        if (i % 4 == 0)
            for (int k = 0; k < 8; k++)
                copy[(size_t)rand() % 64] = (uint8_t)rand();
        if (i % 4 == 1)
            for (int k = 0; k < 8; k++)
                copy[img.eh.e_shoff + (uint64_t)rand() % ((uint64_t)img.eh.e_shnum * img.eh.e_shentsize)] =
                    (uint8_t)rand();
        CHECK(th_write_file(path, copy, len));
        dwarf_cfi *c = dwarf_cfi_load(path);
        loaded += c != NULL;
        for (uint64_t a = 0; c && a < eh.sh_addr; a += 4099)
            dwarf_cfi_find(c, a, &r);
        dwarf_cfi_free(c);
        runs++;
    }
    unlink(path);
    printf("corrupt copies of libc: %d of %d loaded a table\n", loaded, runs);
    CHECK(runs == 60);
    CHECK(loaded > 0);   /* a table still comes out of most of them: the damage stays local */
    free(copy);
    free(orig);
}

int main(void)
{
    RUN(test_symbols_libc);
    RUN(test_symbols_libjvm);
    RUN(test_cfi_libc_libjvm);
    RUN(test_cfi_plt);
    RUN(test_cfi_vs_readelf);
    RUN(test_cfi_without_sections);
    RUN(test_code_map_self);
    RUN(test_code_map_file);
    RUN(test_code_map_bias);
    RUN(test_code_map_other_process);
    RUN(test_unwind_chain_fp);
    RUN(test_unwind_chain_nofp);
    RUN(test_unwind_through_signal);
    RUN(test_unwind_walk_stop);
    RUN(test_unwind_prologue);
    RUN(test_unwind_garbage);
    RUN(test_cfi_corrupt);
    return DONE();
}
