// LambdaHot: a hot loop run through a lambda, so the profile's hot stack has
// the lambda's hidden class (LambdaHot$$Lambda$N, whose JVM name ends in its
// address) as a frame. Usage: LambdaHot MS
public class LambdaHot {
    static volatile long sink;

    public static void main(String[] args) {
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
        Runnable work = () -> {
            long x = sink;
            for (int i = 0; i < 100_000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
            sink = x;
        };
        while (System.nanoTime() < end)
            work.run();
        System.out.println("done");
    }
}
