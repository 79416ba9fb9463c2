/* FiltMain and filt.lib.Lib (Lib.java): classes in two packages for the
 * cpu=times method rules and include=/exclude=. */
package filt.main;

import filt.lib.Lib;

public class FiltMain {
    static final long START = System.nanoTime(); // a <clinit> of a non-system class, over 12 bytes
    static final String NAME = String.valueOf(START).substring(0, 1);

    static long work(Lib lib) {
        long s = 0;
        for (int i = 0; i < 1000; i++)
            s += lib.get() + lib.compute(i) + lib.spin(50);
        return s;
    }

    public static void main(String[] args) {
        System.out.println(work(new Lib(3)) > 0 && !NAME.isEmpty() ? "ok" : "??");
    }
}
