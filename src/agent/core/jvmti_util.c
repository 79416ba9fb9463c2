/* jvmti_util.c — checked JVMTI calls and deallocation (see jvmti_util.h).
 * Expected failures (a thread that just died, a class that unloaded) are
 * logged at debug level only; the caller decides what to do. */
#include "jvmti_util.h"

#include <stdio.h>
#include <string.h>

#include "../../common/jp_log.h"
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

/* ---- JVMTI's allocation sampler, one environment at a time ---- */

/* Which of jvmprof's environments holds the sampler, and for which option
 * (both set and read under the session's lock, session.c). Global: the
 * environments live as long as the JVM, and one session's collector may keep
 * holding it while the next session asks for it. */
static struct {
    jvmtiEnv *env;
    const char *option;
} jvmti_sampler;

jp_status jvmti_sampler_check(jvmtiEnv *env, const char *option, char *why, size_t len)
{
    jvmtiCapabilities has, could;
    memset(&has, 0, sizeof has);
    memset(&could, 0, sizeof could);
    if ((*env)->GetCapabilities(env, &has) == JVMTI_ERROR_NONE && has.can_generate_sampled_object_alloc_events)
        return JP_OK;
    if ((*env)->GetPotentialCapabilities(env, &could) == JVMTI_ERROR_NONE &&
        could.can_generate_sampled_object_alloc_events)
        return JP_OK;
    if (jvmti_sampler.env && jvmti_sampler.env != env)
        snprintf(why, len, "%s: JVMTI's allocation sampler (can_generate_sampled_object_alloc_events), which one "
                 "JVMTI environment holds at a time, is held by jvmprof's %s, whose session has not ended; "
                 "stop it first", option, jvmti_sampler.option);
    else
        snprintf(why, len, "%s: JVMTI's allocation sampler (can_generate_sampled_object_alloc_events), which one "
                 "JVMTI environment holds at a time, is held by another JVMTI agent in this JVM; %s cannot run "
                 "while it does", option, option);
    return JP_ERR_JVMTI;
}

void jvmti_sampler_taken(jvmtiEnv *env, const char *option)
{
    jvmti_sampler.env = env;
    jvmti_sampler.option = option;
}

void jvmti_sampler_give_back(jvmtiEnv *env)
{
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    jvmti_check((*env)->RelinquishCapabilities(env, &caps), "RelinquishCapabilities(allocation sampler)");
    if (jvmti_sampler.env == env)
        jvmti_sampler.env = NULL, jvmti_sampler.option = NULL;
}
