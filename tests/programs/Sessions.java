// Sessions: profiling sessions one after another in one JVM, through
// jvmprof.Control. Each phase has its own hot method (phaseOneSpin,
// phaseTwoSpin ...), its own allocated class or its own lock, so a report
// that holds a phase's mark but no other phase's shows the session saw
// exactly its window. Usage: Sessions DIR STEP... where each STEP is
// "stop", "start:OPTIONS" (%D in OPTIONS is DIR), or a phase "spin1".."spin6",
// "alloc", "lock", "calls"; "expect-running", "expect-stopped" check
// Control.isRunning(); "bad:OPTIONS" expects start to refuse with
// IllegalArgumentException, "busy:OPTIONS" with IllegalStateException;
// "stop-none" expects stop() to return false; "heapdump:FILE" calls
// Control.dumpHeap(FILE) and prints true or the failure; "reflect-dump" calls
// Control.dump() through docs/options.md's reflection snippet. Prints one line per step.
import java.util.ArrayList;
import java.util.List;

public class Sessions {
    static volatile long sink;
    static final List<Object> keep = new ArrayList<>();

    static final java.lang.management.ThreadMXBean MX = java.lang.management.ManagementFactory.getThreadMXBean();

    // spin: computes until this thread has used ms of CPU (a minute of wall time at most), so a busy
    // machine makes a phase longer, not its profile thinner
    static long spin(long ms, int salt) {
        long end = MX.getCurrentThreadCpuTime() + ms * 1_000_000L, x = salt;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (MX.getCurrentThreadCpuTime() < end && System.nanoTime() < deadline)
            for (int i = 0; i < 100_000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    static long phaseOneSpin() { return spin(700, 1); }
    static long phaseTwoSpin() { return spin(700, 2); }
    static long phaseThreeSpin() { return spin(700, 3); }
    static long phaseFourSpin() { return spin(700, 4); }
    static long phaseFiveSpin() { return spin(700, 5); }
    static long phaseSixSpin() { return spin(700, 6); }

    static final class PhaseAllocThing {
        final long[] payload = new long[16];
    }

    static void alloc() {
        for (int i = 0; i < 400_000; i++) {
            PhaseAllocThing t = new PhaseAllocThing();
            if ((i & 1023) == 0)
                keep.add(t);
        }
    }

    static final class PhaseLock {}

    static void lock() throws InterruptedException {
        final PhaseLock l = new PhaseLock();
        Thread[] ts = new Thread[3];
        for (int k = 0; k < ts.length; k++) {
            ts[k] = new Thread(() -> {
                for (int i = 0; i < 40; i++)
                    synchronized (l) {
                        sink += spin(5, 7);
                    }
            }, "phase-lock-" + k);
            ts[k].start();
        }
        for (Thread t : ts)
            t.join();
    }

    static int phaseCallee(int i) { return i * 31 + 7; }

    static void calls() {
        long s = 0;
        for (int i = 0; i < 200_000; i++)
            s += phaseCallee(i);
        sink += s;
    }

    // docs/options.md's snippet for a program without a compile-time dependency on jvmprof
    static boolean jvmprofDump() {          // true if a jvmprof agent took the request
        try {
            return (Boolean) Class.forName("jvmprof.Control").getMethod("dump").invoke(null);
        } catch (ReflectiveOperationException e) {
            return false;                   // no jvmprof agent: jvmprof.Control is not on the class path
        }
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        for (int a = 1; a < args.length; a++) {
            String step = args[a];
            int colon = step.indexOf(':');
            String verb = colon < 0 ? step : step.substring(0, colon);
            String opts = colon < 0 ? "" : step.substring(colon + 1).replace("%D", dir);
            switch (verb) {
            case "stop":
                System.out.println("stop " + jvmprof.Control.stop());
                break;
            case "stop-none":
                System.out.println("stop-none " + !jvmprof.Control.stop());
                break;
            case "start":
                System.out.println("start " + jvmprof.Control.start(opts));
                break;
            case "bad":
            case "busy":
                try {
                    jvmprof.Control.start(opts);
                    System.out.println(verb + " NOT REFUSED");
                } catch (IllegalArgumentException e) {
                    System.out.println(verb + (verb.equals("bad") ? " refused: " : " WRONG: ") + e.getMessage());
                } catch (IllegalStateException e) {
                    System.out.println(verb + (verb.equals("busy") ? " refused: " : " WRONG: ") + e.getMessage());
                }
                break;
            case "heapdump": // Control.dumpHeap(opts): "heapdump true", or the exception's message
                try {
                    System.out.println("heapdump " + jvmprof.Control.dumpHeap(opts));
                } catch (java.io.UncheckedIOException e) {
                    System.out.println("heapdump failed: " + e.getMessage());
                }
                break;
            case "reflect-dump":
                System.out.println("reflect-dump " + jvmprofDump());
                break;
            case "expect-running":
                System.out.println("running " + jvmprof.Control.isRunning());
                break;
            case "expect-stopped":
                System.out.println("stopped " + !jvmprof.Control.isRunning());
                break;
            case "spin1": sink += phaseOneSpin(); System.out.println(step); break;
            case "spin2": sink += phaseTwoSpin(); System.out.println(step); break;
            case "spin3": sink += phaseThreeSpin(); System.out.println(step); break;
            case "spin4": sink += phaseFourSpin(); System.out.println(step); break;
            case "spin5": sink += phaseFiveSpin(); System.out.println(step); break;
            case "spin6": sink += phaseSixSpin(); System.out.println(step); break;
            case "alloc": alloc(); System.out.println(step); break;
            case "lock": lock(); System.out.println(step); break;
            case "calls": calls(); System.out.println(step); break;
            default:
                throw new IllegalArgumentException("unknown step " + step);
            }
        }
    }
}
