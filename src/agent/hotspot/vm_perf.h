/* vm_perf.h — HotSpot's jvmstat counters (the ones jstat reads, e.g.
 * sun.gc.collector.0.invocations, sun.gc.cause), read in the JVM's own
 * memory: the counters' region is found through gHotSpotVMStructs
 * (PerfMemory::_start), and a counter is found once by its name; reading it
 * then is one load, fit for a collection's JVMTI callback (no lock, no
 * call). Without -XX:+UsePerfData (or another layout) nothing is found. */
#ifndef VM_PERF_H
#define VM_PERF_H

#include <stddef.h>
#include <stdint.h>

/* The address of the 64-bit counter NAME (a 'J' scalar), or NULL. */
const volatile int64_t *vm_perf_long(const char *name);
/* The address and capacity of the string counter NAME (a 'B' vector, NUL-terminated), or NULL. */
const volatile char *vm_perf_string(const char *name, size_t *cap);

#endif
