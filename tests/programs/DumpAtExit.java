// DumpAtExit — requests at awkward moments (tests/it/t9006):
//   DumpAtExit exit              asks the agent for a report (jvmprof.Control.dump()) and exits at once;
//                                prints "taken true|false"
//   DumpAtExit heap MIB STOP     keeps about MIB MiB of small live objects, prints "ready" and waits
//                                until the file STOP exists (at most 120 s), so that a heap dump
//                                takes a while and can be interrupted
import java.io.File;
import java.util.ArrayList;
import java.util.List;

public class DumpAtExit {
    static final class Node {
        Node next;
        long value;

        Node(Node next, long value) {
            this.next = next;
            this.value = value;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("exit")) {
            System.out.println("taken " + jvmprof.Control.dump());
            return;
        }
        long target = Long.parseLong(args[1]) << 20, bytes = 0;
        List<Node> keep = new ArrayList<>();
        while (bytes < target) {
            Node head = null;
            for (int i = 0; i < 10_000; i++)
                head = new Node(head, i);
            keep.add(head);
            bytes += 10_000 * 24;
        }
        System.out.println("ready " + keep.size());
        File stop = new File(args[2]);
        for (int i = 0; i < 1200 && !stop.exists(); i++)
            Thread.sleep(100);
    }
}
