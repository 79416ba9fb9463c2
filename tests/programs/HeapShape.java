// HeapShape — a known object graph for `jvmprof heap` (tests/it/t5001):
// exactly 12345 HeapShape$Node, 777 HeapShape$Leaf and 2000 int[100], all
// reachable from a static field. Prints "ready", then waits until the file
// named by args[0] exists (or 60 s pass), so a heap dump can be taken.
import java.io.File;
import java.util.ArrayList;
import java.util.List;

public class HeapShape {
    static final class Node {
        int value;
        Node next;
        Node(int value, Node next) { this.value = value; this.next = next; }
    }

    static final class Leaf {
        long a, b;
        Leaf(long a) { this.a = a; this.b = a * 2; }
    }

    static Node head;
    static Leaf[] leaves;
    static List<int[]> arrays;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 12345; i++)
            head = new Node(i, head);
        leaves = new Leaf[777];
        for (int i = 0; i < leaves.length; i++)
            leaves[i] = new Leaf(i);
        arrays = new ArrayList<>();
        for (int i = 0; i < 2000; i++)
            arrays.add(new int[100]);
        System.out.println("ready");
        System.out.flush();
        File stop = new File(args.length > 0 ? args[0] : "stop");
        long until = System.currentTimeMillis() + 60_000;
        while (!stop.exists() && System.currentTimeMillis() < until)
            Thread.sleep(50);
        System.out.println(head.value + leaves.length + arrays.size());
    }
}
