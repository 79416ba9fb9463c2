// IntervalPhases: two phases around one jvmprof.Control.dump(). Phase A runs
// a() (CPU) until it has used 1 s of CPU and called it at least 2000 times
// (a minute of wall time at most, so a busy machine makes it longer, not
// thinner), and allocates 20000 PhaseA
// objects; then the report; phase B does the same with b() and PhaseB.
// Control.dump() only asks for the report: given the first report's path,
// phase B waits (up to 30 s) until that file is there.
public class IntervalPhases {
    static final class PhaseA { long v; }
    static final class PhaseB { long v; }
    static volatile long sink;
    static volatile Object keep;

    static void a() {
        long x = sink;
        for (int i = 0; i < 200_000; i++)
            x = x * 31 + i;
        sink = x;
    }

    static void b() {
        long x = sink;
        for (int i = 0; i < 200_000; i++)
            x = x * 37 + i;
        sink = x;
    }

    static void phase(boolean first) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpuEnd = mx.getCurrentThreadCpuTime() + 1_000_000_000L;
        long deadline = System.nanoTime() + 60_000_000_000L;
        int calls = 0;
        while (calls < 2000 || (mx.getCurrentThreadCpuTime() < cpuEnd && System.nanoTime() < deadline)) {
            if (first)
                a();
            else
                b();
            if (++calls <= 20000)
                keep = first ? new PhaseA() : new PhaseB();
        }
        for (int i = calls; i < 20000; i++)
            keep = first ? new PhaseA() : new PhaseB();
    }

    public static void main(String[] args) throws InterruptedException {
        phase(true);
        System.out.println("report " + jvmprof.Control.dump());
        if (args.length > 0) {
            java.io.File first = new java.io.File(args[0]);
            for (int i = 0; i < 3000 && !first.exists(); i++)
                Thread.sleep(10);
        }
        phase(false);
        System.out.println("IntervalPhases done");
    }
}
