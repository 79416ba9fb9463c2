// WaitHalf: three methods that each run (spin) 20 ms and then wait 20 ms,
// args[0] times (default 25): sleepHalf in Thread.sleep, parkHalf in
// LockSupport.parkNanos, waitHalf in Object.wait. Half of each one's time is
// running, half waiting.
import java.util.concurrent.locks.LockSupport;

public class WaitHalf {
    static final Object MONITOR = new Object();
    static volatile long sink;

    static void sleepHalf() throws InterruptedException {
        long t = System.nanoTime(), x = sink;
        while (System.nanoTime() - t < 20_000_000)
            x = x * 31 + 1;
        sink = x;
        Thread.sleep(20);
    }

    static void parkHalf() {
        long t = System.nanoTime(), x = sink;
        while (System.nanoTime() - t < 20_000_000)
            x = x * 31 + 1;
        sink = x;
        long until = System.nanoTime() + 20_000_000;
        for (long left; (left = until - System.nanoTime()) > 0; )
            LockSupport.parkNanos(left);
    }

    static void waitHalf() throws InterruptedException {
        long t = System.nanoTime(), x = sink;
        while (System.nanoTime() - t < 20_000_000)
            x = x * 31 + 1;
        sink = x;
        synchronized (MONITOR) {
            long until = System.nanoTime() + 20_000_000;
            for (long left; (left = until - System.nanoTime()) > 0; )
                MONITOR.wait(Math.max(1, left / 1_000_000));
        }
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 25;
        for (int i = 0; i < n; i++) {
            sleepHalf();
            parkHalf();
            waitHalf();
        }
        System.out.println("WaitHalf done");
    }
}
