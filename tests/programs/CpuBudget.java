// CpuBudget: lets a test program run "for N seconds of CPU" rather than N
// seconds of wall time, so that a busy machine makes the run longer, never
// its profile thinner. await() returns once each given thread has used its
// budget of CPU time (or has ended), or after a minute of wall time at most;
// it polls from the calling thread, so the measured threads run their own
// code only.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public final class CpuBudget {
    private CpuBudget() {}

    public static void await(double seconds, Thread... threads) throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long budget = (long) (seconds * 1e9);
        long[] start = new long[threads.length];
        for (int i = 0; i < threads.length; i++)
            start[i] = Math.max(0, mx.getThreadCpuTime(threads[i].getId()));
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (int i = 0; i < threads.length && all; i++) {
                long t = mx.getThreadCpuTime(threads[i].getId());
                all = t < 0 || t - start[i] >= budget; // -1: the thread has ended
            }
            if (all)
                return;
            Thread.sleep(5);
        }
    }
}
