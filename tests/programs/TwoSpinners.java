// TwoSpinners: two threads compute flat out, one in spinA() and one in
// spinB(), until each has used args[0] seconds of CPU (default 3; see
// CpuBudget). On two or more cores each should get about half of the CPU
// samples.
public class TwoSpinners {
    static volatile long sinkA, sinkB;
    static volatile boolean stop;

    static void spinA() {
        long x = 1;
        while (!stop)
            for (int i = 0; i < 1_000_000; i++)
                x = x * 6364136223846793005L + i;
        sinkA = x;
    }

    static void spinB() {
        long x = 2;
        while (!stop)
            for (int i = 0; i < 1_000_000; i++)
                x = x * 2862933555777941757L + i;
        sinkB = x;
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
        Thread a = new Thread(TwoSpinners::spinA, "spin-a");
        Thread b = new Thread(TwoSpinners::spinB, "spin-b");
        a.start();
        b.start();
        CpuBudget.await(seconds, a, b);
        stop = true;
        a.join();
        b.join();
        System.out.println("done");
    }
}
