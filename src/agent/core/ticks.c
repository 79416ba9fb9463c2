/* ticks.c — which clock ticks.h reads, and its rate (see ticks.h). */
#include "ticks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* see ticks.h: set once at load, for the JVM's life */
struct ticks_clock ticks_clock;

static bool ticks_file_has(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, what) != NULL;
    fclose(f);
    return found;
}

void ticks_init(void)
{
#ifdef TICKS_HAVE_TSC
    ticks_clock.tsc = ticks_file_has("/proc/cpuinfo", " constant_tsc") &&
                      ticks_file_has("/proc/cpuinfo", " nonstop_tsc") &&
                      ticks_file_has("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc") &&
                      !getenv("JVMPROF_NO_TSC");
#endif
    ticks_clock.ns0 = ticks_mono_ns();
    ticks_clock.tsc0 = ticks_now();
}

double ticks_ns_per_tick(void)
{
    if (!ticks_clock.tsc)
        return 1.0;
    uint64_t ns = ticks_mono_ns() - ticks_clock.ns0, ticks = ticks_now() - ticks_clock.tsc0;
    return ticks && ns > 1000000 ? (double)ns / (double)ticks : 1.0 / 3.0; /* 3 GHz until measurable */
}

double ticks_ns_per_tick_settled(uint64_t min_ns)
{
    while (ticks_clock.tsc && ticks_mono_ns() - ticks_clock.ns0 < min_ns)
        ; /* the rate measured over at least min_ns: at 10 ms, to within a few parts per million */
    return ticks_ns_per_tick();
}

const char *ticks_clock_name(void) { return ticks_clock.tsc ? "time-stamp counter" : "CLOCK_MONOTONIC"; }
