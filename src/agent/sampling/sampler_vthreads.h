/* sampler_vthreads.h — virtual threads (JDK 21 and later) for the CPU and
 * wall samplers (async_sampler.c): the collector that turns virtual-thread
 * support on for them (cpu=samples with thread=y, and wall=), the weak
 * reference to each virtual thread that wall= samples an unmounted one
 * through, and the model threads samples are counted in: one per (virtual
 * thread, carrier) pair seen, named by the virtual thread, its carrier
 * kept (model_thread.carrier; 0 for an unmounted one's wall samples). */
#ifndef SAMPLER_VTHREADS_H
#define SAMPLER_VTHREADS_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../core/session_ctx.h"

/* Who a sample was taken for: the virtual thread's serial, record index and
 * Thread.threadId(), and the carrier's serial (0: it was unmounted). */
typedef struct sampler_vthread {
    uint32_t serial, index, carrier;
    uint64_t java_id;
} sampler_vthread;

/* The agent thread: the model thread a sample of *who is counted in (made
 * and named at its first sample; name NULL: read from its record if it is
 * still alive, else "virtual-<id>"). 0 when the model has no room. Also
 * monitor=y's, for the waits of virtual threads. */
uint32_t sampler_vthreads_serial(model *m, const sampler_vthread *who, const char *name);

/* The agent thread, for wall=: the unmounted virtual threads now, at most
 * max of them (taking turns from one call to the next of the session), each
 * as a local reference in refs[] and who[]; *live: how many were unmounted,
 * which the ones taken stand for. Returns how many were taken. */
uint32_t sampler_vthreads_unmounted(jp_session *session, JNIEnv *jni, uint32_t max, jthread *refs,
                                    sampler_vthread *who, uint32_t *live);

/* A session's end: the pairs forgotten (a new session's model names them anew). */
void sampler_vthreads_end(void);

#endif
