// AllocKinds — allocations of every kind for heap=sites' class names
// (tests/it/t4101): arrays of each primitive type, an object array, a
// two-dimensional int array, objects made by reflection and by clone(),
// Strings made by JNI code in the JDK (File.list()), and 8 threads that
// each allocate and keep 50000 AllocKinds$Shared. All kept until the end.
import java.io.File;
import java.util.ArrayList;
import java.util.List;

public class AllocKinds {
    static final class Item { int v; }
    public static final class Refl { long v; public Refl() {} }
    static final class Cl implements Cloneable {
        long a, b;
        Cl copy() {
            try {
                return (Cl) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }
    static final class Shared { long v; Shared(long v) { this.v = v; } }

    static final List<Object> keep = new ArrayList<>();
    static final int N = 20_000;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < N; i++) {
            keep.add(new boolean[4]);
            keep.add(new byte[4]);
            keep.add(new char[4]);
            keep.add(new short[4]);
            keep.add(new int[4]);
            keep.add(new long[2]);
            keep.add(new float[4]);
            keep.add(new double[2]);
            keep.add(new Item[2]);
        }
        for (int i = 0; i < N / 4; i++)
            keep.add(new int[2][3]);
        var ctor = Refl.class.getConstructor();
        for (int i = 0; i < N; i++)
            keep.add(ctor.newInstance());
        Cl proto = new Cl();
        for (int i = 0; i < N; i++)
            keep.add(proto.copy());
        File dir = new File(args.length > 0 ? args[0] : ".");
        for (int i = 0; i < 2000; i++)
            keep.add(dir.list());
        Shared[][] perThread = new Shared[8][];
        Thread[] threads = new Thread[8];
        for (int t = 0; t < 8; t++) {
            final int k = t;
            threads[t] = new Thread(() -> {
                Shared[] mine = new Shared[50_000];
                for (int i = 0; i < mine.length; i++)
                    mine[i] = new Shared(i);
                perThread[k] = mine;
            }, "alloc-" + t);
            threads[t].start();
        }
        for (Thread t : threads)
            t.join();
        long sum = 0;
        for (Shared[] a : perThread)
            sum += a.length;
        System.out.println("kept " + keep.size() + " shared " + sum);
    }
}
