/* proc_root.c — see proc_root.h. The trap it exists for: a path through
 * /proc/PID/root enters the process's root, but an absolute link met on the
 * way is resolved against OUR root, so "/proc/PID/root/tmp/x", with the
 * container's /tmp a link to "/etc", is our /etc/x. */
#include "proc_root.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int proc_root_open(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/root", (long)pid);
    return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The fallback: each directory opened with O_NOFOLLOW from root, then the last component. */
int proc_root_walk(int root, const char *path, int flags, mode_t mode)
{
    int dir = -1; /* -1: root itself */
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        const char *next = p + len;
        while (*next == '/')
            next++;
        char name[256];
        if (len >= sizeof name || (len == 2 && !strncmp(p, "..", 2))) {
            if (dir >= 0)
                close(dir);
            errno = len >= sizeof name ? ENAMETOOLONG : EINVAL;
            return -1;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        if (!len)
            snprintf(name, sizeof name, ".");
        int at = dir >= 0 ? dir : root;
        /* the last component too: an absolute link there would be resolved from our root */
        int fd = *next ? openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                       : openat(at, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
        int saved = errno;
        struct stat st; /* O_PATH opens the link itself, and O_DIRECTORY then says ENOTDIR: say it is a link */
        if (fd < 0 && saved == ENOTDIR && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
            saved = ELOOP;
        if (dir >= 0)
            close(dir);
        errno = saved;
        if (fd < 0 || !*next)
            return fd;
        dir = fd;
        p = next;
    }
}

int proc_root_openat(int root, const char *path, int flags, mode_t mode)
{
    struct open_how how = {
        .flags = (unsigned long long)(flags | O_CLOEXEC),
        .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    long fd = syscall(SYS_openat2, root, path, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) /* EPERM: a seccomp filter that refuses it */
        return (int)fd;
    return proc_root_walk(root, path, flags, mode);
}
