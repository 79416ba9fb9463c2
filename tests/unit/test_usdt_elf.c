/* test_usdt_elf.c — the USDT shared object (src/elf/usdt_elf.c): its
 * headers checked with <elf.h>, the image dlopened (dlsym finds each
 * function at its site, each site runs and returns, the semaphores read 0,
 * the thread stack stays non-executable), readelf -n listing every probe as
 * written and readelf -a finding nothing to warn about, a build id that
 * follows the content, 400 probes through the hash table, and bad input
 * rejected. Needs readelf (binutils). */
#include "../../src/elf/usdt_elf.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static const usdt_probe_spec three[] = {
    { "MyProv", "myprobe", "MyProv_myprobe", "-4@0(%rdi) -8@8(%rdi) 8@16(%rdi)" },
    { "MyProv", "other", "shared_fn", "" },
    { "Second", "third", "shared_fn", NULL },
};

/* Writes the image to a new temporary file; its path into path[64]. */
static bool tu_write_temp(const usdt_elf_image *img, char path[64])
{
    snprintf(path, 64, "/tmp/test_usdt_elf_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    bool ok = write(fd, img->data, img->len) == (ssize_t)img->len;
    return close(fd) == 0 && ok;
}

/* The output of a shell command (malloc'd) and its exit status. */
static char *tu_run(const char *cmd, int *status)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0, k;
    char *out = malloc(cap);
    while (out && (k = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += k;
        if (len + 1 == cap) {
            char *bigger = realloc(out, cap *= 2);
            if (!bigger)
                free(out);
            out = bigger;
        }
    }
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (out)
        out[len] = '\0';
    return out;
}

static bool tu_have_readelf(void)
{
    int status;
    char *out = tu_run("LC_ALL=C readelf --version 2>&1", &status);
    bool ok = out && status == 0 && strstr(out, "GNU readelf");
    free(out);
    if (!ok)
        fprintf(stderr, "test_usdt_elf: readelf (binutils) is missing: it is needed to check the image\n");
    return ok;
}

/* Whether a line of text holds both a and b (a first). */
static bool tu_line_with(const char *text, const char *a, const char *b)
{
    for (const char *p = text; (p = strstr(p, a)) != NULL; p++) {
        const char *eol = strchr(p, '\n'), *q = strstr(p, b);
        if (q && (!eol || q < eol))
            return true;
    }
    return false;
}

static const Elf64_Shdr *tu_section(const usdt_elf_image *img, const char *name)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img->data;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img->data + eh->e_shoff);
    const char *names = (const char *)img->data + sh[eh->e_shstrndx].sh_offset;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (strcmp(names + sh[i].sh_name, name) == 0)
            return &sh[i];
    return NULL;
}

