/*
 * Tracker.java: the static methods that jvmprof's bytecode rewriter injects
 * calls to. enter/exit bracket every timed method (the method's
 * number, which the agent maps back to its name); count counts the calls of
 * a method too small to time, here in Java (an atomic add, no JNI call);
 * objectInit and newArray report new objects. Each checks the engaged flag first, so nothing reaches the agent before it is ready
 * (VM init) or after it has stopped; the natives are registered by the
 * agent at VM init. This class itself is never instrumented, and the agent
 * ignores calls made while it is inside its own code on that thread.
 */
package jvmprof;

import jdk.internal.misc.Unsafe;

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

    /** An instance method's entry with its receiver (trace=exec). */
    public static void enterThis(Object self, int id) {
        if (engaged)
            enterThis0(self, id);
    }

    /*
     * count: the calls of each counted method, in cells of CHUNK counters by
     * method number, one cell per STRIPES group of threads (a thread's group:
     * its id, so threads started one after another never share one). A count
     * is one atomic add (exact when threads of a group meet), without JNI, a
     * lock or a ThreadLocal (whose lookup cost three times the add on H2). The
     * cells are made as numbers come and only grow; the agent sums them
     * (countTotals). Unsafe and Thread.currentThread are never instrumented
     * (the agent's rule), so a count never counts itself.
     */
    private static final int CHUNK_BITS = 12, CHUNK = 1 << CHUNK_BITS;
    private static final int CHUNKS = 1024; /* method numbers below 4M (the agent's go to 64M: above, a lock) */
    private static final int STRIPES = 64;

    /* jdk.internal.misc.Unsafe, exported to this class's module by the agent
     * once the Tracker is loaded (loading initializes the Tracker, hence this
     * holder, initialized by the first count); without it (or without
     * Thread.tid), counts take a lock. Not sun.misc.Unsafe: its wrappers are
     * one more level of inlining, which cost 0.8 s of 7 on H2 (the JIT stops
     * inlining at a depth). */
    private static final class Fast {
        /* Unsafe.arrayBaseOffset(c), which returns an int up to JDK 23 and a long from JDK 24: called by
         * name, so that the one jvmprof.jar runs on both */
        static long arrayBase(Unsafe u, Class<?> c) throws ReflectiveOperationException {
            return ((Number) Unsafe.class.getMethod("arrayBaseOffset", Class.class).invoke(u, c)).longValue();
        }

        static final Unsafe U;
        static final long TID, LONGS, CELLS_BASE, CELLS_SCALE;
        static {
            Unsafe u = null;
            long tid = -1, longs = 0, cells = 0, scale = 0;
            try {
                u = Unsafe.getUnsafe();
                tid = u.objectFieldOffset(Thread.class.getDeclaredField("tid"));
                longs = arrayBase(u, long[].class);
                cells = arrayBase(u, long[][].class);
                scale = u.arrayIndexScale(long[][].class);
                if (u.arrayIndexScale(long[].class) != 8)
                    u = null;
            } catch (Throwable e) {
                u = null;
            }
            U = u;
            TID = tid;
            LONGS = longs;
            CELLS_BASE = cells;
            CELLS_SCALE = scale;
        }
    }

    private static final Object countsLock = new Object();
    /* [chunk * STRIPES + stripe], a cell made at its first count (set by a compare-and-set, read
     * volatile by countTotals) */
    private static final long[][] CELLS = new long[CHUNKS * STRIPES][];
    /* method numbers past CHUNKS * CHUNK, and every count without Unsafe: guarded by countsLock */
    private static long[] slowCounts = new long[0];

    public static void count(int id) {
        if (engaged) {
            Unsafe u = Fast.U;
            if (u != null && id >= 0 && id < CHUNKS * CHUNK) {
                long[] cell = CELLS[(id >>> CHUNK_BITS) * STRIPES + ((int) u.getLong(Thread.currentThread(), Fast.TID) & (STRIPES - 1))];
                if (cell != null) {
                    u.getAndAddLong(cell, Fast.LONGS + ((long) (id & (CHUNK - 1)) << 3), 1L);
                    return;
                }
            }
            countSlow(id);
        }
    }

    /*
     * The first count of a cell (made here), or a count without Unsafe or past
     * CHUNKS * CHUNK. A cell is made without a lock: the JDK's own counted
     * methods run here too, among them those of the thread that resumes the
     * virtual threads blocked on a monitor (JDK 24 and later unmount them);
     * had it to wait for a monitor of ours that such a virtual thread waits
     * for, neither would go on (seen: VirtualThread-unblocker blocked here,
     * in ThreadLocalRandom.localInit, the program hung).
     */
    private static void countSlow(int id) {
        if (id < 0)
            return;
        Unsafe u = Fast.U;
        try {
            if (u != null && id < CHUNKS * CHUNK) {
                int k = (id >>> CHUNK_BITS) * STRIPES + ((int) u.getLong(Thread.currentThread(), Fast.TID) & (STRIPES - 1));
                long at = Fast.CELLS_BASE + (long) k * Fast.CELLS_SCALE;
                long[] cell = (long[]) u.getReferenceVolatile(CELLS, at);
                if (cell == null) {
                    long[] made = new long[CHUNK];
                    cell = u.compareAndSetReference(CELLS, at, null, made) ? made
                                                                           : (long[]) u.getReferenceVolatile(CELLS, at);
                }
                u.getAndAddLong(cell, Fast.LONGS + ((long) (id & (CHUNK - 1)) << 3), 1L);
                return;
            }
            synchronized (countsLock) {
                if (id >= slowCounts.length) {
                    long[] grown = new long[Math.max(id + 1, 2 * slowCounts.length)];
                    for (int i = 0; i < slowCounts.length; i++)
                        grown[i] = slowCounts[i];
                    slowCounts = grown;
                }
                slowCounts[id]++;
            }
        } catch (OutOfMemoryError e) {
            /* the call goes uncounted; the program must not see our failure */
        }
    }

    /** The agent's: the counts so far, all threads, as pairs (method number, calls) of the methods called. */
    private static long[] countTotals() {
        long[] slow;
        synchronized (countsLock) {
            slow = slowCounts.clone();
        }
        long[][] sum = new long[CHUNKS][];
        int n = 0;
        for (int hi = 0; hi < CHUNKS; hi++)
            for (int st = 0; st < STRIPES; st++) {
                int k = hi * STRIPES + st;
                long[] cell = Fast.U != null ? (long[]) Fast.U.getReferenceVolatile(CELLS, Fast.CELLS_BASE + (long) k * Fast.CELLS_SCALE)
                                             : CELLS[k];
                if (cell == null)
                    continue;
                if (sum[hi] == null)
                    sum[hi] = new long[CHUNK];
                for (int j = 0; j < CHUNK; j++)
                    sum[hi][j] += cell[j];
            }
        for (int hi = 0; hi < CHUNKS; hi++)
            for (int j = 0; sum[hi] != null && j < CHUNK; j++)
                n += sum[hi][j] != 0 ? 1 : 0;
        for (int id = 0; id < slow.length; id++)
            n += slow[id] != 0 && (id >= CHUNKS * CHUNK || sum[id >>> CHUNK_BITS] == null
                                   || sum[id >>> CHUNK_BITS][id & (CHUNK - 1)] == 0) ? 1 : 0;
        long[] pairs = new long[2 * n];
        int k = 0;
        for (int id = 0; id < Math.max(CHUNKS * CHUNK, slow.length) && k < pairs.length; id++) {
            long v = id < slow.length ? slow[id] : 0;
            if (id < CHUNKS * CHUNK && sum[id >>> CHUNK_BITS] != null)
                v += sum[id >>> CHUNK_BITS][id & (CHUNK - 1)];
            if (v != 0) {
                pairs[k++] = id;
                pairs[k++] = v;
            }
        }
        return pairs;
    }

    /** A method left by an exception (its catch-all handler). */
    public static void exitThrow(int id) {
        if (engaged)
            exitThrow0(id);
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
    private static native void enterThis0(Object self, int id);
    private static native void exit0(int id);
    private static native void exitThrow0(int id);
    private static native void objectInit0(Object o);
    private static native void newArray0(Object a);
}
