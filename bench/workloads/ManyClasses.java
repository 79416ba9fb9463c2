import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.stream.Stream;

/* A JVM with many classes loaded (bench/attach_start.sh): loads the JDK's own
 * classes (from jrt:/, not initialized) until args[0] are loaded, prints
 * "MANYCLASSES ready N", then runs a loop until killed. */
public class ManyClasses {
    static long sink;

    public static void main(String[] args) throws Exception {
        int want = Integer.parseInt(args[0]);
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        ClassLoader loader = ClassLoader.getSystemClassLoader();
        try (Stream<Path> paths = Files.walk(jrt.getPath("/modules"))) {
            Iterator<Path> it = paths.iterator();
            while (it.hasNext() && ManagementFactory.getClassLoadingMXBean().getLoadedClassCount() < want) {
                Path p = it.next();
                String s = p.toString();
                if (!s.endsWith(".class") || s.endsWith("module-info.class"))
                    continue;
                String rel = s.substring(s.indexOf('/', "/modules/".length()) + 1);
                try {
                    Class.forName(rel.substring(0, rel.length() - 6).replace('/', '.'), false, loader);
                } catch (Throwable e) {
                    /* not visible from the application class loader, or its dependencies are missing */
                }
            }
        }
        System.out.println("MANYCLASSES ready " + ManagementFactory.getClassLoadingMXBean().getLoadedClassCount());
        for (;;)
            for (int i = 0; i < 1000000; i++)
                sink += i * 31L;
    }
}
