/*
 * ProviderFactory.java: makes instances of provider interfaces. The default
 * factory is jvmprof's: its providers' probes reach jvmprof's trace, its
 * plugins and Linux's tracers (USDT probes) when the jvmprof agent is
 * loaded, and do nothing, cheaply, when it is not.
 */
package com.sun.tracing;

public abstract class ProviderFactory {
    protected ProviderFactory() {}

    /**
     * Makes an instance of the provider interface cls, whose methods fire its
     * probes.
     *
     * @throws NullPointerException if cls is null
     * @throws IllegalArgumentException if cls is not an interface extending
     *         Provider, a method returns a value, a parameter has a type a
     *         probe cannot carry (an array), a probe has more than 12
     *         parameters, or a name is not one tracers accept (the message
     *         says which and why)
     */
    public abstract <T extends Provider> T createProvider(Class<T> cls);

    /**
     * The system's factory. The property com.sun.tracing.dtrace=disable keeps
     * its providers from the system's tracers (no USDT probes); jvmprof's
     * trace and plugins still receive their probes.
     */
    public static ProviderFactory getDefaultFactory() {
        return jvmprof.ProbeProviders.factory();
    }
}
