/* filt.lib.Lib: a tiny getter (no calls, no loop: not instrumented), a
 * method that calls (instrumented), a leaf method with a loop (instrumented). */
package filt.lib;

public class Lib {
    private final int k;

    public Lib(int k) {
        this.k = k;
    }

    public int get() {
        return k;
    }

    public int compute(int i) {
        return Math.abs(i - get());
    }

    public int spin(int n) {
        int s = 0;
        for (int i = 0; i < n; i++)
            s += i ^ k;
        return s;
    }
}
