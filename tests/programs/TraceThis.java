// TraceThis: receivers for trace=exec. Two Counters, a and b; a static
// method twice(c) calls the synchronized c.add(1) twice and c.get(); main
// calls twice(a), twice(b), a full collection (which moves both), twice(a).
// Then a is dropped (after a user event) and collected, so its death follows.
public class TraceThis {
    static final class Counter {
        int n;

        synchronized void add(int k) {
            n += k;
        }

        int get() {
            return n;
        }
    }

    static int twice(Counter c) {
        c.add(1);
        c.add(1);
        return c.get();
    }

    public static void main(String[] args) throws Exception {
        Counter a = new Counter(), b = new Counter();
        int sum = twice(a) + twice(b);
        System.gc();
        sum += twice(a);
        jvmprof.Control.userEvent("a dropped");
        a = null;
        System.gc();
        Thread.sleep(200);
        System.gc();
        Thread.sleep(200);
        System.out.println("TraceThis " + sum + " " + b.get());
    }
}
