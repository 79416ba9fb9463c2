// RecursiveTimes: work in small loop-free methods, for cpu=times' rule of
// which methods are counted only. Each phase is a loop (timed under any
// rule) calling small methods without loops that do the work:
//   fibLoop:    fib(22) 40 times, a recursion (57313 calls of fib each);
//   parityLoop: isEven(1000) 300 times, mutual recursion with isOdd
//               (1001 calls of the two together each);
//   chainLoop:  outer -> middle -> copy 200 times, one-line delegators whose
//               leaf copies 1M ints (System.arraycopy, native: its time is
//               copy's);
//   allocLoop:  alloc(1M), a straight-line leaf allocating a long[1M], 100 times;
//   getterLoop: a getter, 1,000,000 times.
// main only calls the loops and prints their sums (no string concatenation,
// whose bootstrap would be main's time).
public class RecursiveTimes {
    static final int FIB_N = 22, FIB_ROUNDS = 40, PARITY_N = 1000, PARITY_ROUNDS = 300;
    static final int COPY_ROUNDS = 200, ALLOC_ROUNDS = 100, GETS = 1_000_000;
    static volatile long sink;
    int v = 3;

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static boolean isEven(int n) {
        return n == 0 || isOdd(n - 1);
    }

    static boolean isOdd(int n) {
        return n != 0 && isEven(n - 1);
    }

    static int copy(int[] from, int[] to) {
        System.arraycopy(from, 0, to, 0, from.length);
        return to[from.length - 1];
    }

    static int middle(int[] from, int[] to) {
        return copy(from, to);
    }

    static int outer(int[] from, int[] to) {
        return middle(from, to);
    }

    static long[] alloc(int n) {
        return new long[n];
    }

    int get() {
        return v;
    }

    static long fibLoop() {
        long s = 0;
        for (int i = 0; i < FIB_ROUNDS; i++)
            s += fib(FIB_N);
        return s;
    }

    static long parityLoop() {
        long s = 0;
        for (int i = 0; i < PARITY_ROUNDS; i++)
            s += isEven(PARITY_N + (i & 1)) ? 1 : 0;
        return s;
    }

    // chainLoop's two arrays: their allocation (8 MiB zeroed, its pages
    // faulted in) is this method's time, not the loop's, which is to keep
    // little beside copy's
    static int[] ints(int last) {
        int[] a = new int[1 << 20];
        a[a.length - 1] = last;
        return a;
    }

    static long chainLoop() {
        int[] from = ints(7), to = ints(0);
        long s = 0;
        for (int i = 0; i < COPY_ROUNDS; i++)
            s += outer(from, to);
        return s;
    }

    static long allocLoop() {
        long s = 0;
        for (int i = 0; i < ALLOC_ROUNDS; i++)
            s += alloc(1 << 20).length;
        return s;
    }

    static long getterLoop() {
        RecursiveTimes r = new RecursiveTimes();
        long s = 0;
        for (int i = 0; i < GETS; i++)
            s += r.get();
        return s;
    }

    public static void main(String[] args) {
        System.out.println(fibLoop());
        System.out.println(parityLoop());
        System.out.println(chainLoop());
        System.out.println(allocLoop());
        System.out.println(getterLoop());
    }
}
