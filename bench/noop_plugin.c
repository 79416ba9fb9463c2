/* noop_plugin.c — a jvmprof plugin that does nothing with its events: what
 * delivering an event to a plugin costs (bench/plugin_cost.sh). */
#include <jvmprof/plugin.h>

const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    (void)args, (void)support;
    return 0;
}

void jvmprof_plugin_event(const jvmprof_event *e) { (void)e; }
