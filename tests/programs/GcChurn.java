// GcChurn: java -Xmx<size> GcChurn <seconds> [<live MiB>]: for <seconds> of wall time keeps a
// live set of about <live MiB> (default 200) of small objects, linked in chains hanging from a
// ring of slots, and keeps replacing the chains, one slot after another round the ring: each
// chain lives for a whole turn of the ring, so it survives young collections (copied, then
// promoted) and dies in the old generation, where G1's concurrent marking and mixed collections
// must find it. With G1 (the default) its GC threads ("GC Thread#N", "G1 Conc#N") do a large
// share of the process's work (about 60% of its CPU time with -Xmx512m on two cores, young
// collections, a marking cycle and mixed collections every 2 s or so, no full collection), while
// main also makes short-lived garbage. Give it -Xmx of about 2.5 times the live set. Prints nothing.
public class GcChurn {
    static final class Node {
        Node next;
        long value;
        int[] data;

        Node(Node next, long value) {
            this.next = next;
            this.value = value;
            this.data = new int[2];
            this.data[0] = (int) value;
        }
    }

    static final int CHAIN = 64;
    // a Node (24 bytes with compressed oops) and its int[2] (24 bytes)
    static final int NODE_BYTES = 48;

    // short-lived arrays (long[16], 144 bytes) made for each chain replaced: enough that the chains
    // do not die faster than concurrent marking on two cores finds them (fewer: full collections),
    // few enough that the ring turns several times in 10 s (more: no marking cycle at all)
    static final int TEMPS = 1024, TEMP_LONGS = 16;

    static volatile long sink;

    public static void main(String[] args) {
        double seconds = Double.parseDouble(args[0]);
        long liveMiB = args.length > 1 ? Long.parseLong(args[1]) : 200;
        int slots = (int) ((liveMiB << 20) / ((long) CHAIN * NODE_BYTES));
        Node[] ring = new Node[slots];
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long made = 0, acc = 0;
        int at = 0;
        do {
            for (int k = 0; k < 1024; k++) {
                Node old = ring[at];
                if (old != null) acc += old.value + old.data[0]; // read what dies, so it is not dead code
                Node chain = null;
                for (int i = 0; i < CHAIN; i++) chain = new Node(chain, made++);
                ring[at] = chain;
                for (int i = 0; i < TEMPS; i++) { // short-lived garbage, which dies young
                    long[] t = new long[TEMP_LONGS];
                    t[i & (TEMP_LONGS - 1)] = made + i;
                    acc += t[(i + 1) & (TEMP_LONGS - 1)] + t.length;
                }
                if (++at == slots) at = 0;
            }
        } while (System.nanoTime() < end);
        sink = acc;
    }
}
