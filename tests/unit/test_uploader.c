/* test_uploader.c — upload='s sending thread (src/upload/uploader.c) and its
 * HTTP client (src/upload/http_post.c) against a small HTTP server in this
 * process: requests arrive whole and in order; a 503 is retried after the
 * back-off (1 s) and then sent; a 400 is final (rejected, not retried); an
 * answer that never comes or a connection closed without one is an error
 * within the deadline, and an answer on a connection the server keeps open
 * is taken as soon as its Content-Length is in; with no server at all the
 * oldest requests are pushed out of a full queue and what is left at the end
 * is counted, so that sent + dropped + rejected + abandoned = submitted; the
 * end sends what waits at once; submitting never waits on the network. */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "upload/http_post.h"
#include "upload/uploader.h"

enum { SRV_CLOSE = -1, SRV_SILENT = -2, SRV_KEEP = -3 }; /* close without an answer; never answer; answer 200 and keep
                                                        * the connection open */

typedef struct srv {
    int fd;
    unsigned port;
    int script[16];       /* what to answer to the n-th request (a status, or SRV_*); past the end: 200 */
    int nscript;
    char first_line[16][128];
    size_t body_len[16];
    int nreq;
    volatile int stop;
    int kept;             /* SRV_KEEP's connection */
    pthread_t thread;
    pthread_mutex_t lock;
} srv;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads one request (head, then Content-Length bytes); its first line and body length into s. */
static void srv_read_request(srv *s, int c, int n)
{
    static char req[1 << 20];
    size_t got = 0, need = (size_t)-1;
    while (got < sizeof req && got < need) {
        struct pollfd p = { c, POLLIN, 0 };
        if (poll(&p, 1, 2000) <= 0)
            break;
        ssize_t k = recv(c, req + got, sizeof req - got, 0);
        if (k <= 0)
            break;
        got += (size_t)k;
        char *end = memmem(req, got, "\r\n\r\n", 4);
        if (end && need == (size_t)-1) {
            char *cl = memmem(req, (size_t)(end - req), "Content-Length: ", 16);
            need = (size_t)(end + 4 - req) + (cl ? strtoul(cl + 16, NULL, 10) : 0);
        }
    }
    char *end = memmem(req, got, "\r\n\r\n", 4);
    pthread_mutex_lock(&s->lock);
    if (n < 16) {
        size_t fl = strcspn(req, "\r");
        snprintf(s->first_line[n], sizeof s->first_line[n], "%.*s", (int)(fl < got ? fl : got), req);
        s->body_len[n] = end ? got - (size_t)(end + 4 - req) : 0;
    }
    pthread_mutex_unlock(&s->lock);
}

static void *srv_main(void *arg)
{
    srv *s = arg;
    while (!s->stop) {
        struct pollfd p = { s->fd, POLLIN, 0 };
        if (poll(&p, 1, 20) <= 0)
            continue;
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            continue;
        pthread_mutex_lock(&s->lock);
        int n = s->nreq++;
        int act = n < s->nscript ? s->script[n] : 200;
        pthread_mutex_unlock(&s->lock);
        srv_read_request(s, c, n);
        if (act == SRV_KEEP) { /* answered, and the connection kept open (closed at the end) */
            static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
            if (send(c, ok, sizeof ok - 1, MSG_NOSIGNAL) < 0)
                perror("send");
            s->kept = c;
            continue;
        }
        if (act == SRV_SILENT) {
            while (!s->stop) /* holds the connection, answering nothing */
                usleep(10000);
        } else if (act > 0) {
            char answer[256];
            const char *body = act == 200 ? "" : "go away\r\nsecond line";
            int len = snprintf(answer, sizeof answer, "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                               act, act == 200 ? "OK" : act == 400 ? "Bad Request" : "Service Unavailable",
                               strlen(body), body);
            if (send(c, answer, (size_t)len, MSG_NOSIGNAL) < 0)
                perror("send");
        }
        close(c);
    }
    return NULL;
}

static bool srv_start(srv *s, const int *script, int n)
{
    memset(s, 0, sizeof *s);
    memcpy(s->script, script, sizeof *script * (size_t)n);
    s->nscript = n;
    pthread_mutex_init(&s->lock, NULL);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) || listen(s->fd, 16) ||
        getsockname(s->fd, (struct sockaddr *)&a, &al))
        return false;
    s->port = ntohs(a.sin_port);
    return pthread_create(&s->thread, NULL, srv_main, s) == 0;
}

