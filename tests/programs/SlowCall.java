// SlowCall: one kind of call that is sometimes slow. quick() burns about
// 1 ms of CPU; slow() burns SLOW_MS (default 400) in a loop of its own. main
// calls quick() 200 times, prints "slow begins", calls slow(), prints "slow
// ends", calls quick() 200 times again, sleeps 1 s, calls slow() a second
// time ("slow again"), sleeps PAUSE_MS (default 1000) and prints "done".
// Usage: SlowCall [SLOW_MS [PAUSE_MS]]
public class SlowCall {
    static volatile long sink;

    static void burn(long nanos) {
        long end = System.nanoTime() + nanos, x = 0;
        while (System.nanoTime() < end)
            for (int i = 0; i < 1000; i++)
                x += i * 31 ^ (x >>> 7);
        sink += x;
    }

    static void quick() {
        burn(1_000_000);
    }

    static void slow(long ms) {
        long end = System.nanoTime() + ms * 1_000_000, x = 0;
        while (System.nanoTime() < end)
            for (int i = 0; i < 1000; i++)
                x += i * 17 ^ (x >>> 3);
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        long slowMs = args.length > 0 ? Long.parseLong(args[0]) : 400;
        long pause = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        for (int i = 0; i < 200; i++)
            quick();
        System.out.println("slow begins");
        slow(slowMs);
        System.out.println("slow ends");
        for (int i = 0; i < 200; i++)
            quick();
        Thread.sleep(1000);
        System.out.println("slow again");
        slow(slowMs);
        Thread.sleep(pause);
        System.out.println("done");
    }
}
