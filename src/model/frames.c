/* frames.c — the frame table, keyed by (method, line); HPROF's FRAME. */
#include "model.h"

frame_id model_frame_intern(model *m, method_id method, int32_t line)
{
    model_frame key = { method, line };
    uint32_t id = intern_put(&m->frames, &key, sizeof key, NULL);
    if (!id)
        m->oom = true;
    return (frame_id){ id };
}

const model_frame *model_frame_get(const model *m, frame_id id)
{
    if (id.v == 0 || id.v > intern_count(&m->frames))
        return NULL;
    return intern_key(&m->frames, id.v, NULL);
}