static void srv_stop(srv *s)
{
    s->stop = 1;
    pthread_join(s->thread, NULL);
    close(s->fd);
    if (s->kept > 0)
        close(s->kept);
    pthread_mutex_destroy(&s->lock);
}

/* A port nothing listens on: one bound, then closed. */
static unsigned closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd);
    return ntohs(a.sin_port);
}

static unsigned char *request(const char *path, size_t body, size_t *len)
{
    char head[256];
    int h = snprintf(head, sizeof head, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     path, body);
    unsigned char *r = malloc((size_t)h + body);
    memcpy(r, head, (size_t)h);
    memset(r + h, 'b', body);
    *len = (size_t)h + body;
    return r;
}

static uploader_config config(unsigned port, size_t max_bytes)
{
    uploader_config c = { .max_bytes = max_bytes, .max_items = 100, .backoff_cap_ms = 4000, .connect_ms = 1000,
                          .total_ms = 2000 };
    snprintf(c.url.host, sizeof c.url.host, "127.0.0.1");
    c.url.port = port;
    snprintf(c.url.path, sizeof c.url.path, "/ingest");
    return c;
}

static void test_http_post(void)
{
    srv s;
    int script[] = { 200, 400, SRV_CLOSE, SRV_KEEP, SRV_SILENT };
    ASSERT(srv_start(&s, script, 5));
    size_t len;
    unsigned char *r = request("/ingest?a=1", 100000, &len);
    char err[256];
    CHECK_EQ_INT(http_post("127.0.0.1", s.port, r, len, 1000, 2000, err, sizeof err), 200);
    CHECK_EQ_STR(err, "");
    CHECK_EQ_INT(http_post("localhost", s.port, r, len, 1000, 2000, err, sizeof err), 400);
    CHECK_EQ_STR(err, "HTTP 400 Bad Request: go away  second line");
    CHECK_EQ_INT(http_post("127.0.0.1", s.port, r, len, 1000, 2000, err, sizeof err), 0);
    CHECK(strstr(err, "answered no HTTP status line") != NULL);
    /* a server that keeps the connection open: the answer's Content-Length says when it is all in */
    int64_t t0 = now_ms();
    CHECK_EQ_INT(http_post("127.0.0.1", s.port, r, len, 1000, 5000, err, sizeof err), 200);
    CHECK(now_ms() - t0 < 1000);
    t0 = now_ms();
    CHECK_EQ_INT(http_post("127.0.0.1", s.port, r, len, 1000, 300, err, sizeof err), 0);
    int64_t took = now_ms() - t0;
    CHECK(took >= 250 && took < 1500);
    CHECK(strstr(err, "timed out") != NULL);
    srv_stop(&s);
    CHECK_EQ_INT(s.nreq, 5);
    CHECK_EQ_STR(s.first_line[0], "POST /ingest?a=1 HTTP/1.1");
    CHECK_EQ_INT(s.body_len[0], 100000);
    CHECK_EQ_INT(http_post("127.0.0.1", closed_port(), r, len, 1000, 2000, err, sizeof err), 0);
    CHECK(strstr(err, "Connection refused") != NULL);
    CHECK_EQ_INT(http_post("no-such-host.invalid", 80, r, len, 1000, 2000, err, sizeof err), 0);
    CHECK(strstr(err, "no-such-host.invalid: ") == err);
    free(r);
}

