// VThreadCalls THREADS CALLS CPU_SECONDS: THREADS virtual threads (named
// vt-0, vt-1, ...), each calling step() CALLS times; every step() runs
// burn(), the CPU-bound method, and a loop of its own half as long, for
// their share of CPU_SECONDS of CPU in all (sized by the main thread's own
// CPU clock first, with calibrate(), so a busy machine makes the run longer,
// not the work smaller): burn has two thirds of the virtual threads' own
// running time. Then every fourth step() sleeps 2 ms and every fourth parks
// 0.2 ms: a virtual thread unmounts there and may resume on another carrier. JDK 21 or later (tests/programs21: built by the test
// with that JDK).
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.locks.LockSupport;

public class VThreadCalls {
    static volatile long sink;

    static long burn(long n) {
        long x = 0x9E3779B97F4A7C15L;
        for (long i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long calibrate(long n) {
        long x = 0x9E3779B97F4A7C15L;
        for (long i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static void step(int i, long n) throws InterruptedException {
        long x = i;
        for (long k = 0; k < n / 2; k++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        sink += x + burn(n);
        if (i % 4 == 1)
            Thread.sleep(2);
        else if (i % 4 == 3)
            LockSupport.parkNanos(200_000);
    }

    /* burn's iterations for ns of CPU, by the calling thread's CPU clock */
    static long iterationsFor(double ns) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long n = 1 << 16, spent = 0, done = 0;
        long start = mx.getCurrentThreadCpuTime();
        while ((spent = mx.getCurrentThreadCpuTime() - start) < 100_000_000L) {
            sink += calibrate(n);
            done += n;
        }
        return Math.max(1, (long) (ns * done / spent));
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]), calls = Integer.parseInt(args[1]);
        double cpu = Double.parseDouble(args[2]);
        long n = iterationsFor(cpu * 1e9 / ((double) threads * calls) / 1.5);
        Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++)
            all[t] = Thread.ofVirtual().name("vt-" + t).start(() -> {
                try {
                    for (int i = 0; i < calls; i++)
                        step(i, n);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
        for (Thread t : all)
            t.join();
        System.out.println("VThreadCalls done: " + (long) threads * calls + " calls of step");
    }
}
