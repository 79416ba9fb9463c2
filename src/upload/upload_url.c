/* upload_url.c — see upload_url.h. */
#include "upload_url.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool uurl_fail(char *err, size_t errlen, const char *text, const char *why)
{
    snprintf(err, errlen, "upload=%.200s: %s; expected upload=http://HOST[:PORT][/PATH] (plain HTTP, e.g. "
             "upload=http://pyroscope:4040, which posts to /ingest)", text, why);
    return false;
}

static bool uurl_host_char(char c, bool v6)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_' || (v6 && (c == ':' || c == '%'));
}

bool upload_url_parse(const char *text, upload_url *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text[0])
        return uurl_fail(err, errlen, text, "empty");
    if (strlen(text) >= UPLOAD_URL_MAX)
        return uurl_fail(err, errlen, text, "too long");
    if (!strncasecmp(text, "https://", 8))
        return uurl_fail(err, errlen, text, "https:// is not supported (no TLS in the agent; use http://, or a "
                                            "local proxy that adds TLS)");
    if (strncasecmp(text, "http://", 7) != 0)
        return uurl_fail(err, errlen, text, strstr(text, "://") ? "only http:// is supported" : "no http://");
    const char *p = text + 7, *host = p;
    size_t authority = strcspn(p, "/?#"), hlen;
    if (memchr(p, '@', authority))
        return uurl_fail(err, errlen, text, "user names and passwords are not supported");
    bool v6 = *p == '[';
    if (v6) {
        const char *close = strchr(p, ']');
        if (!close)
            return uurl_fail(err, errlen, text, "an IPv6 address without its ']'");
        host = p + 1;
        hlen = (size_t)(close - host);
        p = close + 1;
    } else {
        hlen = strcspn(p, ":/?#");
        p += hlen;
    }
    if (!hlen)
        return uurl_fail(err, errlen, text, "no host");
    if (hlen >= UPLOAD_HOST_MAX)
        return uurl_fail(err, errlen, text, "host name too long");
    for (size_t i = 0; i < hlen; i++)
        if (!uurl_host_char(host[i], v6))
            return uurl_fail(err, errlen, text, "a host is letters, digits, '.', '-' (or [IPv6])");
    memcpy(out->host, host, hlen);
    out->port = 80;
    if (*p == ':') {
        unsigned long port = 0;
        size_t n = 0;
        p++;
        while (p[n] >= '0' && p[n] <= '9' && n < 6)
            port = port * 10 + (unsigned long)(p[n++] - '0');
        if (!n || port < 1 || port > 65535 || (p[n] && p[n] != '/' && p[n] != '?' && p[n] != '#'))
            return uurl_fail(err, errlen, text, "the port is a number 1-65535");
        out->port = (unsigned)port;
        p += n;
    }
    if (*p == '?' || *p == '#')
        return uurl_fail(err, errlen, text, "no query or fragment: the query is made of upload_app= and the "
                                            "interval");
    if (*p && *p != '/')
        return uurl_fail(err, errlen, text, "the path starts with '/'");
    for (const char *c = p; *c; c++)
        if ((unsigned char)*c <= ' ' || *c == '?' || *c == '#' || (unsigned char)*c >= 0x7f)
            return uurl_fail(err, errlen, text, *c == '?' || *c == '#' ? "no query or fragment: the query is made "
                                                                          "of upload_app= and the interval"
                                                                        : "a path of printable ASCII, no spaces");
    snprintf(out->path, sizeof out->path, "%s", !*p || !strcmp(p, "/") ? "/ingest" : p);
    return true;
}
