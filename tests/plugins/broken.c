/* broken.c — plugins the agent must refuse (t6301), one per -D: NO_EVENT
 * (no jvmprof_plugin_event), OLD_API (built for API version 0), FAILING
 * (its startup returns 7). */
#include <jvmprof/plugin.h>

#ifdef OLD_API
const int jvmprof_plugin_api_version = 0;
#else
const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;
#endif

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    (void)args, (void)support;
#ifdef FAILING
    return 7;
#else
    return 0;
#endif
}

#ifndef NO_EVENT
void jvmprof_plugin_event(const jvmprof_event *e) { (void)e; }
#endif
