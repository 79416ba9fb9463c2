/* probe_dir.c — the providers' directories, DIR/jvmprof-PID (probe_dir.h).
 *
 * Each holds jvmprof-owner, a short text naming the process that made it:
 * its pid, the identities (device and inode of /proc/self/ns/...) of its PID
 * and time namespaces, its start time (field 22 of /proc/self/stat, clock
 * ticks after boot) and the boot's id; and a directory SEQ per provider
 * with one file MODULE.so. A killed process leaves it behind; a later one
 * removes it only when all of this holds: the directory and everything in it
 * are this user's, not links, not writable by others; it holds nothing but
 * the above; its owner file reads back exactly; the owner ran in this boot
 * and this PID namespace (elsewhere its pid says nothing here); and no
 * process has its pid, or the one that has it started at another time (in
 * this time namespace). Everything is reached through
 * directory descriptors, never following a link. */
#include "probe_dir.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/proc_state.h"

#define PD_OWNER "jvmprof-owner"
#define PD_OWNER_MAX 512           /* an owner file's bytes at most */
#define PD_PREFIX "jvmprof-"

/* Who made a directory, or who we are (0s and "-": not known). */
typedef struct pd_owner {
    long pid;
    unsigned long long pidns_dev, pidns_ino;
    unsigned long long timens_dev, timens_ino; /* 0:0 also on kernels without time namespaces */
    unsigned long long start;
    char boot[40];
} pd_owner;

/* ---- identities ---- */

static void pd_ns(const char *path, unsigned long long *dev, unsigned long long *ino)
{
    struct stat st;
    *dev = *ino = 0;
    if (stat(path, &st) == 0) {
        *dev = (unsigned long long)st.st_dev;
        *ino = (unsigned long long)st.st_ino;
    }
}

/* This process, as an owner file names it. */
static void pd_self(pd_owner *me)
{
    memset(me, 0, sizeof *me);
    me->pid = (long)getpid();
    pd_ns("/proc/self/ns/pid", &me->pidns_dev, &me->pidns_ino);
    pd_ns("/proc/self/ns/time", &me->timens_dev, &me->timens_ino);
    if (!proc_start_ticks("/proc/self/stat", &me->start))
        me->start = 0;
    if (!proc_boot_id(me->boot))
        snprintf(me->boot, sizeof me->boot, "-");
}

/* /proc shows this PID namespace: /proc/PID is the process our pid PID. */
static bool pd_proc_ours(void)
{
    char link[32], want[32];
    ssize_t n = readlink("/proc/self", link, sizeof link - 1);
    if (n <= 0)
        return false;
    link[n] = '\0';
    snprintf(want, sizeof want, "%ld", (long)getpid());
    return !strcmp(link, want);
}

/* ---- the owner file ---- */

static int pd_format(const pd_owner *o, char *buf, size_t cap)
{
    return snprintf(buf, cap, "jvmprof probe directory\npid %ld\npidns %llu:%llu\ntimens %llu:%llu\nstart %llu\nboot %s\n",
                    o->pid, o->pidns_dev, o->pidns_ino, o->timens_dev, o->timens_ino, o->start, o->boot);
}

/* The owner file in directory dfd: true if it is this user's regular file
 * and reads back exactly as jvmprof writes one. */
static bool pd_read_owner(int dfd, pd_owner *o)
{
    int fd = openat(dfd, PD_OWNER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    char buf[PD_OWNER_MAX + 1], again[PD_OWNER_MAX + 1];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_size < PD_OWNER_MAX)
        n = read(fd, buf, PD_OWNER_MAX);
    close(fd);
    if (n <= 0 || n >= PD_OWNER_MAX)
        return false;
    buf[n] = '\0';
    memset(o, 0, sizeof *o);
    if (sscanf(buf, "jvmprof probe directory pid %ld pidns %llu:%llu timens %llu:%llu start %llu boot %39s", &o->pid,
               &o->pidns_dev, &o->pidns_ino, &o->timens_dev, &o->timens_ino, &o->start, o->boot) != 7)
        return false;
    return pd_format(o, again, sizeof again) == (int)n && !memcmp(buf, again, (size_t)n) && o->pid > 0;
}

static bool pd_write_owner(int dfd, const pd_owner *me)
{
    char buf[PD_OWNER_MAX];
    int len = pd_format(me, buf, sizeof buf);
    int fd = openat(dfd, PD_OWNER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    bool ok = len > 0 && len < (int)sizeof buf && write(fd, buf, (size_t)len) == len;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        unlinkat(dfd, PD_OWNER, 0);
        errno = e ? e : EIO;
    }
    return ok;
}

/* The owner o is known to be gone (see the file's comment); me: this process. */
static bool pd_gone(const pd_owner *o, const pd_owner *me)
{
    if (!strcmp(o->boot, "-") || strcmp(o->boot, me->boot) || (!o->pidns_dev && !o->pidns_ino) ||
        o->pidns_dev != me->pidns_dev || o->pidns_ino != me->pidns_ino)
        return false;                       /* another boot or namespace, perhaps alive: we cannot know */
    if (kill((pid_t)o->pid, 0) != 0)
        return errno == ESRCH;
    if (!o->start || !pd_proc_ours() || o->timens_dev != me->timens_dev || o->timens_ino != me->timens_ino)
        return false;
    char path[64];
    unsigned long long start;
    snprintf(path, sizeof path, "/proc/%ld/stat", o->pid);
    return proc_start_ticks(path, &start) && start != o->start; /* a zombie is left for when it is reaped */
}

/* ---- what a directory may hold ---- */

