// HeapVerify — an independent check of an HPROF heap dump, built on the heap
// library inside Debian's `visualvm` package (VisualVM's copy of the NetBeans
// profiler's heap walker; in VisualVM 2.x its package is
// org.graalvm.visualvm.lib.jfluid.heap, formerly org.netbeans.lib.profiler.heap,
// in modules/org-graalvm-visualvm-lib-jfluid-heap.jar).
//
//   java -cp <jar>:<dir> HeapVerify FILE.hprof [--count CLASSNAME]... [--sum CLASS.FIELD]... [--static CLASS.FIELD]...
//
// Walks every object in the dump (instances, object arrays, primitive arrays)
// and every class, and checks that each non-null reference names an object
// or a class that is in the dump: instance fields, object array elements,
// static fields, the super class, the class loader, and the GC roots. Prints
//
//   classes=N instances=N references=N unresolved=N roots=N
//   count CLASSNAME N          (one per --count)
//
// and up to 10 lines "unresolved: <who> -> 0x<id>" first. Exit 0 if every
// reference resolves, 1 if not, 2 (one-line message) if the file cannot be read.
//
// Class names are the library's: Java source spelling with '.' between
// packages and '$' for nested classes ("java.lang.String", "HeapShape$Node"),
// and "[]" per array dimension ("int[]", "HeapShape$Leaf[]", "java.lang.Object[][]").
//
// The library's public API resolves references for us and turns a dangling
// one into null, which looks the same as a null reference. So the raw ids are
// read through the API where it gives them (FieldValue.getValue() is the id in
// decimal for an object field, static or not, and for the synthetic
// "<classLoader>" static field) and through a few package-private members
// otherwise (object array elements, super class ids, GC root ids), with
// reflection. That ties this file to the library's internals; Debian 12's
// visualvm 2.1.5 is what it was written against.
//
// The library writes index files into a directory "<dump>.hwcache" next to
// the dump and may reuse them for a later dump of the same name. To keep the
// dump's directory untouched and never read a stale index, the dump is opened
// through a symbolic link in a fresh temporary directory, deleted at the end.
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.graalvm.visualvm.lib.jfluid.heap.FieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.GCRoot;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue;

public class HeapVerify {
    static final int SHOW = 10;
    // --sum CLASS.FIELD: the sum of a primitive instance field over the class's instances (true = 1,
    // a char counts its code, floating point values are summed as doubles); --static CLASS.FIELD:
    // a static field's value. The field is the text after the last '.'.
    static final List<String> SUMS = new ArrayList<>(), STATICS = new ArrayList<>();
    final Map<String, Double> sums = new HashMap<>();

    final Heap heap;
    final Raw raw;
    long references, unresolved;

    HeapVerify(Heap heap) throws ReflectiveOperationException {
        this.heap = heap;
        this.raw = new Raw(heap);
    }

    public static void main(String[] args) {
        String file = null;
        List<String> counts = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--count") && i + 1 < args.length) counts.add(args[++i]);
            else if (args[i].equals("--sum") && i + 1 < args.length) SUMS.add(args[++i]);
            else if (args[i].equals("--static") && i + 1 < args.length) STATICS.add(args[++i]);
            else if (file == null && !args[i].startsWith("--")) file = args[i];
            else usage();
        }
        if (file == null) usage();
        File dump = new File(file).getAbsoluteFile();
        if (!dump.isFile()) die(file + ": no such file");

