/* net_stream.c — see net_stream.h. Frames, as docs/net-protocol.md gives
 * them: after the 8-byte magic "JPNET 2\n", each is a type byte, a 32-bit
 * file id and a 32-bit payload length (little-endian), then the payload.
 * The callers (the agent thread's reports, the trace's writes) queue whole
 * frames under ns->lock and never wait; the sender thread takes them off and
 * sends them with blocking writes. A whole file is queued all or nothing; a
 * growing file that loses a piece sends nothing more (its copy ends there,
 * which the trace's chunks make readable to the last whole one). A stream
 * with nothing to send for NS_PING_NS gets a ping, so that serve can tell an
 * idle agent from a dead or hostile peer and time the latter out. */
#include "net_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../../common/fd_write.h"
#include "../../common/jp_log.h"
#include "../core/agent_env.h"
#include "../core/session_ctx.h"

enum { NS_HELLO = 1, NS_BEGIN = 2, NS_DATA = 3, NS_END = 4, NS_BYE = 5, NS_PING = 6 };
#define NS_HEADER 9u
#define NS_PIECE (1u << 20)          /* a DATA frame's payload at most */
#define NS_CONNECT_MS 3000
#define NS_PING_NS 1000000000ull      /* a ping after this long with nothing sent (serve's --timeout is 2 s or more) */

typedef struct ns_frame {
    struct ns_frame *next;
    uint32_t len;                    /* header + payload */
    uint8_t data[];
} ns_frame;

/* A session's stream: its part (JP_PART_NET), made by net_stream_start and
 * freed by the session after net_stream_stop has joined its sender thread. */
typedef struct ns_state {
    pthread_mutex_t lock;            /* what follows, up to the growing file's (thread: the starter's and stopper's) */
    pthread_cond_t cond;
    ns_frame *head, *tail;
    size_t queued;
    bool on, closing, broken, thread_made;
    pthread_t thread;
    char endpoint[OPTIONS_NET_MAX];
    uint64_t sent, dropped, files;
    uint64_t acked;                  /* what the front end says it has received (its acks), magic included */
    int fd;                          /* the connection, for net_stream_stop to cut a send that hangs */
    uint32_t next_id;
    char broken_name[400];           /* the count that says why the stream broke, and when */
    uint64_t broken_at_s, start_ns;
    /* the report's counts' names (the model keeps them, and is freed before the part) */
    char got_name[OPTIONS_NET_MAX + 64], flight_name[OPTIONS_NET_MAX + 100], lost_name[OPTIONS_NET_MAX + 100];
    /* the growing file (the trace): its id, what was read of it so far, whether it lost a piece, whether it
     * ended; under grow_lock, as the agent thread's polls and the session's end both send its new bytes */
    pthread_mutex_t grow_lock;
    bool grow_ended;
    uint32_t grow_id;
    int grow_fd;
    uint64_t grow_offset;
    bool grow_lost;
} ns_state;

/* The running session's stream, for the callers that get no session (the
 * reports' net_stream_file and net_stream_counts, the trace's
 * net_stream_grow): set by net_stream_start, cleared by net_stream_stop
 * once its sender thread is joined (none of them runs then: the collectors
 * and the agent thread have stopped; the session frees the part later). */
static ns_state *_Atomic ns_live;

/* A frame; its payload copied from payload, or left for the caller (payload NULL). */
static ns_frame *ns_make(unsigned type, uint32_t id, const void *payload, uint32_t len)
{
    ns_frame *f = malloc(sizeof *f + NS_HEADER + len);
    if (!f)
        return NULL;
    f->next = NULL;
    f->len = NS_HEADER + len;
    f->data[0] = (uint8_t)type;
    for (int i = 0; i < 4; i++) {
        f->data[1 + i] = (uint8_t)(id >> (8 * i));
        f->data[5 + i] = (uint8_t)(len >> (8 * i));
    }
    if (len && payload)
        memcpy(f->data + NS_HEADER, payload, len);
    return f;
}

/* A DATA frame of len bytes of fd at off; NULL when out of memory or the bytes cannot be read. */
static ns_frame *ns_read(uint32_t id, int fd, uint64_t off, uint32_t len)
{
    ns_frame *f = ns_make(NS_DATA, id, NULL, len);
    if (f && pread(fd, f->data + NS_HEADER, len, (off_t)off) != (ssize_t)len) {
        free(f);
        f = NULL;
    }
    return f;
}

