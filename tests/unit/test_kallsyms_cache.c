/* test_kallsyms_cache.c — the kernel symbol table as bytes (kallsyms_image, kallsyms_from_image: a round trip, and
 * images that are not whole refused) and the per-boot cache (kallsyms_cache_load) on a made-up kallsyms file in a
 * directory of the test's own: written 0600 the first time, read back the second, written again when the file's
 * start changes, and never used or followed when it is a link, another user's, or open to others; then the real
 * /proc/kallsyms through the cache names what a read of the file names; a full disk (a small tmpfs, as root)
 * leaves no file behind. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/proc_state.h"
#include "native/kallsyms.h"
#include "native/kallsyms_cache.h"

static const char *TEXT = "ffffffff81002000 T second\n"
                          "ffffffff81000000 T first\n"
                          "ffffffff81003000 t alias_local\n"
                          "ffffffff81003000 T alias_global\n"
                          "ffffffffc0001000 t mod_func\t[somemod]\n"
                          "ffffffff81004000 W weak_one\n";

static void check_names(const kallsyms *k)
{
    CHECK(kallsyms_usable(k));
    CHECK_EQ_INT(kallsyms_count(k), 6);
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81000010ull), "first");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81002fffull), "second");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81003010ull), "alias_global");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81004001ull), "weak_one");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffffc0001010ull), "mod_func");
    CHECK(kallsyms_find(k, 0xffffffff80ffffffull) == NULL);
    CHECK_EQ_INT(kallsyms_addr(k, "alias_local"), 0xffffffff81003000ull);
}

static void test_image(void)
{
    char path[] = "/tmp/jp-ksyms-XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    close(fd);
    ASSERT(th_write_file(path, TEXT, strlen(TEXT)));
    kallsyms *k = kallsyms_load(path);
    unlink(path);
    ASSERT(k != NULL);
    size_t len = 0;
    unsigned char *img = kallsyms_image(k, &len);
    ASSERT(img != NULL);
    kallsyms_free(k);
    kallsyms *back = kallsyms_from_image(img, len);
    ASSERT(back != NULL);
    check_names(back);
    kallsyms_free(back);
    /* not whole: each length short of it, and one byte more */
    for (size_t cut = 0; cut < len; cut += (cut < 64 ? 1 : 7)) {
        errno = 0;
        CHECK(kallsyms_from_image(img, cut) == NULL);
        CHECK_EQ_INT(errno, EINVAL);
    }
    unsigned char *longer = malloc(len + 1);
    ASSERT(longer != NULL);
    memcpy(longer, img, len);
    longer[len] = 0;
    CHECK(kallsyms_from_image(longer, len + 1) == NULL);
    free(longer);
    /* a wrong magic; a name offset past the names; addresses out of order; names not ended */
    unsigned char *bad = malloc(len);
    ASSERT(bad != NULL);
    memcpy(bad, img, len);
    bad[0] ^= 1;
    CHECK(kallsyms_from_image(bad, len) == NULL);
    memcpy(bad, img, len);
    uint32_t far = 1u << 30;
    memcpy(bad + 24 + 8, &far, sizeof far); /* the first record's name */
    CHECK(kallsyms_from_image(bad, len) == NULL);
    memcpy(bad, img, len);
    uint64_t low = 1;
    memcpy(bad + 24 + 16, &low, sizeof low); /* the second record's address, below the first's */
    CHECK(kallsyms_from_image(bad, len) == NULL);
    memcpy(bad, img, len);
    bad[len - 1] = 'x';
    CHECK(kallsyms_from_image(bad, len) == NULL);
    free(bad);
    free(img);
}

/* The directory's only cache file's name (NULL if none or more than one) into name. */
static bool only_file(const char *dir, char *name, size_t cap)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A %s", dir);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(name, cap, "%s", line);
        n++;
    }
    pclose(p);
    return n == 1;
}

