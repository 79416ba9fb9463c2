// ClassUnload: defines a class in a fresh class loader over and over, runs its
// hot method, makes one instance of it by reflection, drops the loader and
// collects it, so classes unload while the profiler samples (and counts their
// objects). Runs args[0] rounds (default 300).
import java.io.InputStream;
import java.lang.reflect.Method;

public class ClassUnload {
    public static class Victim {
        public static long spin(long seed) {
            long x = seed;
            for (int i = 0; i < 300_000; i++)
                x = x * 31 + i;
            return x;
        }
    }

    static final class OneShotLoader extends ClassLoader {
        private final byte[] bytes;

        OneShotLoader(byte[] bytes) {
            super(null);
            this.bytes = bytes;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (name.equals("ClassUnload$Victim"))
                return defineClass(name, bytes, 0, bytes.length);
            throw new ClassNotFoundException(name);
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        byte[] bytes;
        try (InputStream in = ClassUnload.class.getResourceAsStream("ClassUnload$Victim.class")) {
            bytes = in.readAllBytes();
        }
        long acc = 0;
        for (int r = 0; r < rounds; r++) {
            Class<?> c = new OneShotLoader(bytes).loadClass("ClassUnload$Victim");
            Method m = c.getMethod("spin", long.class);
            acc += (Long) m.invoke(null, acc);
            Object v = c.getConstructor().newInstance();
            acc += v.getClass() == c ? 1 : 0;
            if (r % 20 == 19)
                System.gc();
        }
        System.gc();
        System.out.println("rounds " + rounds + " ok " + (acc != 42));
    }
}
