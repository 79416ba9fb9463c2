/* ingest_request.c — see ingest_request.h. */
#include "ingest_request.h"

#include <stdio.h>
#include <string.h>

static bool ingr_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
}

static bool ingr_fail(char *err, size_t errlen, const char *text, const char *why)
{
    snprintf(err, errlen, "upload_app=%.200s: %s; expected upload_app=NAME or NAME{KEY=VALUE+KEY=VALUE} (labels "
             "joined by '+'), e.g. upload_app=shop{env=prod+region=eu}", text, why);
    return false;
}

bool ingest_app_name(const char *text, char *out, size_t cap, char *err, size_t errlen)
{
    size_t n = strlen(text);
    if (n + 1 > cap || n + 1 > INGEST_APP_MAX)
        return ingr_fail(err, errlen, text, "too long");
    size_t name = strcspn(text, "{");
    if (!name)
        return ingr_fail(err, errlen, text, "no name");
    for (size_t i = 0; i < name; i++)
        if (!ingr_name_char(text[i]))
            return ingr_fail(err, errlen, text, "a name is letters, digits, '.', '_', '-'");
    memcpy(out, text, n + 1);
    if (name == n)
        return true;
    if (text[n - 1] != '}')
        return ingr_fail(err, errlen, text, "the labels end with '}'");
    const char *p = text + name + 1, *end = text + n - 1;
    while (p < end) {
        const char *k = p;
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
            return ingr_fail(err, errlen, text, "a label's key starts with a letter or '_'");
        while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                           *p == '_'))
            p++;
        if (p == end || *p != '=')
            return ingr_fail(err, errlen, text, p == k ? "an empty label" : "a label is KEY=VALUE");
        const char *v = ++p;
        while (p < end && (ingr_name_char(*p) || *p == ':' || *p == '/'))
            p++;
        if (p == v)
            return ingr_fail(err, errlen, text, "a label's value is empty");
        if (p < end && *p != '+')
            return ingr_fail(err, errlen, text, "a label's value is letters, digits, '.', '_', '-', ':', '/'");
        if (p < end)
            out[p - text] = ',';
        p += p < end;
        if (p == end && p[-1] == '+')
            return ingr_fail(err, errlen, text, "nothing after the last '+'");
    }
    return true;
}

void ingest_default_app(const char *java_command, char *out, size_t cap)
{
    const char *cmd = java_command ? java_command : "";
    size_t n = strcspn(cmd, " ");
    const char *start = cmd;
    if (n > 4 && !strncmp(cmd + n - 4, ".jar", 4)) { /* path/app.jar: app */
        for (size_t i = 0; i < n; i++)
            if (cmd[i] == '/')
                start = cmd + i + 1;
        n = (size_t)(cmd + n - 4 - start);
    } else { /* pkg.Main: Main (a module's main class: mod/pkg.Main) */
        for (size_t i = 0; i < n; i++)
            if (cmd[i] == '.' || cmd[i] == '/')
                start = cmd + i + 1;
        n = (size_t)(cmd + n - start);
    }
    if (!n || cap < 2) {
        snprintf(out, cap, "java");
        return;
    }
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = ingr_name_char(start[i]) ? start[i] : '_';
    out[n] = '\0';
}

/* s percent-encoded (RFC 3986's unreserved characters kept). */
static void ingr_encode(buf *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (ingr_name_char((char)c) || c == '~')
            buf_put_u1(out, c);
        else
            buf_printf(out, "%%%02X", c);
    }
}

void ingest_query_string(const ingest_query *q, buf *out)
{
    buf_printf(out, "name=");
    ingr_encode(out, q->app);
    buf_printf(out, "&from=%llu&until=%llu&format=pprof", (unsigned long long)q->from_s,
               (unsigned long long)q->until_s);
    if (q->sample_rate_hz)
        buf_printf(out, "&sampleRate=%u", q->sample_rate_hz);
    buf_printf(out, "&spyName=jvmprof");
}

void ingest_sample_type_config(bool wall, buf *out)
{
    /* delta profiles of the interval: summed, not cumulative; the samples sampled at the profile's period */
    buf_printf(out,
               "{\"samples\":{\"units\":\"samples\",\"aggregation\":\"sum\",\"display-name\":\"%s\",\"sampled\":true},"
               "\"alloc_objects\":{\"units\":\"objects\",\"aggregation\":\"sum\",\"display-name\":\"alloc_objects\"},"
               "\"alloc_space\":{\"units\":\"bytes\",\"aggregation\":\"sum\",\"display-name\":\"alloc_space\"},"
               "\"contentions\":{\"units\":\"lock_samples\",\"aggregation\":\"sum\",\"display-name\":\"lock_count\"},"
               "\"delay\":{\"units\":\"lock_nanoseconds\",\"aggregation\":\"sum\",\"display-name\":\"lock_duration\"}}",
               wall ? "wall" : "cpu");
}

bool ingest_request_build(const upload_url *u, const ingest_query *q, const void *pprof, size_t len,
                          const char *boundary, buf *out)
{
    buf body, config;
    buf_init(&body);
    buf_init(&config);
    ingest_sample_type_config(q->wall, &config);
    buf_printf(&body, "--%s\r\nContent-Disposition: form-data; name=\"profile\"; filename=\"profile.pprof\"\r\n"
               "Content-Type: application/octet-stream\r\n\r\n", boundary);
    buf_put(&body, pprof, len);
    buf_printf(&body, "\r\n--%s\r\nContent-Disposition: form-data; name=\"sample_type_config\"; "
               "filename=\"sample_type_config.json\"\r\nContent-Type: application/json\r\n\r\n", boundary);
    buf_put(&body, config.data, config.len);
    buf_printf(&body, "\r\n--%s--\r\n", boundary);
    buf_printf(out, "POST %s?", u->path);
    ingest_query_string(q, out);
    bool v6 = strchr(u->host, ':') != NULL;
    buf_printf(out, " HTTP/1.1\r\nHost: %s%s%s", v6 ? "[" : "", u->host, v6 ? "]" : "");
    if (u->port != 80)
        buf_printf(out, ":%u", u->port);
    buf_printf(out, "\r\nUser-Agent: jvmprof/" JP_VERSION "\r\nContent-Type: multipart/form-data; boundary=%s\r\n"
               "Content-Length: %zu\r\nConnection: close\r\n\r\n", boundary, body.len);
    buf_put(out, body.data, body.len);
    bool ok = !body.failed && !config.failed && !out->failed;
    buf_free(&body);
    buf_free(&config);
    return ok;
}