/* The headers, read back with <elf.h>. */
static void test_headers(void)
{
    usdt_elf_image img;
    usdt_probe_place pl[3];
    ASSERT(usdt_elf_build(three, 3, "libMyProv.so", &img, pl) == JP_OK);
    ASSERT(img.len > sizeof(Elf64_Ehdr));
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img.data;
    CHECK(memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0);
    CHECK_EQ_INT(eh->e_ident[EI_CLASS], ELFCLASS64);
    CHECK_EQ_INT(eh->e_ident[EI_DATA], ELFDATA2LSB);
    CHECK_EQ_INT(eh->e_type, ET_DYN);
    CHECK_EQ_INT(eh->e_machine, EM_X86_64);
    CHECK(eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= img.len);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(img.data + eh->e_phoff);
    unsigned loads = 0, stacks = 0, dynamics = 0, notes = 0;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        CHECK(ph[i].p_offset % 4096 == ph[i].p_vaddr % 4096);
        CHECK(ph[i].p_offset + ph[i].p_filesz <= img.len);
        if (ph[i].p_type == PT_LOAD) {
            loads++;
            CHECK_EQ_INT(ph[i].p_flags, loads == 1 ? (PF_R | PF_X) : (PF_R | PF_W));
            CHECK_EQ_INT(ph[i].p_offset % 4096, 0);
        } else if (ph[i].p_type == PT_GNU_STACK) {
            stacks++;
            CHECK_EQ_INT(ph[i].p_flags, PF_R | PF_W);
        } else if (ph[i].p_type == PT_DYNAMIC) {
            dynamics++;
            CHECK(ph[i].p_flags & PF_W);
        } else if (ph[i].p_type == PT_NOTE) {
            notes++;
            const uint8_t *note = img.data + ph[i].p_offset;
            CHECK_EQ_INT(ph[i].p_filesz, 36);
            CHECK(memcmp(note, "\4\0\0\0\x14\0\0\0\3\0\0\0GNU", 16) == 0); /* NT_GNU_BUILD_ID, 20 bytes */
        }
    }
    CHECK_EQ_INT(loads, 2);
    CHECK_EQ_INT(stacks, 1);
    CHECK_EQ_INT(dynamics, 1);
    CHECK_EQ_INT(notes, 1);

    const Elf64_Shdr *text = tu_section(&img, ".text"), *probes = tu_section(&img, ".probes"),
                     *note = tu_section(&img, ".note.stapsdt"), *base = tu_section(&img, ".stapsdt.base");
    ASSERT(text && probes && note && base);
    CHECK_EQ_INT(note->sh_type, SHT_NOTE);
    CHECK_EQ_INT(note->sh_flags & SHF_ALLOC, 0);
    CHECK_EQ_INT(base->sh_flags, SHF_ALLOC);
    CHECK_EQ_INT(base->sh_size, 1);
    CHECK_EQ_INT(probes->sh_type, SHT_PROGBITS);
    CHECK_EQ_INT(probes->sh_flags, SHF_ALLOC | SHF_WRITE);
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(pl[i].site % 16, 0);
        CHECK(pl[i].site < loads * 4096); /* in the first segment */
        CHECK(pl[i].site >= text->sh_addr && pl[i].site + 2 <= text->sh_addr + text->sh_size);
        CHECK(img.data[pl[i].site] == 0x90 && img.data[pl[i].site + 1] == 0xc3);
        CHECK(pl[i].semaphore >= probes->sh_addr && pl[i].semaphore + 2 <= probes->sh_addr + probes->sh_size);
        CHECK(img.data[pl[i].semaphore] == 0 && img.data[pl[i].semaphore + 1] == 0);
        for (size_t j = 0; j < i; j++)
            CHECK(pl[i].site != pl[j].site && pl[i].semaphore != pl[j].semaphore);
    }
    usdt_elf_free(&img);
    CHECK(img.data == NULL);
}

/* The [stack] line of /proc/self/maps has no x. */
static bool tu_stack_not_executable(void)
{
    size_t len;
    char *maps = th_read_file("/proc/self/maps", &len);
    if (!maps)
        return false;
    bool ok = false;
    for (char *line = strtok(maps, "\n"); line; line = strtok(NULL, "\n"))
        if (strstr(line, "[stack]")) {
            const char *perms = strchr(line, ' ');
            ok = perms && strncmp(perms + 1, "rw-", 3) == 0;
        }
    free(maps);
    return ok;
}

/* dlopen the image: each function where its probe's site is, each site a
 * function that returns, each semaphore 0. */
static void test_dlopen(void)
{
    usdt_elf_image img;
    usdt_probe_place pl[3];
    ASSERT(usdt_elf_build(three, 3, "libMyProv.so", &img, pl) == JP_OK);
    char path[64];
    ASSERT(tu_write_temp(&img, path));
    CHECK(tu_stack_not_executable());
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!CHECK(h != NULL)) {
        fprintf(stderr, "    dlopen: %s\n", dlerror());
        unlink(path);
        usdt_elf_free(&img);
        return;
    }
    CHECK(tu_stack_not_executable()); /* PT_GNU_STACK is RW */
    struct link_map *lm = NULL;
    CHECK(dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm);
    uintptr_t base = lm ? (uintptr_t)lm->l_addr : 0;
    CHECK(base != 0);
    CHECK(dlsym(h, "MyProv_myprobe") == (void *)(base + pl[0].site));
    CHECK(dlsym(h, "shared_fn") == (void *)(base + pl[1].site)); /* the first of the two */
    CHECK(dlsym(h, "no_such_function") == NULL);
    int64_t args[3] = { -5, (int64_t)1 << 40, (int64_t)(uintptr_t) "hello" };
    for (size_t i = 0; i < 3; i++) {
        void (*site)(const int64_t *) = (void (*)(const int64_t *))(base + pl[i].site);
        site(args);
        CHECK_EQ_INT(*(volatile uint16_t *)(base + pl[i].semaphore), 0);
    }
    Dl_info info;
    CHECK(dladdr((void *)(base + pl[2].site), &info) && info.dli_sname && strcmp(info.dli_sname, "shared_fn") == 0);
    CHECK_EQ_INT(dlclose(h), 0);
    CHECK_EQ_INT(unlink(path), 0);
    usdt_elf_free(&img);
}

