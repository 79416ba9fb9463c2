/* interval_upload.c — see interval_upload.h. */
#include "interval_upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/jp_log.h"
#include "../../format/format.h"
#include "../../model/recording.h"
#include "../../model/recording_window.h"
#include "../../upload/ingest_request.h"
#include "../../upload/uploader.h"
#include "agent_env.h"
#include "outputs.h"

#define IVU_MARGIN_NS 250000000u   /* an interval is cut this long after its end: its last samples drained */
#define IVU_CONNECT_MS 3000u
#define IVU_ATTEMPT_MS 10000u
#define IVU_END_WAIT_MS 3000u      /* at the end, what waits gets this long to be sent */
#define IVU_MAX_ITEMS 4096u
#define IVU_CATCH_UP 8u            /* more intervals than this behind: the missed ones go as one */

struct interval_upload {
    const agent_options *opts;
    uploader *up;
    upload_url url;
    char app[INGEST_APP_MAX];      /* Pyroscope's form: NAME{K=V,...} */
    uint64_t interval_ns;
    uint64_t from_ns;              /* the next interval's start (the previous one's end) */
    uint64_t until_ns;             /* its end: a multiple of interval_ns */
    unsigned boundary_seq;         /* multipart boundaries differ from request to request */
    uint64_t cpu_ns;               /* the agent thread's CPU time making the requests */
};

static uint64_t ivu_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The default application name: the main class's (or jar's), from the JVM's command line. */
static void ivu_default_app(char *out, size_t cap)
{
    char *cmd = NULL;
    if (agent_jvmti && (*agent_jvmti)->GetSystemProperty(agent_jvmti, "sun.java.command", &cmd) != JVMTI_ERROR_NONE)
        cmd = NULL;
    ingest_default_app(cmd, out, cap);
    if (cmd)
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)cmd);
}

interval_upload *interval_upload_start(const agent_options *o, uint64_t start_ns)
{
    if (!o->upload[0])
        return NULL;
    interval_upload *iu = calloc(1, sizeof *iu);
    char err[512];
    if (!iu || !upload_url_parse(o->upload, &iu->url, err, sizeof err)) {
        jp_log_error("upload= not started: %s", iu ? err : "out of memory");
        free(iu);
        return NULL;
    }
    iu->opts = o;
    if (o->upload_app[0]) {
        if (!ingest_app_name(o->upload_app, iu->app, sizeof iu->app, err, sizeof err)) { /* checked by options */
            jp_log_error("upload= not started: %s", err);
            free(iu);
            return NULL;
        }
    } else {
        ivu_default_app(iu->app, sizeof iu->app);
    }
    iu->interval_ns = o->upload_interval_ns;
    iu->from_ns = start_ns;
    iu->until_ns = (start_ns / iu->interval_ns + 1) * iu->interval_ns;
    uploader_config c = { .url = iu->url, .max_bytes = o->upload_queue, .max_items = IVU_MAX_ITEMS,
                          .backoff_cap_ms = (unsigned)(iu->interval_ns / 1000000u), .connect_ms = IVU_CONNECT_MS,
                          .total_ms = IVU_ATTEMPT_MS };
    if (!(iu->up = uploader_start(&c, err, sizeof err))) {
        jp_log_error("upload= not started: %s", err);
        free(iu);
        return NULL;
    }
    jp_log_info("upload: a pprof profile every %.0f s to http://%s:%u%s as %s", (double)iu->interval_ns / 1e9,
                iu->url.host, iu->url.port, iu->url.path, iu->app);
    return iu;
}

bool interval_upload_due(const interval_upload *iu, uint64_t now_ns)
{
    return iu && now_ns >= iu->until_ns + IVU_MARGIN_NS;
}

