// OomHog: runs out of Java heap, several times. hog() keeps 64 KiB arrays in
// a list until the JVM throws OutOfMemoryError; main catches it, lets the
// list go, prints "oom N", and does it again, ROUNDS times (default 3), a
// short pause between rounds; then sleeps PAUSE_MS (default 1500) and ends
// normally. Run it with a small -Xmx (16m): each round takes well under a
// second. Usage: OomHog [ROUNDS [PAUSE_MS]]
import java.util.ArrayList;
import java.util.List;

public class OomHog {
    static List<byte[]> kept;

    static void hog() {
        kept = new ArrayList<>();
        for (;;)
            kept.add(new byte[64 * 1024]);
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        long pause = args.length > 1 ? Long.parseLong(args[1]) : 1500;
        for (int i = 1; i <= rounds; i++) {
            try {
                hog();
            } catch (OutOfMemoryError e) {
                kept = null;
                System.out.println("oom " + i);
            }
            Thread.sleep(100);
        }
        Thread.sleep(pause);
        System.out.println("done");
    }
}
