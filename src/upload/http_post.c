/* http_post.c — see http_post.h. Non-blocking sockets and poll(2) with a
 * deadline; send(MSG_NOSIGNAL). */
#include "http_post.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int64_t hpost_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until deadline: 1 ready, 0 timed out, -1 error (errno). */
static int hpost_wait(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - hpost_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = { .fd = fd, .events = events };
        int rc = poll(&p, 1, (int)left);
        if (rc < 0 && errno == EINTR)
            continue;
        return rc < 0 ? -1 : rc;
    }
}

/* A connected socket to one of host:port's addresses, or -1 with err set. */
static int hpost_connect(const char *host, unsigned port, int64_t deadline, char *err, size_t errlen)
{
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
    int rc = getaddrinfo(host, service, &hints, &ai);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    snprintf(err, errlen, "connect to %s:%u: no address", host, port);
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            snprintf(err, errlen, "socket: %s", strerror(errno));
            continue;
        }
        int e = 0;
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            e = errno;
            if (e == EINPROGRESS) {
                int w = hpost_wait(fd, POLLOUT, deadline);
                socklen_t elen = sizeof e;
                if (w == 0)
                    e = ETIMEDOUT;
                else if (w < 0)
                    e = errno;
                else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen) != 0)
                    e = errno;
            }
        }
        if (e) {
            snprintf(err, errlen, "connect to %s:%u: %s", host, port,
                     e == ETIMEDOUT ? "timed out" : strerror(e));
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    return fd;
}

/* True when the answer's head is in, and as much body as its Content-Length says (none said: not known). */
static bool hpost_complete(const char *answer, size_t got)
{
    const char *end = memmem(answer, got, "\r\n\r\n", 4);
    if (!end)
        return false;
    size_t head = (size_t)(end + 4 - answer);
    for (const char *p = answer; p && p < end; p = memchr(p, '\n', (size_t)(end - p))) {
        p += *p == '\n';
        if (!strncasecmp(p, "Content-Length:", 15))
            return got - head >= strtoul(p + 15, NULL, 10);
    }
    return false;
}

int http_post(const char *host, unsigned port, const void *req, size_t len, unsigned connect_ms, unsigned total_ms,
              char *err, size_t errlen)
{
    int64_t start = hpost_now_ms(), deadline = start + total_ms;
    int64_t connect_deadline = start + (connect_ms < total_ms ? connect_ms : total_ms);
    err[0] = '\0';
    int fd = hpost_connect(host, port, connect_deadline, err, errlen);
    if (fd < 0)
        return 0;
    err[0] = '\0';
    const char *p = req;
    size_t sent = 0;
    while (sent < len) {
        ssize_t n = send(fd, p + sent, len - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        int w = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? hpost_wait(fd, POLLOUT, deadline) : -1;
        if (w <= 0) {
            snprintf(err, errlen, "sending to %s:%u: %s (%zu of %zu bytes sent)", host, port,
                     w == 0 ? "timed out" : strerror(errno), sent, len);
            close(fd);
            return 0;
        }
    }
    /* the answer: its head and the start of its body, until the server closes (Connection: close) or the body
     * its Content-Length announces is in */
    char answer[4096];
    size_t got = 0;
    for (;;) {
        ssize_t n = recv(fd, answer + got, sizeof answer - 1 - got, 0);
        if (n > 0) {
            got += (size_t)n;
            if (got == sizeof answer - 1 || hpost_complete(answer, got))
                break;
            continue;
        }
        if (n == 0)
            break;
        if (errno == EINTR)
            continue;
        int w = errno == EAGAIN || errno == EWOULDBLOCK ? hpost_wait(fd, POLLIN, deadline) : -1;
        if (w <= 0) {
            if (got && memmem(answer, got, "\r\n\r\n", 4))
                break; /* the head is in; the server keeps the connection: enough */
            snprintf(err, errlen, "waiting for %s:%u's answer: %s", host, port,
                     w == 0 ? "timed out" : strerror(errno));
            close(fd);
            return 0;
        }
    }
    close(fd);
    answer[got] = '\0';
    int status = 0;
    char reason[64] = "";
    if (sscanf(answer, "HTTP/1.%*1[01] %3d %63[^\r\n]", &status, reason) < 1 || status < 100 || status > 599) {
        snprintf(err, errlen, "%s:%u answered no HTTP status line", host, port);
        return 0;
    }
    if (status < 200 || status > 299) {
        const char *body = strstr(answer, "\r\n\r\n");
        body = body ? body + 4 : "";
        snprintf(err, errlen, "HTTP %d %s%s%.160s", status, reason, *body ? ": " : "", body);
        for (char *c = err; *c; c++)
            if (*c == '\r' || *c == '\n')
                *c = ' ';
    }
    return status;
}
