/* filt.lib.Lib: a 5-byte getter and a 10-byte method that calls (both below
 * tiny=12, so not instrumented by default), and a leaf method with a loop
 * (always instrumented). */
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
