// TraceFields: one of each event a plugin can get from trace=all, for t6303
// to compare the plugin's fields with the trace file's text: static,
// instance and synchronized methods, one left by an exception; a daemon
// thread of priority 7 in a group of its own and a plain one; allocations,
// collections, a wait, user events, a class loaded, an object-reference
// report.
public class TraceFields {
    static volatile Object sink;
    final int[] data = new int[5];

    static int twice(int x) { return 2 * x; }
    int sum() { int s = 0; for (int d : data) s += d; return s; }
    synchronized void locked() throws InterruptedException { wait(5); }
    static void fails() { throw new IllegalStateException("planned"); }

    public static void main(String[] args) throws Exception {
        jvmprof.Control.userEvent("begin");
        TraceFields f = new TraceFields();
        sink = twice(f.sum());
        f.locked();
        try {
            fails();
        } catch (IllegalStateException e) {
            sink = e;
        }
        Thread daemon = new Thread(new ThreadGroup("workers"), () -> sink = new long[3], "fields-daemon");
        daemon.setDaemon(true);
        daemon.setPriority(7);
        daemon.start();
        daemon.join();
        Thread plain = new Thread(() -> sink = new TraceFields(), "fields-plain");
        plain.start();
        plain.join();
        for (int i = 0; i < 3; i++)
            System.gc();
        jvmprof.Control.userEvent("collected");
        System.out.println("references " + jvmprof.Control.objectReferences());
        jvmprof.Control.userEvent("end");
    }
}
