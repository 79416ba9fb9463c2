// SpinThreads: args[0] threads (default 80) that, once all have started,
// compute at once for args[1] seconds (default 1), then end. Prints "done".
import java.util.concurrent.CountDownLatch;

public class SpinThreads {
    static volatile long sink, end;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 80;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
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
                while (System.nanoTime() < end)
                    for (int k = 0; k < 10_000; k++)
                        x = x * 6364136223846793005L + k;
                sink += x;
            }, "spin-" + i);
            threads[i].start();
        }
        end = System.nanoTime() + (long) (seconds * 1e9);
        go.countDown();
        for (Thread t : threads)
            t.join();
        System.out.println("done");
    }
}
