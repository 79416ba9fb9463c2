/*
 * ProviderState.java: one provider made by ProbeProviders: its probes as
 * Probe objects (getProbe), its handle in the agent, and its disposal. The
 * generated class of the provider holds one and sends getProbe, dispose and
 * toString to it. Public for those classes; not an API.
 */
package jvmprof;

import com.sun.tracing.Probe;
import java.lang.reflect.Method;
import java.util.Map;

public final class ProviderState {
    private final String name;
    private final long handle;          // 0: no agent
    private final Map<Method, ProbeHandle> probes;
    private volatile boolean disposed;

    ProviderState(String name, long handle, Map<Method, ProbeHandle> probes) {
        this.name = name;
        this.handle = handle;
        this.probes = probes;
        for (ProbeHandle p : probes.values())
            p.state = this;
    }

    boolean disposed() {
        return disposed;
    }

    public Probe getProbe(Method method) {
        return method == null ? null : probes.get(method);
    }

    public void dispose() {
        synchronized (this) {
            if (disposed)
                return;
            disposed = true;
        }
        if (handle != 0)
            ProbeRuntime.dispose0(handle);
    }

    /** "MyProvider", with the file of its USDT probes when it has them. */
    @Override
    public String toString() {
        String file = handle != 0 && !disposed ? ProbeRuntime.file0(handle) : null;
        return file == null ? "provider " + name : "provider " + name + " (USDT probes in " + file + ")";
    }
}
