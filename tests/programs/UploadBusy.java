// UploadBusy SECONDS: burns CPU in busy() for SECONDS seconds, printing a heartbeat
// every 500 ms ("beat N late MS": how late the beat came against its schedule), then
// "done". The upload= tests (t6008, t6009) check that each interval's profile has
// busy() on top, and that the program's own timing holds while the receiver is down.
public class UploadBusy {
    static volatile long sink;

    static long busy(long n) {
        long x = n;
        for (int i = 0; i < 200000; i++)
            x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    public static void main(String[] args) {
        long seconds = Long.parseLong(args[0]);
        long start = System.nanoTime(), end = start + seconds * 1_000_000_000L;
        long nextBeat = start + 500_000_000L;
        int beat = 0;
        long maxLate = 0;
        while (System.nanoTime() < end) {
            sink += busy(sink);
            long now = System.nanoTime();
            if (now >= nextBeat) {
                long late = (now - nextBeat) / 1_000_000L;
                maxLate = Math.max(maxLate, late);
                System.out.println("beat " + (++beat) + " late " + late);
                nextBeat += 500_000_000L;
            }
        }
        System.out.println("max late " + maxLate);
        System.out.println("done");
    }
}
