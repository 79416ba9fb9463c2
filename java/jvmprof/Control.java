/*
 * Control.java: the Java control API of the jvmprof agent. Lets a program ask
 * the agent, if one is loaded, for a report now (as SIGQUIT does). The agent
 * puts this class on the boot class path itself (from jvmprof.jar, beside
 * libjvmprof.so), so application code can call it without a dependency: when
 * no agent is loaded, the calls do nothing and return false.
 */
package jvmprof;

public final class Control {
    private Control() {}

    /**
     * Asks the agent to write its report (the file= of its options) soon, on the
     * agent's own thread. Returns true if a jvmprof agent took the request.
     */
    public static boolean dump() {
        try {
            return dump0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** The agent's version, or null when no jvmprof agent is loaded. */
    public static String version() {
        try {
            return version0();
        } catch (UnsatisfiedLinkError e) {
            return null;
        }
    }

    private static native boolean dump0();

    private static native String version0();
}
