// PrologueHot: leaf() is never inlined and is called back to back, so a good
// part of the samples land in its prologue and epilogue, where
// AsyncGetCallTrace cannot walk.
public class PrologueHot {
    static volatile long sink;

    static int leaf(int x) {
        return x * 31 + 7;
    }

    static long loop(long n) {
        long s = 0;
        for (long i = 0; i < n; i++)
            s += leaf((int) i);
        return s;
    }

    public static void main(String[] args) {
        long end = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < end)
            sink += loop(10_000_000);
        System.out.println("PrologueHot done");
    }
}
