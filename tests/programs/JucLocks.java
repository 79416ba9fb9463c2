// JucLocks: java.util.concurrent contention for about args[0] seconds
// (default 2). Eight threads take turns on one ReentrantLock, each holding it
// while it spins ~200 us in critical(); two readers block on a
// ReentrantReadWriteLock that a writer holds most of the time; one thread
// idles in a LinkedBlockingQueue.take() (a Condition), one in Object.wait, and
// a Cleaner's thread idles on its ReferenceQueue's lock, as JDK threads do
// (woken every 200 ms by a collection that finds an object it cleans).
import java.lang.ref.Cleaner;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class JucLocks {
    static final ReentrantLock LOCK = new ReentrantLock();
    static final ReentrantReadWriteLock RW = new ReentrantReadWriteLock();
    static final Object IDLE = new Object();
    static volatile boolean stop;
    static volatile long sink;

    static void spin(long ns) {
        long t = System.nanoTime(), x = sink;
        while (System.nanoTime() - t < ns)
            x = x * 31 + 1;
        sink = x;
    }

    static void critical() {
        LOCK.lock();
        try {
            spin(200_000);
        } finally {
            LOCK.unlock();
        }
    }

    static void write() {
        RW.writeLock().lock();
        try {
            spin(5_000_000);
        } finally {
            RW.writeLock().unlock();
        }
        spin(100_000);
    }

    static void read() {
        RW.readLock().lock();
        try {
            spin(10_000);
        } finally {
            RW.readLock().unlock();
        }
    }

    static void idleTake(BlockingQueue<Integer> q) throws InterruptedException {
        q.take();
    }

    static void idleWait() throws InterruptedException {
        synchronized (IDLE) {
            while (!stop)
                IDLE.wait(100);
        }
    }

    static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.start();
        return t;
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        Cleaner cleaner = Cleaner.create();
        cleaner.register(new Object(), () -> { });
        BlockingQueue<Integer> q = new LinkedBlockingQueue<>();
        Thread taker = start("idle-taker", () -> {
            try { idleTake(q); } catch (InterruptedException e) { }
        });
        Thread waiter = start("idle-waiter", () -> {
            try { idleWait(); } catch (InterruptedException e) { }
        });
        Thread[] workers = new Thread[11];
        for (int i = 0; i < 8; i++)
            workers[i] = start("locker-" + i, () -> { while (!stop) critical(); });
        workers[8] = start("writer", () -> { while (!stop) write(); });
        for (int i = 9; i < 11; i++)
            workers[i] = start("reader-" + i, () -> { while (!stop) read(); });
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) { // wakes the Cleaner's thread now and then
            cleaner.register(new Object(), () -> { });
            System.gc();
            Thread.sleep(200);
        }
        stop = true;
        for (Thread t : workers)
            t.join();
        q.put(1);
        taker.join();
        waiter.join();
        System.out.println("JucLocks done");
    }
}
