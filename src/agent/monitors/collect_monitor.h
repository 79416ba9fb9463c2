/* collect_monitor.h — monitor=y: the time threads spend blocked on contended
 * monitors and java.util.concurrent locks, and waiting in Object.wait,
 * Conditions and other parks, by stack and class of the object. blocking.c
 * sees the waits; this collector records each one with its stack and class
 * (no global lock; names resolved later by the agent thread). */
#ifndef COLLECT_MONITOR_H
#define COLLECT_MONITOR_H

#include <stdint.h>

/* Time spent recording events, summed over all threads (for the cost line). */
uint64_t monitor_cost_ns(void);

#endif
