/* A program whose hot method moves (t6104, jvmprof diff): "before" spends
 * about 80% of its CPU in first() and 20% in second(), "after" the reverse;
 * runs until main has used args[1] seconds of CPU (a minute of wall time at
 * most), so a busy machine makes the run longer, not its profile thinner. */
public class ShiftHot {
    static long sink;

    static long first(long n) {
        long x = 0;
        for (long i = 0; i < n; i++)
            x = x * 31 + i;
        return x;
    }

    static long second(long n) {
        long x = 0;
        for (long i = 0; i < n; i++)
            x = x * 37 + i;
        return x;
    }

    public static void main(String[] args) {
        boolean before = args[0].equals("before");
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuEnd = mx.getCurrentThreadCpuTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (mx.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline) {
            sink += first(before ? 400_000 : 100_000);
            sink += second(before ? 100_000 : 400_000);
        }
        System.out.println(sink == 42 ? "?" : "done");
    }
}
