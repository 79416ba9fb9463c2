// HeapGraph — a known object graph for heap dumps (tests/it/t5002): exactly
// 3000 HeapGraph$Derived (fields in a subclass and its superclass), 1500
// HeapGraph$Impl (a class whose interface has a constant, which shifts JVMTI's
// field numbering), one array of every primitive type, a 3x4 int[][], a
// sparse Object[] and statics of each kind, all reachable from static fields.
//   HeapGraph STOP                  prints "ready", waits until the file STOP exists (or 60 s)
//   HeapGraph STOP dump FILE...     also calls jvmprof.Control.dumpHeap(FILE) for each FILE and
//                                   prints "dump FILE true|false" or "dump FILE failed: <message>"
import java.io.File;

public class HeapGraph {
    interface WithConstant {
        int K = 5;
    }

    static class Base {
        int baseInt = 7;
        Object baseRef;
    }

    static final class Derived extends Base {
        long d = 99;
        String name;
        boolean flag = true;
        char letter = 'x';
        double ratio = 0.5;
    }

    static final class Impl implements WithConstant {
        int own = 3;
        Object ref;
        short small = -2;
        byte tiny = 0x7f;
        float f = 1.25f;
    }

    static long staticLong = 0x1122334455667788L;
    static int staticInt = 12345;
    static Derived[] derived;
    static Impl[] impls;
    static Object[] sparse = new Object[10];
    static boolean[] zs = { true, false, true };
    static byte[] bs = { 1, 2, 3 };
    static char[] cs = "hello".toCharArray();
    static short[] ss = { -1, 2 };
    static int[] is = { 1, 0x01020304, -1 };
    static long[] ls = { Long.MIN_VALUE, 0, Long.MAX_VALUE };
    static float[] fs = { 1.5f };
    static double[] ds = { Math.PI, -0.0 };
    static int[][] grid = new int[3][4];

    public static void main(String[] args) throws Exception {
        derived = new Derived[3000];
        Derived prev = null;
        for (int i = 0; i < derived.length; i++) {
            Derived x = new Derived();
            x.name = "d" + i;
            x.baseRef = prev;
            x.d = i;
            derived[i] = prev = x;
        }
        impls = new Impl[1500];
        for (int i = 0; i < impls.length; i++) {
            impls[i] = new Impl();
            impls[i].ref = derived[i];
            impls[i].own = i;
        }
        sparse[3] = derived[0];
        sparse[7] = impls[0];
        grid[1][2] = 42;
        for (int i = 2; i < args.length && args[1].equals("dump"); i++) {
            try {
                System.out.println("dump " + args[i] + " " + jvmprof.Control.dumpHeap(args[i]));
            } catch (RuntimeException e) {
                System.out.println("dump " + args[i] + " failed: " + e.getMessage());
            }
        }
        System.out.println("ready");
        System.out.flush();
        File stop = new File(args.length > 0 ? args[0] : "stop");
        long until = System.currentTimeMillis() + 60_000;
        while (!stop.exists() && System.currentTimeMillis() < until)
            Thread.sleep(20);
        long sum = 0;
        for (Derived x : derived)
            sum += x.d;
        for (Impl x : impls)
            sum += x.own;
        System.out.println("sum " + sum + " " + staticLong + " " + staticInt + " " + grid[1][2] + " " + sparse.length
                + zs.length + bs.length + cs.length + ss.length + is.length + ls.length + fs.length + ds.length);
    }
}
