// TraceSlow: calls whose lengths the test knows, for trace=exec,mintime=.
// main -> outer() twice; outer -> slow() (sleeps 40 ms) and fast() 1000
// times (microseconds each); then main -> failing(), which sleeps 40 ms and
// throws, caught in main. Prints how long slow()'s calls took in all, as
// measured around them ("slow took MS ms"): a busy machine makes a 40 ms
// sleep last longer.
public class TraceSlow {
    static long acc, slowNanos;

    static void fast(int i) {
        acc += i;
    }

    static void slow() throws InterruptedException {
        Thread.sleep(40);
    }

    static void outer() throws InterruptedException {
        long t = System.nanoTime();
        slow();
        slowNanos += System.nanoTime() - t;
        for (int i = 0; i < 1000; i++)
            fast(i);
    }

    static void failing() throws InterruptedException {
        Thread.sleep(40);
        throw new IllegalStateException("late");
    }

    public static void main(String[] args) throws Exception {
        outer();
        outer();
        try {
            failing();
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage() + " " + acc);
        }
        System.out.println("slow took " + slowNanos / 1e6 + " ms");
    }
}