static void test_cache(void)
{
    char boot[37];
    if (!proc_boot_id(boot)) {
        printf("  no /proc/sys/kernel/random/boot_id: the cache is never used (skipped)\n");
        return;
    }
    char top[] = "/tmp/jp-kcache-XXXXXX";
    ASSERT(mkdtemp(top) != NULL);
    char src[300], dir[300], file[600], name[256], cmd[1000];
    snprintf(src, sizeof src, "%s/kallsyms", top);
    snprintf(dir, sizeof dir, "%s/cache", top);
    ASSERT(th_write_file(src, TEXT, strlen(TEXT)));

    /* the first: read from the file, saved 0600 in a directory made 0700 */
    bool cached = true;
    kallsyms *k = kallsyms_cache_load(dir, src, &cached);
    ASSERT(k != NULL);
    CHECK(!cached);
    check_names(k);
    kallsyms_free(k);
    struct stat st;
    ASSERT(stat(dir, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0700);
    ASSERT(only_file(dir, name, sizeof name));
    CHECK(strncmp(name, "kallsyms-", 9) == 0 && strcmp(name + 9, boot) == 0);
    snprintf(file, sizeof file, "%s/%s", dir, name);
    ASSERT(stat(file, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);

    /* the second: from the cache, the same names */
    k = kallsyms_cache_load(dir, src, &cached);
    ASSERT(k != NULL);
    CHECK(cached);
    check_names(k);
    kallsyms_free(k);

    /* the file's start changed (another boot's layout, addresses now hidden): read again, and saved again */
    const char *moved = "ffffffff91000000 T first\nffffffff91002000 T second\n";
    ASSERT(th_write_file(src, moved, strlen(moved)));
    k = kallsyms_cache_load(dir, src, &cached);
    ASSERT(k != NULL);
    CHECK(!cached);
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff91000010ull), "first");
    kallsyms_free(k);
    k = kallsyms_cache_load(dir, src, &cached);
    ASSERT(k != NULL);
    CHECK(cached);
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff91002010ull), "second");
    kallsyms_free(k);

    /* a table without addresses is not saved: the next read is from the file */
    const char *hidden = "0000000000000000 T first\n0000000000000000 T second\n";
    ASSERT(th_write_file(src, hidden, strlen(hidden)));
    k = kallsyms_cache_load(dir, src, &cached);
    ASSERT(k != NULL);
    CHECK(!cached && !kallsyms_usable(k));
    kallsyms_free(k);
    k = kallsyms_cache_load(dir, src, &cached);
    CHECK(k != NULL && !cached);
    kallsyms_free(k);
    ASSERT(th_write_file(src, TEXT, strlen(TEXT)));
    kallsyms_free(kallsyms_cache_load(dir, src, &cached));

    /* the cache file damaged: read from the file, and replaced */
    ASSERT(th_write_file(file, "not a cache", 11));
    ASSERT(chmod(file, 0600) == 0);
    k = kallsyms_cache_load(dir, src, &cached);
    ASSERT(k != NULL);
    CHECK(!cached);
    check_names(k);
    kallsyms_free(k);
    k = kallsyms_cache_load(dir, src, &cached);
    CHECK(k != NULL && cached);
    kallsyms_free(k);

    /* a cache file others may read is not used */
    ASSERT(chmod(file, 0644) == 0);
    k = kallsyms_cache_load(dir, src, &cached);
    CHECK(k != NULL && !cached);
    kallsyms_free(k);
    ASSERT(stat(file, &st) == 0); /* (and it was replaced by one of 0600) */
    CHECK_EQ_INT(st.st_mode & 0777, 0600);

    /* another user's cache file is not used (as root: given to nobody) */
    if (geteuid() == 0) {
        ASSERT(chown(file, 65534, 65534) == 0);
        k = kallsyms_cache_load(dir, src, &cached);
        CHECK(k != NULL && !cached);
        kallsyms_free(k);
        ASSERT(stat(file, &st) == 0);
        CHECK_EQ_INT(st.st_uid, 0); /* replaced: the rename put this user's in its place */
    }

    /* the cache file a link to a file elsewhere: neither read nor written through */
    char target[400];
    snprintf(target, sizeof target, "%s/target", top);
    ASSERT(th_write_file(target, "keep", 4));
    ASSERT(unlink(file) == 0);
    ASSERT(symlink(target, file) == 0);
    k = kallsyms_cache_load(dir, src, &cached);
    CHECK(k != NULL && !cached);
    kallsyms_free(k);
    size_t tlen = 0;
    char *t = th_read_file(target, &tlen);
    CHECK(t && tlen == 4 && memcmp(t, "keep", 4) == 0);
    free(t);
    ASSERT(lstat(file, &st) == 0);
    CHECK(S_ISREG(st.st_mode)); /* the link replaced by a file of this user's */

    /* a directory others may write, or a link to one, is not used: nothing is written in it */
    char open_dir[300], link_dir[300];
    snprintf(open_dir, sizeof open_dir, "%s/open", top);
    snprintf(link_dir, sizeof link_dir, "%s/link", top);
    ASSERT(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
    k = kallsyms_cache_load(open_dir, src, &cached);
    CHECK(k != NULL && !cached);
    check_names(k);
    kallsyms_free(k);
    CHECK(!only_file(open_dir, name, sizeof name));
    ASSERT(symlink(dir, link_dir) == 0);
    k = kallsyms_cache_load(link_dir, src, &cached);
    CHECK(k != NULL && !cached);
    kallsyms_free(k);

    /* another boot's file is removed when this boot's is written */
    char other[400];
    snprintf(other, sizeof other, "%s/kallsyms-00000000-0000-0000-0000-000000000000", dir);
    ASSERT(th_write_file(other, "old", 3));
    ASSERT(unlink(file) == 0);
    kallsyms_free(kallsyms_cache_load(dir, src, &cached));
    CHECK(access(other, F_OK) != 0);
    CHECK(access(file, F_OK) == 0);

    /* a full disk (a tmpfs of 64 KiB, where root may mount one): the table still comes back, no file is left */
    char small[300];
    snprintf(small, sizeof small, "%s/small", top);
    ASSERT(mkdir(small, 0700) == 0);
    snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=64k,mode=0700 jp-kcache-test %s 2>/dev/null", small);
    if (geteuid() == 0 && system(cmd) == 0) {
        k = kallsyms_cache_load(small, src, &cached);
        CHECK(k != NULL && !cached);
        check_names(k);
        kallsyms_free(k);
        char big[400], sub[400];
        snprintf(sub, sizeof sub, "%s/jvmprof", small);
        ASSERT(mkdir(sub, 0700) == 0);
        snprintf(big, sizeof big, "%s/fill", small);
        char *z = calloc(1, 64 << 10);
        ASSERT(z != NULL);
        (void)th_write_file(big, z, 64 << 10); /* the disk full: what is left of it taken */
        free(z);
        k = kallsyms_cache_load(sub, src, &cached);
        CHECK(k != NULL && !cached);
        kallsyms_free(k);
        snprintf(cmd, sizeof cmd, "ls -A %s | grep -c tmp", sub);
        FILE *p = popen(cmd, "r");
        char out[32] = "";
        if (p) {
            if (!fgets(out, sizeof out, p))
                out[0] = '\0';
            pclose(p);
        }
        CHECK_EQ_INT(atoi(out), 0); /* the unfinished write removed */
        snprintf(cmd, sizeof cmd, "umount %s", small);
        CHECK(system(cmd) == 0);
    } else {
        printf("  no tmpfs could be mounted here: the full disk is not checked\n");
    }

    /* no directory can be made: read from the file */
    k = kallsyms_cache_load("/proc/jp-no-such-dir", src, &cached);
    CHECK(k != NULL && !cached);
    kallsyms_free(k);
    CHECK(kallsyms_cache_load(dir, "/nonexistent/kallsyms", &cached) == NULL);

    snprintf(cmd, sizeof cmd, "rm -rf %s", top);
    CHECK(system(cmd) == 0);
}

