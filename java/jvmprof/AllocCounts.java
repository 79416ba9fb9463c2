/*
 * AllocCounts.java: the counts that heap=sites,alloc_count=site injects after
 * every allocating instruction (src/classfile: cf_alloc_how). Each site has a
 * number the agent gave it when it rewrote the class, and a pair of counters
 * (objects, bytes) in memory the agent owns, one pair per stripe of threads
 * (a thread's stripe: its id), so that threads that allocate at one site do
 * not fight over one cache line. A count is an atomic add: no JNI call, no
 * lock, no allocation, nothing the JIT cannot compile to a few instructions;
 * the agent's thread sums the stripes. Sites whose class is known only when
 * they run (clone(), reflection's arrays, Unsafe.allocateInstance ...) count
 * by (site, class) in a table in the agent's memory, the class numbered by
 * this class's own table of classes. This class is never instrumented.
 */
package jvmprof;

import java.lang.ref.WeakReference;

import jdk.internal.misc.Unsafe;

public final class AllocCounts {
    private AllocCounts() {}

    /* The agent's layout (src/agent/alloc/collect_alloc_counts.c): STRIPES stripes of
     * STRIPE_BYTES, a site's pair at site * 16 in each. */
    static final int STRIPES = 8;
    static final long STRIPE_BYTES = 1L << 26;
    static final int SITES = (int) (STRIPE_BYTES >>> 4);
    /* the dynamic table: DYN_ENTRIES entries of 32 bytes (key, objects, bytes, unused) */
    static final int DYN_BITS = 18, DYN_ENTRIES = 1 << DYN_BITS;
    /* this class's table of classes, for the dynamic sites */
    static final int CLASS_BITS = 16, CLASSES = 1 << CLASS_BITS;

    /* Everything a count needs; U is null (and nothing is counted) when the
     * agent's memory or jdk.internal.misc.Unsafe is not there, and while this
     * holder is being initialized (by the allocations its own set-up makes). */
    private static final class C {
        /* Unsafe.arrayBaseOffset(c), which returns an int up to JDK 23 and a long from JDK 24: called by
         * name, so that the one jvmprof.jar runs on both */
        static long arrayBase(Unsafe u, Class<?> c) throws ReflectiveOperationException {
            return ((Number) Unsafe.class.getMethod("arrayBaseOffset", Class.class).invoke(u, c)).longValue();
        }

        static final Unsafe U;
        static final long COUNTS, FLAGS, DYN, TID, MASK;
        static final long B1, B2, B4, B8, BREF;
        static final int REF_SHIFT;
        static {
            Unsafe u = null;
            long counts = 0, flags = 0, dyn = 0, tid = 0, mask = 7;
            long b1 = 0, b2 = 0, b4 = 0, b8 = 0, bref = 0;
            int refShift = 2;
            try {
                u = Unsafe.getUnsafe();
                tid = u.objectFieldOffset(Thread.class.getDeclaredField("tid"));
                b1 = arrayBase(u, byte[].class);
                b2 = arrayBase(u, char[].class);
                b4 = arrayBase(u, int[].class);
                b8 = arrayBase(u, long[].class);
                bref = arrayBase(u, Object[].class);
                refShift = Integer.numberOfTrailingZeros(u.arrayIndexScale(Object[].class));
                mask = alignment0() - 1;
                counts = counts0();
                flags = flags0();
                dyn = dyn0();
                if (counts == 0 || flags == 0 || dyn == 0 || mask < 7)
                    u = null;
            } catch (Throwable e) {
                u = null;
            }
            U = u;
            COUNTS = counts;
            FLAGS = flags;
            DYN = dyn;
            TID = tid;
            MASK = mask;
            B1 = b1;
            B2 = b2;
            B4 = b4;
            B8 = b8;
            BREF = bref;
            REF_SHIFT = refShift;
        }
    }

