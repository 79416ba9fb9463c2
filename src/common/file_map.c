/* file_map.c — see file_map.h. */
#include "file_map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void *fm_map(const char *path, bool writable, size_t *len, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO must not wait for a writer; it is refused below */
    int fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st = { 0 };
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const char *what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                           : S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
        snprintf(err, errlen, "%s: is %s; jvmprof reads regular files only (save the data to a file first)", path,
                 what);
        close(fd);
        return NULL;
    }
    *len = (size_t)st.st_size;
    if (*len == 0) {
        static char nothing[1];
        close(fd);
        return nothing;
    }
    void *p = mmap(NULL, *len, writable ? PROT_READ | PROT_WRITE : PROT_READ, writable ? MAP_SHARED : MAP_PRIVATE,
                   fd, 0);
    int mmap_errno = errno;
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map: %s", path, strerror(mmap_errno));
        return NULL;
    }
    madvise(p, *len, MADV_SEQUENTIAL);
    return p;
}

const void *file_map(const char *path, size_t *len, char *err, size_t errlen)
{
    return fm_map(path, false, len, err, errlen);
}

void *file_map_writable(const char *path, size_t *len, char *err, size_t errlen)
{
    return fm_map(path, true, len, err, errlen);
}

void file_unmap(const void *data, size_t len)
{
    if (len)
        munmap((void *)data, len);
}