/* The real file through the cache: the same names as the file read directly, the second time from the cache. */
static void test_cache_real(void)
{
    kallsyms *direct = kallsyms_load(NULL);
    ASSERT(direct != NULL);
    if (!kallsyms_usable(direct)) {
        printf("  /proc/kallsyms reads every address as 0 (kptr_restrict or not root): nothing cached (skipped)\n");
        kallsyms_free(direct);
        return;
    }
    char dir[] = "/tmp/jp-kcache-real-XXXXXX";
    ASSERT(mkdtemp(dir) != NULL);
    bool cached = true;
    kallsyms *first = kallsyms_cache_load(dir, NULL, &cached);
    ASSERT(first != NULL);
    CHECK(!cached);
    kallsyms *second = kallsyms_cache_load(dir, NULL, &cached);
    ASSERT(second != NULL);
    CHECK(cached);
    uint64_t vfs_write = kallsyms_addr(direct, "vfs_write");
    CHECK(vfs_write != 0);
    CHECK_EQ_INT(kallsyms_count(second), kallsyms_count(direct));
    CHECK_EQ_STR(kallsyms_find(second, vfs_write + 4), "vfs_write");
    /* addresses 4099 bytes apart, 64 MiB each side of vfs_write: the same function both ways */
    size_t same = 0, tried = 0;
    for (uint64_t a = vfs_write - (64u << 20); a < vfs_write + (64u << 20); a += 4099) {
        const char *x = kallsyms_find(direct, a), *y = kallsyms_find(second, a);
        tried++;
        same += (!x && !y) || (x && y && strcmp(x, y) == 0);
    }
    CHECK_EQ_INT(same, tried);
    printf("  %zu symbols; %zu addresses named alike from the cache\n", kallsyms_count(second), same);
    kallsyms_free(direct);
    kallsyms_free(first);
    kallsyms_free(second);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    RUN(test_image);
    RUN(test_cache);
    RUN(test_cache_real);
    return th_done(__FILE__);
}
