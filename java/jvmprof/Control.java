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
     * agent's own thread. Returns true if a jvmprof agent took the request; a
     * request taken is always written, at the latest when the JVM exits (even
     * with doe=n). Returns false without an agent, when the agent could not
     * start, or once the JVM is past writing its last report.
     */
    public static boolean dump() {
        try {
            return dump0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /**
     * Writes a heap dump of the live objects to {@code file} now, in the HPROF
     * binary format (HPROF's ASCII heap dump when the agent runs with
     * heap=dump,format=a), and returns when the file is complete. The file appears under
     * its name only once it is whole. Works with any jvmprof options.
     *
     * @return true when the dump was written, false when no jvmprof agent is loaded
     * @throws java.io.UncheckedIOException when the dump could not be written
     *         (the message says why: an unwritable path, a full disk ...)
     */
    public static boolean dumpHeap(String file) {
        if (file == null)
            throw new NullPointerException("file");
        String error;
        try {
            error = dumpHeap0(file);
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
        if (error != null) {
            String message = "jvmprof: heap dump to " + file + ": " + error;
            throw new java.io.UncheckedIOException(message, new java.io.IOException(message));
        }
        return true;
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

    private static native String dumpHeap0(String file);
}
