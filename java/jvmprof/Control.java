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
     * Writes the last {@code last} of the recording (an agent started with
     * record=y) to {@code file} now, in the format of the agent's file= (the
     * other outputs, flame=, pprof=, jfr= ..., beside it as a dump writes them
     * when {@code file} is null), and returns when it is written.
     *
     * @return true when written, false when no jvmprof agent is loaded
     * @throws java.io.UncheckedIOException when no recording runs or the file
     *         could not be written (the message says why)
     */
    public static boolean dump(String file, java.time.Duration last) {
        if (last == null)
            throw new NullPointerException("last");
        if (last.isNegative() || last.isZero())
            throw new IllegalArgumentException("last must be above 0: " + last);
        return dumpWindow(file, last.toMillis(), 0, 0);
    }

    /**
     * Writes the window {@code from} .. {@code to} of the recording (times
     * since the profiling session started; {@code to} null: until now) to
     * {@code file}, as {@link #dump(String, java.time.Duration)} does.
     */
    public static boolean dump(String file, java.time.Duration from, java.time.Duration to) {
        if (from == null)
            throw new NullPointerException("from");
        if (from.isNegative() || (to != null && to.compareTo(from) <= 0))
            throw new IllegalArgumentException("the window must have 0 <= from < to: " + from + ", " + to);
        return dumpWindow(file, 0, from.toMillis(), to == null ? 0 : to.toMillis());
    }

    private static boolean dumpWindow(String file, long lastMs, long fromMs, long toMs) {
        String error;
        try {
            error = dumpWindow0(file, lastMs, fromMs, toMs);
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
        if (error != null) {
            String message = "jvmprof: dump" + (file == null ? "" : " to " + file) + ": " + error;
            throw new java.io.UncheckedIOException(message, new java.io.IOException(message));
        }
        return true;
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

    // ---- the tracing API: a program switches tracing on and off ----

    /** tracingBegin flags: exactly one of the three execution levels. */
    public static final int EXECUTION_ON = 1, EXECUTION_LIGHT = 2, EXECUTION_OFF = 4;
    /** exactly one of the three memory levels (collections and deaths; collections; none). */
    public static final int MEMORY_ON = 8, MEMORY_LIGHT = 16, MEMORY_OFF = 32;
    /** exactly one of the two allocation levels. */
    public static final int ALLOCATION_ON = 64, ALLOCATION_OFF = 128;
    /** and any of these. */
    public static final int THREADS = 256, CLASSES = 512, MONITORS = 1024, USER_EVENTS = 2048;
    /** and the firings of com.sun.tracing probes. */
    public static final int PROBES = 4096;

    private static final Object tracing = new Object();
    private static String library;       // the path tracingStartup loaded; null before it (and after tracingShutdown)
    private static boolean begun;

    /**
     * Loads a tracing library (a jvmprof plugin, include/jvmprof/plugin.h)
     * and calls its startup. A plain name is looked for as
     * System.loadLibrary would ("trace": libtrace.so in java.library.path);
     * an absolute path is taken as it is. The library receives the events
     * of every tracingBegin/tracingEnd window.
     *
     * @throws ControlException when no jvmprof agent is loaded, the library
     *         cannot be found or loaded, or it refuses to start
     */
    public static void tracingStartup(String libraryName) throws ControlException {
        if (libraryName == null)
            throw new NullPointerException("libraryName");
        synchronized (tracing) {
            if (library != null)
                throw new ControlException("jvmprof: tracingStartup: " + library + " is started already; call "
                                           + "tracingShutdown first");
            String path = findLibrary(libraryName);
            if (path.indexOf(',') >= 0)
                throw new ControlException("jvmprof: tracingStartup: " + path + ": a library path with ',' cannot be "
                                           + "given to the agent; rename or link it");
            String error;
            try {
                error = tracingStartup0(path);
            } catch (UnsatisfiedLinkError e) {
                throw noAgent("tracingStartup");
            }
            if (error != null)
                throw new ControlException("jvmprof: tracingStartup: " + error);
            library = path;
        }
    }

    /**
     * Begins tracing the event classes flags names, to the tracing library.
     * A profiling session that runs (the one given at -agentpath, or one
     * Control.start began) is stopped first and its report written; the
     * classes instrumented for EXECUTION_ON are those its include= and
     * exclude= chose (all, without them).
     *
     * @throws ControlException when flags do not choose exactly one level of
     *         execution, memory and allocation tracing or name no events, when
     *         tracingStartup has not loaded a library, or when tracing has
     *         begun already
     */
    public static void tracingBegin(int flags) throws ControlException {
        String classes = traceClasses(flags);
        synchronized (tracing) {
            if (library == null)
                throw new ControlException("jvmprof: tracingBegin before tracingStartup: load a tracing library with "
                                           + "tracingStartup(name) first");
            if (tracingOn())
                throw new ControlException("jvmprof: tracingBegin: tracing has begun already; call tracingEnd first");
            String error;
            try {
                error = tracingBegin0(classes, library);
            } catch (UnsatisfiedLinkError e) {
                throw noAgent("tracingBegin");
            }
            if (error != null)
                throw new ControlException("jvmprof: tracingBegin: " + error);
            begun = true;
        }
    }

    /**
     * Ends the tracing tracingBegin began: the library's end is called once
     * the events under way have reached it, and no event follows. The
     * program then runs at nearly full speed until the next tracingBegin.
     * If that tracing was stopped already ({@link #stop}, jvmprof stop),
     * which ended it and called the library's end, nothing more is done: a
     * session started since is never stopped here.
     *
     * @throws ControlException when tracing has not begun
     */
    public static void tracingEnd() throws ControlException {
        synchronized (tracing) {
            if (!begun)
                throw new ControlException("jvmprof: tracingEnd without tracingBegin: tracing has not begun");
            begun = false;
            try {
                tracingEnd0();
            } catch (UnsatisfiedLinkError e) {
                throw noAgent("tracingEnd");
            }
        }
    }

    /** Whether the tracing tracingBegin began still runs (stop() or jvmprof stop may have ended it); under tracing's lock. */
    private static boolean tracingOn() {
        if (begun && !tracingRunning0())
            begun = false; // ended by a stop: the library's end was called then
        return begun;
    }

    /**
     * Ends tracing if it has begun and calls the library's shutdown; a later
     * tracingStartup of the same library starts it again.
     *
     * @throws ControlException when tracingStartup has not loaded a library
     */
    public static void tracingShutdown() throws ControlException {
        synchronized (tracing) {
            if (library == null)
                throw new ControlException("jvmprof: tracingShutdown without tracingStartup: no tracing library is "
                                           + "loaded");
            if (begun)
                tracingEnd();
            try {
                tracingShutdown0();
            } catch (UnsatisfiedLinkError e) {
                throw noAgent("tracingShutdown");
            }
            library = null;
        }
    }

    /**
     * The object-reference report, to the tracing library (and the trace):
     * every object reachable from the roots, each followed by the references
     * it holds (see {@link #objectReferences}).
     *
     * @throws ControlException when tracing has not begun, or the report could
     *         not be written whole
     */
    public static void reportObjectReferences() throws ControlException {
        synchronized (tracing) {
            if (!tracingOn())
                throw new ControlException("jvmprof: reportObjectReferences: tracing has not begun; call tracingBegin "
                                           + "first");
        }
        if (!objectReferences())
            throw new ControlException("jvmprof: reportObjectReferences: the report could not be written whole (out "
                                       + "of memory, or tracelimit= reached)");
    }

    private static ControlException noAgent(String call) {
        return new ControlException("jvmprof: " + call + ": no jvmprof agent is loaded; start the JVM with "
                                    + "-agentpath:/path/to/libjvmprof.so");
    }

    /** The agent's trace= classes for tracingBegin's flags; a ControlException if they do not make sense. */
    static String traceClasses(int flags) throws ControlException {
        int known = EXECUTION_ON | EXECUTION_LIGHT | EXECUTION_OFF | MEMORY_ON | MEMORY_LIGHT | MEMORY_OFF
                    | ALLOCATION_ON | ALLOCATION_OFF | THREADS | CLASSES | MONITORS | USER_EVENTS | PROBES;
        if ((flags & ~known) != 0)
            throw new ControlException(String.format("jvmprof: tracingBegin(0x%x): unknown flag bits 0x%x", flags,
                                                     flags & ~known));
        String exec = one(flags, "execution", new int[] { EXECUTION_ON, EXECUTION_LIGHT, EXECUTION_OFF },
                          new String[] { "EXECUTION_ON", "EXECUTION_LIGHT", "EXECUTION_OFF" },
                          new String[] { "exec", "exec:light", null });
        String mem = one(flags, "memory", new int[] { MEMORY_ON, MEMORY_LIGHT, MEMORY_OFF },
                         new String[] { "MEMORY_ON", "MEMORY_LIGHT", "MEMORY_OFF" },
                         new String[] { "mem", "mem:light", null });
        String alloc = one(flags, "allocation", new int[] { ALLOCATION_ON, ALLOCATION_OFF },
                           new String[] { "ALLOCATION_ON", "ALLOCATION_OFF" }, new String[] { "alloc", null });
        StringBuilder b = new StringBuilder();
        for (String c : new String[] { exec, mem, alloc, (flags & THREADS) != 0 ? "thread" : null,
                                       (flags & CLASSES) != 0 ? "class" : null,
                                       (flags & MONITORS) != 0 ? "monitor" : null,
                                       (flags & USER_EVENTS) != 0 ? "user" : null,
                                       (flags & PROBES) != 0 ? "probe" : null })
            if (c != null)
                b.append(b.length() > 0 ? "+" : "").append(c);
        if (b.length() == 0)
            throw new ControlException(String.format("jvmprof: tracingBegin(0x%x): the flags name no events; add "
                                                     + "EXECUTION_ON, MEMORY_LIGHT, THREADS ...", flags));
        return b.toString();
    }

    private static String one(int flags, String what, int[] bits, String[] names, String[] classes)
            throws ControlException {
        String chosen = null;
        int count = 0;
        for (int i = 0; i < bits.length; i++)
            if ((flags & bits[i]) != 0) {
                count++;
                chosen = classes[i];
            }
        if (count != 1)
            throw new ControlException(String.format("jvmprof: tracingBegin(0x%x): choose exactly one %s level of %s; "
                                                     + "%d given", flags, what, String.join(", ", names), count));
        return chosen;
    }

    /** libraryName as a path: absolute as it is, else System.mapLibraryName's file in java.library.path. */
    private static String findLibrary(String libraryName) throws ControlException {
        java.io.File f = new java.io.File(libraryName);
        if (f.isAbsolute()) {
            if (!f.isFile())
                throw new ControlException("jvmprof: tracingStartup: " + libraryName + ": no such file");
            return f.getPath();
        }
        if (libraryName.isEmpty() || libraryName.indexOf(java.io.File.separatorChar) >= 0)
            throw new ControlException("jvmprof: tracingStartup: '" + libraryName + "': give a library name (\"trace\" "
                                       + "for libtrace.so in java.library.path) or an absolute path");
        String file = System.mapLibraryName(libraryName);
        String dirs = System.getProperty("java.library.path", "");
        for (String dir : dirs.split(java.util.regex.Pattern.quote(java.io.File.pathSeparator))) {
            java.io.File candidate = new java.io.File(dir.isEmpty() ? "." : dir, file);
            if (candidate.isFile())
                return candidate.getAbsolutePath();
        }
        throw new ControlException("jvmprof: tracingStartup: no " + file + " in java.library.path (" + dirs + ")");
    }

    private static native String tracingStartup0(String path);

    private static native void tracingShutdown0();

    private static native String tracingBegin0(String classes, String library);

    private static native void tracingEnd0();

    private static native boolean tracingRunning0();

    private static native boolean userEvent0(String message);

    private static native boolean objectReferences0();

    private static native boolean dump0();

    private static native String dumpWindow0(String file, long lastMs, long fromMs, long toMs);

    private static native String stop0();

    private static native String start0(String options);

    private static native boolean running0();

    private static native String version0();

    private static native String dumpHeap0(String file);
}
