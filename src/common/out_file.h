/* out_file.h — how jvmprof puts an output file at a path the user named
 * without harming anything else there. jvmprof often runs as root and writes
 * into shared directories such as /tmp, so:
 *   - a regular file (or a new name) is written under a temporary name beside
 *     it and renamed into place when complete; the temporary is created
 *     exclusively (O_EXCL|O_NOFOLLOW) under an unpredictable name, so it can
 *     never be someone else's file or a symbolic link planted there;
 *   - a file that is replaced keeps its mode; a new one gets 0644, or 0600 for
 *     private data (heap dumps hold the program's data, as HotSpot's do);
 *   - a character device or a FIFO (/dev/null, /dev/stdout, a named pipe), or a
 *     symbolic link to one of those or to a regular file, is written into
 *     directly: a device node is never replaced, a link never replaced by a file;
 *   - a directory, a block device, a socket or a path whose directory does not
 *     exist is refused with one line that says what is wrong with the path.
 * Temporaries are named "<path>.jvmprof-<pid>-<random>.tmp" (".tmp.hprof" for
 * HotSpot's dumper), so a user can tell what they are; one left by a process
 * that is gone (kill -9 during a dump) is removed by the next write to the
 * same path. Pure POSIX; used by sink.c and the agent's HotSpot dumper. */
#ifndef OUT_FILE_H
#define OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "jp_error.h"

typedef enum out_kind {
    OUT_NEW,     /* nothing there yet: temporary, then rename */
    OUT_REPLACE, /* a regular file: temporary, then rename, keeping its mode */
    OUT_DIRECT   /* a device, a FIFO or a symbolic link: written into, never replaced */
} out_kind;

typedef struct out_target {
    out_kind kind;
    mode_t mode;   /* OUT_REPLACE: the permission bits of the file replaced */
    bool fifo;     /* OUT_DIRECT onto a FIFO */
} out_target;

/* room for a temporary name: the path and 48 bytes */
#define OUT_FILE_NAME_MAX (4096 + 64)

#define OUT_MODE_PUBLIC 0644
#define OUT_MODE_PRIVATE 0600

/* What writing to `path` would do; JP_ERR_IO with one line in err when it
 * cannot be written ("out/: is a directory; ..."). */
jp_status out_file_check(const char *path, out_target *t, char *err, size_t errlen);

/* A fresh temporary name beside path: "<path>.jvmprof-<pid>-<16 hex><suffix>". */
void out_file_temp_name(const char *path, const char *suffix, char *name, size_t namelen);

/* Creates a temporary beside path exclusively (after removing stale ones of
 * dead processes), with `mode`; returns its descriptor and its name in name,
 * or -1 with one line in err. */
int out_file_create_temp(const char *path, const char *suffix, mode_t mode, char *name, size_t namelen, char *err,
                         size_t errlen);

/* Opens an OUT_DIRECT target for writing (a FIFO without a reader is an error,
 * not a hang; a regular file behind a link is truncated); -1 with one line. */
int out_file_open_direct(const char *path, const out_target *t, char *err, size_t errlen);

/* Puts the complete temporary `tmp` in place of path: the replaced file's
 * mode (OUT_REPLACE), then rename. JP_ERR_IO with one line on failure (tmp is
 * left for the caller to remove). */
jp_status out_file_publish(const char *tmp, const char *path, const out_target *t, char *err, size_t errlen);

/* Removes "<path>.jvmprof-<pid>-*.tmp[.hprof]" files of processes that no
 * longer exist (regular files owned by this user only); returns how many. */
unsigned out_file_remove_stale(const char *path);

/* This module's messages begin with the path they are about ("out: is a
 * directory ..."); for a caller that names the path itself, the rest. */
const char *out_file_reason(const char *err, const char *path);

/* Whether a and b name the same existing file (same device and inode). */
bool out_file_same(const char *a, const char *b);

#endif
