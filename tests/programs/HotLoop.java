// HotLoop: spends about 3/4 of its CPU time in heavy() and 1/4 in light(),
// both doing the same work per unit, in one thread, for about `seconds`.
public class HotLoop {
    static volatile long sink;

    static long work(long n, long seed) {
        long x = seed;
        for (long i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= (x >>> 17);
        }
        return x;
    }

    static long heavy(long seed) { return work(3_000_000, seed); }

    static long light(long seed) { return work(1_000_000, seed); }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long acc = 0;
        while (System.nanoTime() < end) {
            acc += heavy(acc);
            acc += light(acc);
        }
        sink = acc;
        System.out.println("done");
    }
}
