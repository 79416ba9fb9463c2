/* jvmti_util.c — checked JVMTI calls and deallocation (see jvmti_util.h).
 * Expected failures (a thread that just died, a class that unloaded) are
 * logged at debug level only; the caller decides what to do. */
#include "jvmti_util.h"

#include "../common/jp_log.h"
#include "agent_env.h"

jp_status jvmti_check_at(jvmtiError err, const char *call, const char *file, int line)
{
    if (err == JVMTI_ERROR_NONE)
        return JP_OK;
    char *name = NULL;
    if (agent_jvmti)
        (*agent_jvmti)->GetErrorName(agent_jvmti, err, &name);
    if (err == JVMTI_ERROR_WRONG_PHASE || err == JVMTI_ERROR_THREAD_NOT_ALIVE ||
        err == JVMTI_ERROR_INVALID_METHODID || err == JVMTI_ERROR_INVALID_CLASS ||
        err == JVMTI_ERROR_ABSENT_INFORMATION)
        jp_log_debug("%s failed: %s (%d) at %s:%d", call, name ? name : "?", (int)err, file, line);
    else
        jp_log_error("%s failed: %s (%d) at %s:%d", call, name ? name : "?", (int)err, file, line);
    jvmti_free(name);
    return JP_ERR_JVMTI;
}

void jvmti_free(void *p)
{
    if (p && agent_jvmti)
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)p);
}

jp_status jvmti_event(jvmtiEvent ev, bool on)
{
    return jvmti_check((*agent_jvmti)->SetEventNotificationMode(agent_jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE, ev,
                                                                NULL),
                       "SetEventNotificationMode");
}
