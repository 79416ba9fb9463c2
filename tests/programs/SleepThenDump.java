// SleepThenDump: computes for args[0] seconds (default 2), then, if args[1] is
// "control", asks the agent for a report through jvmprof.Control.dump() and
// waits for the file args[2] to appear; otherwise just sleeps args[1]
// seconds (a test sends SIGQUIT meanwhile). Prints "ok".
import java.io.File;

public class SleepThenDump {
    static volatile long sink;

    static long compute(double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9), x = 1;
        while (System.nanoTime() < end)
            for (int i = 0; i < 100_000; i++)
                x = x * 31 + i;
        return x;
    }

    public static void main(String[] args) throws Exception {
        sink = compute(args.length > 0 ? Double.parseDouble(args[0]) : 2.0);
        if (args.length > 2 && args[1].equals("control")) {
            Class<?> c = Class.forName("jvmprof.Control");
            boolean taken = (Boolean) c.getMethod("dump").invoke(null);
            File f = new File(args[2]);
            for (int i = 0; i < 100 && !f.exists(); i++)
                Thread.sleep(50);
            System.out.println("control " + taken + " exists " + f.exists());
        } else {
            Thread.sleep((long) (1000 * (args.length > 1 ? Double.parseDouble(args[1]) : 1.0)));
        }
        System.out.println("ok");
    }
}
