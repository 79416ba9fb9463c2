/* ingest_request.h — one profile as an HTTP/1.1 request to a Pyroscope
 * ingest endpoint, as its server API documents it (docs/upload.md cites it):
 * POST PATH?name=APP{labels}&from=S&until=S&format=pprof&sampleRate=HZ&spyName=jvmprof
 * with a multipart/form-data body holding the gzipped pprof profile in the
 * form file field "profile" and the sample type configuration (JSON) in the
 * field "sample_type_config". Also upload_app='s check and the default
 * application name. Pure C. */
#ifndef INGEST_REQUEST_H
#define INGEST_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/buf.h"
#include "upload_url.h"

#define INGEST_APP_MAX 512         /* upload_app= (and its Pyroscope form), NUL included */

typedef struct ingest_query {
    const char *app;               /* Pyroscope's form: NAME or NAME{key=value,...} */
    uint64_t from_s, until_s;      /* the interval, UNIX seconds */
    unsigned sample_rate_hz;       /* 0: not sent */
    bool wall;                     /* the profile's samples are wall-clock (wall=) samples */
} ingest_query;

/* upload_app=NAME or NAME{KEY=VALUE+KEY=VALUE...} (labels joined by '+', since
 * ',' separates options) into Pyroscope's NAME{KEY=VALUE,...} in out. NAME
 * and values: letters, digits, '.', '_', '-' (values also ':' and '/'); KEY:
 * a letter or '_', then letters, digits, '_'. False with a one-line reason. */
bool ingest_app_name(const char *text, char *out, size_t cap, char *err, size_t errlen);
/* The default application name from the JVM's command (sun.java.command:
 * "pkg.Main args" or "app.jar args"): the main class's simple name, or the
 * jar's name without ".jar", its other characters made '_'; "java" when
 * there is none. */
void ingest_default_app(const char *java_command, char *out, size_t cap);
/* The query string (without '?') of q, percent-encoded. */
void ingest_query_string(const ingest_query *q, buf *out);
/* The sample type configuration for the columns jvmprof's pprof writer
 * gives (pprof.c): samples (named cpu, or wall), allocations, lock waits. */
void ingest_sample_type_config(bool wall, buf *out);
/* The whole request (head and body) into out; boundary: the multipart
 * boundary (letters, digits, '-', not in the profile). False when out of
 * memory. */
bool ingest_request_build(const upload_url *u, const ingest_query *q, const void *pprof, size_t len,
                          const char *boundary, buf *out);

#endif
