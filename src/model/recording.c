/* recording.c — the ring of record=y: chunks of RECORDING_CHUNK_EVENTS fixed
 * records, kept in a circular index of at most max_chunks (maxsize= over a
 * chunk's size); the oldest chunk is dropped (its memory reused) when a new
 * one is needed and the index is full, and records older than maxage= are
 * skipped from the front as new ones arrive. */
#include "recording.h"

#include <stdlib.h>

typedef struct rec_chunk {
    uint32_t first, len;          /* events [first, len) are kept */
    recording_event ev[RECORDING_CHUNK_EVENTS];
} rec_chunk;

struct recording {
    rec_chunk **chunks;           /* circular: [head], [head + 1], ... count of them, oldest first */
    uint32_t head, count, max_chunks;
    uint64_t maxage_ns;
    uint64_t cutoff_ns;           /* events before this are gone (some may still sit in a chunk) */
    uint64_t dropped, lost;
    rec_chunk *spare;             /* a dropped chunk kept for the next one */
};

recording *recording_new(uint64_t maxsize, uint64_t maxage_ns)
{
    recording *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    uint64_t per = sizeof(rec_chunk) + sizeof(rec_chunk *);
    uint64_t room = maxsize > sizeof *r ? maxsize - sizeof *r : 0;
    uint64_t n = room / per;
    /* the spare chunk counts in the bound: a ring of n chunks holds n - 1 and the spare at most */
    r->max_chunks = n < 2 ? 2 : n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    r->chunks = calloc(r->max_chunks, sizeof *r->chunks);
    if (!r->chunks) {
        free(r);
        return NULL;
    }
    r->maxage_ns = maxage_ns;
    return r;
}

void recording_free(recording *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->count; i++)
        free(r->chunks[(r->head + i) % r->max_chunks]);
    free(r->chunks);
    free(r->spare);
    free(r);
}

static rec_chunk *rec_at(const recording *r, uint32_t i) { return r->chunks[(r->head + i) % r->max_chunks]; }

/* The oldest chunk out of the ring: its memory kept as the spare, or freed. */
static void rec_drop_oldest(recording *r)
{
    rec_chunk *c = rec_at(r, 0);
    r->dropped += c->len - c->first;
    r->chunks[r->head] = NULL;
    r->head = (r->head + 1) % r->max_chunks;
    r->count--;
    if (!r->spare)
        r->spare = c;
    else
        free(c);
}

void recording_expire(recording *r, uint64_t now_ns)
{
    if (!r->maxage_ns || now_ns <= r->maxage_ns)
        return;
    uint64_t cutoff = now_ns - r->maxage_ns;
    if (cutoff > r->cutoff_ns)
        r->cutoff_ns = cutoff;
    while (r->count > 0) {
        rec_chunk *c = rec_at(r, 0);
        while (c->first < c->len && c->ev[c->first].time_ns < cutoff) {
            c->first++;
            r->dropped++;
        }
        if (c->first < c->len || (r->count == 1 && c->len < RECORDING_CHUNK_EVENTS))
            break; /* the oldest kept event is young enough (or the newest chunk, emptied, still fills) */
        rec_drop_oldest(r);
    }
}

bool recording_add(recording *r, const recording_event *e)
{
    rec_chunk *c = r->count ? rec_at(r, r->count - 1) : NULL;
    if (!c || c->len == RECORDING_CHUNK_EVENTS) {
        /* the spare counts as one chunk held: the ring keeps max_chunks - 1 with it */
        while (r->count > 0 && r->count + 1 >= r->max_chunks)
            rec_drop_oldest(r);
        c = r->spare ? r->spare : malloc(sizeof *c);
        r->spare = NULL;
        if (!c) {
            r->lost++;
            return false;
        }
        c->first = c->len = 0;
        r->chunks[(r->head + r->count) % r->max_chunks] = c;
        r->count++;
    }
    c->ev[c->len++] = *e;
    recording_expire(r, e->time_ns);
    return true;
}

void recording_each(const recording *r, uint64_t from_ns, uint64_t to_ns,
                    void (*fn)(const recording_event *e, void *ctx), void *ctx)
{
    if (from_ns < r->cutoff_ns)
        from_ns = r->cutoff_ns;
    for (uint32_t i = 0; i < r->count; i++) {
        const rec_chunk *c = rec_at(r, i);
        for (uint32_t k = c->first; k < c->len; k++)
            if (c->ev[k].time_ns >= from_ns && c->ev[k].time_ns < to_ns)
                fn(&c->ev[k], ctx);
    }
}

void recording_get_stats(const recording *r, recording_stats *out)
{
    *out = (recording_stats){ .dropped = r->dropped, .lost = r->lost, .maxage_ns = r->maxage_ns };
    out->bytes = sizeof *r + (uint64_t)r->max_chunks * sizeof *r->chunks +
                 ((uint64_t)r->count + (r->spare != NULL)) * sizeof(rec_chunk);
    out->max_bytes = sizeof *r + (uint64_t)r->max_chunks * (sizeof *r->chunks + sizeof(rec_chunk));
    for (uint32_t i = 0; i < r->count; i++) {
        const rec_chunk *c = rec_at(r, i);
        for (uint32_t k = c->first; k < c->len; k++) {
            if (c->ev[k].time_ns < r->cutoff_ns)
                continue;
            out->events++;
            if (!out->oldest_ns || c->ev[k].time_ns < out->oldest_ns)
                out->oldest_ns = c->ev[k].time_ns;
            if (c->ev[k].time_ns > out->newest_ns)
                out->newest_ns = c->ev[k].time_ns;
        }
    }
}
