/* A program whose hot method moves (t6104, jvmprof diff): "before" spends
 * about 80% of its CPU in first() and 20% in second(), "after" the reverse;
 * runs about args[1] seconds. */
public class ShiftHot {
    static long sink;

    static long first(long n) {
        long x = 0;
        for (long i = 0; i < n; i++)
            x = x * 31 + i;
        return x;
    }

    static long second(long n) {
        long x = 0;
        for (long i = 0; i < n; i++)
            x = x * 37 + i;
        return x;
    }

    public static void main(String[] args) {
        boolean before = args[0].equals("before");
        long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        while (System.nanoTime() < end) {
            sink += first(before ? 400_000 : 100_000);
            sink += second(before ? 100_000 : 400_000);
        }
        System.out.println(sink == 42 ? "?" : "done");
    }
}
