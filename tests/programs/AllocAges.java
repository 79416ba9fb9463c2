// AllocAges — objects that die at known ages, on threads in known states
// (tests/it/t4102, exact mode). Before the first collection: 30000
// AllocAges$Baz allocated by main and kept; 20000 AllocAges$Qux allocated
// and dropped by a daemon thread that then blocks for good (it never
// allocates again); 10000 AllocAges$Quux allocated and dropped by a thread
// that then ends. Then a collection (Baz survive it, Qux and Quux die in
// it), an allocation on main, the Baz dropped, and two more collections (Baz
// die in the first of them, having survived one).
import java.util.concurrent.CountDownLatch;

public class AllocAges {
    static final class Baz { long v; Baz(long v) { this.v = v; } }
    static final class Qux { int v; Qux(int v) { this.v = v; } }
    static final class Quux { int v; Quux(int v) { this.v = v; } }

    static volatile Object keep;
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        Baz[] bazs = new Baz[30_000];
        for (int i = 0; i < bazs.length; i++)
            bazs[i] = new Baz(i);
        keep = bazs;

        Thread ender = new Thread(() -> {
            Quux[] q = new Quux[10_000];
            for (int i = 0; i < q.length; i++)
                q[i] = new Quux(i);
            long s = 0;
            for (int i = 0; i < q.length; i++)
                s += q[i].v;
            sink += s;
        }, "ender");
        ender.start();
        ender.join();

        CountDownLatch made = new CountDownLatch(1);
        Thread idler = new Thread(() -> {
            Qux[] q = new Qux[20_000];
            for (int i = 0; i < q.length; i++)
                q[i] = new Qux(i);
            long s = 0;
            for (int i = 0; i < q.length; i++)
                s += q[i].v;
            sink += s;
            q = null;
            made.countDown();
            try {
                new CountDownLatch(1).await();   // blocks for good
            } catch (InterruptedException e) {
                return;
            }
        }, "idler");
        idler.setDaemon(true);
        idler.start();
        made.await();

        System.gc();
        Thread.sleep(200);
        keep = new Object[1];   // main allocates after the collection; the Baz are dropped
        long sum = 0;
        for (int i = 0; i < bazs.length; i++)
            sum += bazs[i].v;
        bazs = null;
        for (int i = 0; i < 2; i++) {
            System.gc();
            Thread.sleep(200);
        }
        System.out.println("baz sum " + sum + " sink " + sink);
    }
}
