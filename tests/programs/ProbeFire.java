import com.sun.tracing.Probe;
import com.sun.tracing.ProbeName;
import com.sun.tracing.Provider;
import com.sun.tracing.ProviderFactory;
import com.sun.tracing.ProviderName;
import com.sun.tracing.dtrace.Attributes;
import com.sun.tracing.dtrace.DependencyClass;
import com.sun.tracing.dtrace.FunctionName;
import com.sun.tracing.dtrace.ModuleName;
import com.sun.tracing.dtrace.ProviderAttributes;
import com.sun.tracing.dtrace.StabilityLevel;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/* Probes (com.sun.tracing) for t6401: firings for bpftrace to count (bpf),
 * names for bpftrace to list (names), firings among method calls for the
 * trace and a plugin (order), providers made and disposed (leak), bad
 * provider interfaces (bad), and without an agent (noagent). */
public class ProbeFire {
    public interface Fire extends Provider {
        void values(int i, long l, boolean b, double d, String s);

        void count(int n);
    }

    @ProviderName("jvmprof_named")
    @ModuleName("mymodule")
    @ProviderAttributes(@Attributes(name = StabilityLevel.EVOLVING, data = StabilityLevel.STABLE,
                                    dependency = DependencyClass.COMMON))
    public interface Named extends Provider {
        @ProbeName("renamed")
        @FunctionName("myfunction")
        void original(int x);
    }

    interface NotVoid extends Provider {
        int value(int x);
    }

    interface WithArray extends Provider {
        void bytes(byte[] b);
    }

    @ProviderName("bad-name")
    interface BadProviderName extends Provider {
        void p();
    }

    interface BadProbeName extends Provider {
        @ProbeName("9lives")
        void p();
    }

    @ModuleName("../up")
    interface BadModule extends Provider {
        void p();
    }

    interface Twice extends Provider {
        void p(int x);

        void p(long x);
    }

    interface TooMany extends Provider {
        void p(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j, int k, int l, int m);
    }

    interface NotAProvider {
        void p();
    }

    static final ProviderFactory FACTORY = ProviderFactory.getDefaultFactory();