/* readelf -n lists every probe as written; readelf -a finds nothing wrong. */
static void test_readelf(void)
{
    ASSERT(tu_have_readelf());
    usdt_elf_image img;
    usdt_probe_place pl[3];
    ASSERT(usdt_elf_build(three, 3, "libMyProv.so", &img, pl) == JP_OK);
    const Elf64_Shdr *base = tu_section(&img, ".stapsdt.base");
    ASSERT(base != NULL);
    char path[64], cmd[160];
    ASSERT(tu_write_temp(&img, path));
    int status;
    snprintf(cmd, sizeof cmd, "LC_ALL=C readelf -n %s 2>&1", path);
    char *out = tu_run(cmd, &status);
    ASSERT(out != NULL);
    CHECK_EQ_INT(status, 0);
    for (size_t i = 0; i < 3; i++) {
        char want[512];
        snprintf(want, sizeof want,
                 "    Provider: %s\n    Name: %s\n    Location: 0x%016llx, Base: 0x%016llx, Semaphore: 0x%016llx\n"
                 "    Arguments: %s\n",
                 three[i].provider, three[i].name, (unsigned long long)pl[i].site,
                 (unsigned long long)base->sh_addr, (unsigned long long)pl[i].semaphore,
                 three[i].args ? three[i].args : "");
        if (!CHECK(strstr(out, want) != NULL))
            fprintf(stderr, "    expected in readelf -n:\n%s    got:\n%s", want, out);
    }
    size_t notes = 0;
    for (const char *p = out; (p = strstr(p, "NT_STAPSDT")) != NULL; p++)
        notes++;
    CHECK_EQ_INT(notes, 3);
    free(out);

    snprintf(cmd, sizeof cmd, "LC_ALL=C readelf -a -W %s 2>&1", path);
    out = tu_run(cmd, &status);
    ASSERT(out != NULL);
    CHECK_EQ_INT(status, 0);
    if (!CHECK(!strstr(out, "Warning") && !strstr(out, "Error")))
        fprintf(stderr, "%s", out);
    CHECK(strstr(out, "Library soname: [libMyProv.so]") != NULL);
    CHECK(tu_line_with(out, "FUNC    GLOBAL DEFAULT", " MyProv_myprobe\n"));
    free(out);
    unlink(path);
    usdt_elf_free(&img);
}

/* 400 probes with long, odd strings: the hash table finds every function
 * and readelf still has nothing to say. */
static void test_many(void)
{
    enum { N = 400 };
    static usdt_probe_spec specs[N];
    static char fn[N][32], prov[USDT_ELF_MAX_STRING + 1];
    memset(prov, 'p', USDT_ELF_MAX_STRING);
    prov[USDT_ELF_MAX_STRING] = '\0';
    for (size_t i = 0; i < N; i++) {
        snprintf(fn[i], sizeof fn[i], "fn_%zu", i);
        specs[i] = (usdt_probe_spec){ i % 2 ? prov : "odd provider \xc3\xa9", "a name with spaces", fn[i],
                                      i % 3 ? "8@0(%rdi)" : "" };
    }
    static usdt_probe_place pl[N];
    usdt_elf_image img;
    ASSERT(usdt_elf_build(specs, N, "libMany.so", &img, pl) == JP_OK);
    char path[64];
    ASSERT(tu_write_temp(&img, path));
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (CHECK(h != NULL)) {
        struct link_map *lm = NULL;
        CHECK(dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm);
        size_t found = 0;
        for (size_t i = 0; lm && i < N; i++)
            found += dlsym(h, fn[i]) == (void *)(lm->l_addr + pl[i].site);
        CHECK_EQ_INT(found, N);
        dlclose(h);
    }
    if (tu_have_readelf()) {
        char cmd[160];
        int status;
        snprintf(cmd, sizeof cmd, "LC_ALL=C readelf -a -W %s 2>&1", path);
        char *out = tu_run(cmd, &status);
        CHECK(out && status == 0 && !strstr(out, "Warning") && !strstr(out, "Error"));
        size_t notes = 0;
        for (const char *p = out; p && (p = strstr(p, "NT_STAPSDT")) != NULL; p++)
            notes++;
        CHECK_EQ_INT(notes, N);
        free(out);
    }
    unlink(path);
    usdt_elf_free(&img);
}

