// NativeHot: java NativeHot <library> <spin|deep|callback> <seconds>: System.load()s the JNI library
// (build/it/native/libjpnative_fp.so or libjpnative_nofp.so, from tests/native/jpnative.c), then
// for <seconds> of wall time calls its native method from callNative(), 10 ms of CPU a call:
// spin() burns the CPU in jp_hot_loop, deep() in jp_deep_c under jp_deep_b under jp_deep_a,
// callback() calls back (from the C function jp_call_java) javaBurn(), which burns it in Java.
// Prints one line at the end, "NativeHot <mode>: <N> calls".
// java NativeHot <library> malloc <batches>: calls mallocs(200) <batches> times, 5 ms apart: the C
// function jp_mallocs calls malloc (and free) 200 times each, after 200 ms; prints "NativeHot malloc: <N> mallocs".
public class NativeHot {
    static native long spin(long millis);
    static native long deep(long millis);
    static native long mallocs(int n);
    static native long callback(long millis);

    static volatile long sink;

    static long callNative(String mode, long millis) {
        switch (mode) {
            case "deep": return deep(millis);
            case "callback": return callback(millis);
            default: return spin(millis);
        }
    }

    // called back from C by callback(): millis ms of CPU in Java
    static long javaBurn(long millis) {
        long end = System.nanoTime() + millis * 1000000L, x = 0x9E3779B97F4A7C15L, acc = 0;
        do {
            for (int i = 0; i < 10000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                acc += x * 0x2545F4914F6CDD1DL;
            }
        } while (System.nanoTime() < end);
        return acc;
    }

    public static void main(String[] args) {
        if (args.length != 3 || !(args[1].equals("spin") || args[1].equals("deep") || args[1].equals("callback")
                || args[1].equals("malloc"))) {
            System.err.println("usage: java NativeHot <library> <spin|deep|callback> <seconds> | <library> malloc <batches>");
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
        String mode = args[1];
        long end = System.nanoTime() + (long) (Double.parseDouble(args[2]) * 1e9);
        long calls = 0, acc = 0;
        do {
            acc += callNative(mode, 10);
            calls++;
        } while (System.nanoTime() < end);
        sink = acc;
        System.out.println("NativeHot " + args[1] + ": " + calls + " calls");
    }
}
