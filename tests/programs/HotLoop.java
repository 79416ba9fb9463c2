// HotLoop: one thread spends about 3/4 of its CPU time in heavy() and 1/4 in
// light(); each method runs its own loop, so each is the top frame of its
// samples. Runs until it has used args[0] seconds of CPU (default 3; at most
// three times that, and a minute at least, of wall time), so a busy machine
// makes the run longer, not its profile thinner; with a second argument
// "measure" it then prints on stderr the split of its CPU time between the
// two as it measured it.
public class HotLoop {
    static volatile long sink;

    static long heavy(long seed) {
        long x = seed;
        for (int i = 0; i < 3_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= (x >>> 17);
        }
        return x;
    }

    static long light(long seed) {
        long x = seed;
        for (int i = 0; i < 1_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= (x >>> 17);
        }
        return x;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuEnd = mx.getCurrentThreadCpuTime() + (long) (seconds * 1e9);
        long deadline = System.nanoTime() + (long) (Math.max(60, 3 * seconds) * 1e9);
        long acc = 0;
        if (args.length > 1 && args[1].equals("measure")) {
            measured(mx, cpuEnd, deadline);
            return;
        }
        while (mx.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline) {
            acc += heavy(acc);
            acc += light(acc);
        }
        sink = acc;
        System.out.println("done");
    }

    // the split as it really was: each call's CPU time, on stderr (stdout stays "done")
    static void measured(java.lang.management.ThreadMXBean mx, long cpuEnd, long deadline) {
        long acc = 0;
        long heavyNs = 0, lightNs = 0;
        while (mx.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline) {
            long t0 = mx.getCurrentThreadCpuTime();
            acc += heavy(acc);
            long t1 = mx.getCurrentThreadCpuTime();
            acc += light(acc);
            long t2 = mx.getCurrentThreadCpuTime();
            heavyNs += t1 - t0;
            lightNs += t2 - t1;
        }
        sink = acc;
        System.out.println("done");
        System.err.printf("measured: heavy %.2f%% light %.2f%%%n", 100.0 * heavyNs / (heavyNs + lightNs),
                          100.0 * lightNs / (heavyNs + lightNs));
    }
}
