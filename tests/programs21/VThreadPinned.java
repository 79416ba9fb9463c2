// VThreadPinned: virtual threads that block while pinned to their carrier.
// On JDK 24 and later synchronized no longer pins; a native frame on the
// stack still does: each thread sorts two ints with the C library's qsort
// (through the foreign function API), whose comparator, an upcall into Java
// below qsort's native frame, sleeps 30 ms in pinnedWait() (pinned: the
// virtual thread cannot unmount). Then it sleeps 30 ms in freeWait(), not
// pinned. Args: threads, rounds, and "contend" to begin with one ordinary
// contention: platform thread "blocked" enters a Gate that thread "holder"
// holds for 300 ms. Run with --enable-native-access=ALL-UNNAMED.
// Prints "done" to stdout.
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.CountDownLatch;

public class VThreadPinned {
    static void pinnedWait() throws InterruptedException {
        Thread.sleep(30);
    }

    static void freeWait() throws InterruptedException {
        Thread.sleep(30);
    }

    static final class Gate {
    }

    static void contend() throws InterruptedException {
        Gate gate = new Gate();
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().name("holder").start(() -> {
            synchronized (gate) {
                held.countDown();
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }
        });
        held.await();
        Thread blocked = Thread.ofPlatform().name("blocked").start(() -> {
            synchronized (gate) {
                gate.hashCode();
            }
        });
        blocked.join();
        holder.join();
    }

    static int compare(MemorySegment a, MemorySegment b) {
        try {
            pinnedWait();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
        return Integer.compare(a.get(ValueLayout.JAVA_INT, 0), b.get(ValueLayout.JAVA_INT, 0));
    }

    public static void main(String[] args) throws Throwable {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        if (args.length > 2 && args[2].equals("contend"))
            contend();
        Linker linker = Linker.nativeLinker();
        MethodHandle qsort = linker.downcallHandle(linker.defaultLookup().find("qsort").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        MethodHandle cmp = MethodHandles.lookup().findStatic(VThreadPinned.class, "compare",
                MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
        FunctionDescriptor cmpDesc = FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS.withTargetLayout(ValueLayout.JAVA_INT),
                ValueLayout.ADDRESS.withTargetLayout(ValueLayout.JAVA_INT));
        MemorySegment comparator = linker.upcallStub(cmp, cmpDesc, Arena.global());
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            ts[t] = Thread.ofVirtual().name("pinner-" + t).start(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment two = arena.allocate(ValueLayout.JAVA_INT, 2);
                    for (int r = 0; r < rounds; r++) {
                        two.setAtIndex(ValueLayout.JAVA_INT, 0, 2);
                        two.setAtIndex(ValueLayout.JAVA_INT, 1, 1);
                        qsort.invokeExact(two, 2L, 4L, comparator);
                        freeWait();
                    }
                } catch (Throwable e) {
                    throw new RuntimeException(e);
                }
            });
        }
        for (Thread t : ts)
            t.join();
        System.out.println("done");
    }
}
