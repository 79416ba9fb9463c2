/* cli_serve.c — jvmprof serve: the front end of net=HOST:PORT. Listens
 * (on the loopback address unless told otherwise), takes any number of
 * agents at once, and writes what each streams (docs/net-protocol.md) into
 * DIR/HOST-PID/: the same files the agent writes where it runs. One thread,
 * poll(2) over the connections; a frame is acted on once it is whole. A
 * file sent whole (a report) appears under its name only once complete; a
 * growing one (a trace) is written as it comes. A connection that ends in
 * the middle of a frame, or sends what is not the protocol, is closed with
 * one line, and its complete files stay. */
#include "cli_commands.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/fd_write.h"
#include "cli_common.h"

#define SV_CONNS 64
#define SV_FILES 64
#define SV_FRAME_MAX (4u << 20)
enum { SV_HELLO = 1, SV_BEGIN = 2, SV_DATA = 3, SV_END = 4, SV_BYE = 5 };

typedef struct sv_file {
    uint32_t id;                 /* 0: free */
    int fd;
    char mode;                   /* 'R' whole (written to tmp, renamed at its end), 'A' growing */
    char name[256], tmp[4500];
} sv_file;

typedef struct sv_conn {
    int fd;                      /* -1: free */
    char peer[80];
    uint8_t *buf;
    size_t len, cap;
    bool magic;
    char dir[4200];              /* DIR/HOST-PID once the hello came */
    char who[320];               /* "host pid 123", for messages */
    uint64_t bytes;
    sv_file files[SV_FILES];
} sv_conn;

static volatile sig_atomic_t sv_stop;
static void sv_on_signal(int sig) { (void)sig; sv_stop = 1; }

/* A name from the wire made safe for a file name: letters, digits, '.', '-', '_' kept, the rest '_'; never
 * empty, never starting with '.'. */
static void sv_safe(const char *in, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && in[i] && k + 1 < cap; i++) {
        char c = in[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '-' || c == '_';
        out[k++] = ok ? c : '_';
    }
    out[k] = '\0';
    if (!k || out[0] == '.')
        snprintf(out, cap, "_%.*s", (int)(cap - 2), k ? out : "");
}

static sv_file *sv_file_of(sv_conn *c, uint32_t id)
{
    for (int i = 0; i < SV_FILES; i++)
        if (c->files[i].id == id)
            return &c->files[i];
    return NULL;
}

static void sv_close_files(sv_conn *c, bool complete)
{
    for (int i = 0; i < SV_FILES; i++) {
        sv_file *f = &c->files[i];
        if (!f->id)
            continue;
        close(f->fd);
        if (f->mode == 'R')
            unlink(f->tmp); /* a whole file that did not end: not kept */
        else if (!complete)
            fprintf(stderr, "jvmprof serve: %s: %s/%s ends where the connection did\n", c->who, c->dir, f->name);
        f->id = 0;
    }
}

static void sv_drop(sv_conn *c, const char *why)
{
    if (why)
        fprintf(stderr, "jvmprof serve: %s: %s; its complete files are in %s\n", c->who, why,
                c->dir[0] ? c->dir : "(none yet)");
    sv_close_files(c, false);
    close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
}

