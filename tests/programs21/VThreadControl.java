// VThreadControl N FILE: N virtual threads (vc-0 ...) start and wait; then
// jvmprof.Control stops the session given at load and starts
// trace=exec+user into FILE, so the virtual threads were running before it
// began; each then calls work() and Control.userEvent("vc-<i> round <r>")
// three times, sleeping between; Control.stop() ends the trace. JDK 21 or
// later (tests/programs21).
import java.util.concurrent.CountDownLatch;

import jvmprof.Control;

public class VThreadControl {
    static volatile long sink;

    static void work(int i) {
        long x = i;
        for (int k = 0; k < 20000; k++)
            x = x * 31 + k;
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        CountDownLatch started = new CountDownLatch(n), go = new CountDownLatch(1);
        Thread[] all = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int id = i;
            all[i] = Thread.ofVirtual().name("vc-" + i).start(() -> {
                started.countDown();
                try {
                    go.await();
                    for (int r = 0; r < 3; r++) {
                        work(id);
                        Control.userEvent("vc-" + id + " round " + r);
                        Thread.sleep(1);
                    }
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
        }
        started.await();
        System.out.println("stop " + Control.stop());
        System.out.println("start " + Control.start("trace=exec+user,include=VThreadControl,tracefile=" + args[1]));
        go.countDown();
        for (Thread t : all)
            t.join();
        System.out.println("stop " + Control.stop());
    }
}
