/* ticks.h — the fast clock of the per-call and per-wait paths: the CPU's
 * time-stamp counter when the kernel trusts it (constant, non-stop, the
 * system clock source) and CLOCK_MONOTONIC otherwise (JVMPROF_NO_TSC forces
 * that). cpu=times stamps every entry and exit with it, and the blocking
 * hooks count a thread's waits in it (blocking.h), so the two subtract. */
#ifndef TICKS_H
#define TICKS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define TICKS_HAVE_TSC 1
#endif

/* The clock chosen and where its rate is measured from, set once by
 * ticks_init and read by every stamp: for the JVM's life, since a thread's
 * stamps and the rate are compared across sessions. */
extern struct ticks_clock {
    bool tsc;            /* the time-stamp counter, else CLOCK_MONOTONIC */
    uint64_t tsc0, ns0;  /* a stamp and CLOCK_MONOTONIC at ticks_init */
} ticks_clock;

/* Once, in Agent_OnLoad, before any stamp is taken. */
void ticks_init(void);

static inline uint64_t ticks_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t ticks_now(void)
{
#ifdef TICKS_HAVE_TSC
    if (ticks_clock.tsc)
        return __rdtsc();
#endif
    return ticks_mono_ns();
}

/* Nanoseconds per tick, measured since ticks_init (1 on CLOCK_MONOTONIC). */
double ticks_ns_per_tick(void);
/* The same, measured over at least min_ns since ticks_init (spinning for
 * what is left of it): for a rate that must hold from the start. */
double ticks_ns_per_tick_settled(uint64_t min_ns);
/* "time-stamp counter" or "CLOCK_MONOTONIC", for the log. */
const char *ticks_clock_name(void);

#endif