/* One whole frame; false (with why) to drop the connection. */
static bool sv_frame(sv_conn *c, const char *base, unsigned type, uint32_t id, const uint8_t *p, uint32_t len,
                     char *why, size_t cap)
{
    if (type != SV_HELLO && !c->dir[0]) {
        snprintf(why, cap, "a frame before the hello");
        return false;
    }
    switch (type) {
    case SV_HELLO: {
        const char *pid = (const char *)p, *end = (const char *)p + len;
        const char *host = memchr(pid, '\0', len) ? pid + strlen(pid) + 1 : end;
        if (host >= end || !memchr(host, '\0', (size_t)(end - host)) || !pid[0]) {
            snprintf(why, cap, "a malformed hello");
            return false;
        }
        char spid[32], shost[128];
        sv_safe(pid, strlen(pid), spid, sizeof spid);
        sv_safe(host, strlen(host), shost, sizeof shost);
        snprintf(c->dir, sizeof c->dir, "%s/%s-%s", base, shost, spid);
        char peer[sizeof c->peer];
        memcpy(peer, c->peer, sizeof peer);
        snprintf(c->who, sizeof c->who, "%s pid %s (%s)", shost, spid, peer);
        if (mkdir(c->dir, 0755) != 0 && errno != EEXIST) {
            snprintf(why, cap, "cannot make %.500s: %s", c->dir, strerror(errno));
            c->dir[0] = '\0';
            return false;
        }
        fprintf(stderr, "jvmprof serve: %s: connected, writing to %s\n", c->who, c->dir);
        return true;
    }
    case SV_BEGIN: {
        sv_file *f = sv_file_of(c, id) ? NULL : sv_file_of(c, 0);
        if (!f || id == 0 || len < 2 || (p[0] != 'R' && p[0] != 'A')) {
            snprintf(why, cap, "a malformed or unexpected file begin (id %u)", id);
            return false;
        }
        f->mode = (char)p[0];
        sv_safe((const char *)p + 1, len - 1, f->name, sizeof f->name);
        char path[4500];
        snprintf(path, sizeof path, "%s/%s", c->dir, f->name);
        if (f->mode == 'R') {
            char t[300];
            snprintf(t, sizeof t, ".%.240s.XXXXXX", f->name);
            char dirnow[sizeof c->dir];
            memcpy(dirnow, c->dir, sizeof dirnow);
            snprintf(f->tmp, sizeof f->tmp, "%.4190s/%.300s", dirnow, t);
            f->fd = mkstemp(f->tmp);
        } else {
            f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        }
        if (f->fd < 0) {
            snprintf(why, cap, "cannot write %.500s: %s", path, strerror(errno));
            return false;
        }
        f->id = id;
        return true;
    }
    case SV_DATA:
    case SV_END: {
        sv_file *f = id ? sv_file_of(c, id) : NULL;
        if (!f) {
            snprintf(why, cap, "data for a file not begun (id %u)", id);
            return false;
        }
        if (type == SV_DATA) {
            if (!fd_write_all(f->fd, p, len)) {
                snprintf(why, cap, "cannot write %.400s/%s: %s", c->dir, f->name, strerror(errno));
                return false;
            }
            return true;
        }
        char path[4500];
        snprintf(path, sizeof path, "%s/%s", c->dir, f->name);
        bool ok = (f->mode == 'R' ? fchmod(f->fd, 0644) == 0 : true) & (close(f->fd) == 0);
        if (ok && f->mode == 'R')
            ok = rename(f->tmp, path) == 0;
        if (!ok) {
            snprintf(why, cap, "cannot write %.500s: %s", path, strerror(errno));
            if (f->mode == 'R')
                unlink(f->tmp);
            f->id = 0;
            return false;
        }
        f->id = 0;
        return true;
    }
    case SV_BYE:
        fprintf(stderr, "jvmprof serve: %s: done (%.*s)\n", c->who, (int)(len < 200 ? len : 200), (const char *)p);
        return true;
    default:
        snprintf(why, cap, "an unknown frame type %u: not a jvmprof agent, or another version", type);
        return false;
    }
}

/* What the connection has read so far, acted on frame by frame; false to drop it (why said). */
static bool sv_consume(sv_conn *c, const char *base)
{
    size_t at = 0;
    char why[600];
    if (!c->magic) {
        if (c->len < 8)
            return true;
        if (memcmp(c->buf, "JPNET 1\n", 8) != 0) {
            sv_drop(c, "not the jvmprof net protocol (version 1)");
            return false;
        }
        c->magic = true;
        at = 8;
    }
    while (c->len - at >= 9) {
        const uint8_t *h = c->buf + at;
        uint32_t id = (uint32_t)h[1] | (uint32_t)h[2] << 8 | (uint32_t)h[3] << 16 | (uint32_t)h[4] << 24;
        uint32_t len = (uint32_t)h[5] | (uint32_t)h[6] << 8 | (uint32_t)h[7] << 16 | (uint32_t)h[8] << 24;
        if (len > SV_FRAME_MAX) {
            sv_drop(c, "a frame longer than the protocol allows");
            return false;
        }
        if (c->len - at - 9 < len)
            break;
        if (!sv_frame(c, base, h[0], id, h + 9, len, why, sizeof why)) {
            sv_drop(c, why);
            return false;
        }
        at += 9 + (size_t)len;
    }
    memmove(c->buf, c->buf + at, c->len - at);
    c->len -= at;
    return true;
}

static int sv_listen(const char *spec, char *shown, size_t cap)
{
    char host[300] = "127.0.0.1";
    const char *port = spec;
    const char *colon = strrchr(spec, ':');
    if (colon) {
        snprintf(host, sizeof host, "%.*s", (int)(colon - spec), spec);
        port = colon + 1;
    }
    char *h = host;
    if (h[0] == '[' && h[strlen(h) - 1] == ']') {
        h++;
        h[strlen(h) - 1] = '\0';
    }
    char *end;
    long pn = strtol(port, &end, 10);
    if (!*port || *end || pn < 0 || pn > 65535 || !*h) {
        cli_error("serve: --listen %s: expected [HOST:]PORT (PORT 0-65535; 0: any free port)", spec);
        return -2;
    }
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res;
    int e = getaddrinfo(h, port, &hints, &res);
    if (e) {
        cli_error("serve: --listen %s: %s", spec, gai_strerror(e));
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 16) != 0) {
        cli_error("serve: cannot listen on %s: %s", spec, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    struct sockaddr_storage a;
    socklen_t alen = sizeof a;
    char addr[INET6_ADDRSTRLEN] = "?";
    getsockname(fd, (struct sockaddr *)&a, &alen);
    unsigned port_now = 0;
    if (a.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&a)->sin_addr, addr, sizeof addr);
        port_now = ntohs(((struct sockaddr_in *)&a)->sin_port);
    } else if (a.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a)->sin6_addr, addr, sizeof addr);
        port_now = ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
    }
    snprintf(shown, cap, a.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", addr, port_now);
    return fd;
}

