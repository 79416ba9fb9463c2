/* filt.lib.Lib: a 5-byte getter (a straight-line leaf: counted, not timed,
 * by default) and a 10-byte method that calls (timed by default; counted with
 * tiny=12, like the getter), and a leaf method with a loop (always timed). */
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
