// TraceLateClasses: array classes made by another thread while the main
// thread asks for object-reference reports (t6304). Array classes get no
// class-load event; those made while a report is being prepared are named
// after its walk. The maker keeps what it made reachable.
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

public class TraceLateClasses {
    static final List<Object> kept = new ArrayList<>();
    static volatile boolean done;
    static volatile long made;

    /** One class of its own, defined again by each new loader. */
    public static class Base {}

    static class Loader extends ClassLoader {
        Loader() { super(TraceLateClasses.class.getClassLoader()); }
        Class<?> define(byte[] b) { return defineClass(Base.class.getName(), b, 0, b.length); }
    }

    public static void main(String[] args) throws Exception {
        byte[] bytes;
        try (var in = TraceLateClasses.class.getResourceAsStream("TraceLateClasses$Base.class")) {
            bytes = in.readAllBytes();
        }
        Thread maker = new Thread(() -> {
            while (!done) {
                Class<?> c = new Loader().define(bytes); // a new class; its arrays are new classes
                for (int dims = 1; dims <= 40 && !done; dims++) {
                    Object a = Array.newInstance(c, 8);
                    c = a.getClass();
                    synchronized (kept) {
                        kept.add(a);
                    }
                    made++;
                }
            }
        }, "maker");
        maker.setDaemon(true);
        maker.start();
        while (made < 200)
            Thread.sleep(1);
        int reports = Integer.parseInt(args[0]);
        boolean all = true;
        for (int i = 0; i < reports; i++) {
            synchronized (kept) {
                if (kept.size() > 4000)
                    kept.subList(0, 2000).clear();
            }
            all &= jvmprof.Control.objectReferences();
        }
        done = true;
        maker.join();
        System.out.println("references " + all + " made " + (made > 200));
    }
}
