/* perf_spec.h — what a perf_event sampler counts: the event= text parsed into perf_event_attr's type and config
 * (the task clock, a hardware or software event, a tracepoint by name, a native function's execute breakpoint),
 * the attribute built from it, and whether this machine can count it at all. Linux only; no JVMTI. */
#ifndef JP_NATIVE_PERF_SPEC_H
#define JP_NATIVE_PERF_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>

#include <linux/perf_event.h>

typedef struct perf_spec {
    uint32_t type;
    uint64_t config;   /* perf_event_attr's */
    uint64_t bp_addr;  /* PERF_TYPE_BREAKPOINT: the address */
    char name[64];     /* as the user wrote it, for messages and reports */
    bool time_based;   /* cpu-clock / task-clock: period in ns */
} perf_spec;

/* The longest event= text accepted (a tracepoint's SYS:NAME or a function's name included). */
#define PERF_SPEC_NAME_MAX 63

/* Parses event= text: cpu (= task clock, the default; task-clock and cpu-clock are also accepted), cycles,
 * instructions, cache-misses, cache-references, branch-misses, branches, page-faults, minor-faults, major-faults,
 * context-switches, cpu-migrations, SYS:NAME (a tracepoint: its id read from
 * /sys/kernel/tracing/events/SYS/NAME/id or /sys/kernel/debug/tracing/...), or returns 1 when the text is none of
 * those and could be a function name (out->name holds it: the caller resolves it and calls perf_spec_breakpoint);
 * -1 with a one-line message in err naming what was wrong and what is accepted. Names are matched ignoring case. */
int perf_spec_parse(const char *text, perf_spec *out, char *err, size_t errlen);

/* A hardware execute breakpoint (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X, sizeof(long) bytes) at addr, named name. */
void perf_spec_breakpoint(perf_spec *out, const char *name, uint64_t addr);

/* The attribute for spec sampled every period (ns for a time-based spec, else events), stopped (disabled = 1, for
 * PERF_EVENT_IOC_ENABLE), waking at each sample, with the kernel included (exclude_kernel = 0: without it the
 * task clock takes no sample while the thread runs in the kernel, see perf_thread.h) and the hypervisor excluded. */
void perf_spec_attr(const perf_spec *spec, uint64_t period, struct perf_event_attr *a);

/* Whether this machine can count spec at all: opens it once on the calling thread and closes it; false with the
 * reason ("cycles: not supported by this machine (perf_event_open: No such file or directory)"). When only user
 * mode can be counted (perf_event_paranoid > 1 without CAP_PERFMON), true with why saying so; else why is "". */
bool perf_spec_probe(const perf_spec *spec, char *why, size_t whylen);

/* Whether the kernel may be left out of spec when it refuses to count it: not for a tracepoint, context-switches
 * or cpu-migrations (they fire in the kernel, with its registers: user mode only, nothing is counted), nor for a
 * clock (its samples in system calls would be lost: the sampler takes a POSIX CPU timer instead). */
bool perf_spec_user_only_ok(const perf_spec *spec);

/* The period when interval= is not given: 10 ms for a clock, 10,000 for the cache and branch misses and
 * cache references, 1,000,000 for the other hardware counters, 1 for the rest (each one). */
uint64_t perf_spec_default_period(const perf_spec *spec);

/* Whether a SIGTRAP is a stray one of spec's execute breakpoint, to be ignored by returning from the handler: the
 * kernel sends one when a debug exception reaches it without a cause in DR6 (it takes it for an INT1 instruction)
 * or for a slot no breakpoint holds. Seen here in a KVM guest about once in 100,000 hits, at the breakpoint's
 * address; returning runs the instruction again, the breakpoint fires again and perf counts it. Without a SIGTRAP
 * handler that ignores these, the process dies (SIGTRAP's default action). Async-signal-safe. */
bool perf_spec_stray_trap(const perf_spec *spec, int signo, const siginfo_t *si);

#endif
