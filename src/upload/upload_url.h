/* upload_url.h — upload='s URL: http://HOST[:PORT][/PATH], the address of a
 * Pyroscope-compatible ingest endpoint. Plain HTTP only: https:// is refused
 * with a message saying so. A URL without a path (or with "/") gets
 * Pyroscope's "/ingest"; a query (?...) or a fragment is refused, since the
 * query is built from upload_app= and each interval. Pure C. */
#ifndef UPLOAD_URL_H
#define UPLOAD_URL_H

#include <stdbool.h>
#include <stddef.h>

#define UPLOAD_URL_MAX 1024        /* upload=URL, NUL included */
#define UPLOAD_HOST_MAX 256

typedef struct upload_url {
    char host[UPLOAD_HOST_MAX];    /* a name, an IPv4 address, or an IPv6 address without its brackets */
    unsigned port;                 /* 80 when not given */
    char path[UPLOAD_URL_MAX];     /* starts with '/' */
} upload_url;

/* Parses text into *out. False when it is no such URL, with a one-line
 * reason in err (naming what is accepted). */
bool upload_url_parse(const char *text, upload_url *out, char *err, size_t errlen);

#endif
