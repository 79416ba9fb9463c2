// CountedCalls: calls of methods too small for cpu=times to time (counted
// only), made by many threads at once, around one jvmprof.Control.dump().
// Phase A: THREADS threads (more than the Tracker's 64 stripes, so threads
// share one) start together and each calls tinyA() CALLS times, half of
// them through a timed loop; then the report; phase B: the main thread calls
// tinyB() 12345 times. With reset=y the first report holds THREADS*CALLS
// calls of tinyA and none of tinyB, the second 12345 of tinyB and none of
// tinyA. Given the first report's path, phase B waits until it is there.
//   java CountedCalls [first-report-path]
import java.util.concurrent.CountDownLatch;

public class CountedCalls {
    static final int THREADS = 70, CALLS = 100_000;
    static volatile int sink;

    static int tinyA(int x) {
        return x + 1;
    }

    static int tinyB(int x) {
        return x ^ 5;
    }

    static int viaLoop(int n) { // timed (a loop); its callee is counted
        int s = 0;
        for (int i = 0; i < n; i++)
            s += tinyA(i);
        return s;
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        Thread[] ts = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            ts[t] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                int s = viaLoop(CALLS / 2);
                for (int i = 0; i < CALLS / 2; i++)
                    s += tinyA(i);
                sink += s;
            });
            ts[t].start();
        }
        go.countDown();
        for (Thread t : ts)
            t.join();
        System.out.println("report " + jvmprof.Control.dump());
        if (args.length > 0) {
            java.io.File first = new java.io.File(args[0]);
            for (int i = 0; i < 3000 && !first.exists(); i++)
                Thread.sleep(10);
        }
        int s = 0;
        for (int i = 0; i < 12345; i++)
            s += tinyB(i);
        sink += s;
        System.out.println("CountedCalls done");
    }
}
