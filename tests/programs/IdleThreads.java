// IdleThreads: args[0] threads (default 200) sleep while the main thread
// computes for args[1] seconds (default 2). Under wall= nearly all samples
// are sleeping threads; the main thread's share is 1 in (threads + 1).
public class IdleThreads {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 2;
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    Thread.sleep(1_000_000);
                } catch (InterruptedException e) {
                    // daemon: ends with the JVM
                }
            }, "idle-" + i);
            t.setDaemon(true);
            t.start();
        }
        started.await();
        long end = System.nanoTime() + (long) (seconds * 1e9), x = 1;
        while (System.nanoTime() < end)
            for (int i = 0; i < 10_000; i++)
                x = x * 6364136223846793005L + i;
        System.out.println(x == 42 ? "unlikely" : "done");
    }
}
