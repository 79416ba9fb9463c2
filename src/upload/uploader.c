/* uploader.c — see uploader.h. One lock guards the queue and the counts; the
 * thread holds it except while it sends. */
#include "uploader.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_post.h"
#include "upload_queue.h"

struct uploader {
    uploader_config cfg;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;           /* CLOCK_MONOTONIC: work, the end, or the thread's state changed */
    upload_queue queue;
    uploader_stats stats;
    bool in_flight;                /* the thread is sending one (taken out of the queue) */
    size_t in_flight_bytes;
    unsigned failures;             /* in a row */
    int64_t retry_at_ms;           /* no attempt before (monotonic ms) */
    int64_t last_error_ms;
    bool finishing;                /* uploader_finish: no back-off; the first failure ends it */
    int64_t finish_by_ms;
    bool stop, exited, orphan;     /* orphan: finish gave up waiting; the thread frees u */
};

static int64_t upl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void upl_deadline(struct timespec *ts, int64_t at_ms)
{
    ts->tv_sec = (time_t)(at_ms / 1000);
    ts->tv_nsec = (long)(at_ms % 1000) * 1000000L;
}

static void upl_free(uploader *u)
{
    upload_queue_free(&u->queue);
    pthread_mutex_destroy(&u->lock);
    pthread_cond_destroy(&u->wake);
    free(u);
}

/* What is left when the uploader ends: counted abandoned. */
static void upl_abandon_all(uploader *u)
{
    upload_item it;
    while (upload_queue_pop(&u->queue, &it)) {
        free(it.data);
        u->stats.abandoned++;
    }
}

static void upl_note_error(uploader *u, const char *err)
{
    snprintf(u->stats.last_error, sizeof u->stats.last_error, "%s", err);
    u->last_error_ms = upl_now_ms();
}

static void *upl_main(void *arg)
{
    uploader *u = arg;
    pthread_mutex_lock(&u->lock);
    for (;;) {
        int64_t now = upl_now_ms();
        if (u->stop)
            break;
        bool wait_retry = !u->finishing && u->queue.count && now < u->retry_at_ms;
        if (!u->queue.count || wait_retry) {
            if (!u->queue.count && u->finishing)
                pthread_cond_broadcast(&u->wake); /* all sent: finish may go on */
            struct timespec ts;
            upl_deadline(&ts, wait_retry ? u->retry_at_ms : now + 60000);
            pthread_cond_timedwait(&u->wake, &u->lock, &ts);
            continue;
        }
        upload_item it;
        upload_queue_pop(&u->queue, &it);
        u->in_flight = true;
        u->in_flight_bytes = it.len;
        unsigned total = u->cfg.total_ms;
        if (u->finishing) /* the end's wait bounds the attempt too */
            total = u->finish_by_ms > now ? (unsigned)(u->finish_by_ms - now) : 1;
        unsigned conn = u->cfg.connect_ms < total ? u->cfg.connect_ms : total;
        pthread_mutex_unlock(&u->lock);
        char err[256];
        int status = http_post(u->cfg.url.host, u->cfg.url.port, it.data, it.len, conn, total, err, sizeof err);
        pthread_mutex_lock(&u->lock);
        u->in_flight = false;
        u->in_flight_bytes = 0;
        if (status >= 200 && status <= 299) {
            u->stats.sent++;
            u->stats.sent_bytes += it.len;
            u->failures = 0;
            u->retry_at_ms = 0;
            free(it.data);
        } else if (status >= 400 && status <= 499 && status != 408 && status != 429) {
            u->stats.rejected++; /* the server will not take it: retrying would not change that */
            upl_note_error(u, err);
            free(it.data);
        } else {
            upl_note_error(u, err);
            if (u->finishing) { /* the server is away: nothing more will go before the end */
                free(it.data);
                u->stats.abandoned++;
                upl_abandon_all(u);
            } else {
                u->stats.retries++;
                u->failures++;
                u->retry_at_ms = upl_now_ms() + upload_backoff_ms(u->failures, u->cfg.backoff_cap_ms);
                u->stats.dropped += upload_queue_push(&u->queue, it, true);
            }
        }
        pthread_cond_broadcast(&u->wake);
    }
    u->exited = true;
    bool orphan = u->orphan;
    pthread_cond_broadcast(&u->wake);
    pthread_mutex_unlock(&u->lock);
    if (orphan)
        upl_free(u);
    return NULL;
}

