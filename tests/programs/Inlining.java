// Inlining: hot() spends its time in a loop calling mix(), a method small
// enough for the JIT to inline into hot()'s compiled code. A flame graph of
// it shows hot() as JIT-compiled and mix() as inlined into it. Runs for
// args[0] seconds (default 2).
public class Inlining {
    static long mix(long x, int i) {
        x ^= x >>> 29;
        return x * 0xBF58476D1CE4E5B9L + i;
    }

    static long hot(long seconds) {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long x = 7;
        while (System.nanoTime() < end)
            for (int i = 0; i < 100_000; i++)
                x = mix(x, i);
        return x;
    }

    public static void main(String[] args) {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 2;
        System.out.println(hot(seconds) == 42 ? "unlikely" : "done");
    }
}
