/* classes.c — the class table, keyed by dotted class name. The source file
 * is an attribute filled from the first record that knows it. A class may
 * stand for a native library or the kernel (code, path, build id): the class
 * of native frames, whose methods are the library's symbols. */
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

class_id model_class_intern_lib(model *m, str_id name, uint8_t code, str_id path, str_id build_id)
{
    if (code != MODEL_CODE_NATIVE && code != MODEL_CODE_KERNEL)
        return (class_id){ 0 };
    str_id src = code == MODEL_CODE_KERNEL ? model_cstring(m, "vmlinux") : name;
    class_id id = model_class_intern(m, name, src);
    if (!id.v)
        return id;
    model_class *c = &m->class_info[id.v - 1];
    c->code = code;
    if (path.v)
        c->path = path;
    else if (!c->path.v && code == MODEL_CODE_KERNEL)
        c->path = model_cstring(m, "[kernel.kallsyms]");
    if (build_id.v)
        c->build_id = build_id;
    return id;
}

bool model_native_unnamed(const char *name, size_t len)
{
    /* "<lib>+0x<hex>", the last '+' followed by 0x and at least one hex digit */
    size_t plus = len;
    while (plus > 0 && name[plus - 1] != '+')
        plus--;
    if (plus < 2 || len - plus < 3 || name[plus] != '0' || name[plus + 1] != 'x')
        return false;
    for (size_t i = plus + 2; i < len; i++) {
        char ch = name[i];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))
            return false;
    }
    return true;
}

uint8_t model_method_code(const model *m, method_id me)
{
    const model_method *mm = model_method_get(m, me);
    const model_class *c = mm ? model_class_get(m, mm->cls) : NULL;
    return c ? c->code : MODEL_CODE_JAVA;
}

frame_kind model_method_native_kind(const model *m, method_id me)
{
    switch (model_method_code(m, me)) {
    case MODEL_CODE_NATIVE: return FRAME_KIND_CPP;
    case MODEL_CODE_KERNEL: return FRAME_KIND_KERNEL;
    default: return FRAME_KIND_UNKNOWN;
    }
}