/* The build id: readelf shows it; it is the same for the same probes and
 * differs when anything about them does. */
static void test_build_id(void)
{
    usdt_elf_image a, b, c;
    ASSERT(usdt_elf_build(three, 3, "libMyProv.so", &a, NULL) == JP_OK);
    ASSERT(usdt_elf_build(three, 3, "libMyProv.so", &b, NULL) == JP_OK);
    usdt_probe_spec changed[3] = { three[0], three[1], three[2] };
    changed[2].args = "8@0(%rdi)";
    ASSERT(usdt_elf_build(changed, 3, "libMyProv.so", &c, NULL) == JP_OK);
    const Elf64_Shdr *sa = tu_section(&a, ".note.gnu.build-id"), *sb = tu_section(&b, ".note.gnu.build-id"),
                     *sc = tu_section(&c, ".note.gnu.build-id");
    ASSERT(sa && sb && sc);
    CHECK_EQ_MEM(a.data, a.len, b.data, b.len);
    CHECK(memcmp(a.data + sa->sh_offset + 16, c.data + sc->sh_offset + 16, 20) != 0);
    static const uint8_t zero[20];
    CHECK(memcmp(a.data + sa->sh_offset + 16, zero, 20) != 0);
    if (tu_have_readelf()) {
        char path[64], cmd[160], want[64];
        ASSERT(tu_write_temp(&a, path));
        snprintf(cmd, sizeof cmd, "LC_ALL=C readelf -n %s 2>&1", path);
        int status;
        char *out = tu_run(cmd, &status);
        for (int i = 0; i < 20; i++)
            snprintf(want + 2 * i, 3, "%02x", a.data[sa->sh_offset + 16 + i]);
        CHECK(out && tu_line_with(out, "Build ID: ", want));
        free(out);
        unlink(path);
    }
    usdt_elf_free(&a);
    usdt_elf_free(&b);
    usdt_elf_free(&c);
}

static void tu_expect_rejected(const usdt_probe_spec *specs, size_t n, const char *soname, const char *why)
{
    usdt_elf_image img;
    img.data = (uint8_t *)"x";
    usdt_probe_place pl[4];
    CHECK_EQ_INT(usdt_elf_build(specs, n, soname, &img, pl), JP_ERR_ARG);
    CHECK(img.data == NULL && img.len == 0);
    if (!CHECK(strstr(img.why, why) != NULL))
        fprintf(stderr, "    why: \"%s\", expected it to say \"%s\"\n", img.why, why);
}

static void test_bad_input(void)
{
    static char too_long[USDT_ELF_MAX_STRING + 2];
    memset(too_long, 'x', USDT_ELF_MAX_STRING + 1);
    tu_expect_rejected(three, 0, "lib.so", "0 probes");
    tu_expect_rejected(NULL, 1, "lib.so", "no probes");
    tu_expect_rejected(three, USDT_ELF_MAX_PROBES + 1, "lib.so", "probes");
    tu_expect_rejected(three, 3, NULL, "soname: missing");
    tu_expect_rejected(three, 3, "", "soname: empty");
    tu_expect_rejected(three, 3, too_long, "soname: too long");
    const usdt_probe_spec bad[][2] = {
        { three[0], { "", "n", "f", "" } },
        { three[0], { NULL, "n", "f", "" } },
        { three[0], { "p", "", "f", "" } },
        { three[0], { "p", NULL, "f", "" } },
        { three[0], { "p", "n", "", "" } },
        { three[0], { "p", "n", NULL, "" } },
        { three[0], { "p", "n", "f", too_long } },
        { three[0], { "p", too_long, "f", "" } },
    };
    static const char *const why[] = { "probe 1 (:n): provider empty",  "probe 1 (?:n): provider missing",
                                       "probe 1 (p:): name empty",      "probe 1 (p:?): name missing",
                                       "probe 1 (p:n): function empty", "probe 1 (p:n): function missing",
                                       "probe 1 (p:n): args too long",  "name too long" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        tu_expect_rejected(bad[i], 2, "lib.so", why[i]);
}

int main(void)
{
    RUN(test_headers);
    RUN(test_dlopen);
    RUN(test_readelf);
    RUN(test_build_id);
    RUN(test_many);
    RUN(test_bad_input);
    return DONE();
}
