/* threads.c — threads by serial number (1-based, assigned by the agent as
 * threads start), and the ordered log of thread start/end events that the
 * writers replay as THREAD START / THREAD END records. Threads of the JVM's
 * own (GC, compilers: no java.lang.Thread) are marked jvm_internal. */
#include "model.h"

static void model_thread_log(model *m, model_thread_event_kind kind, uint32_t serial)
{
    if (!model_grow((void **)&m->thread_events, &m->thread_events_cap, m->thread_events_len + 1,
                    sizeof *m->thread_events)) {
        m->oom = true;
        return;
    }
    m->thread_events[m->thread_events_len++] = (model_thread_event){ kind, serial };
}

void model_thread_start(model *m, uint32_t serial, uint64_t object_id, str_id name, str_id group,
                        str_id parent_group)
{
    if (serial == 0)
        return;
    if (!model_grow((void **)&m->threads, &m->threads_cap, serial, sizeof *m->threads)) {
        m->oom = true;
        return;
    }
    m->threads[serial - 1] = (model_thread){ true, object_id, name, group, parent_group, false, 0, false };
    model_thread_log(m, MODEL_THREAD_START, serial);
}

void model_thread_start_jvm(model *m, uint32_t serial, str_id name)
{
    model_thread_start(m, serial, 0, name, model_cstring(m, "jvm"), (str_id){ 0 });
    model_thread_set_jvm_internal(m, serial);
}

void model_thread_set_jvm_internal(model *m, uint32_t serial)
{
    if (serial == 0 || serial > m->threads_cap || !m->threads[serial - 1].known)
        return;
    m->threads[serial - 1].jvm_internal = true;
}

bool model_has_jvm_threads(const model *m)
{
    for (uint32_t i = 0; i < m->threads_cap; i++)
        if (m->threads[i].known && m->threads[i].jvm_internal)
            return true;
    return false;
}

void model_thread_end(model *m, uint32_t serial)
{
    if (serial == 0 || serial > m->threads_cap || !m->threads[serial - 1].known)
        return;
    model_thread_log(m, MODEL_THREAD_END, serial);
}

void model_thread_set_virtual(model *m, uint32_t serial, uint32_t carrier)
{
    if (serial == 0 || serial > m->threads_cap || !m->threads[serial - 1].known)
        return;
    m->threads[serial - 1].virtual_thread = true;
    m->threads[serial - 1].carrier = carrier;
}

const model_thread *model_thread_get(const model *m, uint32_t serial)
{
    if (serial == 0 || serial > m->threads_cap || !m->threads[serial - 1].known)
        return NULL;
    return &m->threads[serial - 1];
}
