import com.sun.tracing.Provider;
import com.sun.tracing.ProviderFactory;

/* The cost of a com.sun.tracing probe call (bench/probe_cost.sh): ROUNDS
 * rounds of N calls of a probe with an int argument, in a loop the JIT
 * compiles; prints the median round's ns per call. Modes: probe (the
 * provider ProviderFactory makes: nothing listening, or whatever the agent
 * options and an attached tracer make listen), plain (an ordinary class
 * implementing the same interface with empty methods: the loop's own cost).
 * Waits for a file named by the third argument to exist, if given, before
 * the first round (so a tracer can attach first). */
public class ProbeBench {
    public interface Bench extends Provider {
        void tick(int i);
    }

    static final class Plain implements Bench {
        public void tick(int i) {}
        public com.sun.tracing.Probe getProbe(java.lang.reflect.Method m) { return null; }
        public void dispose() {}
    }

    static int sink;

    static long round(Bench b, int n) {
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++)
            b.tick(i);
        return System.nanoTime() - t0;
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int n = Integer.parseInt(args[1]), rounds = Integer.parseInt(args[2]);
        Bench b = mode.equals("plain") ? new Plain() : ProviderFactory.getDefaultFactory().createProvider(Bench.class);
        for (int w = 0; w < 5; w++) /* warm: compiled before the timed rounds */
            round(b, Math.min(n, 2_000_000));
        if (args.length > 3) {
            System.out.println("PROBEBENCH ready " + b);
            while (!new java.io.File(args[3]).exists())
                Thread.sleep(50);
        }
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++)
            ns[r] = (double) round(b, n) / n;
        java.util.Arrays.sort(ns);
        System.out.printf("PROBEBENCH mode=%s ns_per_call=%.3f%n", mode, ns[rounds / 2]);
        b.dispose();
    }
}
