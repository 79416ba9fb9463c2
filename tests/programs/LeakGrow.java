// LeakGrow — a slowly growing leak for lifetimes=y (tests/it/t4101): 20
// rounds; each allocates 100000 LeakGrow$Obj in makeRound(), keeps 1 of
// every 100 in a static list (which only grows) and drops the rest, then
// collects garbage. The site should be flagged as a leak suspect (its live
// objects grow at every collection) and as churn (99% die young).
import java.util.ArrayList;
import java.util.List;

public class LeakGrow {
    static final class Obj {
        long a, b;
        Obj(long a) { this.a = a; this.b = ~a; }
    }

    static final List<Obj> leak = new ArrayList<>();
    static volatile Obj last;

    static void makeRound(int round) {
        for (int i = 0; i < 100_000; i++) {
            Obj o = new Obj((long) round * 100_000 + i);
            last = o;
            if (i % 100 == 0)
                leak.add(o);
        }
    }

    public static void main(String[] args) throws Exception {
        for (int r = 0; r < 20; r++) {
            makeRound(r);
            System.gc();
            Thread.sleep(150);
        }
        System.out.println("kept " + leak.size());
    }
}
