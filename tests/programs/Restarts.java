// Restarts: the same small workload in many profiling sessions of one JVM
// (jvmprof.Control.start/stop), or once in a fresh JVM, so that each
// session's report can be compared with a fresh JVM's (t9012). Each kind of
// session has its fixed workload, whose calls, allocations and contention are
// known exactly:
//   spin  the main thread computes for 30 ms of its CPU time (cpu=samples)
//   wall  the main thread computes for 200 ms of wall time (wall=)
//   calls Restarts$Calls: fib(15), 1973 calls of fib; 10 calls of outer, each
//         making 100 of inner; 1000 of leaf through a method reference
//         (cpu=times, trace=exec)
//   alloc 40000 Restarts$Obj at one line, 5000 long[62] at another, and no other
//         allocation (heap=sites, exact or sampled)
//   lock  one contended entry of a Restarts$Lock, and no wait (monitor=y)
//   dump  the 777 Restarts$Held objects held all along (heap=dump)
// Usage: Restarts DIR ROUNDS STEP... where a STEP is
//   first:KIND    at once: the KIND's workload, then Control.stop() (for the
//                 session given in -agentpath; "Restarts DIR 0 first:KIND" is
//                 a fresh JVM's report of the workload)
//   KIND=OPTIONS  in each round r (1..ROUNDS), in order: Control.start(OPTIONS,
//                 %D the DIR and %R the round), the KIND's workload, Control.stop()
//   bad:OPTIONS   after the rounds: start must refuse (IllegalArgumentException)
// Prints one line per round ("round R") and the refusals ("bad refused: MESSAGE").
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

public class Restarts {
    static volatile long sink;
    static final java.lang.management.ThreadMXBean MX = java.lang.management.ManagementFactory.getThreadMXBean();

    static final class Held {
        final int n;
        Held(int n) { this.n = n; }
    }

    static final List<Held> held = new ArrayList<>();

    static final class Obj {
        long a;
        Obj next;
    }

    static final class Lock {}

    static final Lock lock = new Lock();

    // spin: computes until this thread has used ms of CPU (60 s of wall time at most)
    static long spin(long ms) {
        long end = MX.getCurrentThreadCpuTime() + ms * 1_000_000L, x = 1;
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (MX.getCurrentThreadCpuTime() < end && System.nanoTime() < deadline)
            for (int i = 0; i < 20_000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    // wallSpin: computes until ms of wall time have passed
    static long wallSpin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000L, x = 3;
        while (System.nanoTime() < end)
            for (int i = 0; i < 20_000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    // the calls workload: its own class, so that include= picks its methods and nothing the
    // program runs before it (a fresh JVM's session also sees main start)
    static final class Calls {
        static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

        static int inner(int i) { return i * 31 + 7; }

        static int outer(int k) {
            int s = 0;
            for (int i = 0; i < 100; i++)
                s += inner(i + k);
            return s;
        }

        static int leaf(int i) { return i ^ 0x5a5a; }

        static long run() {
            long s = fib(15);
            for (int k = 0; k < 10; k++)
                s += outer(k);
            IntUnaryOperator f = Calls::leaf;
            for (int i = 0; i < 1000; i++)
                s += f.applyAsInt(i);
            return s;
        }
    }

    // 40000 Obj at one line and 5000 long[62] at another, nothing else: all garbage at the end
    static void alloc() {
        Obj chain = null;
        for (int i = 0; i < 40_000; i++) {
            Obj o = new Obj();
            o.a = i;
            o.next = (i & 63) == 0 ? null : chain;
            chain = o;
        }
        long s = chain.a;
        for (int i = 0; i < 5_000; i++) {
            long[] a = new long[62];
            a[i % 62] = i;
            s += a[0];
        }
        sink += s;
    }

    static volatile boolean holding;

    // exactly one contended entry of lock, and no wait: a helper thread takes the lock and holds it
    // until it sees the main thread blocked on it; main waits for the helper by spinning, not by
    // Object.wait or join, which monitor=y would report
    static void contend() {
        Thread main = Thread.currentThread();
        holding = false;
        Thread holder = new Thread(() -> {
            synchronized (lock) {
                holding = true;
                while (main.getState() != Thread.State.BLOCKED)
                    Thread.onSpinWait();
            }
        }, "restarts-holder");
        holder.start();
        while (!holding)
            Thread.onSpinWait();
        synchronized (lock) {
            sink++;
        }
        while (holder.isAlive())
            Thread.yield();
    }

    static void work(String kind) {
        switch (kind) {
        case "spin": sink += spin(30); break;
        case "wall": sink += wallSpin(200); break;
        case "calls": sink += Calls.run(); break;
        case "alloc": alloc(); break;
        case "lock": contend(); break;
        case "dump": sink += held.size(); break;
        default: throw new IllegalArgumentException("unknown kind " + kind);
        }
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int rounds = Integer.parseInt(args[1]);
        for (int i = 0; i < 777; i++)
            held.add(new Held(i));
        List<String> bad = new ArrayList<>();
        List<String[]> sessions = new ArrayList<>();
        for (int a = 2; a < args.length; a++) {
            if (args[a].startsWith("first:")) {
                work(args[a].substring(6));
                if (!jvmprof.Control.stop())
                    throw new IllegalStateException("no session to stop");
                continue;
            }
            if (args[a].startsWith("bad:")) {
                bad.add(args[a].substring(4));
                continue;
            }
            int eq = args[a].indexOf('=');
            sessions.add(new String[] { args[a].substring(0, eq), args[a].substring(eq + 1) });
        }
        for (int r = 1; r <= rounds; r++) {
            for (String[] s : sessions) {
                String opts = s[1].replace("%D", dir).replace("%R", Integer.toString(r));
                if (!jvmprof.Control.start(opts))
                    throw new IllegalStateException("start " + opts + ": false");
                work(s[0]);
                if (!jvmprof.Control.stop())
                    throw new IllegalStateException("stop after " + opts + ": false");
            }
            System.out.println("round " + r);
        }
        for (String opts : bad) {
            try {
                jvmprof.Control.start(opts.replace("%D", dir));
                System.out.println("bad NOT REFUSED: " + opts);
            } catch (IllegalArgumentException e) {
                System.out.println("bad refused: " + e.getMessage());
            }
        }
    }
}
