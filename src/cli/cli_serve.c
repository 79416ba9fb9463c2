/* cli_serve.c — jvmprof serve: the front end of net=HOST:PORT. Listens
 * (on the loopback address unless told otherwise), takes many agents at
 * once, and writes what each streams (docs/net-protocol.md) into a
 * directory of its own under DIR (serve_store.c): the same files the agent
 * writes where it runs. One thread, poll(2) over the connections; a frame is
 * acted on once it is whole. A file sent whole (a report) appears under its
 * name only once complete; a growing one (a trace) is written as it comes.
 * A connection that ends in the middle of a frame, sends what is not the
 * protocol, or sends nothing for --timeout seconds, is closed with one line,
 * and its complete files stay. --max-conns and --max-per-peer bound how many
 * connections there are, and how many one address holds. */
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "serve_store.h"

#define SV_CONNS_DEFAULT 256
#define SV_PER_PEER_DEFAULT 64
#define SV_TIMEOUT_DEFAULT 30
#define SV_FRAME_MAX (4u << 20)
enum { SV_HELLO = 1, SV_BEGIN = 2, SV_DATA = 3, SV_END = 4, SV_BYE = 5, SV_PING = 6 };

typedef struct sv_conn {
    int fd;                      /* -1: free */
    char peer[INET6_ADDRSTRLEN];
    uint8_t *buf;
    size_t len, cap;
    bool magic, hello;
    char who[320];               /* "host pid 123 (peer)", for messages */
    uint64_t bytes;              /* read so far */
    uint64_t kept, acked;        /* bytes of the stream written and kept (no whole file half-way); said so */
    int64_t heard_ms;            /* when it last sent something */
    serve_store store;
} sv_conn;

static volatile sig_atomic_t sv_stop;
static void sv_on_signal(int sig) { (void)sig; sv_stop = 1; }

static int64_t sv_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sv_drop(sv_conn *c, const char *why)
{
    if (why)
        fprintf(stderr, "jvmprof serve: %s: %s; its complete files are in %s\n", c->who, why,
                c->store.path[0] ? c->store.path : "(none yet)");
    serve_store_close(&c->store, false, c->who);
    close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->len = c->cap = 0;
}

