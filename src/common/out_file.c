/* out_file.c — see out_file.h. */
#include "out_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OUT_TAG ".jvmprof-"

/* "what jvmprof writes" for refusals of a kind of file */
static const char out_accepted[] = "jvmprof writes regular files, character devices such as /dev/null, and FIFOs";

/* The directory part of path ("." when none), in out. */
static void out_dir_of(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == path)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - path), path);
}

static const char *out_base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *out_kind_name(mode_t m)
{
    return S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a file";
}

jp_status out_file_check(const char *path, out_target *t, char *err, size_t errlen)
{
    *t = (out_target){ OUT_NEW, 0, false };
    size_t n = strlen(path);
    if (n == 0) {
        snprintf(err, errlen, "empty file name");
        return JP_ERR_IO;
    }
    if (path[n - 1] == '/') {
        snprintf(err, errlen, "%s: ends in '/', which names a directory; give the name of a file to write", path);
        return JP_ERR_IO;
    }
    struct stat st;
    if (lstat(path, &st) == 0) {
        bool link = S_ISLNK(st.st_mode);
        if (link && stat(path, &st) != 0) {
            snprintf(err, errlen, "%s: a symbolic link to something that cannot be reached (%s); jvmprof writes "
                     "through a link, never replaces it: remove the link or make its target", path, strerror(errno));
            return JP_ERR_IO;
        }
        if (S_ISREG(st.st_mode) && !link) {
            t->kind = OUT_REPLACE;
            t->mode = st.st_mode & 07777;
            return JP_OK;
        }
        if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) { /* written into */
            t->kind = OUT_DIRECT;
            t->fifo = S_ISFIFO(st.st_mode);
            return JP_OK;
        }
        if (link)
            snprintf(err, errlen, "%s: a symbolic link to %s; %s", path, out_kind_name(st.st_mode), out_accepted);
        else if (S_ISDIR(st.st_mode))
            snprintf(err, errlen, "%s: is a directory; give the name of a file to write", path);
        else
            snprintf(err, errlen, "%s: is %s; %s", path, out_kind_name(st.st_mode), out_accepted);
        return JP_ERR_IO;
    }
    int e = errno;
    char dir[4096];
    out_dir_of(path, dir, sizeof dir);
    if (e == ENOENT) {
        if (stat(dir, &st) != 0) {
            snprintf(err, errlen, "%s: directory %s does not exist", path, dir);
            return JP_ERR_IO;
        }
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: %s is not a directory", path, dir);
            return JP_ERR_IO;
        }
        return JP_OK;
    }
    if (e == ENOTDIR)
        snprintf(err, errlen, "%s: a part of the path before the file name is not a directory", path);
    else if (e == EACCES)
        snprintf(err, errlen, "%s: permission denied on directory %s or above it", path, dir);
    else
        snprintf(err, errlen, "%s: %s", path, strerror(e));
    return JP_ERR_IO;
}

/* 64 unpredictable bits: the kernel's random numbers, or failing those the
 * clock, the pid and a counter mixed (still unique per process). */
static uint64_t out_random(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) == (ssize_t)sizeof v)
        return v;
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 44) ^ ++counter;
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    return v;
}

void out_file_temp_name(const char *path, const char *suffix, char *name, size_t namelen)
{
    snprintf(name, namelen, "%s" OUT_TAG "%ld-%016llx%s", path, (long)getpid(), (unsigned long long)out_random(),
             suffix);
}

int out_file_create_temp(const char *path, const char *suffix, mode_t mode, char *name, size_t namelen, char *err,
                         size_t errlen)
{
    out_file_remove_stale(path);
    for (int attempt = 0; attempt < 8; attempt++) {
        out_file_temp_name(path, suffix, name, namelen);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0)
            return fd;
        if (errno == EEXIST)
            continue; /* somebody's file under that name: another name */
        char dir[4096];
        out_dir_of(path, dir, sizeof dir);
        if (errno == EACCES || errno == EPERM)
            snprintf(err, errlen, "%s: cannot create a file in directory %s: permission denied", path, dir);
        else if (errno == ENOENT)
            snprintf(err, errlen, "%s: directory %s does not exist", path, dir);
        else if (errno == ENAMETOOLONG)
            snprintf(err, errlen, "%s: the name is too long", path);
        else
            snprintf(err, errlen, "%s: cannot create a file in directory %s: %s", path, dir, strerror(errno));
        return -1;
    }
    snprintf(err, errlen, "%s: no unused temporary name beside it after 8 tries", path);
    return -1;
}

int out_file_open_direct(const char *path, const out_target *t, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO && t->fifo)
            snprintf(err, errlen, "%s: a FIFO that no process is reading", path);
        else
            snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st = { 0 };
    if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        snprintf(err, errlen, "%s: is %s; %s", path, out_kind_name(st.st_mode), out_accepted);
        close(fd);
        return -1;
    }
    if (S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

jp_status out_file_publish(const char *tmp, const char *path, const out_target *t, char *err, size_t errlen)
{
    if (t->kind == OUT_REPLACE && chmod(tmp, t->mode) != 0) {
        snprintf(err, errlen, "cannot write %s: setting the mode of %s: %s", path, tmp, strerror(errno));
        return JP_ERR_IO;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: renaming %s to it: %s", path, tmp, strerror(errno));
        return JP_ERR_IO;
    }
    return JP_OK;
}

/* Whether name (an entry of path's directory) is "<base>.jvmprof-<pid>-<hex>.tmp",
 * "...tmp.hprof", or one of the segments HotSpot's parallel heap dumper (JDK 21
 * and later) writes beside that before it joins them, "...tmp.hprof.p<N>"; its
 * pid in *pid. */
static bool out_is_temp_of(const char *name, const char *base, long *pid)
{
    size_t bl = strlen(base), tl = strlen(OUT_TAG);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, OUT_TAG, tl) != 0)
        return false;
    const char *p = name + bl + tl;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || *end != '-' || errno || v <= 0)
        return false;
    p = end + 1;
    size_t hex = strspn(p, "0123456789abcdef");
    const char *rest = p + hex;
    if (hex != 16)
        return false;
    if (strncmp(rest, ".tmp.hprof.p", 12) == 0 && rest[12] && strspn(rest + 12, "0123456789") == strlen(rest + 12))
        rest = ".tmp.hprof"; /* a segment of HotSpot's parallel dumper */
    if (strcmp(rest, ".tmp") != 0 && strcmp(rest, ".tmp.hprof") != 0)
        return false;
    *pid = v;
    return true;
}

unsigned out_file_remove_stale(const char *path)
{
    char dir[4096];
    out_dir_of(path, dir, sizeof dir);
    const char *base = out_base_of(path);
    if (!*base)
        return 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    unsigned removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        if (!out_is_temp_of(e->d_name, base, &pid) || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its process is still there (or not ours to ask) */
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0) {
            removed++;
            fprintf(stderr, "jvmprof: removed %s/%s, a temporary file left by process %ld, which no longer runs\n",
                    dir, e->d_name, pid);
        }
    }
    closedir(d);
    return removed;
}

const char *out_file_reason(const char *err, const char *path)
{
    size_t n = strlen(path);
    return strncmp(err, path, n) == 0 && err[n] == ':' && err[n + 1] == ' ' ? err + n + 2 : err;
}

bool out_file_same(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
