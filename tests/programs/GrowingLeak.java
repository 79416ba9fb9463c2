// GrowingLeak — a heap that grows between two dumps, for `jvmprof heap A --diff B` (tests/it/t5008):
// a static ArrayList (presized for 3000) holds Leak objects, each with its own byte[100]. It adds 1000
// Leaks, prints "step 1" and waits for the file args[0] to exist; then adds 2000 more, prints "step 2"
// and waits for args[1] (each wait at most 60 s). Nothing else it makes stays alive.
import java.io.File;
import java.util.ArrayList;

public class GrowingLeak {
    static final class Leak {
        final byte[] data = new byte[100];
    }

    static final ArrayList<Leak> leaks = new ArrayList<>(3000);

    static void waitFor(String path) throws InterruptedException {
        File f = new File(path);
        long until = System.currentTimeMillis() + 60_000;
        while (!f.exists() && System.currentTimeMillis() < until)
            Thread.sleep(20);
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 1000; i++)
            leaks.add(new Leak());
        System.out.println("step 1");
        System.out.flush();
        waitFor(args[0]);
        for (int i = 0; i < 2000; i++)
            leaks.add(new Leak());
        System.out.println("step 2");
        System.out.flush();
        waitFor(args[1]);
        System.out.println(leaks.size());
    }
}
