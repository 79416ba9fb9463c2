// ManyThreads: starts args[0] threads (default 200), 20 at a time, each doing
// a little work and ending, while the profiler samples. Prints the checksum.
import java.util.ArrayList;
import java.util.List;

public class ManyThreads {
    static long work(int seed) {
        long x = seed;
        for (int i = 0; i < 2_000_000; i++)
            x = x * 6364136223846793005L + i;
        return x;
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        long[] results = new long[n];
        for (int start = 0; start < n; start += 20) {
            List<Thread> batch = new ArrayList<>();
            for (int i = start; i < Math.min(n, start + 20); i++) {
                final int k = i;
                Thread t = new Thread(() -> results[k] = work(k), "many-" + i);
                t.start();
                batch.add(t);
            }
            for (Thread t : batch)
                t.join();
        }
        long sum = 0;
        for (long r : results)
            sum += r;
        System.out.println("threads " + n + " checksum " + sum);
    }
}
