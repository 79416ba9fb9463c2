/* jvmti_util.h — checked JVMTI calls: jvmti_check() maps a jvmtiError to a
 * jp_status and logs GetErrorName with the call site once per site (never
 * fatal: at run time a failure disables a capability, it never exits the
 * VM), and jvmti_free() deallocates JVMTI-owned memory. */
#ifndef JVMTI_UTIL_H
#define JVMTI_UTIL_H

#include <jvmti.h>
#include <stdbool.h>

#include "../../common/jp_error.h"

jp_status jvmti_check_at(jvmtiError err, const char *call, const char *file, int line);
#define jvmti_check(err, call) jvmti_check_at((err), (call), __FILE__, __LINE__)
void jvmti_free(void *p);
/* Turns a JVMTI event on or off for all threads (agent.h's environment). */
jp_status jvmti_event(jvmtiEvent ev, bool on);

/* JVMTI's allocation sampler (can_generate_sampled_object_alloc_events)
 * belongs to one JVMTI environment at a time. jvmprof takes it in the
 * profile's environment for heap=sites and in the trace's for trace=alloc,
 * each for one session, and gives it back at the session's end, so that the
 * other can have it in a later session.
 *   jvmti_sampler_check  before env adds it for `option`: JP_OK if env can
 *                        have it (or has it); else why (which holds it:
 *                        jvmprof's other option, or another JVMTI agent)
 *                        in one line, and JP_ERR_JVMTI
 *   jvmti_sampler_taken  once env has it, for `option`
 *   jvmti_sampler_give_back  env's session ended (its events off, no
 *                        callback in flight): RelinquishCapabilities */
jp_status jvmti_sampler_check(jvmtiEnv *env, const char *option, char *why, size_t len);
void jvmti_sampler_taken(jvmtiEnv *env, const char *option);
void jvmti_sampler_give_back(jvmtiEnv *env);

#endif
