/* CallCounts: methods called a known number of times, for cpu=times.
 * fib(25) makes exactly 242785 calls of fib; thrower/middle/outer are each
 * called 1000 times and every call leaves by an exception caught in catcher;
 * rec(10) recurses 11 deep and the exception thrown at the bottom is caught
 * half way up, 100 times (1100 calls of rec); Boom's constructor is called
 * 100 times and throws on even numbers (50 times). */
public class CallCounts {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static void thrower(int i) {
        if (i >= 0)
            throw new IllegalStateException("x");
    }

    static void middle(int i) {
        thrower(i);
    }

    static void outer(int i) {
        middle(i);
    }

    static int catcher(int n) {
        int caught = 0;
        for (int i = 0; i < n; i++) {
            try {
                outer(i);
            } catch (IllegalStateException e) {
                caught++;
            }
        }
        return caught;
    }

    static int rec(int d) {
        if (d == 0)
            throw new RuntimeException("bottom");
        if (d == 5) {
            try {
                return rec(d - 1) + 1;
            } catch (RuntimeException e) {
                return -1;
            }
        }
        return rec(d - 1) + 1;
    }

    static final class Boom {
        final int v;

        Boom(int i) {
            if (i % 2 == 0)
                throw new IllegalArgumentException("even");
            v = i;
        }
    }

    static int constructs(int n) {
        int made = 0;
        for (int i = 0; i < n; i++) {
            try {
                made += new Boom(i).v > 0 ? 1 : 0;
            } catch (IllegalArgumentException e) {
                // expected for even i
            }
        }
        return made;
    }

    public static void main(String[] args) {
        System.out.println("fib(25) = " + fib(25));
        System.out.println("caught " + catcher(1000));
        int r = 0;
        for (int i = 0; i < 100; i++)
            r += rec(10);
        System.out.println("rec " + r);
        System.out.println("made " + constructs(100));
    }
}
