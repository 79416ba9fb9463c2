/* agent_env.c — see agent_env.h. */
#include "agent_env.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "../../common/jp_log.h"

/* see agent_env.h: the agent in this JVM, for the JVM's life */
struct agent_jvm agent_jvm;
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

uint64_t agent_wall_ns_of(uint64_t mono_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t wall = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, now = agent_now_ns();
    uint64_t ago = now > mono_ns ? now - mono_ns : 0;
    return wall > ago ? wall - ago : wall;
}

void agent_set_own_thread(jobject thread) { agent_jvm.own_thread = thread; }

bool agent_is_own_thread(JNIEnv *jni, jthread thread)
{
    return agent_jvm.own_thread && (*jni)->IsSameObject(jni, thread, agent_jvm.own_thread);
}

void agent_add_jar(void)
{
    if (agent_jvm.jar_added || !agent_jvm.jvmti)
        return;
    agent_jvm.jar_added = true;
    Dl_info info;
    if (!dladdr((void *)agent_add_jar, &info) || !info.dli_fname)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s", info.dli_fname);
    char *slash = strrchr(path, '/');
    if (slash)
        snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "jvmprof.jar");
    else
        snprintf(path, sizeof path, "jvmprof.jar");
    if (access(path, R_OK) != 0) {
        jp_log_debug("%s not found: the jvmprof.Control API is unavailable", path);
        return;
    }
    jvmtiError e = (*agent_jvmti)->AddToBootstrapClassLoaderSearch(agent_jvmti, path);
    if (e != JVMTI_ERROR_NONE)
        jp_log_error("%s cannot be added to the boot class path (JVMTI error %d): jvmprof.Control, cpu=times and "
                     "trace= cannot run", path, (int)e);
}
