// CallLoop: the cost of one timed call. A tight loop calls leaf() (a small
// method without a loop) CALLS times per round, ROUNDS times (the first
// half warm the JIT up), with leaf() kept out of line so that every call is
// a call; prints the median nanoseconds per iteration of the measured
// rounds. Run with and without cpu=times (tiny=0, so leaf() is timed): the
// difference is what the profiler adds to each timed call.
//   java CallLoop [CALLS=50000000] [ROUNDS=12]
// (the caller adds -XX:CompileCommand=dontinline,CallLoop::leaf)
import java.util.Arrays;

public class CallLoop {
    static int sink;

    static int leaf(int x) {
        return x * 31 + 1;
    }

    static int loop(int n) {
        int s = 0;
        for (int i = 0; i < n; i++)
            s += leaf(i);
        return s;
    }

    public static void main(String[] args) {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 50_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 12;
        double[] ns = new double[rounds - rounds / 2];
        for (int r = 0; r < rounds; r++) {
            long t = System.nanoTime();
            sink += loop(calls);
            long dt = System.nanoTime() - t;
            if (r >= rounds / 2)
                ns[r - rounds / 2] = (double) dt / calls;
        }
        Arrays.sort(ns);
        System.out.printf("CALLLOOP ns_per_call=%.2f calls=%d%n", ns[ns.length / 2], (long) calls * rounds);
    }
}
