// TraceEvents: the events of trace=mem, alloc, class and monitor, with counts
// the test knows. Allocates 1000 TraceEvents$Blob and 500 int[7] between two
// user events; holds one Blob (kept) across a full collection, then drops it
// and collects again, so its death follows; makes young collections;
// contends for a lock and waits on it; loads TraceEvents$Victim in a loader
// of its own 3 times and drops them, so the classes unload. Prints the
// collection counts of the JVM's GarbageCollectorMXBeans (young / full),
// once every notification has been delivered. Last, two Nodes that refer to
// each other (and each to an int[3]) are kept in a static field while the
// program asks for an object-reference report.
import java.io.InputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

public class TraceEvents {
    static final class Blob {
        long a, b;
    }

    public static class Victim {
        public static int one() { return 1; }
    }

    static final class OneShotLoader extends ClassLoader {
        private final byte[] bytes;

        OneShotLoader(byte[] bytes) {
            super(null);
            this.bytes = bytes;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (name.equals("TraceEvents$Victim"))
                return defineClass(name, bytes, 0, bytes.length);
            throw new ClassNotFoundException(name);
        }
    }

    static final class Node {
        Node next;
        int[] data = new int[3];
    }

    static Node ring;
    static volatile Object sink;
    static final Object lock = new Object();

    public static void main(String[] args) throws Exception {
        jvmprof.Control.userEvent("alloc-start");
        Blob[] blobs = new Blob[1000];      // one Blob[] of 1000
        for (int i = 0; i < 1000; i++)
            blobs[i] = new Blob();
        for (int i = 0; i < 500; i++)
            sink = new int[7];
        jvmprof.Control.userEvent("alloc-end");
        Blob kept = blobs[123];
        System.out.println("kept " + System.identityHashCode(kept));
        blobs = null;
        System.gc();                         // full: kept lives on
        jvmprof.Control.userEvent("drop kept");
        kept = null;
        System.gc();                         // full: kept dies
        for (int i = 0; i < 400_000; i++)    // young collections
            sink = new byte[1024];

        // a contended lock, then a wait
        Thread holder = new Thread(() -> {
            synchronized (lock) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "holder");
        holder.start();
        Thread.sleep(100);
        synchronized (lock) {
            lock.wait(50);
        }
        holder.join();

        byte[] bytes;
        try (InputStream in = TraceEvents.class.getResourceAsStream("TraceEvents$Victim.class")) {
            bytes = in.readAllBytes();
        }
        int ones = 0;
        for (int r = 0; r < 3; r++)
            ones += (Integer) new OneShotLoader(bytes).loadClass("TraceEvents$Victim").getMethod("one").invoke(null);
        System.gc();
        Thread.sleep(500);                   // the notifications of the last collections delivered
        long young = 0, full = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getName().contains("Old") || gc.getName().contains("MarkSweep"))
                full += gc.getCollectionCount();
            else
                young += gc.getCollectionCount();
        }
        System.out.println("ones " + ones + " young " + young + " full " + full);
        Node a = new Node(), b = new Node();
        a.next = b;
        b.next = a;
        ring = a;
        jvmprof.Control.userEvent("ring made");
        System.out.println("references " + jvmprof.Control.objectReferences());
    }
}
