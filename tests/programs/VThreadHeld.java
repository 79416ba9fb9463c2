// VThreadHeld N STOPFILE: starts N virtual threads (JDK 21+; made through
// reflection, so that this file compiles on JDK 17 too), each of which keeps
// one VThreadHeld$Held, referenced only by a local of its keep() frame, while
// it parks; prints "ready" once all have started, and when STOPFILE appears
// lets them end and prints "done".
import java.util.concurrent.locks.LockSupport;

public class VThreadHeld {
    static final class Held {
        final long n;
        Held(long n) { this.n = n; }
    }

    static volatile boolean stop;
    static final java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();

    static long keep(Held h) {
        started.incrementAndGet();
        while (!stop)
            LockSupport.parkNanos(50_000_000L);
        return h.n;
    }

    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        java.lang.reflect.Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final long v = i;
            ts[i] = (Thread) start.invoke(builder, (Runnable) () -> keep(new Held(v)));
        }
        while (started.get() < n)
            Thread.sleep(10);
        System.out.println("ready");
        java.io.File f = new java.io.File(a[1]);
        while (!f.exists())
            Thread.sleep(20);
        stop = true;
        for (Thread t : ts)
            t.join();
        System.out.println("done");
    }
}
