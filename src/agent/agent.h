/* agent.h — what the agent's modules share after load: the JVMTI
 * environment and the options, both fixed once Agent_OnLoad has returned,
 * plus the monotonic and wall clocks every collector uses. */
#ifndef AGENT_H
#define AGENT_H

#include <jvmti.h>
#include <stdint.h>

#include "../options/options.h"

extern jvmtiEnv *agent_jvmti;
extern const agent_options *agent_opts;

uint64_t agent_now_ns(void);   /* CLOCK_MONOTONIC */
uint64_t agent_wall_ms(void);  /* CLOCK_REALTIME, ms since the epoch */

#endif
