// TraceBusy: one slow call that burns CPU, for trace=exec with cpu=samples:
// main -> work() -> spin(), which computes for 300 ms of wall time.
public class TraceBusy {
    static long spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000L, x = 0;
        while (System.nanoTime() < end)
            for (int i = 0; i < 10_000; i++)
                x = x * 31 + i;
        return x;
    }

    static long work() {
        return spin(300);
    }

    public static void main(String[] args) {
        System.out.println("TraceBusy " + (work() != 42));
    }
}
