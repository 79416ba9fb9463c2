/* async_sampler.h — stack sampling without safepoint bias: a SIGPROF handler
 * calls the JVM's AsyncGetCallTrace on the interrupted thread and writes the
 * frames into a preallocated lock-free ring; the agent thread drains the ring
 * into the model. cpu=samples arms a timer on each Java thread's own CPU
 * clock (one signal per interval= ms of CPU it uses); wall= has the agent
 * thread signal every Java thread each period, passing the thread's state in
 * the signal. */
#ifndef ASYNC_SAMPLER_H
#define ASYNC_SAMPLER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"
#include "../core/session_ctx.h"

/* The session's preparation (capabilities): finds AsyncGetCallTrace, makes
 * the engine's part of the session (JP_PART_ASYNC_SAMPLER) and its ring,
 * installs the signal handler and requests the class events
 * AsyncGetCallTrace needs. */
jp_status async_sampler_init(jp_session *session, jvmtiCapabilities *caps);
/* Agent_OnLoad: the class and compiled-code callbacks it needs. */
void async_sampler_callbacks(jvmtiEventCallbacks *cb);
/* VMInit: class events on, the jmethodIDs of loaded classes made ready, and sampling started. */
jp_status async_sampler_vm_init(jp_session *session, JNIEnv *jni);
/* On a Java thread itself, when it starts (and for the VMInit thread): keeps
 * its JNIEnv in the thread's record for the handler (which takes the serial
 * from there too) and, with cpu=samples, arms its CPU timer. */
void async_sampler_thread_start(jp_session *session, JNIEnv *jni, uint32_t serial);
/* On a Java thread itself, when it ends: disarms and deletes its timer. */
void async_sampler_thread_end(jp_session *session, JNIEnv *jni);
/* The agent thread, every wall= period: signals every Java thread once. */
void async_sampler_wall_tick(jp_session *session, JNIEnv *jni);
/* The agent thread: moves the ring's samples into the model. */
void async_sampler_drain(jp_session *session, JNIEnv *jni);
/* cpu=samples: how often the agent thread drains the ring, in ms: rarely enough that waking costs little (at most
 * 100 ms), often enough that all the CPUs' samples of a period fill at most a quarter of the ring (the CPU clock
 * gives one per interval= ms of a thread's CPU), and 20 ms for events that are not the CPU clock's. */
unsigned async_sampler_period_ms(jp_session *session);
/* VM death: the handler stops recording (timers may still fire; they are ignored). */
void async_sampler_stop(jp_session *session, JNIEnv *jni);
/* After the session's last report: the threads' CPU timers deleted, the ring and the part's buffers
 * freed (the session frees the part, with its counts). */
void async_sampler_end(jp_session *session, JNIEnv *jni);
/* Agent_OnUnload: SIGPROF is ignored from now on. */
void async_sampler_unload(void);
/* Its two lines in the verbose log: samples taken and every failure by
 * reason, then the time the handler and the ClassPrepare callback took on
 * the program's threads. */
void async_sampler_log(jp_session *session);

#endif
