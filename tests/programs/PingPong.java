// PingPong: java PingPong <pairs> <seconds>: pairs of threads hand a token back and forth
// (LockSupport.park/unpark) for the given seconds, so that each hand-over is a context switch;
// each thread also computes a little between hand-overs. Prints "PingPong done" at the end
// (the count of hand-overs depends on timing, so it is not printed).
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class PingPong {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int pairs = Integer.parseInt(args[0]);
        long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        Thread[] all = new Thread[pairs * 2];
        for (int p = 0; p < pairs; p++) {
            AtomicInteger turn = new AtomicInteger();
            Thread[] two = new Thread[2];
            for (int side = 0; side < 2; side++) {
                final int me = side;
                two[side] = new Thread(() -> {
                    long x = me;
                    while (System.nanoTime() < end) {
                        while (turn.get() != me && System.nanoTime() < end)
                            LockSupport.parkNanos(1_000_000);
                        for (int i = 0; i < 2000; i++)
                            x = x * 31 + i;
                        turn.set(1 - me);
                        LockSupport.unpark(two[1 - me]);
                    }
                    sink += x;
                }, "pp-" + p + "-" + side);
            }
            all[2 * p] = two[0];
            all[2 * p + 1] = two[1];
        }
        for (Thread t : all)
            t.start();
        for (Thread t : all)
            t.join();
        System.out.println("PingPong done");
    }
}