    /* the classes of the dynamic sites, by identity hash (open addressing),
     * each held weakly so that counting never keeps a class from being
     * unloaded; a class's number is its slot + 1 (a slot is never reused) */
    private static final WeakReference<?>[] classes = new WeakReference<?>[CLASSES];
    /* per class: 0 not known yet, 1 its clone() is Object's, 2 it overrides clone() */
    private static final byte[] cloneOf = new byte[CLASSES];

    private static long pair(Unsafe u, int site) {
        int stripe = (int) u.getLong(Thread.currentThread(), C.TID) & (STRIPES - 1);
        return C.COUNTS + stripe * STRIPE_BYTES + ((long) site << 4);
    }

    /** new C: one object (its bytes are its class's size, which the agent knows). */
    public static void newObject(int site) {
        Unsafe u = C.U;
        if (u != null && site > 0 && site < SITES)
            u.getAndAddLong(null, pair(u, site), 1L);
    }

    private static void addArray(Unsafe u, int site, long raw) {
        if (site > 0 && site < SITES) {
            long p = pair(u, site);
            u.getAndAddLong(null, p, 1L);
            u.getAndAddLong(null, p + 8, (raw + C.MASK) & ~C.MASK);
        }
    }

    /** An array of 1-byte elements (boolean, byte) just made. */
    public static void newArray1(int length, int site) {
        Unsafe u = C.U;
        if (u != null)
            addArray(u, site, C.B1 + length);
    }

    public static void newArray2(int length, int site) {
        Unsafe u = C.U;
        if (u != null)
            addArray(u, site, C.B2 + ((long) length << 1));
    }

    public static void newArray4(int length, int site) {
        Unsafe u = C.U;
        if (u != null)
            addArray(u, site, C.B4 + ((long) length << 2));
    }

    public static void newArray8(int length, int site) {
        Unsafe u = C.U;
        if (u != null)
            addArray(u, site, C.B8 + ((long) length << 3));
    }

    public static void newArrayRef(int length, int site) {
        Unsafe u = C.U;
        if (u != null)
            addArray(u, site, C.BREF + ((long) length << C.REF_SHIFT));
    }

    /* An array's size in bytes before alignment, or -1 for an object that is not an array. */
    private static long arrayRaw(Object a) {
        if (a instanceof Object[])
            return C.BREF + ((long) ((Object[]) a).length << C.REF_SHIFT);
        if (a instanceof int[])
            return C.B4 + ((long) ((int[]) a).length << 2);
        if (a instanceof byte[])
            return C.B1 + ((byte[]) a).length;
        if (a instanceof char[])
            return C.B2 + ((long) ((char[]) a).length << 1);
        if (a instanceof long[])
            return C.B8 + ((long) ((long[]) a).length << 3);
        if (a instanceof double[])
            return C.B8 + ((long) ((double[]) a).length << 3);
        if (a instanceof float[])
            return C.B4 + ((long) ((float[]) a).length << 2);
        if (a instanceof short[])
            return C.B2 + ((long) ((short[]) a).length << 1);
        if (a instanceof boolean[])
            return C.B1 + ((boolean[]) a).length;
        return -1;
    }

    /* The number of class c in this class's table (0: the table is full).
     * Lock-free for a class seen before (a class is published safely by the
     * VM, so a plain read that sees it sees it whole); the first sight of a
     * class takes the table's lock. */
    private static int classNumber(Class<?> c) {
        int h = System.identityHashCode(c) & (CLASSES - 1);
        for (int i = 0; i < 64; i++) {
            WeakReference<?> k = classes[(h + i) & (CLASSES - 1)];
            if (k == null)
                return addClass(c, h);
            if (k.get() == c)
                return ((h + i) & (CLASSES - 1)) + 1;
        }
        return 0;
    }

    private static int addClass(Class<?> c, int h) {
        synchronized (classes) {
            for (int i = 0; i < 64; i++) {
                int s = (h + i) & (CLASSES - 1);
                if (classes[s] == null) {
                    classAdded0(s + 1, c);
                    classes[s] = new WeakReference<Class<?>>(c);
                    return s + 1;
                }
                if (classes[s].get() == c)
                    return s + 1;
            }
        }
        return 0;
    }