uploader *uploader_start(const uploader_config *c, char *err, size_t errlen)
{
    uploader *u = calloc(1, sizeof *u);
    if (!u || !upload_queue_init(&u->queue, c->max_bytes, c->max_items)) {
        free(u);
        snprintf(err, errlen, "upload=: out of memory");
        return NULL;
    }
    u->cfg = *c;
    pthread_mutex_init(&u->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&u->wake, &attr);
    pthread_condattr_destroy(&attr);
    /* the thread takes no signal: the program's and the sampler's go elsewhere */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&u->thread, NULL, upl_main, u);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        pthread_setname_np(u->thread, "jvmprof-upload"); /* how threads=all and ps name it */
    if (rc != 0) {
        snprintf(err, errlen, "upload=: cannot start its thread: %s", strerror(rc));
        upl_free(u);
        return NULL;
    }
    return u;
}

void uploader_submit(uploader *u, unsigned char *data, size_t len, uint64_t from_s, uint64_t until_s)
{
    upload_item it = { data, len, from_s, until_s };
    pthread_mutex_lock(&u->lock);
    u->stats.made++;
    u->stats.dropped += upload_queue_push(&u->queue, it, false);
    pthread_cond_broadcast(&u->wake);
    pthread_mutex_unlock(&u->lock);
}

/* The counts, under the lock. */
static void upl_stats_locked(uploader *u, uploader_stats *out)
{
    *out = u->stats;
    out->queued = u->queue.count + (u->in_flight ? 1 : 0);
    out->queued_bytes = u->queue.bytes + u->in_flight_bytes;
    out->last_error_age_s = out->last_error[0] ? (double)(upl_now_ms() - u->last_error_ms) / 1000 : 0;
}

void uploader_get_stats(uploader *u, uploader_stats *out)
{
    pthread_mutex_lock(&u->lock);
    upl_stats_locked(u, out);
    pthread_mutex_unlock(&u->lock);
}

void uploader_finish(uploader *u, unsigned wait_ms, uploader_stats *final)
{
    pthread_mutex_lock(&u->lock);
    u->finishing = true;
    u->finish_by_ms = upl_now_ms() + wait_ms;
    pthread_cond_broadcast(&u->wake);
    while ((u->queue.count || u->in_flight) && upl_now_ms() < u->finish_by_ms) {
        struct timespec ts;
        upl_deadline(&ts, u->finish_by_ms);
        pthread_cond_timedwait(&u->wake, &u->lock, &ts);
    }
    upl_abandon_all(u); /* not sent in time */
    u->stop = true;
    pthread_cond_broadcast(&u->wake);
    /* an attempt under way ends by its own deadline, bounded by finish_by_ms: a moment more */
    int64_t limit = upl_now_ms() + 1000;
    while (!u->exited && upl_now_ms() < limit) {
        struct timespec ts;
        upl_deadline(&ts, limit);
        pthread_cond_timedwait(&u->wake, &u->lock, &ts);
    }
    upl_stats_locked(u, final);
    if (u->in_flight)
        final->abandoned++; /* counted here: the thread will not count its end */
    bool exited = u->exited;
    pthread_t thread = u->thread; /* u may be gone once unlocked, if orphaned */
    if (!exited)
        u->orphan = true;
    pthread_mutex_unlock(&u->lock);
    if (exited) {
        pthread_join(thread, NULL);
        upl_free(u);
    } else {
        pthread_detach(thread);
    }
}
