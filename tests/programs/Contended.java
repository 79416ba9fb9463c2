// Contended: two threads fight over one SharedLock for about args[0] seconds
// (default 2): each holds it while it works, then works a little without it,
// so each blocks entering it while the other holds it.
// A third thread waits on it with Object.wait(10) in a loop.
public class Contended {
    static final class SharedLock {
        long value;
    }

    static final SharedLock LOCK = new SharedLock();
    static volatile boolean stop;

    static void holdAndWork() {
        synchronized (LOCK) {
            long x = LOCK.value;
            for (int i = 0; i < 200_000; i++)
                x = x * 31 + i;
            LOCK.value = x;
        }
    }

    static volatile long outside;

    // work done without the lock, so the blocked thread gets its turn (monitors
    // are not fair: a thread that re-enters at once would keep the lock)
    static void workOutside() {
        long x = outside;
        for (int i = 0; i < 100_000; i++)
            x = x * 31 + i;
        outside = x;
    }

    static void worker() {
        while (!stop) {
            holdAndWork();
            workOutside();
        }
    }

    static void waiter() throws InterruptedException {
        while (!stop) {
            synchronized (LOCK) {
                LOCK.wait(10);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        Thread a = new Thread(Contended::worker, "worker-a");
        Thread b = new Thread(Contended::worker, "worker-b");
        Thread w = new Thread(() -> {
            try {
                waiter();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }, "waiter");
        a.start();
        b.start();
        w.start();
        Thread.sleep((long) (seconds * 1000));
        stop = true;
        a.join();
        b.join();
        w.join();
        System.out.println("value " + (LOCK.value != 0));
    }
}
