/*
 * Control.java: the Java control API of the jvmprof agent. Lets a program ask
 * the agent, if one is loaded, for a report now (as SIGQUIT does), for a heap
 * dump, and stop its profiling session and start another with other options
 * (a session: options, start, running, stop, report). The agent
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

    /**
     * Stops the running profiling session (the one given in -agentpath, or the
     * last {@link #start}ed) and writes its report, to the outputs of its
     * options, before returning. The program runs on unprofiled until
     * {@link #start} is called; at exit no further report is written.
     *
     * @return true when a session was stopped and its report written; false
     *         when no jvmprof agent is loaded or no session runs
     * @throws java.io.UncheckedIOException when the report could not be written
     *         (the session is stopped all the same)
     */
    public static boolean stop() {
        String error;
        try {
            error = stop0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
        if (error == null)
            return true;
        if (error.charAt(0) == 'N')
            return false;
        String message = "jvmprof: stop: " + error.substring(1);
        throw new java.io.UncheckedIOException(message, new java.io.IOException(message));
    }

    /**
     * Starts a new profiling session with these options, in the agent's syntax
     * (what follows {@code -agentpath:libjvmprof.so=}, e.g.
     * {@code "cpu=samples,depth=12,file=phase2.txt"}), once the one before was
     * stopped. It ends with {@link #stop} or at exit (its report then, with
     * doe=y, the default). Options that must see the JVM from its start
     * (exact allocation counts, heap=sites,alloc_interval=0) are refused here.
     *
     * @return true when started; false when no jvmprof agent is loaded
     * @throws IllegalArgumentException when the options are refused (the
     *         message names the option and what is accepted)
     * @throws IllegalStateException when a session already runs, or the agent
     *         cannot start one now (the message says why)
     */
    public static boolean start(String options) {
        if (options == null)
            throw new NullPointerException("options");
        String error;
        try {
            error = start0(options);
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
        if (error == null)
            return true;
        String message = "jvmprof: start: " + error.substring(1);
        if (error.charAt(0) == 'A')
            throw new IllegalArgumentException(message);
        throw new IllegalStateException(message);
    }

    /** True while a profiling session runs; false without an agent. */
    public static boolean isRunning() {
        try {
            return running0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /**
     * Adds a user event with this message to the trace, between the events
     * around the call (trace=user). Returns false when no jvmprof agent is
     * loaded or trace=user is off. A message longer than 4096 bytes (in
     * modified UTF-8) is cut there.
     */
    public static boolean userEvent(String message) {
        if (message == null)
            throw new NullPointerException("message");
        try {
            return userEvent0(message);
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /**
     * Writes an object-reference report into the trace (a running trace=
     * session, of any event class): every object reachable from the roots
     * (its id, kind, class and size), each followed by the non-null
     * references it holds and an end marker, as jvmprof trace prints them.
     * The object ids are those of the trace's other events. The JVM is
     * stopped while the heap is walked. Returns false when no agent is
     * loaded, no trace runs, or the report could not be written whole.
     */
    public static boolean objectReferences() {
        try {
            return objectReferences0();
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    private static native boolean userEvent0(String message);

    private static native boolean objectReferences0();

    private static native boolean dump0();

    private static native String stop0();

    private static native String start0(String options);

    private static native boolean running0();

    private static native String version0();

    private static native String dumpHeap0(String file);
}
