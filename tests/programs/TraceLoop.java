// TraceLoop: calls step() (with a small allocation) over and over for
// args[0] seconds (default 30), printing "running" once it has begun; a test
// kills it with -9 in the middle of a trace.
public class TraceLoop {
    static volatile Object sink;

    static int step(int i) {
        sink = new int[i & 7];
        return i * 31;
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 30;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long acc = 0;
        System.out.println("running");
        for (int i = 0; System.nanoTime() < end; i++)
            acc += step(i);
        System.out.println("done " + acc);
    }
}