static void test_sent_retried_rejected(void)
{
    srv s;
    int script[] = { 200, 503, 200, 400, 200 };
    ASSERT(srv_start(&s, script, 5));
    uploader_config c = config(s.port, 1 << 20);
    char err[256];
    uploader *u = uploader_start(&c, err, sizeof err);
    ASSERT(u != NULL);
    size_t len;
    const char *paths[] = { "/ingest?n=1", "/ingest?n=2", "/ingest?n=3", "/ingest?n=4" };
    for (int i = 0; i < 4; i++) {
        unsigned char *r = request(paths[i], 1000 + (size_t)i, &len);
        uploader_submit(u, r, len, (uint64_t)i * 10, (uint64_t)i * 10 + 10);
    }
    /* 1: 200; 2: 503, then (after 1 s) 200; 3: 400 (rejected); 4: 200 */
    int64_t limit = now_ms() + 5000;
    uploader_stats st;
    do {
        usleep(20000);
        uploader_get_stats(u, &st);
    } while (st.sent + st.rejected < 4 && now_ms() < limit);
    CHECK_EQ_INT(st.made, 4);
    CHECK_EQ_INT(st.sent, 3);
    CHECK_EQ_INT(st.retries, 1);
    CHECK_EQ_INT(st.rejected, 1);
    CHECK_EQ_INT(st.dropped, 0);
    CHECK_EQ_INT(st.queued, 0);
    CHECK(strstr(st.last_error, "HTTP 400 Bad Request") == st.last_error);
    uploader_finish(u, 1000, &st);
    CHECK_EQ_INT(st.abandoned, 0);
    srv_stop(&s);
    ASSERT(s.nreq == 5);
    CHECK_EQ_STR(s.first_line[0], "POST /ingest?n=1 HTTP/1.1");
    CHECK_EQ_STR(s.first_line[1], "POST /ingest?n=2 HTTP/1.1");
    CHECK_EQ_STR(s.first_line[2], "POST /ingest?n=2 HTTP/1.1"); /* the retry */
    CHECK_EQ_STR(s.first_line[3], "POST /ingest?n=3 HTTP/1.1");
    CHECK_EQ_STR(s.first_line[4], "POST /ingest?n=4 HTTP/1.1");
    CHECK_EQ_INT(s.body_len[4], 1003);
}

/* No server: submitting does not wait; a queue of room for 3 requests keeps the 3 newest (the one being
 * tried back in front, as the oldest, goes first); the end gives up at the first failure. */
static void test_server_down(void)
{
    uploader_config c = config(closed_port(), 3 * 1100);
    char err[256];
    uploader *u = uploader_start(&c, err, sizeof err);
    ASSERT(u != NULL);
    int64_t t0 = now_ms();
    size_t len;
    for (int i = 0; i < 10; i++) {
        unsigned char *r = request("/ingest", 1000, &len); /* about 1070 bytes: 3 fit in 3300 */
        uploader_submit(u, r, len, (uint64_t)i, (uint64_t)i + 1);
    }
    CHECK(now_ms() - t0 < 200);
    usleep(300000);
    uploader_stats st;
    uploader_get_stats(u, &st);
    CHECK_EQ_INT(st.made, 10);
    CHECK_EQ_INT(st.sent, 0);
    CHECK(st.retries >= 1);
    CHECK_EQ_INT(st.queued, 3);
    CHECK_EQ_INT(st.dropped, 7);
    CHECK(strstr(st.last_error, "Connection refused") != NULL);
    t0 = now_ms();
    uploader_finish(u, 2000, &st);
    CHECK(now_ms() - t0 < 1000); /* refused at once: no waiting out the 2 s */
    CHECK_EQ_INT(st.sent + st.dropped + st.rejected + st.abandoned, 10);
    CHECK_EQ_INT(st.abandoned, 3);
}

/* The end: what waits in back-off is sent at once when the server is back. */
static void test_finish_sends_backlog(void)
{
    unsigned port = closed_port();
    uploader_config c = config(port, 1 << 20);
    c.backoff_cap_ms = 60000;
    char err[256];
    uploader *u = uploader_start(&c, err, sizeof err);
    ASSERT(u != NULL);
    size_t len;
    for (int i = 0; i < 5; i++) {
        unsigned char *r = request("/ingest", 10, &len);
        uploader_submit(u, r, len, (uint64_t)i, (uint64_t)i + 1);
    }
    usleep(200000); /* the first attempt failed: the next in 1 s */
    /* the server comes up on that port */
    srv s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.lock, NULL);
    s.fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    ASSERT(bind(s.fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(s.fd, 16) == 0);
    s.port = port;
    ASSERT(pthread_create(&s.thread, NULL, srv_main, &s) == 0);
    int64_t t0 = now_ms();
    uploader_stats st;
    uploader_finish(u, 3000, &st);
    CHECK(now_ms() - t0 < 1000);
    CHECK_EQ_INT(st.sent, 5);
    CHECK_EQ_INT(st.abandoned, 0);
    CHECK(st.retries >= 1);
    srv_stop(&s);
    CHECK_EQ_INT(s.nreq, 5);
}

int main(void)
{
    RUN(test_http_post);
    RUN(test_sent_retried_rejected);
    RUN(test_server_down);
    RUN(test_finish_sends_backlog);
    return DONE();
}
