// TraceControl: jvmprof.Control's tracing API. "errors" tries every call that
// must throw a ControlException and prints each message; "noagent" the same
// without an agent; "windows LIB" loads LIB, begins and ends tracing 100
// times while 8 threads call work(), with a user event "in N" in each window,
// then reports a known object graph (NodeA -> NodeB, NodeA -> NodeC,
// NodeB -> NodeC, NodeC -> NodeA) and shuts the library down; "stopped LIB
// FILE" ends a tracing with Control.stop() and starts a cpu=samples session
// (to FILE) that tracingEnd must leave running.
import jvmprof.Control;
import jvmprof.ControlException;

public class TraceControl {
    static class Node { Node left, right; }
    static final class NodeA extends Node {}
    static final class NodeB extends Node {}
    static final class NodeC extends Node {}

    static volatile boolean running = true;
    static volatile long sink;
    static Node graph;

    static long work(long x) {
        return x * 31 + 7;
    }

    static void expect(String what, Call c) {
        try {
            c.run();
            System.out.println(what + ": no exception");
        } catch (ControlException e) {
            System.out.println(what + ": " + e.getMessage());
        }
    }

    interface Call { void run() throws ControlException; }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("errors") || args[0].equals("noagent")) {
            expect("begin before startup", () -> Control.tracingBegin(Control.EXECUTION_ON | Control.MEMORY_OFF | Control.ALLOCATION_OFF));
            expect("end before begin", Control::tracingEnd);
            expect("shutdown before startup", Control::tracingShutdown);
            expect("report before begin", Control::reportObjectReferences);
            expect("no such library", () -> Control.tracingStartup("nosuchlib"));
            expect("relative path", () -> Control.tracingStartup("lib/x"));
            expect("missing file", () -> Control.tracingStartup("/nonexistent/libx.so"));
            expect("two exec levels", () -> Control.tracingBegin(Control.EXECUTION_ON | Control.EXECUTION_LIGHT | Control.MEMORY_OFF | Control.ALLOCATION_OFF));
            expect("no memory level", () -> Control.tracingBegin(Control.EXECUTION_ON | Control.ALLOCATION_OFF));
            expect("unknown bits", () -> Control.tracingBegin(Control.EXECUTION_ON | Control.MEMORY_OFF | Control.ALLOCATION_OFF | (1 << 20)));
            expect("no events", () -> Control.tracingBegin(Control.EXECUTION_OFF | Control.MEMORY_OFF | Control.ALLOCATION_OFF));
            if (args.length > 1) {
                expect("startup", () -> Control.tracingStartup(args[1]));
                expect("startup twice", () -> Control.tracingStartup(args[1]));
                expect("begin", () -> Control.tracingBegin(Control.EXECUTION_ON | Control.MEMORY_OFF | Control.ALLOCATION_OFF));
                expect("begin twice", () -> Control.tracingBegin(Control.EXECUTION_ON | Control.MEMORY_OFF | Control.ALLOCATION_OFF));
                expect("end", Control::tracingEnd);
                expect("shutdown", Control::tracingShutdown);
            }
            System.out.println("userEvent " + Control.userEvent("x") + " objectReferences " + Control.objectReferences());
            return;
        }
        if (args[0].equals("stopped")) { // tracing ended by Control.stop(): tracingEnd and tracingBegin after it
            int flags = Control.EXECUTION_OFF | Control.MEMORY_OFF | Control.ALLOCATION_OFF | Control.THREADS;
            Control.tracingStartup(args[1]);
            Control.tracingBegin(flags);
            System.out.println("stop " + Control.stop());
            System.out.println("start " + Control.start("cpu=samples,file=" + args[2]));
            expect("end after stop", Control::tracingEnd);
            System.out.println("running after tracingEnd " + Control.isRunning());
            expect("begin", () -> Control.tracingBegin(flags)); // stops the cpu=samples session first (its report)
            System.out.println("stop " + Control.stop());
            expect("begin after stop", () -> Control.tracingBegin(flags));
            expect("report", Control::reportObjectReferences);
            expect("end", Control::tracingEnd);
            System.out.println("running after end " + Control.isRunning());
            expect("shutdown", Control::tracingShutdown);
            return;
        }
        Control.tracingStartup(args[1]);
        Thread[] threads = new Thread[8];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                long x = 0;
                while (running)
                    x = work(x);
                sink = x;
            }, "worker-" + t);
            threads[t].start();
        }
        int windows = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        for (int i = 0; i < windows; i++) {
            long t0 = System.nanoTime();
            Control.tracingBegin(Control.EXECUTION_ON | Control.MEMORY_LIGHT | Control.ALLOCATION_OFF | Control.USER_EVENTS | Control.THREADS);
            long t1 = System.nanoTime();
            Control.userEvent("in " + i);
            Thread.sleep(1);
            long t2 = System.nanoTime();
            Control.tracingEnd();
            if (args.length > 3)
                System.err.printf("window %d: begin %.1f ms, inside %.1f ms, end %.1f ms%n", i, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (System.nanoTime() - t2) / 1e6);
        }
        running = false;
        for (Thread t : threads)
            t.join();
        Node a = new NodeA(), b = new NodeB(), c = new NodeC();
        a.left = b;
        a.right = c;
        b.left = c;
        c.right = a;
        graph = a;
        Control.tracingBegin(Control.EXECUTION_OFF | Control.MEMORY_OFF | Control.ALLOCATION_OFF | Control.THREADS);
        Control.reportObjectReferences();
        Control.tracingEnd();
        Control.tracingShutdown();
        System.out.println("windows done");
    }
}
