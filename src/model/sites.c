/* sites.c — allocation sites (heap=sites), keyed by (trace, class name,
 * array or not), with what was allocated there and what of it is still
 * live, in objects and bytes. Sampled allocations add estimates, so the
 * counters are doubles; exact counting (alloc_interval=0) adds whole numbers. */
#include <stdlib.h>

#include "model.h"

static site_id site_put(model *m, trace_id trace, class_id cls, bool is_array, bool counted)
{
    struct { trace_id t; class_id c; uint32_t a; } key = { trace, cls, (uint32_t)is_array | (counted ? 2u : 0u) };
    bool added;
    uint32_t id = intern_put(&m->sites, &key, sizeof key, &added);
    if (!id) {
        m->oom = true;
        return (site_id){ 0 };
    }
    if (added) {
        if (!model_grow((void **)&m->site_info, &m->site_info_cap, id, sizeof *m->site_info)) {
            m->oom = true;
            return (site_id){ 0 };
        }
        m->site_info[id - 1] = (model_site){ .trace = trace, .cls = cls, .is_array = is_array, .counted = counted };
    }
    return (site_id){ id };
}

site_id model_site_intern(model *m, trace_id trace, class_id cls, bool is_array)
{
    return site_put(m, trace, cls, is_array, false);
}

site_id model_site_intern_counted(model *m, trace_id trace, class_id cls, bool is_array)
{
    return site_put(m, trace, cls, is_array, true);
}

void model_site_alloc(model *m, site_id id, double objs, double bytes, bool live)
{
    if (id.v == 0 || id.v > intern_count(&m->sites))
        return;
    model_site *s = &m->site_info[id.v - 1];
    s->alloc_objs += objs;
    s->alloc_bytes += bytes;
    if (live) {
        s->live_objs += objs;
        s->live_bytes += bytes;
    }
}

void model_site_free(model *m, site_id id, double objs, double bytes)
{
    if (id.v == 0 || id.v > intern_count(&m->sites))
        return;
    model_site *s = &m->site_info[id.v - 1];
    s->live_objs -= objs;
    s->live_bytes -= bytes;
    if (s->live_objs < 0.5)   /* rounding of estimates */
        s->live_objs = s->live_bytes = 0;
    if (!m->sites_young && s->live_objs < s->trough)
        s->trough = s->live_objs;
}

void model_site_young(model *m, site_id id, double delta)
{
    if (id.v == 0 || id.v > intern_count(&m->sites))
        return;
    m->site_info[id.v - 1].young_objs += delta;
}

void model_sites_floor(model *m)
{
    for (uint32_t i = 0; i < intern_count(&m->sites); i++) {
        model_site *s = &m->site_info[i];
        double seen = s->live_objs - s->young_objs;
        if (seen < s->trough)
            s->trough = seen < 0 ? 0 : seen;
    }
}

const model_site *model_site_get(const model *m, site_id id)
{
    if (id.v == 0 || id.v > intern_count(&m->sites))
        return NULL;
    return &m->site_info[id.v - 1];
}

uint32_t *model_sites_callers(const model *m)
{
    uint32_t n = model_site_count(m);
    uint32_t *of = calloc((size_t)n + 1, sizeof *of);
    /* the counted sites, by (top frame, class) in an open-addressed table */
    uint32_t cap = 16;
    while (cap < 2 * (n + 1))
        cap *= 2;
    uint32_t *slot = of ? calloc(cap, sizeof *slot) : NULL;
    if (!slot) {
        free(of);
        return NULL;
    }
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 1; i <= n; i++) {
            const model_site *si = &m->site_info[i - 1];
            if (si->counted != (pass == 0)) /* the counted sites first, then the sampled ones */
                continue;
            model_trace tr = model_trace_get(m, si->trace);
            uint32_t top = tr.nframes ? tr.frames[0].v : 0;
            uint32_t h = (top * 0x9E3779B1u) ^ (si->cls.v * 0x85EBCA77u);
            for (uint32_t k = h & (cap - 1);; k = (k + 1) & (cap - 1)) {
                uint32_t c = slot[k];
                if (pass == 0 && !c) {
                    slot[k] = i;
                    break;
                }
                if (!c)
                    break;
                const model_site *cs = &m->site_info[c - 1];
                model_trace ct = model_trace_get(m, cs->trace);
                if (!si->counted && cs->cls.v == si->cls.v && (ct.nframes ? ct.frames[0].v : 0) == top) {
                    of[i] = c;
                    break;
                }
            }
        }
    /* sampled sites with no counted frame: the class's VM row */
    for (uint32_t i = 1; i <= n; i++) {
        const model_site *si = &m->site_info[i - 1];
        if (si->counted || of[i])
            continue;
        uint32_t h = si->cls.v * 0x85EBCA77u;
        for (uint32_t k = h & (cap - 1); slot[k]; k = (k + 1) & (cap - 1)) {
            const model_site *cs = &m->site_info[slot[k] - 1];
            if (cs->cls.v == si->cls.v && model_trace_get(m, cs->trace).nframes == 0) {
                of[i] = slot[k];
                break;
            }
        }
    }
    free(slot);
    return of;
}

