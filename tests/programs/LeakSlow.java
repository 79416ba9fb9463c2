// LeakSlow: a slow leak that only System.gc() collects (give the JVM a large
// heap so no other collection runs): 40 rounds, each allocating 20000
// LeakSlow$Obj in round() and keeping 1 in 1000 of them (1 in N with an
// argument N) in a static list (which only grows), and 20000 LeakSlow$Temp in churn() kept by none, then
// System.gc(), then 100 ms for the collection's frees to reach the agent's
// model (its agent thread drains every 100 ms with heap=sites alone) before
// the next round allocates: the floors of live objects are taken between
// those drains. round()'s site is a leak suspect; churn()'s is not.
import java.util.ArrayList;
import java.util.List;

public class LeakSlow {
    static final class Obj { long v; }
    static final class Temp { long v; }

    static final List<Obj> kept = new ArrayList<>();
    static volatile Object sink;

    static int every = 1000;

    static void round() {
        for (int i = 0; i < 20000; i++) {
            Obj o = new Obj();
            sink = o;
            if (i % every == 0)
                kept.add(o);
        }
    }

    static void churn() {
        for (int i = 0; i < 20000; i++)
            sink = new Temp();
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0)
            every = Integer.parseInt(args[0]);
        for (int r = 0; r < 40; r++) {
            round();
            churn();
            System.gc();
            Thread.sleep(100);
        }
        System.out.println("kept " + kept.size());
    }
}
