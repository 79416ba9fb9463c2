/* serve_store.c — see serve_store.h. serve often runs as root in a DIR
 * other users can write to: a connection's directory is made with mkdirat
 * (an existing name, a planted link included, is never used: the next
 * suffix is tried), opened with O_NOFOLLOW and checked to be our user's
 * directory, and every file is opened relative to that descriptor with
 * O_NOFOLLOW (temporary names with O_EXCL). Two connections never share a
 * directory, so two JVMs with one host name and pid keep their files apart. */
#include "serve_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fd_write.h"

void serve_safe_name(const char *in, size_t n, char *out, size_t cap)
{
    if (cap < 2) {
        if (cap)
            out[0] = '\0';
        return;
    }
    size_t k = 0;
    bool dot = n && in[0] == '.';
    if (!n || !in[0] || dot)
        out[k++] = '_';
    for (size_t i = 0; i < n && in[i] && k + 1 < cap; i++) {
        char c = in[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '-' || c == '_';
        out[k++] = ok ? c : '_';
    }
    out[k] = '\0';
}

void serve_store_init(serve_store *s)
{
    s->dfd = -1;
    s->path[0] = '\0';
    for (int i = 0; i < SERVE_FILES; i++) {
        s->files[i].id = 0;
        s->files[i].fd = -1;
    }
}

bool serve_store_open(serve_store *s, int base_fd, const char *base, const char *stem, char *why, size_t cap)
{
    char name[300];
    for (int n = 1; n <= SERVE_DIRS_MAX; n++) {
        if (n == 1)
            snprintf(name, sizeof name, "%.280s", stem);
        else
            snprintf(name, sizeof name, "%.280s.%d", stem, n);
        if (mkdirat(base_fd, name, 0755) != 0) {
            if (errno == EEXIST) /* an earlier run's, another connection's, or planted: never used */
                continue;
            snprintf(why, cap, "cannot make %.400s/%s: %s", base, name, strerror(errno));
            return false;
        }
        int fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
            snprintf(why, cap, "%.400s/%s was replaced as it was made (%s): not used", base, name,
                     fd < 0 ? strerror(errno) : "not a directory of serve's user");
            if (fd >= 0)
                close(fd);
            return false;
        }
        s->dfd = fd;
        snprintf(s->path, sizeof s->path, "%.4000s/%s", base, name);
        return true;
    }
    snprintf(why, cap, "%.400s/%.280s and %d more names after it are taken", base, stem, SERVE_DIRS_MAX - 1);
    return false;
}

static serve_file *ss_file(serve_store *s, uint32_t id)
{
    for (int i = 0; i < SERVE_FILES; i++)
        if (s->files[i].id == id)
            return &s->files[i];
    return NULL;
}

bool serve_store_begin(serve_store *s, uint32_t id, char mode, const char *name, size_t n, char *why,
                       size_t cap)
{
    serve_file *f = id && !ss_file(s, id) ? ss_file(s, 0) : NULL;
    if (!f || (mode != 'R' && mode != 'A') || s->dfd < 0) {
        snprintf(why, cap, "a malformed or unexpected file begin (id %u; at most %d files open at once)", id,
                 SERVE_FILES);
        return false;
    }
    f->mode = mode;
    serve_safe_name(name, n, f->name, sizeof f->name);
    if (mode == 'R') { /* safe names never start with '.': the temporary one is no file's name */
        char name_now[sizeof f->name];
        memcpy(name_now, f->name, sizeof name_now);
        snprintf(f->tmp, sizeof f->tmp, ".%.230s.%u.part", name_now, id);
        f->fd = openat(s->dfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    } else {
        f->fd = openat(s->dfd, f->name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    }
    if (f->fd < 0) {
        snprintf(why, cap, "cannot write %.400s/%s: %s", s->path, f->name, strerror(errno));
        return false;
    }
    f->id = id;
    return true;
}

bool serve_store_data(serve_store *s, uint32_t id, const void *p, size_t n, char *why, size_t cap)
{
    serve_file *f = id ? ss_file(s, id) : NULL;
    if (!f) {
        snprintf(why, cap, "data for a file not begun (id %u)", id);
        return false;
    }
    if (!fd_write_all(f->fd, p, n)) {
        snprintf(why, cap, "cannot write %.400s/%s: %s", s->path, f->name, strerror(errno));
        return false;
    }
    return true;
}

bool serve_store_end(serve_store *s, uint32_t id, char *why, size_t cap)
{
    serve_file *f = id ? ss_file(s, id) : NULL;
    if (!f) {
        snprintf(why, cap, "the end of a file not begun (id %u)", id);
        return false;
    }
    bool ok = (f->mode == 'R' ? fchmod(f->fd, 0644) == 0 : true) & (close(f->fd) == 0);
    if (ok && f->mode == 'R')
        ok = renameat(s->dfd, f->tmp, s->dfd, f->name) == 0;
    if (!ok) {
        snprintf(why, cap, "cannot write %.400s/%s: %s", s->path, f->name, strerror(errno));
        if (f->mode == 'R')
            unlinkat(s->dfd, f->tmp, 0);
    }
    f->id = 0;
    f->fd = -1;
    return ok;
}

bool serve_store_whole_open(const serve_store *s)
{
    for (int i = 0; i < SERVE_FILES; i++)
        if (s->files[i].id && s->files[i].mode == 'R')
            return true;
    return false;
}

void serve_store_close(serve_store *s, bool complete, const char *who)
{
    for (int i = 0; i < SERVE_FILES; i++) {
        serve_file *f = &s->files[i];
        if (!f->id)
            continue;
        close(f->fd);
        if (f->mode == 'R')
            unlinkat(s->dfd, f->tmp, 0); /* a whole file that did not end: not kept */
        else if (!complete)
            fprintf(stderr, "jvmprof serve: %s: %s/%s ends where the connection did\n", who, s->path, f->name);
        f->id = 0;
        f->fd = -1;
    }
    if (s->dfd >= 0)
        close(s->dfd);
    s->dfd = -1;
}
