/* jvmti_util.h — checked JVMTI calls: jvmti_check() maps a jvmtiError to a
 * jp_status and logs GetErrorName with the call site once per site (never
 * fatal: at run time a failure disables a capability, it never exits the
 * VM), and jvmti_free() deallocates JVMTI-owned memory. */
#ifndef JVMTI_UTIL_H
#define JVMTI_UTIL_H

#include <jvmti.h>
#include <stdbool.h>

#include "../common/jp_error.h"

jp_status jvmti_check_at(jvmtiError err, const char *call, const char *file, int line);
#define jvmti_check(err, call) jvmti_check_at((err), (call), __FILE__, __LINE__)
void jvmti_free(void *p);
/* Turns a JVMTI event on or off for all threads (agent.h's environment). */
jp_status jvmti_event(jvmtiEvent ev, bool on);

#endif
