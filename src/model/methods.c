/* methods.c — the method table, keyed by (class, name, signature). The key
 * itself is the record, so lookups need no side array. */
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
