// EarlyThreads: a thread that starts before the profiler's VM init. Loaded
// as a Java agent (-javaagent, its jar's Premain-Class) listed before
// -agentpath, premain starts "early-spinner", which spins for about args
// seconds (1.5 by default), and waits until it runs, so its ThreadStart
// comes before jvmprof listens for them. main sleeps as long.
import java.util.concurrent.CountDownLatch;

public class EarlyThreads {
    static volatile long sink;

    static void spin(long nanos) {
        long end = System.nanoTime() + nanos, x = 0;
        while (System.nanoTime() < end)
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
        running.await();
    }

    public static void main(String[] args) throws InterruptedException {
        Thread.sleep(1600);
        System.out.println("EarlyThreads done");
    }
}
