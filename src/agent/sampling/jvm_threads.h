/* jvm_threads.h — threads=all: the JVM's own threads (GC workers, the VM
 * thread, the JIT compilers: the threads of the process that are not Java
 * threads the agent registered), found in /proc/self/task by the agent
 * thread, each given a serial, a name (the OS's, from /proc/self/task/TID/comm)
 * and a CPU timer (a perf_event task clock with kernel callchains where the
 * kernel allows, else a POSIX timer on the thread's CPU clock) that signals
 * it like a Java thread's. The handler asks which JVM thread a signal is for. */
#ifndef JVM_THREADS_H
#define JVM_THREADS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../../native/perf_spec.h"
#include "../../native/perf_thread.h"

/* Agent thread: begins watching (spec and period as the Java threads'
 * timers; kernel: ask for kernel callchains). signo is the sampler's signal. */
void jvm_threads_begin(const perf_spec *spec, uint64_t period, bool use_perf, bool kernel, int signo,
                       unsigned interval_ms);
/* Agent thread: whether a scan is due (at most one a second). */
bool jvm_threads_due(void);
/* Agent thread, when due: finds new threads (not Java threads now: a
 * Java thread not yet registered that is taken for one is let go at the next
 * scan, and the handler never counts a registered Java thread's signal from
 * such a timer), names them in m, arms their timers; forgets the threads gone. java_tids: the Java threads' OS ids now
 * (sorted), n of them. */
void jvm_threads_scan(model *m, const uint32_t *java_tids, uint32_t n);
/* Handler, async-signal-safe: the serial of the JVM thread si is a timer
 * signal of (0: none), and its perf event (NULL: a POSIX timer's). */
uint32_t jvm_threads_of_signal(const siginfo_t *si, perf_thread **pt);
/* Agent thread: closes every timer (after which no new signal comes; the
 * caller waits for handlers inside before calling jvm_threads_free). */
void jvm_threads_stop(void);
void jvm_threads_free(void);
/* The count of JVM threads seen and of those sampled now. */
void jvm_threads_counts(uint32_t *seen, uint32_t *armed);

#endif
