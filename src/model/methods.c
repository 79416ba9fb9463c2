/* methods.c — the method table, keyed by (class, name, signature). The key
 * itself is the record, so lookups need no side array; cpu=times' counted
 * calls are a side array by method id. */
#include "model.h"

method_id model_method_intern(model *m, class_id cls, str_id name, str_id sig)
{
    model_method key = { cls, name, sig };
    uint32_t id = intern_put(&m->methods, &key, sizeof key, NULL);
    if (!id)
        m->oom = true;
    return (method_id){ id };
}

const model_method *model_method_get(const model *m, method_id id)
{
    if (id.v == 0 || id.v > intern_count(&m->methods))
        return NULL;
    return intern_key(&m->methods, id.v, NULL);
}

void model_method_add_counted(model *m, method_id me, uint64_t calls)
{
    if (me.v == 0)
        return;
    if (!model_grow((void **)&m->method_counted, &m->method_counted_cap, me.v, sizeof *m->method_counted)) {
        m->oom = true;
        return;
    }
    m->method_counted[me.v - 1] += calls;
    m->total_counted += calls;
}

uint64_t model_method_counted(const model *m, method_id me)
{
    return me.v == 0 || me.v > m->method_counted_cap ? 0 : m->method_counted[me.v - 1];
}
