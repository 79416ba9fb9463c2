/* triggers.h — trigger=: record=y's recording dumped by the agent itself when
 * something goes wrong. The trigger collector (collector.h: trigger_collector)
 * watches for an OutOfMemoryError (JVMTI ResourceExhausted), SIGQUIT (the
 * session's DataDumpRequest hands it over), the process's CPU above
 * cpu_above= for cpu_for= (read by the agent thread's poll) and a call of
 * trace=exec slower than mintime= (the trace collector hands it over); the
 * agent thread writes each dump (profiler_dump_trigger) to trigger_file= with
 * %n its number, at most one per trigger per trigger_interval=. What the
 * callbacks do takes no lock and allocates nothing: a flag, a few words, a
 * wake-up. */
#ifndef TRIGGERS_H
#define TRIGGERS_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

/* SIGQUIT (the DataDumpRequest callback): true when the running session has trigger=quit, which then
 * takes it (a dump of the recording, soon, on the agent thread); false: the usual report is for the caller
 * to ask for. */
bool triggers_quit(void);
/* A call of trace=exec that lasted mintime= or more ended (on its thread, from the trace collector):
 * method is its BCI id (bci.h), thread its thread's serial (0: unknown), start_ns its start
 * (agent_now_ns) and took_ns its length. Only the first such call since the agent thread's last look is
 * kept; the others are counted. */
void triggers_slow_call(uint32_t method, uint32_t thread, uint64_t start_ns, uint64_t took_ns);
/* After the agent thread stopped (a session's stop, VM death): what fired and was not dumped yet (an
 * OutOfMemoryError that ends the program) is dumped now, on the caller's thread. */
void triggers_flush(JNIEnv *jni);

#endif
