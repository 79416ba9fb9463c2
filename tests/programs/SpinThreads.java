// SpinThreads: args[0] threads (default 80) that, once all have started,
// compute at once until together they have used args[1] seconds of CPU
// (default 1: each thread its share), then end; a busy machine makes the run
// longer, not the profile thinner (a minute of wall time at most). Prints
// "done".
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;

public class SpinThreads {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 80;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        long share = (long) (seconds * 1e9 / n);
        long deadline = System.nanoTime() + 60_000_000_000L;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            threads[i] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long x = 1;
                long end = mx.getCurrentThreadCpuTime() + share;
                while (mx.getCurrentThreadCpuTime() < end && System.nanoTime() < deadline)
                    for (int k = 0; k < 10_000; k++)
                        x = x * 6364136223846793005L + k;
                sink += x;
            }, "spin-" + i);
            threads[i].start();
        }
        go.countDown();
        for (Thread t : threads)
            t.join();
        System.out.println("done");
    }
}
