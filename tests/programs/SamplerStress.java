// SamplerStress: what a signal-driven sampler must survive. At once: args[0]
// threads (default 200) that start, recurse a little, compute and end; one
// thread that recurses 5000 frames deep and computes at the bottom; and a
// loop defining, running and dropping classes in fresh class loaders so they
// unload (ClassUnload's victim); for args[1] seconds (default 3). Prints one
// line that does not depend on timing.
import java.io.InputStream;
import java.lang.reflect.Method;

public class SamplerStress {
    static volatile long sink;

    static long spin(int n) {
        long x = n;
        for (int i = 0; i < 200_000; i++)
            x = x * 31 + i;
        return x;
    }

    static long recurse(int depth, int target) {
        if (depth == target)
            return spin(depth);
        return recurse(depth + 1, target) + 1;
    }

    public static void main(String[] args) throws Exception {
        int nthreads = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        Thread deep = new Thread(null, () -> {
            long acc = 0;
            while (System.nanoTime() < end)
                acc += recurse(0, 5000);
            sink = acc;
        }, "deep", 64L << 20);
        deep.start();

        Thread[] workers = new Thread[nthreads];
        for (int i = 0; i < nthreads; i++) {
            final int id = i;
            workers[i] = new Thread(() -> {
                for (int k = 0; k < 20; k++)
                    sink += recurse(0, 20 + id % 50);
            }, "worker-" + i);
            workers[i].start();
        }

        byte[] bytes;
        try (InputStream in = SamplerStress.class.getResourceAsStream("ClassUnload$Victim.class")) {
            bytes = in.readAllBytes();
        }
        long acc = 0;
        int classes = 0;
        for (int r = 0; r < 60 || System.nanoTime() < end; r++, classes++) {
            ClassLoader l = new ClassLoader(null) {
                @Override
                protected Class<?> findClass(String name) throws ClassNotFoundException {
                    if (name.equals("ClassUnload$Victim"))
                        return defineClass(name, bytes, 0, bytes.length);
                    throw new ClassNotFoundException(name);
                }
            };
            Method m = l.loadClass("ClassUnload$Victim").getMethod("spin", long.class);
            acc += (Long) m.invoke(null, (long) r);
            if (r % 10 == 9)
                System.gc();
        }
        for (Thread w : workers)
            w.join();
        deep.join();
        System.out.println("threads " + nthreads + " classes " + (classes >= 60 ? "60+" : "too few") + " ok " + (acc != 42));
    }
}
