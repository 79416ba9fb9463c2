/* code_kinds.h — how a sampled frame was running (interpreted, JIT-compiled,
 * inlined), which AsyncGetCallTrace does not say. It is inferred from the
 * JIT's CompiledMethodLoad/Unload events: a method with compiled code loaded
 * counts as JIT-compiled, and a frame whose caller's loaded compiled code
 * inlines it counts as inlined; any other Java frame as interpreted. The
 * callbacks queue what they saw; the agent thread keeps the tables. */
#ifndef CODE_KINDS_H
#define CODE_KINDS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"
#include "../core/eventq.h"

/* Agent_OnLoad: adds the capability for compiled-method events. */
jp_status code_kinds_init(jvmtiCapabilities *caps);
/* VMInit: enables the events and replays those for code compiled before. */
void code_kinds_vm_init(void);
/* After a session: its events off, every nmethod it knew forgotten (the next
 * session's start asks the JVM for them again). */
void code_kinds_end(void);
void JNICALL code_kinds_compiled_method_load(jvmtiEnv *jv, jmethodID method, jint code_size, const void *code_addr,
                                             jint map_length, const jvmtiAddrLocationMap *map,
                                             const void *compile_info);
void JNICALL code_kinds_compiled_method_unload(jvmtiEnv *jv, jmethodID method, const void *code_addr);
/* The agent thread: the kind of a Java frame running `method`, called from
 * `caller` (NULL for the outermost frame). */
frame_kind code_kinds_of(jmethodID method, jmethodID caller);

#endif
