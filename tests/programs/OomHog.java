// OomHog: runs out of Java heap, several times. hog() keeps 64 KiB arrays in
// a list of its own until the JVM throws OutOfMemoryError (the list goes
// with hog()'s frame); main catches it, prints "oom N", sleeps GAP_MS (default 100) and does it again,
// ROUNDS times (default 3); then sleeps PAUSE_MS (default 1500) and prints
// "done". ROUNDS 0: hog() once, uncaught, which ends the program. Run it with
// a small -Xmx (16m): a round takes well under a second.
// Usage: OomHog [ROUNDS [PAUSE_MS [GAP_MS]]]
import java.util.ArrayList;
import java.util.List;

public class OomHog {
    static int kept;

    static void hog() {
        List<byte[]> list = new ArrayList<>();
        for (;;) {
            list.add(new byte[64 * 1024]);
            kept = list.size();
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        long pause = args.length > 1 ? Long.parseLong(args[1]) : 1500;
        long gap = args.length > 2 ? Long.parseLong(args[2]) : 100;
        if (rounds == 0)
            hog();
        for (int i = 1; i <= rounds; i++) {
            try {
                hog();
            } catch (OutOfMemoryError e) {
                System.out.println("oom " + i);
            }
            Thread.sleep(gap);
        }
        Thread.sleep(pause);
        System.out.println("done");
    }
}
