// RetainedHeap: about args[0] million (default 10) live objects for `jvmprof heap --retained`
// (bench/heap_retained.sh): a HashMap<Long, Item> (each entry a HashMap$Node, a Long, an Item and
// the Item's byte[] payload of 0 to 584 bytes, 292 on average: 4 objects) where every Item also
// points at one of 1000 shared Tags (a DAG, not a tree), and one linked list of args[0] / 10
// million Links (a dominator chain that deep). At 10 million objects `jcmd GC.heap_dump` writes
// about 1 GiB (an HPROF record: 53 bytes per Node, 33 per Long, 49 per Item, 18 + n per byte[n],
// 37 per Link; 2.25 million entries). Prints "ready" and waits until the file args[1] exists, so
// a heap dump of it can be taken.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

public class RetainedHeap {
    static final class Tag {
        final int id;
        Tag(int id) { this.id = id; }
    }

    static final class Item {
        final long value;
        final Tag tag;
        final byte[] payload;
        Item(long value, Tag tag, byte[] payload) { this.value = value; this.tag = tag; this.payload = payload; }
    }

    static final class Link {
        Link next;
        int v;
        Link(Link next, int v) { this.next = next; this.v = v; }
    }

    static HashMap<Long, Item> map;
    static Link chain;
    static Tag[] tags;

    public static void main(String[] args) throws Exception {
        long millions = args.length > 0 ? Long.parseLong(args[0]) : 10;
        Path stop = Path.of(args.length > 1 ? args[1] : "stop");
        tags = new Tag[1000];
        for (int i = 0; i < tags.length; i++)
            tags[i] = new Tag(i);
        int links = (int) (millions * 100_000);
        for (int i = 0; i < links; i++)
            chain = new Link(chain, i);
        long entries = Math.max(1, (millions * 1_000_000 - links) / 4);
        map = new HashMap<>((int) (entries * 4 / 3) + 1);
        for (long i = 0; i < entries; i++)
            map.put(i * 1_000_003L, new Item(i, tags[(int) (i % tags.length)], new byte[(int) (i % 585)]));
        System.out.println("ready " + map.size() + " entries, " + links + " links");
        while (!Files.exists(stop))
            Thread.sleep(100);
        System.out.println(map.size() + chain.v);
    }
}
