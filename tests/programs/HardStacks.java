// HardStacks: code that is hard to walk. Megamorphic calls through eight
// implementations, deep recursion with small inlined methods, array copies
// (stubs), native methods that go into the VM (String.intern,
// Array.newInstance, Runtime.freeMemory), reflection, many short-lived
// objects, and an interpreted phase before the JIT has compiled it all.
// Runs for args[0] ms of CPU (default 3000).
import java.lang.reflect.Array;
import java.lang.reflect.Method;

public class HardStacks {
    interface Shape { long area(long x); }
    static final class S0 implements Shape { public long area(long x) { return x + 1; } }
    static final class S1 implements Shape { public long area(long x) { return x * 3; } }
    static final class S2 implements Shape { public long area(long x) { return x ^ 5; } }
    static final class S3 implements Shape { public long area(long x) { return x - 7; } }
    static final class S4 implements Shape { public long area(long x) { return x << 1; } }
    static final class S5 implements Shape { public long area(long x) { return x >>> 1; } }
    static final class S6 implements Shape { public long area(long x) { return x | 9; } }
    static final class S7 implements Shape { public long area(long x) { return ~x; } }
    static final Shape[] SHAPES = { new S0(), new S1(), new S2(), new S3(), new S4(), new S5(), new S6(), new S7() };
    static volatile long sink;
    static volatile Object keep;

    static long mega(long n) {
        long s = 0;
        for (long i = 0; i < n; i++)
            s += SHAPES[(int) (i & 7)].area(i);
        return s;
    }

    static long deep(int d, long x) {
        return d == 0 ? mega(200) + x : deep(d - 1, x + small(d)) + 1;
    }

    static long small(int d) { return d * 17L; }

    static long copies() {
        int[] a = new int[4096], b = new int[4096];
        long s = 0;
        for (int i = 0; i < 10; i++) {
            System.arraycopy(a, i & 7, b, 0, 4000);
            s += b[i];
        }
        return s;
    }

    static long natives(int i) throws Exception {
        long s = ("k" + (i & 1023)).intern().length();
        keep = Array.newInstance(SHAPES[i & 7].getClass(), 4);
        s += Runtime.getRuntime().freeMemory() & 1;
        Method m = HardStacks.class.getDeclaredMethod("small", int.class);
        s += (Long) m.invoke(null, i);
        return s;
    }

    static long garbage(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            Object[] o = new Object[8];
            o[i & 7] = new StringBuilder().append(i).toString();
            keep = o;
            s += o.length;
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        // ms of CPU (a minute of wall time at most): a busy machine makes the run longer, not thinner
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuEnd = mx.getCurrentThreadCpuTime() + ms * 1_000_000L;
        long deadline = System.nanoTime() + 60_000_000_000L;
        int i = 0;
        while (mx.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline) {
            sink += deep(40, i) + copies() + natives(i) + garbage(200);
            i++;
        }
        System.out.println("HardStacks done " + i);
    }
}
