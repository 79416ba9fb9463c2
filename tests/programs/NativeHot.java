// NativeHot: java NativeHot <library> <spin|deep> <seconds>: System.load()s the JNI library
// (build/it/native/libjpnative_fp.so or libjpnative_nofp.so, from tests/native/jpnative.c), then
// for <seconds> of wall time calls its native method from callNative(), 10 ms of CPU a call:
// spin() burns the CPU in jp_hot_loop, deep() in jp_deep_c under jp_deep_b under jp_deep_a.
// Prints one line at the end, "NativeHot <mode>: <N> calls".
// java NativeHot <library> malloc <batches>: calls mallocs(200) <batches> times, 5 ms apart: the C
// function jp_mallocs calls malloc (and free) 200 times each, after 200 ms; prints "NativeHot malloc: <N> mallocs".
public class NativeHot {
    static native long spin(long millis);
    static native long deep(long millis);
    static native long mallocs(int n);

    static volatile long sink;

    static long callNative(boolean deep, long millis) {
        return deep ? deep(millis) : spin(millis);
    }

    public static void main(String[] args) {
        if (args.length != 3 || !(args[1].equals("spin") || args[1].equals("deep") || args[1].equals("malloc"))) {
            System.err.println("usage: java NativeHot <library> <spin|deep> <seconds> | <library> malloc <batches>");
            System.exit(2);
        }
        System.load(args[0]);
        if (args[1].equals("malloc")) {
            int batches = Integer.parseInt(args[2]);
            long acc = 0;
            try {
                Thread.sleep(200); // a profiler finds the library just loaded (jvmprof: within a period)
            } catch (InterruptedException e) {
                return;
            }
            for (int i = 0; i < batches; i++) {
                acc += mallocs(200);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
            sink = acc;
            System.out.println("NativeHot malloc: " + (batches * 200L) + " mallocs");
            return;
        }
        boolean deep = args[1].equals("deep");
        long end = System.nanoTime() + (long) (Double.parseDouble(args[2]) * 1e9);
        long calls = 0, acc = 0;
        do {
            acc += callNative(deep, 10);
            calls++;
        } while (System.nanoTime() < end);
        sink = acc;
        System.out.println("NativeHot " + args[1] + ": " + calls + " calls");
    }
}