/* Marks the stream broken (why, at the time) and drops what is queued; under ns->lock. */
static void ns_break_locked(ns_state *ns, const char *why)
{
    if (!ns->broken) {
        ns->broken = true;
        ns->broken_at_s = (agent_now_ns() - ns->start_ns) / 1000000000u;
        snprintf(ns->broken_name, sizeof ns->broken_name, "net=%s: stream broken at this second of the session (%s)",
                 ns->endpoint, why);
    }
    while (ns->head) {
        ns_frame *f = ns->head;
        ns->head = f->next;
        ns->dropped += f->len;
        free(f);
    }
    ns->tail = NULL;
    ns->queued = 0;
}

/* Queues frames (a list, all or nothing); false (and counted as dropped) if they do not fit. */
static bool ns_queue(ns_state *ns, ns_frame *first, ns_frame *last, size_t bytes)
{
    pthread_mutex_lock(&ns->lock);
    bool ok = ns->on && !ns->broken && ns->queued + bytes <= NET_QUEUE_MAX;
    if (ok) {
        if (ns->tail)
            ns->tail->next = first;
        else
            ns->head = first;
        ns->tail = last;
        ns->queued += bytes;
        pthread_cond_signal(&ns->cond);
    } else {
        ns->dropped += bytes;
    }
    pthread_mutex_unlock(&ns->lock);
    if (!ok)
        while (first) {
            ns_frame *next = first->next;
            free(first);
            first = next;
        }
    return ok;
}

static bool ns_queue_one(ns_state *ns, unsigned type, uint32_t id, const void *payload, uint32_t len)
{
    ns_frame *f = ns_make(type, id, payload, len);
    if (!f) {
        pthread_mutex_lock(&ns->lock);
        ns->dropped += NS_HEADER + len;
        pthread_mutex_unlock(&ns->lock);
        return false;
    }
    return ns_queue(ns, f, f, f->len);
}

static int ns_connect(ns_state *ns, char *why, size_t cap)
{
    char host[OPTIONS_NET_MAX];
    snprintf(host, sizeof host, "%s", ns->endpoint);
    char *colon = strrchr(host, ':');
    *colon = '\0';
    const char *port = colon + 1;
    char *h = host;
    if (h[0] == '[') { /* [IPv6] */
        h++;
        h[strlen(h) - 1] = '\0';
    }
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
    int e = getaddrinfo(h, port, &hints, &res);
    if (e != 0) {
        snprintf(why, cap, "%s", gai_strerror(e));
        return -1;
    }
    int fd = -1;
    snprintf(why, cap, "no address");
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0)
            continue;
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            struct pollfd p = { fd, POLLOUT, 0 };
            int err = 0;
            socklen_t len = sizeof err;
            rc = poll(&p, 1, NS_CONNECT_MS) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && !err
                     ? 0
                     : -1;
            errno = err ? err : ETIMEDOUT;
        }
        if (rc != 0) {
            snprintf(why, cap, "%s", strerror(errno));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0) { /* blocking writes from here: this thread may wait (5 s a write at most), the program does not */
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        struct timeval tv = { 5, 0 };
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    return fd;
}

/* The front end's acks (each the 8-byte count of bytes it has received) read without waiting (wait_ms 0) or
 * until one comes (up to wait_ms); under no lock. */
static void ns_read_acks(ns_state *ns, int fd, int wait_ms)
{
    uint8_t b[64];
    for (;;) {
        if (wait_ms) {
            struct pollfd p = { fd, POLLIN, 0 };
            if (poll(&p, 1, wait_ms) != 1)
                return;
            wait_ms = 0;
        }
        ssize_t r = recv(fd, b, sizeof b - sizeof b % 8, MSG_DONTWAIT);
        if (r < 8)
            return;
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v |= (uint64_t)b[(size_t)r - 8 + (size_t)i] << (8 * i);
        pthread_mutex_lock(&ns->lock);
        if (v > ns->acked)
            ns->acked = v;
        pthread_cond_broadcast(&ns->cond);
        pthread_mutex_unlock(&ns->lock);
    }
}

