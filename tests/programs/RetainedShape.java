// RetainedShape — a heap of known retained sizes for `jvmprof heap --retained` (tests/it/t5007):
// static fields hold an Item[1000] whose Items each hold a byte[1000] (nothing else refers to
// them), a HashMap of 100 Integer (not cached) -> long[10] entries, a chain of 500 Links, and a
// SoftReference to a Blob holding a byte[5000] that nothing else holds. 2000 pairs of Islands
// pointing at each other are dropped before the dump: garbage, unreachable. Prints "ready", then
// waits until the file named by args[0] exists (or 60 s pass).
import java.io.File;
import java.lang.ref.SoftReference;
import java.util.HashMap;

public class RetainedShape {
    static final class Item {
        byte[] data = new byte[1000];
    }

    static final class Link {
        Link next;
        int v;
        Link(Link next, int v) { this.next = next; this.v = v; }
    }

    static final class Blob {
        byte[] data = new byte[5000];
    }

    static final class Island {
        Island other;
    }

    static Item[] items;
    static HashMap<Integer, long[]> map;
    static Link chain;
    static SoftReference<Blob> soft;

    static void garbage() {
        for (int i = 0; i < 2000; i++) {
            Island a = new Island(), b = new Island();
            a.other = b;
            b.other = a;
        }
    }

    public static void main(String[] args) throws Exception {
        items = new Item[1000];
        for (int i = 0; i < items.length; i++)
            items[i] = new Item();
        map = new HashMap<>();
        for (int i = 0; i < 100; i++)
            map.put(1000 + i, new long[10]);
        for (int i = 0; i < 500; i++)
            chain = new Link(chain, i);
        soft = new SoftReference<>(new Blob());
        garbage();
        System.out.println("ready");
        System.out.flush();
        File stop = new File(args.length > 0 ? args[0] : "stop");
        long until = System.currentTimeMillis() + 60_000;
        while (!stop.exists() && System.currentTimeMillis() < until)
            Thread.sleep(50);
        Blob b = soft.get();
        System.out.println(items.length + map.size() + chain.v + (b == null ? -1 : b.data.length));
    }
}