int cli_serve(int argc, char **argv)
{
    const char *listen_on = NULL, *dir = ".";
    bool once = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--listen") && i + 1 < argc)
            listen_on = argv[++i];
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--once"))
            once = true;
        else {
            cli_error("serve: unexpected '%s': expected jvmprof serve --listen [HOST:]PORT [--dir DIR] [--once]",
                      argv[i]);
            return 2;
        }
    }
    if (!listen_on) {
        cli_error("serve: where? jvmprof serve --listen [HOST:]PORT [--dir DIR] (HOST: 127.0.0.1 if not given)");
        return 2;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error("serve: --dir %s: not a directory", dir);
        return 2;
    }
    char shown[128];
    int lfd = sv_listen(listen_on, shown, sizeof shown);
    if (lfd < 0)
        return lfd == -2 ? 2 : 1;
    struct sigaction sa = { .sa_handler = sv_on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stderr, NULL, _IOLBF, 0);
    fprintf(stderr, "jvmprof serve: listening on %s, writing to %s\n", shown, dir);
    static sv_conn conns[SV_CONNS];
    for (int i = 0; i < SV_CONNS; i++)
        conns[i].fd = -1;
    bool served = false;
    while (!sv_stop) {
        struct pollfd p[SV_CONNS + 1];
        int map[SV_CONNS + 1], n = 0, live = 0;
        p[n] = (struct pollfd){ lfd, POLLIN, 0 };
        map[n++] = -1;
        for (int i = 0; i < SV_CONNS; i++)
            if (conns[i].fd >= 0) {
                p[n] = (struct pollfd){ conns[i].fd, POLLIN, 0 };
                map[n++] = i;
                live++;
            }
        if (once && served && !live)
            break;
        if (poll(p, (nfds_t)n, 500) < 0) {
            if (errno == EINTR)
                continue;
            cli_error("serve: poll: %s", strerror(errno));
            break;
        }
        if (p[0].revents & POLLIN) {
            struct sockaddr_storage a;
            socklen_t alen = sizeof a;
            int fd = accept(lfd, (struct sockaddr *)&a, &alen);
            int slot = -1;
            for (int i = 0; i < SV_CONNS && slot < 0; i++)
                if (conns[i].fd < 0)
                    slot = i;
            if (fd >= 0 && slot < 0) {
                fprintf(stderr, "jvmprof serve: %d connections already: one refused\n", SV_CONNS);
                close(fd);
            } else if (fd >= 0) {
                sv_conn *c = &conns[slot];
                memset(c, 0, sizeof *c);
                c->fd = fd;
                char addr[INET6_ADDRSTRLEN] = "?";
                if (a.ss_family == AF_INET)
                    inet_ntop(AF_INET, &((struct sockaddr_in *)&a)->sin_addr, addr, sizeof addr);
                else if (a.ss_family == AF_INET6)
                    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a)->sin6_addr, addr, sizeof addr);
                snprintf(c->peer, sizeof c->peer, "%s", addr);
                snprintf(c->who, sizeof c->who, "%s", addr);
                served = true;
            }
        }
        for (int k = 1; k < n; k++) {
            if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            sv_conn *c = &conns[map[k]];
            if (c->cap - c->len < 65536) {
                size_t cap = c->cap ? c->cap * 2 : 131072;
                uint8_t *b = cap <= 2 * (SV_FRAME_MAX + 65536) ? realloc(c->buf, cap) : NULL;
                if (!b) {
                    sv_drop(c, "out of memory for its frames");
                    continue;
                }
                c->buf = b;
                c->cap = cap;
            }
            ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                bool mid = c->len > 0 || !c->magic;
                if (mid && c->len) {
                    char why[120];
                    snprintf(why, sizeof why, "the connection ended in the middle of a frame (%zu bytes of it came)",
                             c->len);
                    sv_drop(c, why);
                } else {
                    sv_close_files(c, false);
                    sv_drop(c, NULL);
                }
                continue;
            }
            c->len += (size_t)r;
            c->bytes += (uint64_t)r;
            if (sv_consume(c, dir)) { /* the ack: the bytes taken so far (8, little-endian) */
                uint64_t took = c->bytes - c->len;
                uint8_t ack[8];
                for (int i = 0; i < 8; i++)
                    ack[i] = (uint8_t)(took >> (8 * i));
                /* not taken (full, or the peer gone): the next ack says more; a gone peer's end is read next */
                (void)!send(c->fd, ack, sizeof ack, MSG_DONTWAIT | MSG_NOSIGNAL);
            }
        }
    }
    for (int i = 0; i < SV_CONNS; i++)
        if (conns[i].fd >= 0)
            sv_drop(&conns[i], "serve is stopping");
    close(lfd);
    return 0;
}
