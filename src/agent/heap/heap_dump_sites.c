/* heap_dump_sites.c — the sampled objects and their traces, for a heap dump
 * (see heap_dump_sites.h). */
#include "heap_dump_sites.h"

#include <stdlib.h>
#include <string.h>

void heap_dump_sites_init(heap_dump_sites *s)
{
    memset(s, 0, sizeof *s);
    arena_init(&s->mem);
}

void heap_dump_sites_free(heap_dump_sites *s)
{
    free(s->tags);
    free(s->serials);
    free(s->traces);
    arena_free(&s->mem);
    memset(s, 0, sizeof *s);
}

void heap_dump_sites_object(heap_dump_sites *s, int64_t tag, uint32_t serial)
{
    if (s->nobjects == s->cap_objects) {
        uint32_t cap = s->cap_objects ? s->cap_objects * 2 : 1024;
        int64_t *t = realloc(s->tags, (size_t)cap * sizeof *t);
        if (t)
            s->tags = t;
        uint32_t *n = t ? realloc(s->serials, (size_t)cap * sizeof *n) : NULL;
        if (n)
            s->serials = n;
        if (!t || !n) {
            s->failed = true;
            return;
        }
        s->cap_objects = cap;
    }
    s->tags[s->nobjects] = tag;
    s->serials[s->nobjects++] = serial;
}

static const char *hds_dup(heap_dump_sites *s, const char *str)
{
    if (!str)
        return NULL;
    const char *d = arena_dup(&s->mem, str, strlen(str) + 1);
    if (!d)
        s->failed = true;
    return d;
}

void heap_dump_sites_trace(heap_dump_sites *s, uint32_t serial, const heap_dump_frame *frames, uint32_t nframes)
{
    if (s->ntraces == s->cap_traces) {
        uint32_t cap = s->cap_traces ? s->cap_traces * 2 : 256;
        heap_dump_trace *t = realloc(s->traces, (size_t)cap * sizeof *t);
        if (!t) {
            s->failed = true;
            return;
        }
        s->traces = t;
        s->cap_traces = cap;
    }
    heap_dump_frame *f = nframes ? arena_alloc(&s->mem, (size_t)nframes * sizeof *f) : NULL;
    if (nframes && !f) {
        s->failed = true;
        return;
    }
    for (uint32_t i = 0; i < nframes; i++)
        f[i] = (heap_dump_frame){ hds_dup(s, frames[i].method), hds_dup(s, frames[i].sig),
                                  hds_dup(s, frames[i].source), hds_dup(s, frames[i].class_name), frames[i].line };
    s->traces[s->ntraces++] = (heap_dump_trace){ serial, nframes, f };
}

/* an object's tag and serial, to sort them together */
typedef struct hds_pair {
    int64_t tag;
    uint32_t serial;
} hds_pair;

static int hds_pair_cmp(const void *a, const void *b)
{
    const hds_pair *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static int hds_trace_cmp(const void *a, const void *b)
{
    const heap_dump_trace *x = a, *y = b;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

void heap_dump_sites_seal(heap_dump_sites *s)
{
    if (s->ntraces)
        qsort(s->traces, s->ntraces, sizeof *s->traces, hds_trace_cmp);
    if (!s->nobjects)
        return;
    hds_pair *p = malloc((size_t)s->nobjects * sizeof *p);
    if (!p) {
        s->failed = true;
        s->nobjects = 0;
        return;
    }
    for (uint32_t i = 0; i < s->nobjects; i++)
        p[i] = (hds_pair){ s->tags[i], s->serials[i] };
    qsort(p, s->nobjects, sizeof *p, hds_pair_cmp);
    for (uint32_t i = 0; i < s->nobjects; i++) {
        s->tags[i] = p[i].tag;
        s->serials[i] = p[i].serial;
    }
    free(p);
}

uint32_t heap_dump_sites_serial_of(const heap_dump_sites *s, int64_t tag)
{
    uint32_t lo = 0, hi = s->nobjects;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->tags[mid] < tag)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nobjects && s->tags[lo] == tag ? s->serials[lo] : 0;
}

const heap_dump_trace *heap_dump_sites_find_trace(const heap_dump_sites *s, uint32_t serial)
{
    heap_dump_trace key = { .serial = serial };
    return s->ntraces ? bsearch(&key, s->traces, s->ntraces, sizeof key, hds_trace_cmp) : NULL;
}