/* The window [from_ns, until_ns) as a request to the uploader; until_s: the interval's end in seconds. */
static void ivu_send(interval_upload *iu, model *m, uint64_t from_ns, uint64_t until_ns, uint64_t until_s)
{
    uint64_t cpu0 = ivu_thread_cpu_ns();
    model *w = recording_window(m, from_ns, until_ns);
    buf pprof, req;
    buf_init(&pprof);
    buf_init(&req);
    sink *s = w ? sink_open_memory(&pprof) : NULL;
    jp_status st = JP_ERR_NOMEM;
    if (s) {
        report_opts ro = outputs_report_opts(iu->opts);
        w->dump_time_ms = until_ns / 1000000u;
        st = pprof_format.write(w, &ro, s);
        char why[128];
        jp_status cst = sink_commit(s, why, sizeof why);
        if (st == JP_OK)
            st = cst;
    }
    if (st == JP_OK) {
        ingest_query q = { .app = iu->app, .from_s = from_ns / 1000000000u, .until_s = until_s,
                           .sample_rate_hz = w->interval_us ? (unsigned)(1000000u / w->interval_us) : 0,
                           .wall = w->wall };
        char boundary[64];
        snprintf(boundary, sizeof boundary, "jvmprof-%016llx-%08x", (unsigned long long)until_ns,
                 ++iu->boundary_seq);
        if (!ingest_request_build(&iu->url, &q, pprof.data, pprof.len, boundary, &req))
            st = JP_ERR_NOMEM;
    }
    if (st == JP_OK) {
        uploader_submit(iu->up, req.data, req.len, from_ns / 1000000000u, until_s);
        req.data = NULL; /* the uploader's now */
    } else {
        jp_log_error("upload: the profile of %llu..%llu was not made: out of memory",
                     (unsigned long long)(from_ns / 1000000000u), (unsigned long long)until_s);
    }
    buf_free(&req);
    buf_free(&pprof);
    if (w)
        model_free(w);
    iu->cpu_ns += ivu_thread_cpu_ns() - cpu0;
}

void interval_upload_cut(interval_upload *iu, model *m, uint64_t now_ns)
{
    if (!iu)
        return;
    if (now_ns >= iu->until_ns + IVU_MARGIN_NS + (uint64_t)IVU_CATCH_UP * iu->interval_ns) {
        /* far behind (the wall clock stepped forward, or this thread was held up): one profile of all that was
         * missed, to the last interval's end, rather than a burst of them */
        uint64_t last = (now_ns - IVU_MARGIN_NS) / iu->interval_ns * iu->interval_ns;
        recording_expire(m->recording, now_ns);
        ivu_send(iu, m, iu->from_ns, last, last / 1000000000u);
        iu->from_ns = last;
        iu->until_ns = last + iu->interval_ns;
    }
    while (now_ns >= iu->until_ns + IVU_MARGIN_NS) {
        recording_expire(m->recording, now_ns);
        ivu_send(iu, m, iu->from_ns, iu->until_ns, iu->until_ns / 1000000000u);
        iu->from_ns = iu->until_ns;
        iu->until_ns += iu->interval_ns;
    }
}

/* The counts as one line after what. */
static void ivu_log(interval_upload *iu, const uploader_stats *st, const char *what, bool end)
{
    char last[400] = "";
    if (st->last_error[0])
        snprintf(last, sizeof last, "; last error %.1f s ago: %s", st->last_error_age_s, st->last_error);
    jp_log_info("upload%s: %llu profiles to http://%s:%u%s as %s: %llu sent (%.1f KiB), %llu retries, %llu dropped "
                "(%llu for room in upload_queue=, %llu rejected by the server, %llu not sent at the end), %llu "
                "waiting (%.1f KiB), made in %.1f ms of the agent thread's CPU%s", what, (unsigned long long)st->made, iu->url.host, iu->url.port, iu->url.path,
                iu->app, (unsigned long long)st->sent, (double)st->sent_bytes / 1024, (unsigned long long)st->retries,
                (unsigned long long)(st->dropped + st->rejected + st->abandoned), (unsigned long long)st->dropped,
                (unsigned long long)st->rejected, (unsigned long long)st->abandoned,
                (unsigned long long)(end ? 0 : st->queued), end ? 0.0 : (double)st->queued_bytes / 1024,
                (double)iu->cpu_ns / 1e6, last);
}

void interval_upload_describe(interval_upload *iu)
{
    if (!iu)
        return;
    uploader_stats st;
    uploader_get_stats(iu->up, &st);
    ivu_log(iu, &st, "", false);
}

void interval_upload_end(interval_upload *iu, model *m, uint64_t now_ns)
{
    if (!iu)
        return;
    recording_expire(m->recording, now_ns);
    for (; iu->until_ns <= now_ns; iu->until_ns += iu->interval_ns) { /* drained: every whole interval */
        ivu_send(iu, m, iu->from_ns, iu->until_ns, iu->until_ns / 1000000000u);
        iu->from_ns = iu->until_ns;
    }
    if (now_ns > iu->from_ns) { /* the last, shorter interval: up to now, its end rounded up to a second */
        recording_expire(m->recording, now_ns);
        ivu_send(iu, m, iu->from_ns, now_ns + 1, (now_ns + 999999999u) / 1000000000u);
    }
    uploader_stats st;
    uploader_finish(iu->up, IVU_END_WAIT_MS, &st);
    ivu_log(iu, &st, " at the end", true);
    free(iu);
}
