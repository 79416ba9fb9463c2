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

    /*
     * count: the calls of each counted method, in cells of CHUNK counters by
     * method number, one cell per STRIPES group of threads (a thread's group:
     * its id, so threads started one after another never share one). A count
     * is one atomic add (exact when threads of a group meet), without JNI, a
     * lock or a ThreadLocal (whose lookup cost three times the add on H2). The
     * cells are made as numbers come and only grow; the agent sums them
     * (countTotals). The Unsafe classes and Thread.currentThread are never
     * instrumented (the agent's rule), so a count never counts itself.
     */
    private static final int CHUNK_BITS = 12, CHUNK = 1 << CHUNK_BITS;
    private static final int MAX_CHUNKS = 16384; /* method numbers below 64M, as the agent's */
    private static final int STRIPES = 64;

    private static final sun.misc.Unsafe U;
    private static final long TID, LONGS;
    static {
        sun.misc.Unsafe u = null;
        long tid = -1, longs = 0;
        try {
            java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            u = (sun.misc.Unsafe) f.get(null);
            tid = u.objectFieldOffset(Thread.class.getDeclaredField("tid"));
            longs = u.arrayBaseOffset(long[].class);
            if (u.arrayIndexScale(long[].class) != 8)
                u = null;
        } catch (Throwable e) {
            u = null; /* no jdk.unsupported, or another Thread: counts take a lock */
        }
        U = u;
        TID = tid;
        LONGS = longs;
    }

    private static final Object countsLock = new Object();
    /* [chunk * STRIPES + stripe]: grown (replaced) under countsLock, cells never move */
    private static long[][] cells = new long[16 * STRIPES][];

    public static void count(int id) {
        if (engaged) {
            sun.misc.Unsafe u = U;
            if (u != null) {
                int k = (id >>> CHUNK_BITS) * STRIPES + ((int) u.getLong(Thread.currentThread(), TID) & (STRIPES - 1));
                long[][] c = cells;
                long[] cell;
                if (id >= 0 && k < c.length && (cell = c[k]) != null) {
                    u.getAndAddLong(cell, LONGS + ((long) (id & (CHUNK - 1)) << 3), 1L);
                    return;
                }
            }
            countSlow(id);
        }
    }

    /* The first count of a cell (made here), or any count without Unsafe. */
    private static void countSlow(int id) {
        int hi = id >>> CHUNK_BITS;
        if (id < 0 || hi >= MAX_CHUNKS)
            return;
        int stripe = U != null ? (int) U.getLong(Thread.currentThread(), TID) & (STRIPES - 1) : 0;
        int k = hi * STRIPES + stripe;
        try {
            synchronized (countsLock) {
                long[][] c = cells;
                if (k >= c.length) {
                    int n = c.length;
                    while (n <= k)
                        n *= 2;
                    long[][] grown = new long[n][];
                    for (int i = 0; i < c.length; i++)
                        grown[i] = c[i];
                    cells = c = grown;
                }
                if (c[k] == null)
                    c[k] = new long[CHUNK];
                if (U == null) {
                    c[k][id & (CHUNK - 1)]++;
                    return;
                }
            }
            U.getAndAddLong(cells[k], LONGS + ((long) (id & (CHUNK - 1)) << 3), 1L);
        } catch (OutOfMemoryError e) {
            /* the call goes uncounted; the program must not see our failure */
        }
    }

    /** The agent's: the counts so far, all threads, as pairs (method number, calls) of the methods called. */
    private static long[] countTotals() {
        long[][] c;
        synchronized (countsLock) {
            c = cells;
        }
        int chunks = c.length / STRIPES;
        long[][] sum = new long[chunks][];
        int n = 0;
        for (int hi = 0; hi < chunks; hi++)
            for (int st = 0; st < STRIPES; st++) {
                long[] cell = c[hi * STRIPES + st];
                if (cell == null)
                    continue;
                if (sum[hi] == null)
                    sum[hi] = new long[CHUNK];
                for (int j = 0; j < CHUNK; j++) {
                    long v = cell[j];
                    if (v != 0 && sum[hi][j] == 0)
                        n++;
                    sum[hi][j] += v;
                }
            }
        long[] pairs = new long[2 * n];
        int k = 0;
        for (int hi = 0; hi < chunks; hi++)
            for (int j = 0; sum[hi] != null && j < CHUNK; j++)
                if (sum[hi][j] != 0 && k < pairs.length) {
                    pairs[k++] = ((long) hi << CHUNK_BITS) | j;
                    pairs[k++] = sum[hi][j];
                }
        return pairs;
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
