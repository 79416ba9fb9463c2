// VThreadCallLoop MODE TASKS CALLS ROUNDS: TASKS tasks, each calling an
// out-of-line leaf() CALLS times and parking 10 us after every CALLS/10
// calls; MODE virtual runs each task on a virtual thread of its own (it
// unmounts at each park), platform runs the same tasks on as many platform
// threads as the machine has cores. ROUNDS rounds (the first a warm-up);
// prints the median round's process CPU nanoseconds per call, and of those
// the median round's user-mode nanoseconds (/proc/self/stat: the calls and
// the agent's work on them run in user mode; the parks' futex and timer work
// is mostly the kernel's, and noisy on platform threads):
//   VTCALLLOOP mode=virtual ns_per_call=N user_ns_per_call=U
// JDK 21 or later (bench/vthread_times.sh builds it with JDK25_HOME).
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Paths;
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

    /* This process's user-mode CPU time in ns (field 14 of /proc/self/stat, in clock ticks of 10 ms). */
    static long userNs() throws Exception {
        String st = new String(Files.readAllBytes(Paths.get("/proc/self/stat")));
        String[] f = st.substring(st.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) * 10_000_000L; // utime is field 14; f[0] is field 3
    }

    public static void main(String[] args) throws Exception {
        boolean virtual = args[0].equals("virtual");
        int tasks = Integer.parseInt(args[1]), calls = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[] per = new double[rounds - 1], user = new double[rounds - 1];
        for (int r = 0; r < rounds; r++) {
            long cpu0 = os.getProcessCpuTime(), user0 = userNs();
            try (ExecutorService ex = virtual ? Executors.newVirtualThreadPerTaskExecutor()
                                              : Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors())) {
                for (int t = 0; t < tasks; t++)
                    ex.execute(() -> task(calls));
                ex.shutdown();
                ex.awaitTermination(10, TimeUnit.MINUTES);
            }
            long cpu = os.getProcessCpuTime() - cpu0, us = userNs() - user0;
            if (r > 0) {
                per[r - 1] = (double) cpu / ((double) tasks * calls);
                user[r - 1] = (double) us / ((double) tasks * calls);
            }
        }
        Arrays.sort(per);
        Arrays.sort(user);
        System.out.printf("VTCALLLOOP mode=%s ns_per_call=%.2f user_ns_per_call=%.2f%n", args[0], per[per.length / 2],
                          user[user.length / 2]);
    }
}
