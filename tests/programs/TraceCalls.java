// TraceCalls: a known call tree for trace=exec. main: a user event, fact(3)
// (three nested calls), a user event, thrower(2) (three calls left by one
// exception, caught in main), a thread "helper" running fact(2), a
// constructor that throws (Boom: no handler can close it, a later exit
// does), a user event, and main's exit.
public class TraceCalls {
    static final class Boom {
        Boom() {
            throw new IllegalStateException("boom");
        }
    }

    static int fact(int n) {
        return n <= 1 ? 1 : n * fact(n - 1);
    }

    static void thrower(int d) {
        if (d == 0)
            throw new IllegalStateException("bottom");
        thrower(d - 1);
    }

    public static void main(String[] args) throws Exception {
        jvmprof.Control.userEvent("before");
        int f = fact(3);
        jvmprof.Control.userEvent("between");
        try {
            thrower(2);
        } catch (IllegalStateException e) {
            f++;
        }
        Thread t = new Thread(() -> fact(2), "helper");
        t.start();
        t.join();
        try {
            new Boom();
        } catch (IllegalStateException e) {
            f++;
        }
        System.out.println("TraceCalls " + jvmprof.Control.userEvent("after " + f));
    }
}
