// RefKinds: 1000 instances each of marker classes held in different ways:
// Strong (a static list), WeakOnly (only through WeakReferences), SoftOnly
// (only through SoftReferences), PhantomOnly (only through PhantomReferences),
// WeakAndStrong (through a WeakReference and a static list). A heap dump of
// what survives a full collection holds 1000 Strong, 1000 WeakAndStrong, 1000
// SoftOnly (while memory is plentiful), no WeakOnly and no PhantomOnly.
// args: "dump FILE" writes a dump with jvmprof.Control.dumpHeap and exits;
// "wait STOPFILE" prints "ready" and exits once STOPFILE exists (for jcmd).
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class RefKinds {
    static final class Strong { int v; }
    static final class WeakOnly { int v; }
    static final class SoftOnly { int v; }
    static final class PhantomOnly { int v; }
    static final class WeakAndStrong { int v; }

    static final int N = 1000;
    static final List<Object> STRONG = new ArrayList<>();
    static final List<Reference<?>> REFS = new ArrayList<>();
    static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < N; i++) {
            STRONG.add(new Strong());
            REFS.add(new WeakReference<>(new WeakOnly()));
            REFS.add(new SoftReference<>(new SoftOnly()));
            REFS.add(new PhantomReference<>(new PhantomOnly(), QUEUE));
            WeakAndStrong ws = new WeakAndStrong();
            STRONG.add(ws);
            REFS.add(new WeakReference<>(ws));
        }
        if (args[0].equals("dump")) {
            System.out.println("dumped " + jvmprof.Control.dumpHeap(args[1]));
        } else {
            System.out.println("ready");
            System.out.flush();
            while (!Files.exists(Paths.get(args[1])))
                Thread.sleep(50);
        }
        System.out.println("held " + STRONG.size() + " " + REFS.size());
    }
}
