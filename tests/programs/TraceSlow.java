// TraceSlow: calls whose lengths the test knows, for trace=exec,mintime=.
// main -> outer() twice; outer -> slow() (sleeps 40 ms) and fast() 1000
// times (microseconds each); then main -> failing(), which sleeps 40 ms and
// throws, caught in main.
public class TraceSlow {
    static long acc;

    static void fast(int i) {
        acc += i;
    }

    static void slow() throws InterruptedException {
        Thread.sleep(40);
    }

    static void outer() throws InterruptedException {
        slow();
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
    }
}