/* One whole frame; false (with why) to drop the connection. */
static bool sv_frame(sv_conn *c, int base_fd, const char *base, unsigned type, uint32_t id, const uint8_t *p,
                     uint32_t len, char *why, size_t cap)
{
    if (type != SV_HELLO && !c->hello) {
        snprintf(why, cap, "a frame before the hello");
        return false;
    }
    switch (type) {
    case SV_HELLO: {
        const char *pid = (const char *)p, *end = (const char *)p + len;
        const char *host = memchr(pid, '\0', len) ? pid + strlen(pid) + 1 : end;
        if (c->hello || host >= end || !memchr(host, '\0', (size_t)(end - host)) || !pid[0]) {
            snprintf(why, cap, c->hello ? "a second hello" : "a malformed hello");
            return false;
        }
        char spid[32], shost[128], stem[200];
        serve_safe_name(pid, strlen(pid), spid, sizeof spid);
        serve_safe_name(host, strlen(host), shost, sizeof shost);
        snprintf(stem, sizeof stem, "%s-%s", shost, spid);
        char peer[sizeof c->peer];
        memcpy(peer, c->peer, sizeof peer);
        snprintf(c->who, sizeof c->who, "%s pid %s (%s)", shost, spid, peer);
        if (!serve_store_open(&c->store, base_fd, base, stem, why, cap))
            return false;
        c->hello = true;
        fprintf(stderr, "jvmprof serve: %s: connected, writing to %s\n", c->who, c->store.path);
        return true;
    }
    case SV_BEGIN:
        if (len < 2) {
            snprintf(why, cap, "a malformed file begin (id %u)", id);
            return false;
        }
        return serve_store_begin(&c->store, id, (char)p[0], (const char *)p + 1, len - 1, why, cap);
    case SV_DATA:
        return serve_store_data(&c->store, id, p, len, why, cap);
    case SV_END:
        return serve_store_end(&c->store, id, why, cap);
    case SV_BYE: { /* its counts, as far as they are printable */
        char counts[201];
        size_t k = 0;
        for (uint32_t i = 0; i < len && k < sizeof counts - 1; i++)
            counts[k++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
        counts[k] = '\0';
        fprintf(stderr, "jvmprof serve: %s: done (%s)\n", c->who, counts);
        return true;
    }
    case SV_PING:
        return true;
    default:
        snprintf(why, cap, "an unknown frame type %u: not a jvmprof agent, or another version", type);
        return false;
    }
}

/* What the connection has read so far, acted on frame by frame; false to drop it (why said). What it has
 * kept grows at each frame after which no whole file is half-way. */
static bool sv_consume(sv_conn *c, int base_fd, const char *base)
{
    size_t at = 0;
    char why[600];
    uint64_t start = c->bytes - c->len; /* the stream's offset of buf[0] */
    if (!c->magic) {
        if (c->len < 8)
            return true;
        if (memcmp(c->buf, "JPNET 2\n", 8) != 0) {
            sv_drop(c, "not the jvmprof net protocol (version 2)");
            return false;
        }
        c->magic = true;
        at = 8;
        c->kept = 8;
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
        if (!sv_frame(c, base_fd, base, h[0], id, h + 9, len, why, sizeof why)) {
            sv_drop(c, why);
            return false;
        }
        at += 9 + (size_t)len;
        if (!serve_store_whole_open(&c->store))
            c->kept = start + at;
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
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 128) != 0) {
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

/* A number option's value in [lo, hi]; false after a one-line message. */
static bool sv_number(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < lo || n > hi) {
        cli_error("serve: %s %s: expected a whole number from %ld to %ld", opt, v, lo, hi);
        return false;
    }
    *out = n;
    return true;
}

/* A connection refused (full, or its address holds its share): said at most once a second, with how many
 * were refused since. */
static void sv_refused(const char *peer, const char *why)
{
    static int64_t said_ms = -1000000;
    static unsigned long unsaid;
    int64_t now = sv_now_ms();
    if (now - said_ms < 1000) {
        unsaid++;
        return;
    }
    if (unsaid)
        fprintf(stderr, "jvmprof serve: %s: %s: refused (and %lu more since the last said)\n", peer, why, unsaid);
    else
        fprintf(stderr, "jvmprof serve: %s: %s: refused\n", peer, why);
    said_ms = now;
    unsaid = 0;
}

#define SV_USAGE                                                                                                   \
    "jvmprof serve --listen [HOST:]PORT [--dir DIR] [--once] [--timeout SECONDS] [--max-conns N] "               \
    "[--max-per-peer N]"

int cli_serve(int argc, char **argv)
{
    const char *listen_on = NULL, *dir = ".";
    bool once = false;
    long timeout_s = SV_TIMEOUT_DEFAULT, max_conns = SV_CONNS_DEFAULT, per_peer = -1;
    for (int i = 0; i < argc; i++) {
        bool has = i + 1 < argc;
        if (!strcmp(argv[i], "--listen") && has)
            listen_on = argv[++i];
        else if (!strcmp(argv[i], "--dir") && has)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--once"))
            once = true;
        else if (!strcmp(argv[i], "--timeout") && has) {
            if (!sv_number("--timeout", argv[++i], 2, 86400, &timeout_s))
                return 2;
        } else if (!strcmp(argv[i], "--max-conns") && has) {
            if (!sv_number("--max-conns", argv[++i], 1, 4096, &max_conns))
                return 2;
        } else if (!strcmp(argv[i], "--max-per-peer") && has) {
            if (!sv_number("--max-per-peer", argv[++i], 1, 4096, &per_peer))
                return 2;
        } else {
            cli_error("serve: unexpected '%s': expected " SV_USAGE, argv[i]);
            return 2;
        }
    }
    if (!listen_on) {
        cli_error("serve: where? jvmprof serve --listen [HOST:]PORT [--dir DIR] (HOST: 127.0.0.1 if not given)");
        return 2;
    }
    if (per_peer < 0)
        per_peer = max_conns < SV_PER_PEER_DEFAULT * 2 ? (max_conns + 1) / 2 : SV_PER_PEER_DEFAULT;
    if (per_peer > max_conns) {
        cli_error("serve: --max-per-peer %ld: more than --max-conns %ld", per_peer, max_conns);
        return 2;
    }
    int base_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base_fd < 0) {
        cli_error("serve: --dir %s: not a directory", dir);
        return 2;
    }
    char shown[128];
    int lfd = sv_listen(listen_on, shown, sizeof shown);
    if (lfd < 0) {
        close(base_fd);
        return lfd == -2 ? 2 : 1;
    }
    /* descriptors for every connection and its open files, as far as the hard limit allows */
    struct rlimit rl;
    rlim_t want = (rlim_t)max_conns * (SERVE_FILES + 2) + 16;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    sv_conn *conns = calloc((size_t)max_conns, sizeof *conns);
    struct pollfd *p = calloc((size_t)max_conns + 1, sizeof *p);
    int *map = calloc((size_t)max_conns + 1, sizeof *map);
    if (!conns || !p || !map) {
        cli_error("serve: out of memory for %ld connections", max_conns);
        free(conns);
        free(p);
        free(map);
        close(lfd);
        close(base_fd);
        return 1;
    }
    struct sigaction sa = { .sa_handler = sv_on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stderr, NULL, _IOLBF, 0);
    fprintf(stderr, "jvmprof serve: listening on %s, writing to %s\n", shown, dir);
    for (long i = 0; i < max_conns; i++)
        conns[i].fd = -1;
    bool served = false;
    int64_t accept_again_ms = 0; /* after accept failed for want of descriptors or memory: a pause */
    while (!sv_stop) {
        int n = 0, live = 0;
        int64_t now = sv_now_ms();
        for (long i = 0; i < max_conns; i++) /* silent for --timeout: a dead peer, or one holding a slot */
            if (conns[i].fd >= 0 && now - conns[i].heard_ms >= timeout_s * 1000) {
                char why[160];
                snprintf(why, sizeof why, "%s for %ld s (--timeout %ld): closed",
                         conns[i].len ? "the rest of a frame did not come" : "sent nothing", timeout_s, timeout_s);
                sv_drop(&conns[i], why);
            }
        bool listening = now >= accept_again_ms;
        p[n] = (struct pollfd){ listening ? lfd : -1, POLLIN, 0 };
        map[n++] = -1;
        for (long i = 0; i < max_conns; i++)
            if (conns[i].fd >= 0) {
                p[n] = (struct pollfd){ conns[i].fd, POLLIN, 0 };
                map[n++] = (int)i;
                live++;
            }
        if (once && served && !live)
            break;
        if (poll(p, (nfds_t)n, listening ? 500 : 100) < 0) {
            if (errno == EINTR)
                continue;
            cli_error("serve: poll: %s", strerror(errno));
            break;
        }
        now = sv_now_ms();
        if (p[0].revents & POLLIN) {
            struct sockaddr_storage a;
            socklen_t alen = sizeof a;
            int fd = accept4(lfd, (struct sockaddr *)&a, &alen, SOCK_CLOEXEC);
            if (fd < 0 && errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
                fprintf(stderr, "jvmprof serve: cannot take a connection: %s\n", strerror(errno));
                accept_again_ms = now + 1000;
            }
            char addr[INET6_ADDRSTRLEN] = "?";
            if (fd >= 0 && a.ss_family == AF_INET)
                inet_ntop(AF_INET, &((struct sockaddr_in *)&a)->sin_addr, addr, sizeof addr);
            else if (fd >= 0 && a.ss_family == AF_INET6)
                inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a)->sin6_addr, addr, sizeof addr);
            long slot = -1, same = 0;
            for (long i = 0; fd >= 0 && i < max_conns; i++) {
                if (conns[i].fd < 0 && slot < 0)
                    slot = i;
                same += conns[i].fd >= 0 && !strcmp(conns[i].peer, addr);
            }
            char why[120];
            if (fd >= 0 && slot < 0) {
                snprintf(why, sizeof why, "%ld connections already (--max-conns %ld)", max_conns, max_conns);
                sv_refused(addr, why);
                close(fd);
            } else if (fd >= 0 && same >= per_peer) {
                snprintf(why, sizeof why, "%ld connections from this address already (--max-per-peer %ld)", same,
                         per_peer);
                sv_refused(addr, why);
                close(fd);
            } else if (fd >= 0) {
                sv_conn *c = &conns[slot];
                memset(c, 0, sizeof *c);
                c->fd = fd;
                serve_store_init(&c->store);
                c->heard_ms = now;
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
                if (c->len) {
                    char why[120];
                    snprintf(why, sizeof why, "the connection ended in the middle of a frame (%zu bytes of it came)",
                             c->len);
                    sv_drop(c, why);
                } else {
                    sv_drop(c, NULL);
                }
                continue;
            }
            c->len += (size_t)r;
            c->bytes += (uint64_t)r;
            c->heard_ms = now;
            if (sv_consume(c, base_fd, dir) && c->kept > c->acked) {
                /* the ack: the bytes kept so far (8, little-endian); not taken (full, or the peer gone): the
                 * next ack says more, and a gone peer's end is read next */
                uint8_t ack[8];
                for (int i = 0; i < 8; i++)
                    ack[i] = (uint8_t)(c->kept >> (8 * i));
                if (send(c->fd, ack, sizeof ack, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof ack)
                    c->acked = c->kept;
            }
        }
    }
    for (long i = 0; i < max_conns; i++)
        if (conns[i].fd >= 0)
            sv_drop(&conns[i], "serve is stopping");
    free(conns);
    free(p);
    free(map);
    close(lfd);
    close(base_fd);
    return 0;
}
