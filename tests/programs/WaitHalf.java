// WaitHalf: three methods that each run (spin) 20 ms and then wait 20 ms,
// args[0] times (default 25): sleepHalf in Thread.sleep, parkHalf in
// LockSupport.parkNanos, waitHalf in Object.wait. Half of each one's time is
// running, half waiting, on an idle machine. On a busy one a wait lasts
// longer (the thread waits for a CPU after it is woken), so each method
// measures its own: at the end a line "measured M ran R ms waited W ms" per
// method, R the wall time of its calls less W, W the wall time of its wait
// calls.
import java.util.concurrent.locks.LockSupport;

public class WaitHalf {
    static final Object MONITOR = new Object();
    static volatile long sink;
    static long sleepAll, sleepWait, parkAll, parkWait, waitAll, waitWait;

    static void spin() {
        long t = System.nanoTime(), x = sink;
        while (System.nanoTime() - t < 20_000_000)
            x = x * 31 + 1;
        sink = x;
    }

    static void sleepHalf() throws InterruptedException {
        long t0 = System.nanoTime();
        spin();
        long w0 = System.nanoTime();
        Thread.sleep(20);
        long t1 = System.nanoTime();
        sleepWait += t1 - w0;
        sleepAll += t1 - t0;
    }

    static void parkHalf() {
        long t0 = System.nanoTime();
        spin();
        long w0 = System.nanoTime();
        long until = w0 + 20_000_000;
        for (long left; (left = until - System.nanoTime()) > 0; )
            LockSupport.parkNanos(left);
        long t1 = System.nanoTime();
        parkWait += t1 - w0;
        parkAll += t1 - t0;
    }

    static void waitHalf() throws InterruptedException {
        long t0 = System.nanoTime();
        spin();
        long w0;
        synchronized (MONITOR) {
            w0 = System.nanoTime();
            long until = w0 + 20_000_000;
            for (long left; (left = until - System.nanoTime()) > 0; )
                MONITOR.wait(Math.max(1, left / 1_000_000));
            waitWait += System.nanoTime() - w0;
        }
        waitAll += System.nanoTime() - t0;
    }

    static void report(String m, long all, long waited) {
        System.out.println("measured " + m + " ran " + (all - waited) / 1_000_000 + " ms waited "
                + waited / 1_000_000 + " ms");
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 25;
        for (int i = 0; i < n; i++) {
            sleepHalf();
            parkHalf();
            waitHalf();
        }
        report("sleepHalf", sleepAll, sleepWait);
        report("parkHalf", parkAll, parkWait);
        report("waitHalf", waitAll, waitWait);
        System.out.println("WaitHalf done");
    }
}