static void *ns_sender(void *arg)
{
    ns_state *ns = arg;
    pthread_setname_np(pthread_self(), "jvmprof-net");
    char why[200];
    int fd = ns_connect(ns, why, sizeof why);
    if (fd < 0) {
        pthread_mutex_lock(&ns->lock);
        char line[300];
        snprintf(line, sizeof line, "could not connect: %s", why);
        ns_break_locked(ns, line);
        pthread_mutex_unlock(&ns->lock);
        jp_log_error("net=%s: could not connect (%s): the outputs are written here only", ns->endpoint, why);
    } else if (!fd_send_all(fd, (const uint8_t *)"JPNET 2\n", 8)) {
        pthread_mutex_lock(&ns->lock);
        ns_break_locked(ns, strerror(errno));
        pthread_mutex_unlock(&ns->lock);
    } else {
        pthread_mutex_lock(&ns->lock);
        ns->sent += 8;
        ns->fd = fd;
        pthread_mutex_unlock(&ns->lock);
    }
    static const uint8_t ping[NS_HEADER] = { NS_PING }; /* no file, no payload */
    uint64_t sent_ns = agent_now_ns();
    pthread_mutex_lock(&ns->lock);
    for (;;) {
        bool pinging = false;
        while (!ns->head && !ns->closing) {
            bool live = fd >= 0 && !ns->broken;
            uint64_t now = agent_now_ns();
            if (live && now - sent_ns >= NS_PING_NS) {
                pinging = true;
                break;
            }
            if (live && ns->acked < ns->sent) { /* idle: the acks of what was sent */
                pthread_mutex_unlock(&ns->lock);
                ns_read_acks(ns, fd, 50);
                pthread_mutex_lock(&ns->lock);
                continue;
            }
            if (!live) {
                pthread_cond_wait(&ns->cond, &ns->lock);
                continue;
            }
            struct timespec until; /* until the ping is due, or something is queued */
            clock_gettime(CLOCK_REALTIME, &until);
            uint64_t wait_ns = NS_PING_NS - (now - sent_ns);
            until.tv_sec += (time_t)(wait_ns / 1000000000u);
            until.tv_nsec += (long)(wait_ns % 1000000000u);
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&ns->cond, &ns->lock, &until);
        }
        if (!ns->head && !pinging && ns->closing)
            break;
        ns_frame *f = NULL;
        if (!pinging) {
            f = ns->head;
            ns->head = f->next;
            if (!ns->head)
                ns->tail = NULL;
            ns->queued -= f->len;
        }
        pthread_mutex_unlock(&ns->lock);
        const uint8_t *data = f ? f->data : ping;
        uint32_t len = f ? f->len : NS_HEADER;
        bool ok = fd >= 0 && fd_send_all(fd, data, len);
        int e = errno;
        if (ok) {
            sent_ns = agent_now_ns();
            ns_read_acks(ns, fd, 0);
        }
        pthread_mutex_lock(&ns->lock);
        if (ok) {
            ns->sent += len;
        } else {
            ns->dropped += len;
            if (!ns->broken) {
                char line[300];
                snprintf(line, sizeof line, "connection lost: %s", strerror(e));
                jp_log_error("net=%s: %s; the outputs are written here only from now on", ns->endpoint, line);
                ns_break_locked(ns, line);
            }
        }
        free(f);
        pthread_cond_broadcast(&ns->cond);
    }
    bool wait_acks = fd >= 0 && !ns->broken;
    pthread_mutex_unlock(&ns->lock);
    /* what was sent is only as good as what the front end says it received: its last acks, 1 s at most */
    for (int waited = 0; wait_acks && waited < 1000; waited += 100) {
        pthread_mutex_lock(&ns->lock);
        bool all = ns->acked >= ns->sent;
        pthread_mutex_unlock(&ns->lock);
        if (all)
            break;
        ns_read_acks(ns, fd, 100);
    }
    pthread_mutex_lock(&ns->lock);
    ns->fd = -1;
    pthread_mutex_unlock(&ns->lock);
    if (fd >= 0)
        close(fd);
    return NULL;
}

void net_stream_start(jp_session *session)
{
    const char *endpoint = session->opts->net;
    if (!endpoint[0])
        return;
    ns_state *ns = session_part(session, JP_PART_NET, sizeof *ns);
    if (!ns) {
        jp_log_error("net=%s: out of memory: the outputs are written here only", endpoint);
        return;
    }
    if (ns->on) /* started already */
        return;
    pthread_mutex_init(&ns->lock, NULL);
    pthread_cond_init(&ns->cond, NULL);
    pthread_mutex_init(&ns->grow_lock, NULL);
    snprintf(ns->endpoint, sizeof ns->endpoint, "%s", endpoint);
    ns->on = true;
    ns->fd = -1;
    ns->grow_fd = -1;
    ns->start_ns = agent_now_ns();
    atomic_store_explicit(&ns_live, ns, memory_order_release);
    char hello[256], host[128] = "?";
    gethostname(host, sizeof host - 1);
    int n = snprintf(hello, sizeof hello, "%ld%c%s%c%s", (long)getpid(), '\0', host, '\0', JP_VERSION);
    ns_queue_one(ns, NS_HELLO, 0, hello, (uint32_t)n + 1);
    ns->thread_made = pthread_create(&ns->thread, NULL, ns_sender, ns) == 0;
    if (!ns->thread_made) {
        pthread_mutex_lock(&ns->lock);
        ns_break_locked(ns, "no sender thread");
        pthread_mutex_unlock(&ns->lock);
    }
}

