/* collect_cpu_async.c — the collector of cpu=samples with the async sampler
 * (the default): a timer on each Java thread's CPU clock signals it every
 * interval= ms of CPU it uses, and the handler takes its stack with
 * AsyncGetCallTrace (async_sampler.c, shared with wall=). The agent thread
 * drains the samples every 20 to 100 ms (async_sampler_period_ms). */
#include "async_sampler.h"
#include "../core/collector.h"

static bool cpu_async_wanted(const agent_options *o)
{
    return o->cpu == OPTIONS_CPU_SAMPLES && o->sampler == OPTIONS_SAMPLER_ASYNC;
}

static unsigned cpu_async_period(const jp_session *session)
{
    return async_sampler_period_ms((jp_session *)session);
}

const collector cpu_async_collector = {
    .name = "cpu=samples",
    .wanted = cpu_async_wanted,
    .capabilities = async_sampler_init,
    .callbacks = async_sampler_callbacks,
    .start = async_sampler_vm_init,
    .thread_start = async_sampler_thread_start,
    .thread_end = async_sampler_thread_end,
    .period_ms = cpu_async_period,
    .drain = async_sampler_drain,
    .describe = async_sampler_log,
    .stop = async_sampler_stop,
    .end = async_sampler_end,
    .unload = async_sampler_unload,
};
