/* kallsyms_cache.c — owns the per-boot cache of the kernel's symbols (kallsyms_cache.h).
 *
 * The cache is one file, DIR/kallsyms-BOOTID: a header (magic, boot id, a hash of /proc/modules, the length of the
 * key text), the key text (the first KC_HEAD bytes of /proc/kallsyms as read when it was written: its addresses
 * move with each boot's layout and read as 0 where they are hidden), then the table as kallsyms_image writes it.
 * It is used when all three match what is read now. Symbols that come and go without a module (BPF programs') are
 * not in the key: a caller that misses an address may read /proc/kallsyms again (kallsyms_load). Everything is
 * reached through the directory's descriptor, never following a link; a file is written under a name of its own
 * and renamed into place, so that a reader sees a whole file or none. */
#include "kallsyms_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/fd_write.h"
#include "../common/proc_state.h"

#define KC_HEAD 4096                    /* bytes of /proc/kallsyms in the key */
#define KC_MAX ((size_t)256 << 20)      /* a larger cache file is not read */
#define KC_PREFIX "kallsyms-"

static const char KC_MAGIC[16] = "jvmprof ksyms 1";

typedef struct kc_key {
    char magic[16];
    char boot[40];
    uint64_t modules; /* FNV-1a of /proc/modules (0: none) */
    uint32_t head_len, pad;
} kc_key;

/* Up to cap bytes from fd, across short reads (a /proc file gives a few lines a read) and EINTR. */
static size_t kc_read_up_to(int fd, void *buf, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, (char *)buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* Up to cap bytes of path's start; -1 when it cannot be opened. */
static ssize_t kc_read_start(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = kc_read_up_to(fd, buf, cap);
    close(fd);
    return (ssize_t)got;
}

static uint64_t kc_modules_hash(void)
{
    int fd = open("/proc/modules", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    uint64_t h = 14695981039346656037ull;
    char buf[8192];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            h = (h ^ (unsigned char)buf[i]) * 1099511628211ull;
    }
    close(fd);
    return h;
}

/* This boot's key and key text; false when the boot's id or proc_path cannot be read. */
static bool kc_key_now(const char *proc_path, kc_key *key, char *head)
{
    memset(key, 0, sizeof *key);
    memcpy(key->magic, KC_MAGIC, sizeof key->magic);
    if (!proc_boot_id(key->boot))
        return false;
    ssize_t n = kc_read_start(proc_path, head, KC_HEAD);
    if (n <= 0)
        return false;
    key->head_len = (uint32_t)n;
    key->modules = kc_modules_hash();
    return true;
}

/* The cache directory's descriptor, -1 when there is none fit to use. */
static int kc_dir_open(const char *dir)
{
    char path[4096];
    if (!dir) {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (xdg && xdg[0] == '/')
            snprintf(path, sizeof path, "%s", xdg);
        else if (home && home[0] == '/')
            snprintf(path, sizeof path, "%s/.cache", home);
        else
            return -1;
        (void)mkdir(path, 0700); /* the base, as XDG asks, when missing (an existing one is taken as it is) */
        size_t len = strlen(path);
        if (len + sizeof "/jvmprof" > sizeof path)
            return -1;
        memcpy(path + len, "/jvmprof", sizeof "/jvmprof");
        dir = path;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    struct stat st;
    if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
        close(dfd);
        return -1;
    }
    return dfd;
}

/* The table in the cache file name, when its key is key and head; NULL otherwise. */
static kallsyms *kc_read(int dfd, const char *name, const kc_key *key, const char *head)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    kallsyms *k = NULL;
    unsigned char *buf = NULL;
    size_t size = 0, want = sizeof *key + key->head_len;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077) &&
        st.st_size > 0 && (size_t)st.st_size <= KC_MAX && (size_t)st.st_size > want &&
        (buf = malloc((size_t)st.st_size))) {
        size = (size_t)st.st_size;
        if (kc_read_up_to(fd, buf, size) == size && memcmp(buf, key, sizeof *key) == 0 &&
            memcmp(buf + sizeof *key, head, key->head_len) == 0)
            k = kallsyms_from_image(buf + want, size - want);
    }
    free(buf);
    close(fd);
    return k;
}

/* Removes the cache files of other boots (and writes left unfinished by a process that died). */
static void kc_remove_stale(int dfd, const char *keep)
{
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, KC_PREFIX, sizeof KC_PREFIX - 1) != 0 || strcmp(e->d_name, keep) == 0 ||
            fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        /* another process's write in progress is younger than a minute */
        if (strstr(e->d_name, ".tmp.") && st.st_mtime + 60 > time(NULL))
            continue;
        (void)unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

/* Saves k as the cache file name; quietly nothing when it cannot. */
static void kc_write(int dfd, const char *name, const kc_key *key, const char *head, const kallsyms *k)
{
    size_t len = 0;
    void *image = kallsyms_image(k, &len);
    if (!image)
        return;
    char tmp[128];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", name, (long)getpid());
    int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        bool ok = fd_write_all(fd, key, sizeof *key) && fd_write_all(fd, head, key->head_len) &&
                  fd_write_all(fd, image, len);
        ok = close(fd) == 0 && ok;
        if (!ok || renameat(dfd, tmp, dfd, name) != 0)
            (void)unlinkat(dfd, tmp, 0);
        else
            kc_remove_stale(dfd, name);
    }
    free(image);
}

kallsyms *kallsyms_cache_load(const char *dir, const char *proc_path, bool *from_cache)
{
    if (!proc_path)
        proc_path = "/proc/kallsyms";
    if (from_cache)
        *from_cache = false;
    kc_key key;
    char *h = malloc(KC_HEAD);
    if (!h || !kc_key_now(proc_path, &key, h)) {
        free(h);
        return kallsyms_load(proc_path);
    }
    char name[sizeof KC_PREFIX + 40];
    snprintf(name, sizeof name, KC_PREFIX "%s", key.boot);
    int dfd = kc_dir_open(dir);
    kallsyms *k = dfd >= 0 ? kc_read(dfd, name, &key, h) : NULL;
    if (k) {
        if (from_cache)
            *from_cache = true;
    } else {
        k = kallsyms_load(proc_path);
        if (k && kallsyms_usable(k) && dfd >= 0)
            kc_write(dfd, name, &key, h, k);
    }
    if (dfd >= 0)
        close(dfd);
    free(h);
    return k;
}
