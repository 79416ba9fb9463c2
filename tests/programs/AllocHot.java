// AllocHot — an allocation site inside a small method that the JIT compiles
// and inlines into a hot loop (tests/it/t4103): make() runs exactly
// 3,000,000 times; one object in 1000 is kept, the rest never escape the
// loop (the JIT may then remove them altogether: a count in the bytecode
// still counts each one). Prints how many make() made and how many were kept.
public class AllocHot {
    static final class Point {
        final int x, y;
        Point(int x, int y) { this.x = x; this.y = y; }
    }

    static Point make(int i) {
        return new Point(i, i + 1);
    }

    static final java.util.List<Point> kept = new java.util.ArrayList<>();

    static long run(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            Point p = make(i);
            sum += p.x + p.y;
            if (i % 1000 == 0)
                kept.add(p);
        }
        return sum;
    }

    public static void main(String[] args) {
        long sum = 0;
        int made = 0;
        for (int round = 0; round < 30; round++) {
            sum += run(100_000);
            made += 100_000;
        }
        System.out.println("made " + made + " kept " + kept.size() + " sum " + sum);
    }
}
