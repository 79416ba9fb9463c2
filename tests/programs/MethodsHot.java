// MethodsHot: one hot method reached through eight call paths (c1..c8 call
// hot), so each trace holds about an eighth of its time while the method
// holds nearly all of it: the per-method view must rank hot first. Usage:
// MethodsHot ROUNDS; hot runs 8 * ROUNDS times.
public class MethodsHot {
    static volatile long sink;

    static long hot(long x) {
        for (int i = 0; i < 20_000; i++) { // the shift keeps JDK 25's C2 from folding the loop (10x faster)
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >>> 17;
        }
        return x;
    }

    static long c1(long x) { return hot(x) + 1; }
    static long c2(long x) { return hot(x) + 2; }
    static long c3(long x) { return hot(x) + 3; }
    static long c4(long x) { return hot(x) + 4; }
    static long c5(long x) { return hot(x) + 5; }
    static long c6(long x) { return hot(x) + 6; }
    static long c7(long x) { return hot(x) + 7; }
    static long c8(long x) { return hot(x) + 8; }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        for (int r = 0; r < rounds; r++)
            sink += c1(r) + c2(r) + c3(r) + c4(r) + c5(r) + c6(r) + c7(r) + c8(r);
        System.out.println("done " + rounds);
    }
}
