// TracedJavac: javac in one JVM with a tracing window before it, for the
// tracing API's cost once tracing has ended (bench/tracing_ended.sh).
// Loads the tracing library LIB (jvmprof.Control.tracingStartup), begins
// tracing calls, compiles the first 40 files of @LIST (which loads and
// instruments javac's classes), ends tracing, then compiles every file of
// @LIST twice and prints "TRACEDJAVAC ms=<the first's wall time> again=<the
// second's>" (the first also recompiles the classes tracingEnd restored). Without
// an agent the Control calls throw and the two compiles run untraced.
//   java TracedJavac LIB LIST OUTDIR PATCH
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

public class TracedJavac {
    static int compile(List<String> files, String out, String patch) {
        List<String> a = new ArrayList<>(List.of("--patch-module", "java.base=" + patch, "-d", out, "-proc:none",
                                                 "-nowarn", "-XDsuppressNotes", "-XDignore.symbol.file",
                                                 "-implicit:none"));
        a.addAll(files);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        return javac.run(null, null, null, a.toArray(new String[0]));
    }

    public static void main(String[] args) throws Exception {
        List<String> files = Files.readAllLines(Paths.get(args[1]));
        boolean traced = true;
        try {
            jvmprof.Control.tracingStartup(args[0]);
            jvmprof.Control.tracingBegin(jvmprof.Control.EXECUTION_ON | jvmprof.Control.MEMORY_OFF
                                         | jvmprof.Control.ALLOCATION_OFF);
        } catch (jvmprof.ControlException e) {
            traced = false; // no agent: the baseline
        }
        int rc = compile(files.subList(0, Math.min(40, files.size())), args[2] + "/warm", args[3]);
        if (traced)
            jvmprof.Control.tracingEnd();
        long t0 = System.nanoTime();
        rc |= compile(files, args[2] + "/all", args[3]);
        long t1 = System.nanoTime();
        rc |= compile(files, args[2] + "/again", args[3]);
        System.out.printf("TRACEDJAVAC ms=%.1f again=%.1f traced=%b rc=%d%n", (t1 - t0) / 1e6,
                          (System.nanoTime() - t1) / 1e6, traced, rc);
    }
}
