/* agent_env.c — see agent_env.h. */
#include "agent_env.h"

#include <stdlib.h>
#include <time.h>

#include "../common/jp_log.h"

JavaVM *agent_vm;
jvmtiEnv *agent_jvmti;
const agent_options *agent_opts;
bool agent_late_start;
bool agent_vm_dying;
static jobject agent_env_own_thread;

void agent_set_log_level(const agent_options *o)
{
    jp_log_set_level(getenv("JVMPROF_DEBUG") ? JP_LOG_DEBUG : o->verbose ? JP_LOG_INFO : JP_LOG_ERROR);
}

uint64_t agent_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t agent_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void agent_set_own_thread(jobject thread) { agent_env_own_thread = thread; }

bool agent_is_own_thread(JNIEnv *jni, jthread thread)
{
    return agent_env_own_thread && (*jni)->IsSameObject(jni, thread, agent_env_own_thread);
}