static const char *ns_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* BEGIN's payload: the mode ('R' replace, 'A' append), then the file's name. */
static ns_frame *ns_begin(uint32_t id, char mode, const char *path)
{
    char payload[512];
    int n = snprintf(payload, sizeof payload, "%c%s", mode, ns_base(path));
    return ns_make(NS_BEGIN, id, payload, (uint32_t)(n < (int)sizeof payload ? n : (int)sizeof payload - 1));
}

void net_stream_file(const char *path)
{
    ns_state *ns = atomic_load_explicit(&ns_live, memory_order_acquire);
    if (!ns || !ns->on)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    size_t size = (size_t)st.st_size, pieces = (size + NS_PIECE - 1) / NS_PIECE;
    size_t bytes = size + (pieces + 2) * NS_HEADER + 512;
    pthread_mutex_lock(&ns->lock);
    uint32_t id = ++ns->next_id;
    bool room = !ns->broken && ns->queued + bytes <= NET_QUEUE_MAX;
    if (!room)
        ns->dropped += bytes;
    pthread_mutex_unlock(&ns->lock);
    if (!room) {
        close(fd);
        return;
    }
    ns_frame *first = ns_begin(id, 'R', path), *last = first;
    size_t total = first ? first->len : 0;
    bool ok = first != NULL;
    for (size_t off = 0; ok && off < size; off += NS_PIECE) {
        uint32_t len = (uint32_t)(size - off < NS_PIECE ? size - off : NS_PIECE);
        ns_frame *g = ns_read(id, fd, off, len);
        ok = g != NULL;
        if (g) {
            last->next = g;
            last = g;
            total += g->len;
        }
    }
    ns_frame *end = ok ? ns_make(NS_END, id, NULL, 0) : NULL;
    close(fd);
    if (end) {
        last->next = end;
        last = end;
        total += end->len;
        if (ns_queue(ns, first, last, total)) {
            pthread_mutex_lock(&ns->lock);
            ns->files++;
            pthread_mutex_unlock(&ns->lock);
        }
        return;
    }
    while (first) { /* out of memory, or the file could not be read: dropped */
        ns_frame *next = first->next;
        free(first);
        first = next;
    }
    pthread_mutex_lock(&ns->lock);
    ns->dropped += size;
    pthread_mutex_unlock(&ns->lock);
}

