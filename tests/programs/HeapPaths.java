// HeapPaths: java HeapPaths <libjpnative.so> <stopfile>: keeps one object of each of its small
// classes alive through one known path, prints "ready", and waits until <stopfile> exists (t5009
// dumps it meanwhile and asks `jvmprof heap --path-class` for each object's path from a GC root):
//   HeldByStatic       the static field cache, a HashMap<Integer, Object>, under the key 7:
//                      class HeapPaths -static cache-> HashMap -table-> Node[16] -[7]-> Node -value->
//                      (Integer 7's hash is 7; 16 buckets)
//   HeldByLocal        only a local variable of the running frame of the thread "holder" (parked)
//   HeldByThreadLocal  only the ThreadLocal TL of the thread "holder": the Thread -threadLocals->
//                      ThreadLocalMap -table-> Entry[] -[i]-> Entry -value->
//   HeldByJni          only a JNI global reference, made by keepGlobal (tests/native/jpnative.c)
//   HeldBySoft         only the SoftReference in the static field soft
//   HeldByWeak         only the WeakReference in the static field weak (a dump of live objects
//                      collects it first)
//   Dropped            10 objects nothing holds: garbage (in a dump of all objects, unreachable)
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public class HeapPaths {
    static class HeldByStatic { long tag = 1; }
    static class HeldByLocal { long tag = 2; }
    static class HeldByThreadLocal { long tag = 3; }
    static class HeldByJni { long tag = 4; }
    static class HeldBySoft { long tag = 5; }
    static class HeldByWeak { long tag = 6; }
    static class Dropped { long tag = 7; }

    static native void keepGlobal(Object o);

    static final HashMap<Integer, Object> cache = new HashMap<>();
    static final ThreadLocal<Object> TL = new ThreadLocal<>();
    static SoftReference<HeldBySoft> soft;
    static WeakReference<HeldByWeak> weak;
    static volatile boolean stop;
    static volatile long sink;

    // the thread "holder": its frame holds a HeldByLocal, its ThreadLocal a HeldByThreadLocal
    static void startHolder(CountDownLatch ready) {
        Thread t = new Thread(() -> {
            HeldByLocal local = new HeldByLocal();
            TL.set(new HeldByThreadLocal());
            ready.countDown();
            while (!stop)
                LockSupport.park();
            sink = local.tag;
        }, "holder");
        t.setDaemon(true);
        t.start();
    }

    static void keepThroughJni() {
        keepGlobal(new HeldByJni());
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: java HeapPaths <libjpnative.so> <stopfile>");
            System.exit(2);
        }
        System.load(args[0]);
        cache.put(1, "one");
        cache.put(2, "two");
        cache.put(7, new HeldByStatic());
        soft = new SoftReference<>(new HeldBySoft());
        weak = new WeakReference<>(new HeldByWeak());
        keepThroughJni();
        for (int i = 0; i < 10; i++)
            sink += new Dropped().tag;
        CountDownLatch ready = new CountDownLatch(1);
        startHolder(ready);
        ready.await();
        System.out.println("ready");
        System.out.flush();
        while (!Files.exists(Paths.get(args[1])))
            Thread.sleep(20);
        stop = true;
        System.out.println(soft.get() != null ? "soft kept" : "soft cleared");
    }
}
