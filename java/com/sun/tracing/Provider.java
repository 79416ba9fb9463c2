/*
 * Provider.java: the interface every provider extends (com.sun.tracing, as in
 * JDK 7 and 8, which no longer ship it). A provider is an interface whose
 * methods are probes; ProviderFactory makes an instance of it, and calling a
 * method fires that probe. jvmprof's implementation: jvmprof.ProbeProviders.
 */
package com.sun.tracing;

import java.lang.reflect.Method;

public interface Provider {
    /**
     * The probe of one of this provider's methods, or null if the method is
     * not one of its probes.
     */
    Probe getProbe(Method method);

    /**
     * Removes this provider's probes from the system's tracers and frees what
     * they hold. After it, calling a probe does nothing (and throws nothing),
     * and every probe's isEnabled() is false.
     */
    void dispose();
}
