/* monitors.c — monitors and locks threads blocked or waited on, keyed by
 * (trace, class of the monitor or lock object, blocked or waiting), with the
 * number of contended enters, waits or parks and the time spent. */
#include "model.h"

monitor_id model_monitor_intern(model *m, trace_id trace, str_id class_name, model_monitor_kind kind)
{
    struct { trace_id t; str_id c; uint32_t k; } key = { trace, class_name, (uint32_t)kind };
    bool added;
    uint32_t id = intern_put(&m->monitors, &key, sizeof key, &added);
    if (!id) {
        m->oom = true;
        return (monitor_id){ 0 };
    }
    if (added) {
        if (!model_grow((void **)&m->monitor_info, &m->monitor_info_cap, id, sizeof *m->monitor_info)) {
            m->oom = true;
            return (monitor_id){ 0 };
        }
        m->monitor_info[id - 1] = (model_monitor){ trace, class_name, kind, 0, 0 };
    }
    return (monitor_id){ id };
}

void model_monitor_add(model *m, monitor_id id, uint64_t count, uint64_t time_ns)
{
    if (id.v == 0 || id.v > intern_count(&m->monitors))
        return;
    m->monitor_info[id.v - 1].count += count;
    m->monitor_info[id.v - 1].time_ns += time_ns;
}

const model_monitor *model_monitor_get(const model *m, monitor_id id)
{
    if (id.v == 0 || id.v > intern_count(&m->monitors))
        return NULL;
    return &m->monitor_info[id.v - 1];
}

uint64_t model_monitor_total_ns(const model *m, model_monitor_kind kind)
{
    uint64_t t = 0;
    for (uint32_t i = 0; i < intern_count(&m->monitors); i++)
        if (m->monitor_info[i].kind == kind)
            t += m->monitor_info[i].time_ns;
    return t;
}