    private static void addDynamic(Unsafe u, int site, int cls, long bytes) {
        long key = ((long) site << CLASS_BITS) | cls;
        long h = key * 0x9E3779B97F4A7C15L;
        int slot = (int) (h >>> (64 - DYN_BITS));
        for (int i = 0; i < 32; i++) {
            long e = C.DYN + ((long) ((slot + i) & (DYN_ENTRIES - 1)) << 5);
            long k = u.getLongVolatile(null, e);
            if (k == 0 && !u.compareAndSetLong(null, e, 0L, key))
                k = u.getLongVolatile(null, e);
            else if (k == 0)
                k = key;
            if (k == key) {
                u.getAndAddLong(null, e + 8, 1L);
                if (bytes != 0)
                    u.getAndAddLong(null, e + 16, bytes);
                return;
            }
        }
        /* the table is full around there: the site's own pair, as "other classes" */
        if (site > 0 && site < SITES) {
            long p = pair(u, site);
            u.getAndAddLong(null, p, 1L);
            u.getAndAddLong(null, p + 8, bytes);
        }
    }

    private static void dynamic(Unsafe u, Object o, int site) {
        long raw = arrayRaw(o);
        addDynamic(u, site, classNumber(o.getClass()), raw < 0 ? 0 : (raw + C.MASK) & ~C.MASK);
    }

    /** A call whose result is a new object of a class known only now (array clone, Array.newInstance ...). */
    public static void allocated(Object o, int site) {
        Unsafe u = C.U;
        if (u != null && o != null && site > 0 && site < SITES)
            dynamic(u, o, site);
    }

    /** The same for a new multi-dimensional array (multianewarray, Array.multiNewArray): the array and every
     * array below it, each of its own class (a new multi-dimensional array holds only new arrays, or nulls). */
    public static void allocatedMulti(Object o, int site) {
        Unsafe u = C.U;
        if (u != null && o != null && site > 0 && site < SITES)
            dynamicMulti(u, o, site, 0);
    }

    private static void dynamicMulti(Unsafe u, Object a, int site, int level) {
        dynamic(u, a, site);
        if (a instanceof Object[] && level < 254)
            for (Object e : (Object[]) a)
                if (e != null && e.getClass().isArray())
                    dynamicMulti(u, e, site, level + 1);
    }

    /**
     * A call of clone() that may have run Object.clone (the allocation) or an
     * override (which counts its own allocations): the site's flag (the agent's
     * memory) says which for an invokespecial, whose target is fixed; for a
     * virtual call the receiver's class decides. Either is asked of the agent
     * once (JVMTI, no Java code runs) and kept.
     */
    public static void cloned(Object receiver, Object result, int site) {
        Unsafe u = C.U;
        if (u == null || receiver == null || result == null || site <= 0 || site >= SITES)
            return;
        byte f = u.getByteVolatile(null, C.FLAGS + site);
        if (f == 0) {
            f = cloneSite0(receiver, site);
        } else if (f == 3) { /* virtual: by the receiver's class */
            Class<?> c = receiver.getClass();
            int n = classNumber(c);
            f = n == 0 ? cloneClass0(c) : cloneOf[n - 1];
            if (f == 0 && n != 0)
                cloneOf[n - 1] = f = cloneClass0(c);
        }
        if (f == 1)
            dynamic(u, result, site);
    }

    /* the agent notes class c's name and size under its number, before any count of it */
    private static native void classAdded0(int n, Class<?> c);
    private static native long alignment0();
    private static native long counts0();
    private static native long flags0();
    private static native long dyn0();
    /* 1: this invokespecial site's clone() is Object's; 2: an override's (kept in the site's flag) */
    private static native byte cloneSite0(Object receiver, int site);
    /* 1: class c's clone() is Object's; 2: c or a superclass overrides it */
    private static native byte cloneClass0(Class<?> c);

    /** The agent's, before any class is rewritten: initializes the holder; false if nothing can be counted. */
    private static boolean ready() {
        return C.U != null;
    }
}
