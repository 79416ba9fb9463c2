// VThreadCallLoop MODE TASKS CALLS ROUNDS: TASKS tasks, each calling an
// out-of-line leaf() CALLS times and parking 10 us after every CALLS/10
// calls; MODE virtual runs each task on a virtual thread of its own (it
// unmounts at each park), platform runs the same tasks on as many platform
// threads as the machine has cores. ROUNDS rounds (the first a warm-up);
// prints the median round's process CPU nanoseconds per call:
//   VTCALLLOOP mode=virtual ns_per_call=N
// JDK 21 or later (bench/vthread_times.sh builds it with JDK25_HOME).
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

public class VThreadCallLoop {
    static volatile long sink;

    static long leaf(long x) {
        return x * 31 + 7;
    }

    static void task(int calls) {
        long x = 1;
        int every = Math.max(1, calls / 10);
        for (int i = 1; i <= calls; i++) {
            x = leaf(x);
            if (i % every == 0)
                LockSupport.parkNanos(10_000);
        }
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        boolean virtual = args[0].equals("virtual");
        int tasks = Integer.parseInt(args[1]), calls = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[] per = new double[rounds - 1];
        for (int r = 0; r < rounds; r++) {
            long cpu0 = os.getProcessCpuTime();
            try (ExecutorService ex = virtual ? Executors.newVirtualThreadPerTaskExecutor()
                                              : Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors())) {
                for (int t = 0; t < tasks; t++)
                    ex.execute(() -> task(calls));
                ex.shutdown();
                ex.awaitTermination(10, TimeUnit.MINUTES);
            }
            long cpu = os.getProcessCpuTime() - cpu0;
            if (r > 0)
                per[r - 1] = (double) cpu / ((double) tasks * calls);
        }
        Arrays.sort(per);
        System.out.printf("VTCALLLOOP mode=%s ns_per_call=%.2f%n", args[0], per[per.length / 2]);
    }
}
