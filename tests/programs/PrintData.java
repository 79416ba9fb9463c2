// PrintData: writes deterministic data to stdout from the main thread while
// two other threads compute and contend on a lock (so the agent is busy):
// its stdout must be byte-identical with and without the agent.
public class PrintData {
    static final Object LOCK = new Object();
    static long shared;

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[2];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = new Thread(() -> {
                for (int i = 0; i < 2_000; i++)
                    synchronized (LOCK) {
                        for (int k = 0; k < 5_000; k++)
                            shared = shared * 31 + k;
                    }
            });
            ts[t].start();
        }
        StringBuilder sb = new StringBuilder();
        long x = 1;
        for (int i = 0; i < 20_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sb.setLength(0);
            sb.append(i).append(',').append(Long.toHexString(x)).append(",\u00e9\u4e2d");
            System.out.println(sb);
        }
        for (Thread t : ts)
            t.join();
        System.out.println("end");
    }
}
