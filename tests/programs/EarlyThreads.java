// EarlyThreads: a thread that starts before the profiler's VM init. Loaded
// as a Java agent (-javaagent, its jar's Premain-Class) listed before
// -agentpath, premain starts "early-spinner", which spins until it has used
// 1.5 s of CPU (a minute of wall time at most, so a busy machine makes the
// run longer, not its profile thinner), and waits until it runs, so its
// ThreadStart comes before jvmprof listens for them. main waits for the
// spinner; without it (no -javaagent), main sleeps 1.6 s.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;

public class EarlyThreads {
    static volatile long sink;
    static volatile Thread spinner;

    static void spin(long cpuNanos) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long end = mx.getCurrentThreadCpuTime() + cpuNanos, deadline = System.nanoTime() + 60_000_000_000L, x = 0;
        while (mx.getCurrentThreadCpuTime() < end && System.nanoTime() < deadline)
            for (int i = 0; i < 100_000; i++)
                x = x * 31 + 1;
        sink = x;
    }

    public static void premain(String args) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            running.countDown();
            spin(1_500_000_000L);
        }, "early-spinner");
        t.setDaemon(true);
        t.start();
        spinner = t;
        running.await();
    }

    public static void main(String[] args) throws InterruptedException {
        Thread t = spinner;
        if (t != null)
            t.join();
        else
            Thread.sleep(1600);
        System.out.println("EarlyThreads done");
    }
}
