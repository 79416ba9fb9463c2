/*
 * Probe.java: one probe of a provider, as an object (Provider.getProbe):
 * whether anything listens to it, and firing it with arguments given as
 * objects.
 */
package com.sun.tracing;

public interface Probe {
    /**
     * Whether any tracer listens to this probe now: a system tracer attached
     * to it (bpftrace, perf, through its USDT probe), or jvmprof's trace or a
     * plugin recording probes. A program may test it before computing costly
     * arguments.
     */
    boolean isEnabled();

    /**
     * Fires the probe with these arguments, as calling its method does. They
     * must match the method's parameters in number and type (a primitive
     * parameter takes its box); otherwise IllegalArgumentException.
     */
    void trigger(Object... args);
}