void model_sites_counted_live(model *m)
{
    uint32_t n = model_site_count(m);
    uint32_t *of = model_sites_callers(m);
    double (*sum)[4] = of ? calloc((size_t)n + 1, sizeof *sum) : NULL; /* alloc objs, bytes; live objs, bytes */
    if (!sum) {
        free(of);
        m->oom = true;
        return;
    }
    for (uint32_t i = 1; i <= n; i++) {
        const model_site *si = &m->site_info[i - 1];
        if (!of[i])
            continue;
        sum[of[i]][0] += si->alloc_objs;
        sum[of[i]][1] += si->alloc_bytes;
        sum[of[i]][2] += si->live_objs;
        sum[of[i]][3] += si->live_bytes;
    }
    for (uint32_t i = 1; i <= n; i++) {
        model_site *si = &m->site_info[i - 1];
        if (!si->counted)
            continue;
        si->live_objs = sum[i][0] > 0 ? si->alloc_objs * (sum[i][2] / sum[i][0]) : 0;
        si->live_bytes = sum[i][1] > 0 ? si->alloc_bytes * (sum[i][3] / sum[i][1]) : 0;
        if (si->live_objs > si->alloc_objs)
            si->live_objs = si->alloc_objs;
        if (si->live_bytes > si->alloc_bytes)
            si->live_bytes = si->alloc_bytes;
    }
    free(sum);
    free(of);
}

const char *const life_gc_bucket_names[LIFE_GC_BUCKETS] = { "0", "1", "2-3", "4-7", "8+" };
const char *const life_ms_bucket_names[LIFE_MS_BUCKETS] = { "<1ms", "<10ms", "<100ms", "<1s", "<10s", "10s+" };

unsigned life_gc_bucket(uint64_t gcs) { return gcs == 0 ? 0 : gcs == 1 ? 1 : gcs < 4 ? 2 : gcs < 8 ? 3 : 4; }

unsigned life_ms_bucket(uint64_t ms)
{
    unsigned t = 0;
    for (uint64_t lim = 1; t < LIFE_MS_BUCKETS - 1 && ms >= lim; lim *= 10)
        t++;
    return t;
}

void model_site_died_at(model *m, site_id id, double objs, uint64_t gcs, uint64_t ms)
{
    if (id.v == 0 || id.v > intern_count(&m->sites))
        return;
    model_site *s = &m->site_info[id.v - 1];
    s->died_by_gcs[life_gc_bucket(gcs)] += objs;
    s->died_by_ms[life_ms_bucket(ms)] += objs;
}

void model_site_died_counts(model *m, site_id id, const double by_gcs[LIFE_GC_BUCKETS],
                            const double by_ms[LIFE_MS_BUCKETS])
{
    if (id.v == 0 || id.v > intern_count(&m->sites))
        return;
    model_site *s = &m->site_info[id.v - 1];
    for (int i = 0; i < LIFE_GC_BUCKETS; i++)
        s->died_by_gcs[i] += by_gcs[i];
    for (int i = 0; i < LIFE_MS_BUCKETS; i++)
        s->died_by_ms[i] += by_ms[i];
}

void model_sites_gc(model *m)
{
    for (uint32_t i = 0; i < intern_count(&m->sites); i++) {
        model_site *s = &m->site_info[i];
        if (s->alloc_objs <= 0)
            continue;
        bool record = s->trough_on;
        float live = (float)s->trough;
        s->trough = s->live_objs - s->young_objs;   /* from now to the next collection */
        if (s->trough < 0)
            s->trough = 0;
        s->trough_on = true;
        if (!record)
            continue;
        uint32_t at = s->gc_seen >> s->gc_shift;
        if (at >= SITE_GC_SPANS) {   /* twice as long spans: merge pairs */
            for (uint32_t j = 0; j < SITE_GC_SPANS / 2; j++) {
                s->gc_min[j] = s->gc_min[2 * j] < s->gc_min[2 * j + 1] ? s->gc_min[2 * j] : s->gc_min[2 * j + 1];
                s->gc_max[j] = s->gc_max[2 * j] > s->gc_max[2 * j + 1] ? s->gc_max[2 * j] : s->gc_max[2 * j + 1];
            }
            s->gc_shift++;
            at = s->gc_seen >> s->gc_shift;
        }
        if ((s->gc_seen & ((1u << s->gc_shift) - 1)) == 0) {
            s->gc_min[at] = s->gc_max[at] = live;
        } else {
            if (live < s->gc_min[at])
                s->gc_min[at] = live;
            if (live > s->gc_max[at])
                s->gc_max[at] = live;
        }
        s->gc_seen++;
    }
}

/* The least of the minima of spans [from, to). */
static float site_span_min(const model_site *s, uint32_t from, uint32_t to)
{
    float v = s->gc_min[from];
    for (uint32_t j = from + 1; j < to; j++)
        v = s->gc_min[j] < v ? s->gc_min[j] : v;
    return v;
}

bool model_site_leak_suspect(const model_site *s)
{
    if (s->live_objs < 1 || s->gc_seen < 8)
        return false;
    uint32_t spans = ((s->gc_seen - 1) >> s->gc_shift) + 1;   /* >= 4, as gc_seen >= 8 */
    float prev = 0, first = 0;
    for (uint32_t q = 0; q < 4; q++) {
        float low = site_span_min(s, q * spans / 4, (q + 1) * spans / 4);
        if (q == 0)
            first = low;
        else if (!(low > prev))
            return false;
        prev = low;
    }
    return prev >= 1.5f * first;
}

void model_site_leak_floors(const model_site *s, double *first, double *last)
{
    uint32_t spans = s->gc_seen ? ((s->gc_seen - 1) >> s->gc_shift) + 1 : 0;
    *first = spans >= 4 ? site_span_min(s, 0, spans / 4) : 0;
    *last = spans >= 4 ? site_span_min(s, 3 * spans / 4, spans) : 0;
}

double model_site_died(const model_site *s)
{
    double died = 0;
    for (int i = 0; i < LIFE_GC_BUCKETS; i++)
        died += s->died_by_gcs[i];
    return died;
}

bool model_site_churn(const model_site *s)
{
    double died = model_site_died(s);
    return s->alloc_objs >= 1 && died >= 0.9 * s->alloc_objs && s->died_by_gcs[0] * 2 > died;
}
