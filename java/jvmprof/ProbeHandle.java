/*
 * ProbeHandle.java: one probe as a com.sun.tracing.Probe object: whether
 * anything listens to it, and firing it with its arguments as objects.
 */
package jvmprof;

import com.sun.tracing.Probe;
import java.lang.reflect.Method;

final class ProbeHandle implements Probe {
    private final Method method;
    private final String kinds;          // a letter per parameter: ProbeProviders.kind
    private final long key, address;     // address 0: no agent
    ProviderState state;

    ProbeHandle(Method method, String kinds, long key, long address) {
        this.method = method;
        this.kinds = kinds;
        this.key = key;
        this.address = address;
    }

    @Override
    public boolean isEnabled() {
        return address != 0 && !state.disposed() && ProbeRuntime.enabled0(key);
    }

    @Override
    public void trigger(Object... args) {
        Class<?>[] types = method.getParameterTypes();
        int n = args == null ? 0 : args.length;
        if (n != types.length)
            throw new IllegalArgumentException("probe " + method.getName() + " takes " + types.length
                                               + " argument(s), not " + n);
        for (int i = 0; i < n; i++) {
            Class<?> t = types[i];
            Class<?> box = t.isPrimitive() ? ProbeProviders.box(t) : t;
            if (args[i] == null ? t.isPrimitive() : !box.isInstance(args[i]))
                throw new IllegalArgumentException("probe " + method.getName() + ": argument " + (i + 1) + " is "
                                                   + (args[i] == null ? "null" : args[i].getClass().getName())
                                                   + ", not " + t.getName());
        }
        if (address == 0 || !ProbeRuntime.on(address) || state.disposed())
            return;
        long[] values = new long[n];
        Object[] strings = null;
        for (int i = 0; i < n; i++) {
            char k = kinds.charAt(i);
            if (k == 's') {
                if (strings == null)
                    strings = new Object[n];
                strings[i] = args[i];
            } else if (k != 'o') {
                values[i] = ProbeRuntime.unbox(args[i]);
            }
        }
        ProbeRuntime.fire(key, values, strings);
    }

    @Override
    public String toString() {
        return "probe " + method.getName();
    }
}
