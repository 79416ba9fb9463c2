/*
 * Demo: the sample program `make demo` profiles. Three worker threads generate
 * pseudo-random text, count its words, and merge their counts into one shared
 * synchronized map (so they contend on it); the main thread then sorts the
 * words by frequency and prints the top five. Runs for about 3 seconds.
 */
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Demo {
    static final Map<String, Long> TOTALS = new HashMap<>();
    static final String[] SYLLABLES = { "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi" };

    static String makeText(long seed, int words) {
        StringBuilder sb = new StringBuilder();
        long x = seed;
        for (int w = 0; w < words; w++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            int len = 1 + (int) ((x >>> 60) & 3);
            for (int s = 0; s < len; s++)
                sb.append(SYLLABLES[(int) ((x >>> (8 * s + 20)) & 7)]);
            sb.append(' ');
        }
        return sb.toString();
    }

    static Map<String, Long> countWords(String text) {
        Map<String, Long> counts = new HashMap<>();
        for (String w : text.split(" "))
            counts.merge(w, 1L, Long::sum);
        return counts;
    }

    static void merge(Map<String, Long> counts) {
        synchronized (TOTALS) {
            for (Map.Entry<String, Long> e : counts.entrySet())
                TOTALS.merge(e.getKey(), e.getValue(), Long::sum);
        }
    }

    public static void main(String[] args) throws Exception {
        long end = System.nanoTime() + 3_000_000_000L;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            final long seed = t;
            Thread w = new Thread(() -> {
                long round = seed;
                while (System.nanoTime() < end)
                    merge(countWords(makeText(round++, 20_000)));
            }, "worker-" + t);
            w.start();
            workers.add(w);
        }
        for (Thread w : workers)
            w.join();
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(TOTALS.entrySet());
        sorted.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        System.out.println(TOTALS.size() + " distinct words; most frequent:");
        for (int i = 0; i < 5 && i < sorted.size(); i++)
            System.out.println("  " + sorted.get(i).getKey() + " " + sorted.get(i).getValue());
    }
}
