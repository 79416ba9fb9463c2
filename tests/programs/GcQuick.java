// GcQuick: N quick System.gc() calls, then (if asked) M KiB-sized
// allocations that make young collections, then prints what the JVM's
// GarbageCollectorMXBeans counted ("young Y full F", read until two readings agree) and exits at once:
// the notifications of the last collections are still on their way.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

public class GcQuick {
    static volatile Object sink;

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]), m = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        for (int i = 0; i < n; i++)
            System.gc();
        for (int i = 0; i < m; i++)
            sink = new byte[1024];
        // reading the beans allocates (the first time, a lot: the management classes), and an allocation
        // can make a young collection after the young bean was read: read again until two readings agree,
        // with the line made in between, so that only println's own few bytes come after the last reading
        String line = counts(), again;
        while (!(again = counts()).equals(line))
            line = again;
        System.out.println(line);
    }

    static String counts() {
        long young = 0, full = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getName().contains("Old") || gc.getName().contains("MarkSweep"))
                full += gc.getCollectionCount();
            else
                young += gc.getCollectionCount();
        }
        return "young " + young + " full " + full;
    }
}
