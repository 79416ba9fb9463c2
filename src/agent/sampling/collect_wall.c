/* collect_wall.c — the collector of wall=N: every N ms the agent thread
 * signals every Java thread once, whatever it is doing, and the handler takes
 * its stack and state (async_sampler.c, shared with cpu=samples). */
#include "async_sampler.h"
#include "../core/collector.h"

static bool wall_wanted(const agent_options *o) { return o->wall_ms > 0; }

static unsigned wall_period(const jp_session *session) { return session->opts->wall_ms; }

static void wall_tick(jp_session *session, JNIEnv *jni) { async_sampler_wall_tick(session, jni); }

const collector wall_collector = {
    .name = "wall=",
    .wanted = wall_wanted,
    .capabilities = async_sampler_init,
    .callbacks = async_sampler_callbacks,
    .start = async_sampler_vm_init,
    .thread_start = async_sampler_thread_start,
    .thread_end = async_sampler_thread_end,
    .period_ms = wall_period,
    .tick = wall_tick,
    .drain = async_sampler_drain,
    .describe = async_sampler_log,
    .stop = async_sampler_stop,
    .end = async_sampler_end,
    .unload = async_sampler_unload,
};
