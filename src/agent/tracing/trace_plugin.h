/* trace_plugin.h — plugin=PATH[:ARGS] (trace_plugin.c): a user's library
 * that receives the events of trace= through include/jvmprof/plugin.h.
 * collect_trace.c loads it and brackets each session with begin and end. */
#ifndef TRACE_PLUGIN_H
#define TRACE_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/jp_error.h"

/* Loads PATH (ARGS after the first ':' go to its startup), once per JVM
 * (after a shutdown, its startup runs again). JP_ERR_ARG, err saying
 * "plugin=PATH: why", if it was refused. */
jp_status trace_plugin_load(const char *spec, char *err, size_t errlen);
/* Whether a plugin is loaded and started. */
bool trace_plugin_loaded(void);
/* A session's start (what: its OPTIONS_TRACE_*) and end: the plugin's begin
 * and end, its events between them. */
void trace_plugin_begin(unsigned what);
void trace_plugin_end(void);
/* The JVM ends: its end (if begun), then its shutdown. */
void trace_plugin_shutdown(void);

#endif
