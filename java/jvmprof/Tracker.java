/*
 * Tracker.java: the static methods that jvmprof's bytecode rewriter injects
 * calls to. enter/exit bracket every instrumented method (the method's
 * number, which the agent maps back to its name); objectInit and newArray report new objects. Each checks
 * the engaged flag first, so nothing reaches the agent before it is ready
 * (VM init) or after it has stopped; the natives are registered by the
 * agent at VM init. This class itself is never instrumented, and the agent
 * ignores calls made while it is inside its own code on that thread.
 */
package jvmprof;

public final class Tracker {
    private Tracker() {}

    /** Set by the agent (through JNI) once its natives are registered; cleared at VM death. */
    private static volatile boolean engaged;

    public static void enter(int id) {
        if (engaged)
            enter0(id);
    }

    public static void exit(int id) {
        if (engaged)
            exit0(id);
    }

    public static void objectInit(Object o) {
        if (engaged)
            objectInit0(o);
    }

    public static void newArray(Object a) {
        if (engaged)
            newArray0(a);
    }

    private static native void enter0(int id);
    private static native void exit0(int id);
    private static native void objectInit0(Object o);
    private static native void newArray0(Object a);
}
