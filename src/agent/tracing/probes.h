/* probes.h — the agent's side of com.sun.tracing's providers (probes.c):
 * their probes in a table, each with a word Java reads to know whether
 * anything listens; each provider's USDT probes in a shared object of its
 * own (src/elf/usdt_elf.h) made, loaded and removed here; a firing handed
 * to the trace (and so to plugins), to the provider's USDT probe and to the
 * fixed probe jvmprof:probe compiled into the agent. The Java side:
 * java/jvmprof/ProbeRuntime.java. */
#ifndef PROBES_H
#define PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../trace/probe_args.h"

/* A probe as a consumer of the trace sees it (names NUL-terminated, never freed). */
typedef struct probe_info {
    uint64_t id;                    /* the probe's number in the trace */
    uint32_t provider_id;
    const char *provider, *module, *function, *name, *attributes;
    char kinds[PROBE_ARGS_MAX + 1];
} probe_info;

/* The probe of a key (what a `probe` event's second field is to the trace's
 * consumers), if its provider lives (false: disposed or none). */
bool probes_info(uint64_t key, probe_info *out);

/* A trace session that records probes begins (true) or ends (false): every
 * probe's word says so. */
void probes_trace_listen(bool on);

/* The JVM exits: the shared objects' files and directories removed (the
 * mappings stay until the process ends). */
void probes_exit(void);

#endif
