// LeakSites — allocation sites for a heap dump with heap=sites (tests/it/t5010):
// keep() allocates exactly 20000 LeakSites$Kept and keeps them in a static
// list (the leak); churnA() allocates 50000 LeakSites$GarbA and churnB() 30000
// LeakSites$GarbB, both dropped at once. Then it collects garbage twice.
//   LeakSites               that, then exits (a dump at exit: heap=all)
//   LeakSites dump FILE     also calls jvmprof.Control.dumpHeap(FILE) and prints "dump FILE true|false"
import java.util.ArrayList;
import java.util.List;

public class LeakSites {
    static final class Kept {
        long a;
        int b;
    }

    static final class GarbA {
        long a;
        int b;
    }

    static final class GarbB {
        long a;
        long b;
    }

    static final List<Kept> KEPT = new ArrayList<>(20000);
    static long sink;

    static void keep() {
        for (int i = 0; i < 20000; i++)
            KEPT.add(new Kept());
    }

    static void churnA() {
        for (int i = 0; i < 50000; i++) {
            GarbA g = new GarbA();
            g.a = i;
            sink += g.a + g.b;
        }
    }

    static void churnB() {
        Object last = null;
        for (int i = 0; i < 30000; i++) {
            GarbB g = new GarbB();
            g.b = i;
            last = g;
        }
        sink += last.hashCode() & 1;
    }

    public static void main(String[] args) throws Exception {
        churnA();
        keep();
        churnB();
        System.gc();
        System.gc();
        Thread.sleep(300);
        if (args.length == 2 && args[0].equals("dump"))
            System.out.println("dump " + args[1] + " " + jvmprof.Control.dumpHeap(args[1]));
        System.out.println("kept " + KEPT.size());
    }
}
