import java.io.File;

/* A program started without an agent, for t7001 (jvmprof start PID ...):
 * "calls DIR": prints "ready", times its loop (before), then waits for
 * DIR/go, allocates 10 MB of garbage, makes exactly 100000 calls of
 * counted() and keeps 100000 new Blobs (32 bytes of fields each), prints
 * "called",
 * waits for DIR/end, times its loop again (after) and prints both rates. */
public class AttachTarget {
    static long sink;
    static Blob[] kept;

    static final class Blob {
        long a, b, c, d;
    }

    static void allocate() {
        kept = new Blob[100000];
        for (int i = 0; i < kept.length; i++)
            kept[i] = new Blob();
    }

    static void counted(int i) {
        sink += i;
    }

    static int work(int n) {
        int x = 0;
        for (int i = 0; i < n; i++)
            x = x * 31 + i;
        return x;
    }

    /* ns per round of a fixed loop (the best of 20 rounds: what the program runs at) */
    static double rate() {
        double best = Double.MAX_VALUE;
        for (int r = 0; r < 20; r++) {
            long t0 = System.nanoTime();
            for (int k = 0; k < 2000; k++)
                sink += work(500);
            best = Math.min(best, (System.nanoTime() - t0) / 2000.0);
        }
        return best;
    }

    static void await(File f) throws InterruptedException {
        long end = System.currentTimeMillis() + 120_000;
        while (!f.exists() && System.currentTimeMillis() < end)
            Thread.sleep(20);
    }

    public static void main(String[] args) throws Exception {
        {
            File dir = new File(args[1]);
            for (int w = 0; w < 5; w++)
                rate();
            double before = rate();
            System.out.println("ready");
            await(new File(dir, "go"));
            /* a sampler started late takes each thread's first sample at a distance drawn before it
             * started (JVMTI's default interval, 512 KB on average): some garbage first */
            for (int i = 0; i < 160000; i++)
                sink += new byte[64].length;
            for (int i = 0; i < 100000; i++)
                counted(i);
            allocate();
            System.out.println("called");
            await(new File(dir, "end"));
            for (int w = 0; w < 5; w++)
                rate();
            double after = rate();
            System.out.printf("rate before %.1f after %.1f ns%n", before, after);
        }
    }
}
