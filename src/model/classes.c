/* classes.c — the class table, keyed by dotted class name. The source file
 * is an attribute filled from the first record that knows it. */
#include "model.h"

class_id model_class_intern(model *m, str_id name, str_id source_file)
{
    bool added;
    uint32_t id = intern_put(&m->classes, &name, sizeof name, &added);
    if (!id) {
        m->oom = true;
        return (class_id){ 0 };
    }
    if (added && !model_grow((void **)&m->class_info, &m->class_info_cap, id, sizeof *m->class_info)) {
        m->oom = true;
        return (class_id){ 0 };
    }
    model_class *c = &m->class_info[id - 1];
    c->name = name;
    if (c->source_file.v == 0)
        c->source_file = source_file;
    return (class_id){ id };
}

const model_class *model_class_get(const model *m, class_id id)
{
    if (id.v == 0 || id.v > intern_count(&m->classes))
        return NULL;
    return &m->class_info[id.v - 1];
}
