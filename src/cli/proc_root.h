/* proc_root.h — the files of another process's root directory (a
 * container's file system, /proc/PID/root), reached from outside without
 * leaving it: a path is resolved as that process resolves it, so an
 * absolute symbolic link or ".." planted in it stays inside its root instead
 * of naming a file of ours. */
#ifndef PROC_ROOT_H
#define PROC_ROOT_H

#include <sys/types.h>

/* An O_PATH descriptor of the root directory of process pid, or -1 (errno). */
int proc_root_open(pid_t pid);

/* openat(root, path, flags, mode) with path resolved inside root as if root
 * were "/" (openat2's RESOLVE_IN_ROOT, no /proc magic links). Where the
 * kernel has no openat2 (Linux before 5.6), each component of the path,
 * the last one too, is opened in turn with O_NOFOLLOW, so that a link
 * anywhere on it fails (ELOOP) rather than being followed; ".." fails there
 * too (EINVAL). The last component is never followed when flags hold
 * O_NOFOLLOW. -1 (errno). */
int proc_root_openat(int root, const char *path, int flags, mode_t mode);

/* That fallback, whatever the kernel has (for the tests). */
int proc_root_walk(int root, const char *path, int flags, mode_t mode);

#endif
