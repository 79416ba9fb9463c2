// PrologueHot: leaf() is never inlined and is called back to back, so a good
// part of the samples land in its prologue and epilogue, where
// AsyncGetCallTrace cannot walk. Runs until main has used 3 s of CPU (a
// minute of wall time at most), so a busy machine makes the run longer, not
// its profile thinner. Says when it starts and when it is done.
public class PrologueHot {
    static volatile long sink;

    static int leaf(int x) {
        return x * 31 + 7;
    }

    static long loop(long n) {
        long s = 0;
        for (long i = 0; i < n; i++)
            s += leaf((int) i);
        return s;
    }

    public static void main(String[] args) {
        System.out.println("PrologueHot start"); // t2107 starts perf here, after the JVM's own start
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuEnd = mx.getCurrentThreadCpuTime() + 3_000_000_000L;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (mx.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline)
            sink += loop(10_000_000);
        System.out.println("PrologueHot done");
    }
}
