// JavacHeap — javac's heap at the end of a real compilation, for checking
// retained sizes on a big, irregular graph (tests/tools/make_ref_dumps.sh).
//   JavacHeap DUMP.hprof FILES OPTION...
// compiles the source files listed in FILES (one path a line) with javac's
// OPTIONs, in this JVM, through javax.tools: parse, analyze and generate
// steps of one JavacTask that a static field keeps referenced, so the
// compiler's trees, symbols, types and class writer state are all still live;
// then writes a heap dump of the live objects to DUMP.hprof
// (HotSpotDiagnosticMXBean.dumpHeap(file, true), which runs a full GC first)
// and prints "classes N dumped DUMP.hprof". Exit 1 if compiling fails.
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.source.util.JavacTask;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavacHeap {
    static JavacTask task;                 // kept: javac's whole state hangs from it
    static StandardJavaFileManager files;
    static List<Object> results = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: JavacHeap DUMP.hprof FILES [javac option]...");
            System.exit(2);
        }
        List<Path> sources = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[1])))
            if (!line.isBlank()) sources.add(Path.of(line.trim()));
        List<String> options = Arrays.asList(args).subList(2, args.length);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        files = javac.getStandardFileManager(null, null, null);
        Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
        task = (JavacTask) javac.getTask(null, files, null, options, null, units);
        results.add(task.parse());
        results.add(task.analyze());
        int classes = 0;
        for (Object o : task.generate()) {
            results.add(o);
            classes++;
        }
        if (classes == 0) {
            System.err.println("JavacHeap: javac wrote no class");
            System.exit(1);
        }
        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);
        System.out.println("classes " + classes + " dumped " + args[0]);
        System.out.println(task.hashCode() % 1 + files.hashCode() % 1); // the fields are read after the dump
    }
}