static void ns_grow_locked(ns_state *ns, const char *path, int written)
{
    struct stat st;
    if (!ns->on || ns->grow_ended || written < 0 || fstat(written, &st) != 0 ||
        !S_ISREG(st.st_mode)) /* /dev/null: nothing */
        return;
    if (ns->grow_fd < 0 && (ns->grow_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) /* the writer's is write-only */
        return;
    int fd = ns->grow_fd;
    if (!ns->grow_id) {
        pthread_mutex_lock(&ns->lock);
        ns->grow_id = ++ns->next_id;
        pthread_mutex_unlock(&ns->lock);
        ns_frame *b = ns_begin(ns->grow_id, 'A', path);
        ns->grow_lost = !b || !ns_queue(ns, b, b, b->len);
    }
    while (ns->grow_offset < (uint64_t)st.st_size) {
        uint64_t left = (uint64_t)st.st_size - ns->grow_offset;
        uint32_t len = (uint32_t)(left < NS_PIECE ? left : NS_PIECE);
        if (ns->grow_lost) { /* its copy ended at the first piece lost */
            pthread_mutex_lock(&ns->lock);
            ns->dropped += len;
            pthread_mutex_unlock(&ns->lock);
        } else {
            ns_frame *f = ns_read(ns->grow_id, fd, ns->grow_offset, len);
            if (f) {
                ns->grow_lost = !ns_queue(ns, f, f, f->len);
            } else {
                ns->grow_lost = true;
                pthread_mutex_lock(&ns->lock);
                ns->dropped += len;
                pthread_mutex_unlock(&ns->lock);
            }
        }
        ns->grow_offset += len;
    }
}

void net_stream_grow(const char *path, int written)
{
    ns_state *ns = atomic_load_explicit(&ns_live, memory_order_acquire);
    if (!ns)
        return;
    pthread_mutex_lock(&ns->grow_lock);
    ns_grow_locked(ns, path, written);
    pthread_mutex_unlock(&ns->grow_lock);
}

void net_stream_grow_end(void)
{
    ns_state *ns = atomic_load_explicit(&ns_live, memory_order_acquire);
    if (!ns)
        return;
    pthread_mutex_lock(&ns->grow_lock);
    ns->grow_ended = true; /* an agent thread's poll after this sends nothing more */
    if (ns->on && ns->grow_id) {
        ns_queue_one(ns, NS_END, ns->grow_id, NULL, 0);
        pthread_mutex_lock(&ns->lock);
        ns->files += !ns->grow_lost;
        pthread_mutex_unlock(&ns->lock);
        ns->grow_id = 0;
    }
    if (ns->grow_fd >= 0) {
        close(ns->grow_fd);
        ns->grow_fd = -1;
    }
    pthread_mutex_unlock(&ns->grow_lock);
}

void net_stream_stop(int timeout_ms)
{
    ns_state *ns = atomic_load_explicit(&ns_live, memory_order_acquire);
    if (!ns || !ns->on)
        return;
    char bye[200];
    pthread_mutex_lock(&ns->lock);
    int n = snprintf(bye, sizeof bye, "files %llu, bytes dropped %llu", (unsigned long long)ns->files,
                     (unsigned long long)ns->dropped);
    pthread_mutex_unlock(&ns->lock);
    ns_queue_one(ns, NS_BYE, 0, bye, (uint32_t)n);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&ns->lock);
    while (ns->head && !ns->broken && pthread_cond_timedwait(&ns->cond, &ns->lock, &until) == 0)
        ;
    if (ns->head) /* not sent in time: the front end is slow */
        ns_break_locked(ns, "the front end did not take the last outputs in time");
    ns->closing = true;
    pthread_cond_broadcast(&ns->cond);
    pthread_mutex_unlock(&ns->lock);
    if (ns->thread_made) { /* a send that hangs (a front end that stopped reading) is cut after 1 s more */
        until.tv_sec += 1;
        if (pthread_timedjoin_np(ns->thread, NULL, &until) != 0) {
            pthread_mutex_lock(&ns->lock);
            if (ns->fd >= 0)
                shutdown(ns->fd, SHUT_RDWR);
            pthread_mutex_unlock(&ns->lock);
            pthread_join(ns->thread, NULL);
        }
    }
    ns->thread_made = false;
    pthread_mutex_lock(&ns->lock);
    ns->on = false;
    uint64_t lost = ns->sent + ns->dropped - (ns->acked < ns->sent ? ns->acked : ns->sent), got = ns->acked;
    pthread_mutex_unlock(&ns->lock);
    if (lost)
        jp_log_error("net=%s: the front end received %llu bytes; %llu were lost (the files here are whole)",
                     ns->endpoint, (unsigned long long)got, (unsigned long long)lost);
    pthread_mutex_lock(&ns->grow_lock); /* a growing file the trace did not end: its descriptor goes with the part */
    if (ns->grow_fd >= 0) {
        close(ns->grow_fd);
        ns->grow_fd = -1;
    }
    pthread_mutex_unlock(&ns->grow_lock);
    atomic_store_explicit(&ns_live, NULL, memory_order_release);
}

void net_stream_counts(model *m)
{
    ns_state *ns = atomic_load_explicit(&ns_live, memory_order_acquire);
    if (!ns || !ns->on)
        return;
    /* what was queued before this report, sent and acknowledged first (1 s at most: the agent thread waits) */
    pthread_mutex_lock(&ns->lock);
    for (int waited = 0; waited < 1000 && !ns->broken && (ns->head || ns->acked < ns->sent); waited += 10) {
        pthread_mutex_unlock(&ns->lock);
        struct timespec ts = { 0, 10000000L };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&ns->lock);
    }
    snprintf(ns->got_name, sizeof ns->got_name, "net=%s: bytes the front end received", ns->endpoint);
    snprintf(ns->flight_name, sizeof ns->flight_name, "net=%s: bytes sent, not yet acknowledged", ns->endpoint);
    snprintf(ns->lost_name, sizeof ns->lost_name, "net=%s: bytes lost (front end slow, gone or never there)",
             ns->endpoint);
    uint64_t acked = ns->acked < ns->sent ? ns->acked : ns->sent, unacked = ns->sent - acked;
    uint64_t lost = ns->dropped + (ns->broken ? unacked : 0), at = ns->broken_at_s;
    bool broken = ns->broken;
    pthread_mutex_unlock(&ns->lock);
    model_count_set(m, ns->got_name, acked);
    model_count_set(m, ns->flight_name, broken ? 0 : unacked);
    model_count_set(m, ns->lost_name, lost);
    if (broken)
        model_count_set(m, ns->broken_name, at);
}
