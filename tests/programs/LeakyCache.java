// LeakyCache — a known leak for `jvmprof heap --leaks` (tests/it/t5011): a static HashMap<Integer, Entry>
// holding 20000 Entry objects, keys 1000..20999 (new Integer objects: above the Integer cache), each Entry
// with its own byte[1000]. The keys fall in distinct buckets of the map's table (32768 slots: a hash is the
// int itself, all below 32768), so the table dominates each of its 20000 nodes. It prints "ready" and waits
// for the file args[0] to exist (at most 60 s), then prints the map's size.
import java.io.File;
import java.util.HashMap;
import java.util.Map;

public class LeakyCache {
    static final class Entry {
        final byte[] payload = new byte[1000];
    }

    static final Map<Integer, Entry> cache = new HashMap<>();

    public static void main(String[] args) throws Exception {
        for (int i = 1000; i < 21000; i++)
            cache.put(i, new Entry());
        System.out.println("ready");
        System.out.flush();
        File f = new File(args[0]);
        long until = System.currentTimeMillis() + 60_000;
        while (!f.exists() && System.currentTimeMillis() < until)
            Thread.sleep(20);
        System.out.println(cache.size());
    }
}