/* name is a number as jvmprof writes it (decimal, no sign, no leading 0). */
static bool pd_number(const char *name, unsigned long long max, unsigned long long *out)
{
    if (!isdigit((unsigned char)name[0]) || (name[0] == '0' && name[1]) || strlen(name) > 19 ||
        strspn(name, "0123456789") != strlen(name))
        return false;
    *out = strtoull(name, NULL, 10);
    return *out > 0 && *out <= max;
}

/* name is MODULE.so as probes.c writes it. */
static bool pd_module_file(const char *name)
{
    size_t n = strlen(name);
    if (n < 4 || n > 64 + 3 || strcmp(name + n - 3, ".so") || name[0] == '.')
        return false;
    for (size_t i = 0; i < n - 3; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("_-.", name[i]))
            return false;
    return true;
}

/* st is this user's, of type type, not writable by others. */
static bool pd_mine(const struct stat *st, mode_t type)
{
    return (st->st_mode & S_IFMT) == type && st->st_uid == geteuid() && !(st->st_mode & 022);
}

/* Walks directory dfd (a provider's SEQ when seq, else a jvmprof-N): true if
 * it holds only what jvmprof writes there; and with remove, removes it all
 * (the owner file last). */
static bool pd_walk(int dfd, bool seq, bool remove)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    rewinddir(d); /* the descriptor's offset is dfd's: where an earlier walk left it */
    bool ok = true;
    unsigned files = 0;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        const char *name = e->d_name;
        unsigned long long num;
        struct stat st;
        if (!strcmp(name, ".") || !strcmp(name, ".."))
            continue;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            ok = remove && errno == ENOENT;
        } else if (seq) {
            ok = pd_module_file(name) && pd_mine(&st, S_IFREG) && ++files == 1;
            if (ok && remove)
                ok = unlinkat(dfd, name, 0) == 0 || errno == ENOENT;
        } else if (!strcmp(name, PD_OWNER)) {
            ok = pd_mine(&st, S_IFREG);
        } else {
            ok = pd_number(name, 0xffffffffu, &num) && pd_mine(&st, S_IFDIR);
            int sub = ok ? openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
            struct stat st2;
            ok = ok && sub >= 0 && fstat(sub, &st2) == 0 && st2.st_dev == st.st_dev && st2.st_ino == st.st_ino &&
                 pd_walk(sub, true, remove);
            if (sub >= 0)
                close(sub);
            if (ok && remove)
                ok = unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
        }
    }
    closedir(d);
    if (ok && remove && !seq)
        unlinkat(dfd, PD_OWNER, 0);
    return ok;
}

/* ---- the API ---- */

bool probe_dir_make(const char *base, char *top, size_t top_cap, char *why, size_t why_cap)
{
    pd_owner me, o;
    pd_self(&me);
    int n = snprintf(top, top_cap, "%s/" PD_PREFIX "%ld", base, me.pid);
    if (n < 0 || (size_t)n >= top_cap) {
        snprintf(why, why_cap, "%.200s...: too long a path", base);
        return false;
    }
    bool made = mkdir(top, 0700) == 0;
    if (!made && errno != EEXIST) {
        snprintf(why, why_cap, "%s: %s", top, strerror(errno));
        return false;
    }
    int fd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !pd_mine(&st, S_IFDIR)) {
        snprintf(why, why_cap, "%s: %s", top, fd < 0 && errno != ELOOP && errno != ENOTDIR ? strerror(errno)
                                                                                            : "not a directory of ours");
        if (fd >= 0)
            close(fd);
        if (made)
            rmdir(top);
        return false;
    }
    bool ok;
    if (made) {
        ok = pd_write_owner(fd, &me);
        if (!ok) {
            snprintf(why, why_cap, "%s/%s: %s", top, PD_OWNER, strerror(errno));
            rmdir(top);
        }
    } else { /* there already: ours only if this process made it */
        ok = pd_read_owner(fd, &o) && me.start && strcmp(me.boot, "-") != 0 && o.pid == me.pid &&
             o.start == me.start && !strcmp(o.boot, me.boot) && o.pidns_dev == me.pidns_dev &&
             o.pidns_ino == me.pidns_ino && o.timens_dev == me.timens_dev && o.timens_ino == me.timens_ino;
        if (!ok)
            snprintf(why, why_cap, "%s: there already, and not made by this process", top);
    }
    close(fd);
    return ok;
}

void probe_dir_remove(const char *top)
{
    int fd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    DIR *d = fdopendir(dup(fd));
    if (d)
        rewinddir(d);
    bool only_owner = d != NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, PD_OWNER))
            only_owner = false;
    if (d)
        closedir(d);
    if (only_owner && unlinkat(fd, PD_OWNER, 0) == 0)
        rmdir(top);
    close(fd);
}

void probe_dir_clean(const char *base)
{
    pd_owner me;
    pd_self(&me);
    if (!strcmp(me.boot, "-") || (!me.pidns_dev && !me.pidns_ino))
        return; /* we could not tell whose is whose */
    DIR *d = opendir(base);
    if (!d)
        return;
    int bfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned long long pid;
        if (strncmp(e->d_name, PD_PREFIX, strlen(PD_PREFIX)) != 0 ||
            !pd_number(e->d_name + strlen(PD_PREFIX), 0x7fffffff, &pid))
            continue;
        struct stat st, st2;
        if (fstatat(bfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !pd_mine(&st, S_IFDIR))
            continue;
        int fd = openat(bfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        pd_owner o;
        if (fstat(fd, &st2) == 0 && st2.st_dev == st.st_dev && st2.st_ino == st.st_ino && pd_read_owner(fd, &o) &&
            o.pid == (long)pid && pd_gone(&o, &me) && pd_walk(fd, false, false) && pd_walk(fd, false, true))
            unlinkat(bfd, e->d_name, AT_REMOVEDIR);
        close(fd);
    }
    closedir(d);
}
