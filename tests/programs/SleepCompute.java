// SleepCompute: the main thread alternates 50 ms of computing with 50 ms of
// Thread.sleep for args[0] seconds (default 4), so half its wall time is CPU
// and half is sleeping. A CPU sampler must see only compute(); a wall-clock
// sampler must see compute() and Thread.sleep about half each.
public class SleepCompute {
    static long sink;

    static void compute(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = sink;
        while (System.nanoTime() < end)
            for (int i = 0; i < 1000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        sink = x;
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        int rounds = 0;
        while (System.nanoTime() < end) {
            compute(50_000_000L);
            Thread.sleep(50);
            rounds++;
        }
        System.out.println(rounds > 0 ? "done" : "no rounds");
    }
}
