// NextToCall: the pattern behind a small method wrongly blamed for its
// neighbour's time. loop() calls work() (kept out of line by the test's
// -XX:CompileCommand=dontinline), spends nearly all its time in arithmetic
// after the call, then calls tiny(), which is inlined and costs almost
// nothing but holds the next call-like point (an uncommon trap for rare()):
// under 0.2% of the samples in async-profiler, in the same JVM.
// HotSpot names a pc that is not a call's by the first debug information
// after it: with debug information only at calls and safepoints, that is
// tiny()'s, for every sample in the arithmetic. Runs for 3 s of CPU.
public class NextToCall {
    static long sink;
    static boolean stop;
    static int work(int x) {
        return x * 31 + 7;
    }
    static void rare() {
        System.out.println("rare");
    }
    static void tiny() {
        if (stop)
            rare();
    }
    static long loop(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            long v = work(i);
            /* three loops short enough for the JIT to unroll whole: no
             * safepoint poll among them; the shift keeps JDK 25's C2 from
             * folding each chain of multiply-adds into one */
            for (int k = 0; k < 32; k++)
                v = (v ^ (v >>> 29)) * 0x9E3779B97F4A7C15L + k;
            for (int k = 0; k < 32; k++)
                v = (v ^ (v >>> 29)) * 0xC2B2AE3D27D4EB4FL + k;
            for (int k = 0; k < 32; k++)
                v = (v ^ (v >>> 29)) * 0x165667B19E3779F9L + k;
            s += v;
            tiny();
        }
        return s;
    }
    public static void main(String[] a) {
        // 3 s of CPU (a minute of wall time at most): a busy machine makes the run longer, not thinner
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuEnd = mx.getCurrentThreadCpuTime() + 3_000_000_000L;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (mx.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline)
            sink += loop(1_000_000);
        System.out.println("done " + (sink != 0));
    }
}
