// RetainedShapes — object graphs of known retained sizes, for checking
// `jvmprof heap --retained` against tests/tools/RetainedRef.java (VisualVM's
// heap library) and against numbers worked out by hand. Each shape hangs from
// its own static field and uses its own classes, so a shape's objects and its
// class rows are easy to find:
//   chain        100 RetainedShapes$ChainNode, each to the next
//   diamond      RetainedShapes$DiamondNode top -> left, right -> bottom -> byte[1000]
//   cycle        3 RetainedShapes$CycleNode, a -> b -> c -> a
//   map          a HashMap<Integer, byte[100]> of 10,000 entries, keys 100000..109999
//                (outside Integer's cache of -128..127, so each key is its own Integer)
//   holders      an Object[10] of 10 RetainedShapes$Holder, each with its own byte[50]
//   soft         a SoftReference whose referent, a Holder, holds a byte[1 MiB]; nothing
//                else refers to them (a full GC keeps them while memory is plentiful)
//   weak + box   a WeakReference whose referent, a Holder with a byte[1 MiB], a
//                RetainedShapes$Box (static field box) also holds strongly
//   weakOnly     a WeakReference whose referent, a Holder with a byte[1 MiB], nothing
//                else refers to: gone from a dump after a GC (a live dump), present in
//                one of `jcmd GC.heap_dump -all` taken before any GC
//   sharedBox    a Box holding a Holder with a byte[1000] that an unreachable
//                RetainedShapes$IslandNode also refers to
//   island       two IslandNode referring to each other (and the first to sharedBox's
//                Holder), dropped just before "ready": garbage, kept only by -all dumps
//   Statics.data the one static of class RetainedShapes$Statics, a byte[2000]
// Prints "ready", then waits until the file args[0] exists (or 600 s pass),
// allocating nothing meanwhile (so no GC runs before a `jcmd GC.heap_dump -all`).
import java.io.File;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;

public class RetainedShapes {
    static final class ChainNode {
        ChainNode next;
        int value;
        ChainNode(ChainNode next, int value) { this.next = next; this.value = value; }
    }

    static final class DiamondNode {
        DiamondNode a, b;
        byte[] data;
    }

    static final class CycleNode {
        CycleNode next;
        int value;
    }

    static final class Holder {
        byte[] data;
        Holder(int bytes) { data = new byte[bytes]; }
    }

    static final class Box {
        Object ref;
        Box(Object ref) { this.ref = ref; }
    }

    static final class IslandNode {
        Object other;
        Object target;
    }

    static final class Statics {
        static byte[] data = new byte[2000];
    }

    static ChainNode chain;
    static DiamondNode diamond;
    static CycleNode cycle;
    static Map<Integer, byte[]> map;
    static Object[] holders;
    static SoftReference<Holder> soft;
    static WeakReference<Holder> weak;
    static Box box;
    static WeakReference<Holder> weakOnly;
    static Box sharedBox;

    public static void main(String[] args) throws Exception {
        build();
        makeIsland(); // garbage made last: nothing allocates after it, so no GC collects it before the dump
        System.out.println("ready " + Statics.data.length);
        System.out.flush();
        File stop = new File(args.length > 0 ? args[0] : "stop");
        long until = System.currentTimeMillis() + 600_000;
        while (!stop.exists() && System.currentTimeMillis() < until)
            Thread.sleep(50);
        System.out.println(chain.value + " " + diamond.a.a.data.length + " " + cycle.next.next.next.value + " " + map.size() +
                           " " + holders.length + " " + (soft.get() != null) + " " + (weak.get() != null) + " " + box.ref.hashCode() % 1 +
                           " " + sharedBox.ref.hashCode() % 1);
    }

    // in their own frames, so that no local variable of main is a GC root (a Java frame root) for a shape
    static void build() {
        for (int i = 0; i < 100; i++)
            chain = new ChainNode(chain, i);

        diamond = new DiamondNode();
        DiamondNode left = new DiamondNode(), right = new DiamondNode(), bottom = new DiamondNode();
        diamond.a = left;
        diamond.b = right;
        left.a = bottom;
        right.b = bottom;
        bottom.data = new byte[1000];

        CycleNode a = new CycleNode(), b = new CycleNode(), c = new CycleNode();
        a.next = b;
        b.next = c;
        c.next = a;
        cycle = a;

        map = new HashMap<>();
        for (int i = 0; i < 10_000; i++)
            map.put(100_000 + i, new byte[100]);

        holders = new Object[10];
        for (int i = 0; i < holders.length; i++)
            holders[i] = new Holder(50);

        soft = new SoftReference<>(new Holder(1 << 20));
        Holder strongAndWeak = new Holder(1 << 20);
        box = new Box(strongAndWeak);
        weak = new WeakReference<>(strongAndWeak);
        strongAndWeak = null;
        sharedBox = new Box(new Holder(1000));
        Statics.data[0] = 1; // initialises Statics
        weakOnly = new WeakReference<>(new Holder(1 << 20));
    }

    static void makeIsland() {
        IslandNode x = new IslandNode(), y = new IslandNode();
        x.other = y;
        y.other = x;
        x.target = sharedBox.ref;
    }
}
