// SpikeIdle: a program that is mostly idle, with one CPU spike. A worker
// thread does a little work in idle() (about 2 ms in every 20 ms) all along;
// the main thread sleeps `before` ms, burns the CPU in spike() for `spikeMs`
// ms, then sleeps again, printing a line at each change ("spike begins",
// "spike ends", "idle again"). With "control DIR", it also dumps the last
// 3 s of the recording itself (jvmprof.Control.dump) right after the spike
// (DIR/ctl-spike.txt) and after 4 s of idling (DIR/ctl-idle.txt).
// Usage: SpikeIdle BEFORE_MS SPIKE_MS AFTER_MS [control DIR]
public class SpikeIdle {
    static volatile long sink;

    // each loop does its work itself (no call), so that its samples are its own
    static void idle() throws InterruptedException {
        for (;;) {
            long end = System.nanoTime() + 2_000_000, x = 0;
            while (System.nanoTime() < end)
                for (long i = 0; i < 1000; i++)
                    x += i * 31 ^ (x >>> 3);
            sink += x;
            Thread.sleep(18);
        }
    }

    static void spike(long ms) {
        long end = System.nanoTime() + ms * 1_000_000, x = 0;
        while (System.nanoTime() < end)
            for (long i = 0; i < 10_000; i++)
                x += i * 31 ^ (x >>> 5);
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        long before = Long.parseLong(args[0]), spikeMs = Long.parseLong(args[1]), after = Long.parseLong(args[2]);
        String dir = args.length >= 5 && args[3].equals("control") ? args[4] : null;
        Thread worker = new Thread(() -> {
            try {
                idle();
            } catch (InterruptedException e) {
                // the end
            }
        }, "idler");
        worker.setDaemon(true);
        worker.start();
        System.out.println("idle begins");
        Thread.sleep(before);
        System.out.println("spike begins");
        spike(spikeMs);
        System.out.println("spike ends");
        if (dir != null)
            System.out.println("control dump: " + jvmprof.Control.dump(dir + "/ctl-spike.txt", java.time.Duration.ofSeconds(3)));
        Thread.sleep(Math.min(after, 4000));
        System.out.println("idle again");
        if (dir != null)
            System.out.println("control dump: " + jvmprof.Control.dump(dir + "/ctl-idle.txt", java.time.Duration.ofSeconds(3)));
        if (after > 4000)
            Thread.sleep(after - 4000);
        System.out.println("done");
    }
}
