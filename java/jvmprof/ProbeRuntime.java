/*
 * ProbeRuntime.java: what a provider's generated class calls when one of its
 * probes is fired (ProbeProviders makes those classes), and the agent's
 * natives behind it. Public because the generated classes live in their
 * interfaces' packages; not an API.
 *
 * Each probe has a word in the agent's memory, never freed, that is non-zero
 * while anything listens to it (its USDT semaphore, the fixed probe's, the
 * trace, a plugin); a probe call reads it (one load once compiled) and calls
 * the agent only when it is set.
 */
package jvmprof;

import java.lang.reflect.Field;

public final class ProbeRuntime {
    private ProbeRuntime() {}

    private static final sun.misc.Unsafe U = unsafe();

    private static sun.misc.Unsafe unsafe() {
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Whether anything listens to the probe whose word is at address (a volatile read: a loop sees a tracer come). */
    public static boolean on(long address) {
        return U.getIntVolatile(null, address) != 0;
    }

    /**
     * Fires a probe: key names it (the agent ignores a key of a disposed
     * provider), values holds every argument as a long (integers by value,
     * float and double as their bits, String and other objects 0), strings
     * the String arguments at their places (null when the probe has none).
     */
    public static native void fire(long key, long[] values, Object[] strings);

    /** A boxed argument as a long: its value (a Float or Double: its bits); null and others: 0. */
    public static long unbox(Object o) {
        if (o instanceof Integer)
            return (Integer) o;
        if (o instanceof Long)
            return (Long) o;
        if (o instanceof Boolean)
            return ((Boolean) o) ? 1 : 0;
        if (o instanceof Short)
            return (Short) o;
        if (o instanceof Byte)
            return (Byte) o;
        if (o instanceof Character)
            return (Character) o;
        if (o instanceof Float)
            return Float.floatToRawIntBits((Float) o);
        if (o instanceof Double)
            return Double.doubleToRawLongBits((Double) o);
        return 0;
    }

    /** Whether Unsafe could be had (without it, providers are made without the agent). */
    static boolean usable() {
        return U != null;
    }

    /**
     * Registers a provider with the agent: out[0] gets its handle, out[1 + i]
     * probe i's key, out[1 + n + i] the address of its word. Returns null, or
     * why it could not (the agent is out of probes). UnsatisfiedLinkError
     * without an agent.
     */
    static native String create0(String provider, String module, String attributes, String[] probes,
                                 String[] functions, String[] kinds, boolean usdt, long[] out);

    static native void dispose0(long handle);

    /** Whether anything listens to the probe now (its semaphore read afresh). */
    static native boolean enabled0(long key);

    /** The generated shared object's path, or null (no USDT probes). */
    static native String file0(long handle);
}
