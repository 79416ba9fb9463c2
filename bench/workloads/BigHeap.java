// BigHeap: builds about args[0] MiB (default 1024) of live objects of a few
// shapes (small nodes in linked lists, int[] and byte[] arrays, Strings), prints
// "ready" and waits until the file args[1] exists, so a heap dump of a known,
// large state can be taken and read (bench/heap_read.sh).
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public class BigHeap {
    static final class Node {
        Node next;
        long value;
        int tag;

        Node(Node next, long value, int tag) {
            this.next = next;
            this.value = value;
            this.tag = tag;
        }
    }

    public static void main(String[] args) throws Exception {
        long mib = args.length > 0 ? Long.parseLong(args[0]) : 1024;
        Path stop = Path.of(args.length > 1 ? args[1] : "stop");
        List<Object> keep = new ArrayList<>();
        long bytes = 0, target = mib << 20;
        int round = 0;
        while (bytes < target) {
            Node head = null;
            for (int i = 0; i < 10_000; i++)
                head = new Node(head, i * 31L + round, i);
            keep.add(head);
            bytes += 10_000L * 32;
            keep.add(new int[4096]);
            bytes += 4096L * 4 + 16;
            keep.add(new byte[8192]);
            bytes += 8192 + 16;
            for (int i = 0; i < 200; i++)
                keep.add("s" + round + "-" + i);
            bytes += 200L * 64;
            round++;
        }
        System.out.println("ready " + keep.size());
        while (!Files.exists(stop))
            Thread.sleep(100);
    }
}
