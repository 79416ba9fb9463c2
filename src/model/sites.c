/* sites.c — allocation sites (heap=sites), keyed by (trace, class name,
 * array or not), with what was allocated there and what of it is still
 * live, in objects and bytes. Sampled allocations add estimates, so the
 * counters are doubles; exact counting would add whole numbers. */
#include "model.h"

site_id model_site_intern(model *m, trace_id trace, class_id cls, bool is_array)
{
    struct { trace_id t; class_id c; uint32_t a; } key = { trace, cls, is_array };
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
        m->site_info[id - 1] = (model_site){ trace, cls, is_array, 0, 0, 0, 0 };
    }
    return (site_id){ id };
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
}

const model_site *model_site_get(const model *m, site_id id)
{
    if (id.v == 0 || id.v > intern_count(&m->sites))
        return NULL;
    return &m->site_info[id.v - 1];
}
