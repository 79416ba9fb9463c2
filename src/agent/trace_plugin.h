/* trace_plugin.h — plugin=PATH[:ARGS] (trace_plugin.c): a user's library
 * that receives the events of trace= through include/jvmprof/plugin.h.
 * collect_trace.c loads it and brackets each session with begin and end. */
#ifndef TRACE_PLUGIN_H
#define TRACE_PLUGIN_H

#include "../common/jp_error.h"

/* Loads PATH (ARGS after the first ':' go to its startup), once per JVM.
 * JP_ERR_ARG after one line naming the library and why it was refused. */
jp_status trace_plugin_load(const char *spec);
/* A session's start (what: its OPTIONS_TRACE_*) and end: the plugin's begin
 * and end, its events between them. */
void trace_plugin_begin(unsigned what);
void trace_plugin_end(void);
/* The JVM ends: its end (if begun), then its shutdown. */
void trace_plugin_shutdown(void);

#endif