        Path tmp = null;
        int rc;
        try {
            tmp = Files.createTempDirectory("heapverify");
            Path link = tmp.resolve(dump.getName());
            Files.createSymbolicLink(link, dump.toPath());
            Heap heap = HeapFactory.createHeap(link.toFile());
            rc = new HeapVerify(heap).run(counts);
        } catch (Throwable e) { // IOException, and whatever a damaged file makes the parser throw
            String msg = e.getMessage();
            System.err.println("HeapVerify: " + file + ": cannot parse: " + e.getClass().getSimpleName() +
                               (msg == null ? "" : ": " + msg.replace('\n', ' ')));
            rc = 2;
        } finally {
            if (tmp != null) deleteTree(tmp);
        }
        System.exit(rc);
    }

    int run(List<String> countNames) {
        // objects: one pass over the whole dump (per-class getInstances() rescans the file for each class)
        long instances = 0;
        Map<Long, long[]> perClass = new HashMap<>();
        for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext(); ) {
            Instance inst = it.next();
            instances++;
            JavaClass cls = inst.getJavaClass();
            perClass.computeIfAbsent(cls.getJavaClassId(), k -> new long[1])[0]++;
            for (String sf : SUMS) {
                int dot = sf.lastIndexOf('.');
                if (!cls.getName().equals(sf.substring(0, dot))) continue;
                sums.merge(sf, number(inst.getValueOfField(sf.substring(dot + 1))), Double::sum);
            }
            if (inst instanceof ObjectArrayInstance) {
                ObjectArrayInstance arr = (ObjectArrayInstance) inst;
                int n = arr.getLength();
                long base = raw.arrayBase(arr);
                for (int i = 0; i < n; i++) {
                    long id = raw.id(base + (long) i * raw.idSize);
                    if (id != 0) check(id, inst, "[" + i + "]", false);
                }
            } else {
                // primitive arrays have no field values; instances list all fields, inherited ones too
                for (FieldValue fv : inst.getFieldValues()) {
                    if (fv instanceof ObjectFieldValue) {
                        long id = Long.parseLong(fv.getValue());
                        if (id != 0) check(id, inst, fv.getField().getName(), false);
                    }
                }
            }
        }

        // classes: super class, static fields and the class loader (the last static value, "<classLoader>")
        List<JavaClass> classes = heap.getAllClasses();
        for (JavaClass cls : classes) {
            long sup = raw.superClassId(cls);
            if (sup != 0) check(sup, cls, "<super>", true);
            for (FieldValue fv : cls.getStaticFieldValues()) {
                if (fv instanceof ObjectFieldValue) {
                    long id = Long.parseLong(fv.getValue());
                    if (id != 0) check(id, cls, fv.getField().getName(), false);
                }
            }
        }

        // GC roots
        long roots = 0;
        for (GCRoot root : heap.getGCRoots()) {
            roots++;
            long id = raw.rootId(root);
            if (id != 0) check(id, null, "GC root (" + root.getKind() + ")", false);
        }

        if (unresolved > SHOW) System.out.println("... " + (unresolved - SHOW) + " more unresolved");
        System.out.println("classes=" + classes.size() + " instances=" + instances + " references=" + references +
                           " unresolved=" + unresolved + " roots=" + roots);
        for (String name : countNames) {
            long n = 0;
            for (JavaClass cls : classes) {
                if (cls.getName().equals(name)) {
                    long[] c = perClass.get(cls.getJavaClassId());
                    if (c != null) n += c[0];
                }
            }
            System.out.println("count " + name + " " + n);
        }
        for (String sf : SUMS)
            System.out.println("sum " + sf + " " + String.format("%.4f", sums.getOrDefault(sf, 0.0)));
        for (String sf : STATICS) {
            int dot = sf.lastIndexOf('.');
            JavaClass cls = heap.getJavaClassByName(sf.substring(0, dot));
            Object v = cls == null ? null : cls.getValueOfStaticField(sf.substring(dot + 1));
            System.out.println("static " + sf + " " + v);
        }
        return unresolved == 0 ? 0 : 1;
    }

    static double number(Object v) {
        if (v instanceof Boolean) return ((Boolean) v) ? 1 : 0;
        if (v instanceof Character) return (Character) v;
        if (v instanceof Number) return ((Number) v).doubleValue();
        return Double.NaN;
    }

    // One non-null reference from `from` (an Instance, a JavaClass, or null for a GC root) through
    // `what` (a field name, "[index]", "<super>", "GC root (kind)"). A class object's id resolves
    // with getInstanceByID too (to an Instance of java.lang.Class); a super class must be a class.
    void check(long id, Object from, String what, boolean mustBeClass) {
        references++;
        if (mustBeClass ? heap.getJavaClassByID(id) != null
                        : heap.getInstanceByID(id) != null || heap.getJavaClassByID(id) != null) return;
        if (++unresolved <= SHOW)
            System.out.println("unresolved: " + (from == null ? "" : describe(from) + " ") + what + " -> 0x" + Long.toHexString(id));
    }

    static String describe(Object from) {
        if (from instanceof JavaClass) return "class " + ((JavaClass) from).getName() + " @0x" + Long.toHexString(((JavaClass) from).getJavaClassId());
        Instance i = (Instance) from;
        return i.getJavaClass().getName() + " @0x" + Long.toHexString(i.getInstanceId());
    }

    // The raw ids the public API does not give: package-private members of the library, by reflection.
    static final class Raw {
        final Object buffer;          // HprofHeap.dumpBuffer, an HprofByteBuffer
        final Method getID;           // HprofByteBuffer.getID(long offset)
        final int idSize;
        final Field fileOffset;       // HprofObject.fileOffset: where a record starts in the file
        final Field classDumpSegment; // ClassDump.classDumpSegment
        final Field superClassIDOffset; // ClassDumpSegment.superClassIDOffset
        final Method arrayOffset;     // ObjectArrayDump.getOffset(): where the elements start
        final Method rootInstanceId;  // HprofGCRoot.getInstanceId()
        int superOffset = -1;

        Raw(Heap heap) throws ReflectiveOperationException {
            String p = "org.graalvm.visualvm.lib.jfluid.heap.";
            buffer = open(Class.forName(p + "HprofHeap").getDeclaredField("dumpBuffer")).get(heap);
            Class<?> bufferClass = Class.forName(p + "HprofByteBuffer");
            getID = open(bufferClass.getDeclaredMethod("getID", long.class));
            idSize = (Integer) open(bufferClass.getDeclaredMethod("getIDSize")).invoke(buffer);
            fileOffset = open(Class.forName(p + "HprofObject").getDeclaredField("fileOffset"));
            classDumpSegment = open(Class.forName(p + "ClassDump").getDeclaredField("classDumpSegment"));
            superClassIDOffset = open(Class.forName(p + "ClassDumpSegment").getDeclaredField("superClassIDOffset"));
            arrayOffset = open(Class.forName(p + "ObjectArrayDump").getDeclaredMethod("getOffset"));
            rootInstanceId = open(Class.forName(p + "HprofGCRoot").getDeclaredMethod("getInstanceId"));
        }

        static <T extends java.lang.reflect.AccessibleObject> T open(T member) {
            member.setAccessible(true);
            return member;
        }

        long id(long offset) {
            try {
                return (Long) getID.invoke(buffer, offset);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        long arrayBase(ObjectArrayInstance arr) {
            try {
                return (Long) arrayOffset.invoke(arr);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        long superClassId(JavaClass cls) {
            try {
                if (superOffset < 0) superOffset = superClassIDOffset.getInt(classDumpSegment.get(cls));
                return id(fileOffset.getLong(cls) + superOffset);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        long rootId(GCRoot root) {
            try {
                return (Long) rootInstanceId.invoke(root);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }

    static void usage() {
        die("usage: HeapVerify FILE.hprof [--count CLASSNAME]... [--sum CLASS.FIELD]... [--static CLASS.FIELD]...");
    }

    static void die(String msg) {
        System.err.println("HeapVerify: " + msg);
        System.exit(2);
    }
}
