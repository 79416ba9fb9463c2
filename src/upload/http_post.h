/* http_post.h — one HTTP/1.1 request over a fresh TCP connection (plain
 * HTTP, "Connection: close"), with a deadline on connecting and on the whole
 * exchange: the request's bytes are sent as given, and the answer's status
 * line is read. Blocking only the calling thread, never beyond its
 * deadlines; no signal (SIGPIPE) is raised. Pure C (POSIX sockets). */
#ifndef HTTP_POST_H
#define HTTP_POST_H

#include <stddef.h>

/* Sends req[0..len) to host:port. Returns the answer's HTTP status (100..599)
 * or 0 when there was none (no such host, refused, reset, timed out), with a
 * one-line reason in err in both cases when the status is not 2xx ("HTTP 400
 * Bad Request: the body's first line"). connect_ms bounds the connection,
 * total_ms the whole request. */
int http_post(const char *host, unsigned port, const void *req, size_t len, unsigned connect_ms, unsigned total_ms,
              char *err, size_t errlen);

#endif
