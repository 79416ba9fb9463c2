/* uploader.h — upload='s sending thread: a pthread of its own (all signals
 * blocked) that posts the requests handed to it, oldest first, over plain
 * HTTP (http_post.h), from a bounded queue (upload_queue.h: when full the
 * oldest go, counted dropped). A failed attempt (no answer, or 5xx, 408,
 * 429) is retried after a back-off of 1 s doubling up to the interval; a 4xx
 * answer is final (the profile counted rejected). Submitting never blocks
 * beyond a short lock, so the agent thread never waits on the network.
 * Pure C. */
#ifndef UPLOADER_H
#define UPLOADER_H

#include <stddef.h>
#include <stdint.h>

#include "upload_url.h"

typedef struct uploader_config {
    upload_url url;
    size_t max_bytes;              /* the queue's bound in bytes (the request being sent aside) */
    size_t max_items;              /* and in requests */
    unsigned backoff_cap_ms;       /* the longest wait between attempts (the interval) */
    unsigned connect_ms, total_ms; /* each attempt's deadlines */
} uploader_config;

typedef struct uploader_stats {
    uint64_t made;                 /* requests submitted */
    uint64_t sent, sent_bytes;     /* answered 2xx */
    uint64_t retries;              /* failed attempts, each retried later */
    uint64_t dropped;              /* pushed out of the full queue */
    uint64_t rejected;             /* answered 4xx: not retried */
    uint64_t abandoned;            /* still waiting when the uploader finished */
    uint64_t queued, queued_bytes; /* waiting now (the one being sent included) */
    char last_error[256];          /* "" when none */
    double last_error_age_s;       /* how long ago */
} uploader_stats;

typedef struct uploader uploader;

/* Starts the thread. NULL (err set) when out of memory or no thread. */
uploader *uploader_start(const uploader_config *c, char *err, size_t errlen);
/* Hands over a request (its data malloc'ed: the uploader frees it) for the
 * interval from_s..until_s. */
void uploader_submit(uploader *u, unsigned char *data, size_t len, uint64_t from_s, uint64_t until_s);
void uploader_get_stats(uploader *u, uploader_stats *out);
/* The end: what waits is sent at once (no back-off) until wait_ms passes or
 * an attempt fails; what is left then is counted abandoned. Stops the thread
 * (an attempt still under way when wait_ms has passed is left to end on its
 * own deadline, its thread detached) and frees u; *final gets the counts. */
void uploader_finish(uploader *u, unsigned wait_ms, uploader_stats *final);

#endif