    static boolean waitFor(Probe p, boolean on, long ms) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        while (p.isEnabled() != on)
            if (System.currentTimeMillis() > end)
                return false;
            else
                Thread.sleep(20);
        return true;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
        case "bpf": bpf(Integer.parseInt(args[1])); break;
        case "names": names(); break;
        case "order": order(); break;
        case "leak": leak(Integer.parseInt(args[1])); break;
        case "bad": bad(); break;
        case "noagent": noagent(); break;
        default: throw new IllegalArgumentException(args[0]);
        }
    }

    /* Waits for a tracer on values, fires it n times, waits for the tracer to go. */
    static void bpf(int n) throws Exception {
        Fire fire = FACTORY.createProvider(Fire.class);
        Probe values = fire.getProbe(Fire.class.getMethod("values", int.class, long.class, boolean.class,
                                                          double.class, String.class));
        System.out.println("enabled before " + values.isEnabled());
        System.out.println(fire);
        System.out.println("ready");
        if (!waitFor(values, true, 60000)) {
            System.out.println("no tracer came");
            return;
        }
        for (String phase : new String[] { "", " (jvmprof:probe)" }) { /* its own probe, then the fixed one */
            if (!phase.isEmpty() && !waitFor(values, true, 60000)) {
                System.out.println("no tracer came" + phase);
                return;
            }
            System.out.println("enabled while traced " + values.isEnabled() + phase);
            Thread.sleep(500); /* its breakpoint is written after its semaphore is raised */
            for (int k = 0; k < n; k++)
                fire.values(k, (1L << 40) + k, k % 2 == 0, 1.5, "hello-" + (k % 3));
            System.out.println("fired " + n + phase);
            System.out.println("detached " + waitFor(values, false, 60000) + phase);
        }
        fire.dispose();
    }

    /* Providers with names of their own, and two of one interface, until stdin closes. */
    static void names() throws Exception {
        Named named = FACTORY.createProvider(Named.class);
        Fire one = FACTORY.createProvider(Fire.class), two = FACTORY.createProvider(Fire.class);
        System.out.println(named);
        System.out.println(one);
        System.out.println(two);
        System.out.println("ready");
        Probe p = named.getProbe(Named.class.getMethod("original", int.class));
        while (System.in.read() >= 0) {
            if (p.isEnabled())
                named.original(7);
        }
        named.dispose();
        one.dispose();
        two.dispose();
    }

    static void inner(Fire fire, int k) {
        fire.count(k);
    }

    static void outer(Fire fire, int k) {
        fire.values(k, -k, true, -0.25, k == 1 ? null : "s" + k);
        inner(fire, k);
    }

    /* Firings between method calls (trace=exec+probe, a plugin). */
    static void order() throws Exception {
        Fire fire = FACTORY.createProvider(Fire.class);
        Named named = FACTORY.createProvider(Named.class);
        for (int k = 0; k < 3; k++)
            outer(fire, k);
        named.original(42);
        fire.getProbe(Fire.class.getMethod("count", int.class)).trigger(99);
        try {
            fire.getProbe(Fire.class.getMethod("count", int.class)).trigger("x");
        } catch (IllegalArgumentException e) {
            System.out.println("trigger: " + e.getMessage());
        }
        fire.dispose();
        fire.count(1000); /* disposed: nothing */
        named.dispose();
        System.out.println("order done");
    }

    static long count(Path dir) throws Exception {
        if (!Files.exists(dir))
            return 0;
        try (java.util.stream.Stream<Path> s = Files.walk(dir)) {
            return s.count();
        }
    }

    static String resources() throws Exception {
        long fds = new File("/proc/self/fd").list().length;
        String pid = Long.toString(ProcessHandle.current().pid());
        List<String> maps = Files.readAllLines(Paths.get("/proc/self/maps"));
        long ours = maps.stream().filter(l -> l.contains("/jvmprof-" + pid + "/")).count();
        String tmp = System.getenv("TMPDIR") != null ? System.getenv("TMPDIR") : "/tmp";
        return "fds " + fds + " mappings " + ours + " files " + count(Paths.get(tmp, "jvmprof-" + pid));
    }

    /* n providers made, fired and disposed: nothing left behind. */
    static void leak(int n) throws Exception {
        Fire first = FACTORY.createProvider(Fire.class); /* the first one's lasting costs (classes, threads) */
        System.out.println("one " + resources());
        first.dispose();
        System.gc();
        String before = resources();
        for (int i = 0; i < n; i++) {
            Fire f = FACTORY.createProvider(Fire.class);
            f.values(i, i, true, i, "x");
            if (i == n / 2)
                System.out.println("during " + resources());
            f.dispose();
        }
        System.out.println("before " + before);
        System.out.println("after " + resources());
    }

    static void bad() {
        for (Class<?> c : new Class<?>[] { NotVoid.class, WithArray.class, BadProviderName.class, BadProbeName.class,
                                           BadModule.class, Twice.class, TooMany.class, NotAProvider.class }) {
            try {
                @SuppressWarnings("unchecked")
                Class<? extends Provider> p = (Class<? extends Provider>) c;
                FACTORY.createProvider(p);
                System.out.println(c.getSimpleName() + ": accepted");
            } catch (IllegalArgumentException e) {
                System.out.println(c.getSimpleName() + ": " + e.getMessage());
            }
        }
        try {
            FACTORY.createProvider(null);
        } catch (NullPointerException e) {
            System.out.println("null: NullPointerException");
        }
    }

    static void noagent() throws Exception {
        Fire fire = FACTORY.createProvider(Fire.class);
        Probe p = fire.getProbe(Fire.class.getMethod("count", int.class));
        fire.count(1);
        fire.values(1, 2, true, 3, "x");
        p.trigger(5);
        System.out.println("noagent enabled " + p.isEnabled() + " " + fire);
        System.out.println("getProbe(other) " + fire.getProbe(Object.class.getMethod("toString")));
        fire.dispose();
        fire.count(2);
    }
}
