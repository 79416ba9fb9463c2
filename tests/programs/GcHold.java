// GcHold: holds an array of N MiB over two System.gc() calls, drops it and
// calls System.gc() twice more, then prints "done": the heap used the
// collections see is at least N MiB in the first and well below it in the
// last.
public class GcHold {
    static volatile byte[] held;

    public static void main(String[] args) {
        int mib = Integer.parseInt(args[0]);
        held = new byte[mib << 20];
        System.gc();
        System.gc();
        held = null;
        System.gc();
        System.gc();
        System.out.println("done");
    }
}
