// RetainedRef — an independent reference for retained sizes in an HPROF heap
// dump, built on the heap library inside Debian's `visualvm` package (as
// tests/tools/HeapVerify.java is: org.graalvm.visualvm.lib.jfluid.heap in
// modules/org-graalvm-visualvm-lib-jfluid-heap.jar, written against Debian 12's
// visualvm 2.1.5; the rules below were read from that version's sources, tag
// 2.1.5 of github.com/oracle/visualvm, lib.profiler.heap, and checked on dumps).
//
//   java -cp <jar>:<dir> RetainedRef FILE.hprof --top N          the N objects with the biggest retained size
//   java -cp <jar>:<dir> RetainedRef FILE.hprof --ids FILE       the objects whose ids FILE lists
//   java -cp <jar>:<dir> RetainedRef FILE.hprof --classes N      the N classes with the biggest retained size
//   java -cp <jar>:<dir> RetainedRef FILE.hprof --instances NAME the instances of class NAME, then the class object
//   ... --removal                                                 object rows get three more columns (below)
//   ... --removal --jvmprof-class-size                            ... a class object counted as jvmprof counts it
//   ... --definition                                              object rows get four other columns (below)
//
// Output (stdout), first one header line, then one row per object or class:
//   # instances=N classes=N roots=N reachable=N unreachable=N shallow=N reachable_shallow=N id_size=N oop_size=N min_instance=N
//   0x<id>\t<class>\t<shallow: Instance.getSize()>\t<retained: Instance.getRetainedSize()>
//   class\t<name>\t<instances>\t<shallow: getAllInstancesSize()>\t<retained: getRetainedSizeByClass()>
// With --removal an object row has three more columns, retained sizes by the
// textbook definition, computed here on a graph of the dump without the
// library's dominator code: the shallow sizes of the objects reachable from
// a set of start objects but no longer when the object is taken away:
//   (5) starts: the GC roots; every reference followed, Reference.referent
//       too (the rule "every reference retains");
//   (6) starts: the GC roots; the referent of instances of Weak/Soft/Final/
//       PhantomReference and their subclasses not followed (the library's walk);
//   (7) like the library: every reference followed, starts: the GC roots and
//       every object (6) does not reach, and only objects (6) reaches counted
//       (0 for the others). This is rules 2 and 3 below restated: it gives
//       the library's number except where the library's first-object-to-class
//       edge matters (a class object reached through its instances). On
//       javac's dump (tests/tools/make_ref_dumps.sh) 997 of the library's top
//       1000 equal (7); the 3 others are the app class loader and its list of
//       classes. (5) and (6) differ from the library a lot there: the class
//       JavacHeap, whose statics hold all of javac, retains 34.5 MB by (5) and
//       106 KB by the library, because 40,000 objects only softly or weakly
//       reachable refer to javac's live ones (rule 3 (b)).
// With --definition (instead of --removal) an object row has four more
// columns, the retained size by definition (5) split by what it counts, one
// walk per row (faster than --removal's three):
//   (5) the shallow sizes of the instances and arrays in the retained set;
//   (6) how many class objects the retained set holds;
//   (7) their sizes by the library's rule (Instance.getSize() of the class
//       object: java.lang.Class's fields);
//   (8) their sizes by jvmprof's rule (--jvmprof-class-size's).
// Its graph has jvmprof's edges (src/heapdump/heap_graph.h, docs/command.md):
// one more, from a class object to its superclass's (a class keeps its
// superclass loaded), and none from an array to its class (the library's walk
// has none either), so that only the class objects' own sizes differ.
// So (5) + (7) is the retained size by definition with the library's
// shallow sizes, (5) + (8) with jvmprof's: the two differ only by the rule
// for a class object's own size (tests/it/t5012-retained-visualvm.sh).
// The graph: every GC root record's object; an object array's elements; an
// instance's reference fields; a class object's static reference fields,
// "<resolved_references>" and "<classLoader>" among them; every instance's
// class object. Class objects count 0 bytes. A GC root object's numbers
// count what only it keeps. Meant for dumps of up to a few million objects
// (one breadth-first walk per row and rule, on nodes numbered in the order of
// a first walk: 12-18 ms each on javac's 690,000 objects, 2.7 million edges).
// --top rows are in the library's order (retained size descending, then id
// ascending). --ids takes from each line of FILE its first word that is a hex
// id (0x optional; an "object\t0x..." row of `jvmprof heap --retained --tsv`
// works as it is); an id with no object in the dump prints "0x<id>\t-\t-\t-".
// A class object's row names the class java.lang.Class (the library's
// Instance for it) and is followed by "# 0x<id> is class <name>".
// instances counts INSTANCE_DUMP + OBJECT_ARRAY_DUMP + PRIMITIVE_ARRAY_DUMP
// records (class objects are not instances); reachable counts those the
// library reached from a GC root (see 2.); shallow sums getSize() over all of
// them, reachable_shallow over the reachable ones. Timings go to stderr.
// Exit 0; 2 with a one-line message if the file cannot be read or the
// arguments are wrong.
//
// THE LIBRARY'S RULES (what `jvmprof heap --retained` must reproduce)
//
// 1. Shallow size, Instance.getSize(). id_size is the dump's identifier size
//    (8 for a 64-bit HotSpot). oop_size (the size of a reference field):
//    id_size when id_size is 4; when it is 8, java.lang.Object's CLASS_DUMP
//    "instance size" is read: HotSpot writes there the size of the instance's
//    field data in the dump, 0 for Object, so this rule never applies to a
//    HotSpot dump (if it were > 0, min_instance would be that value, oop_size
//    min_instance - id_size, and a class's "instance size" field would be taken
//    as is, unaligned). Otherwise oop_size is guessed: the difference of the
//    static longs java.lang.Class$Atomic.annotationDataOffset and
//    .annotationTypeOffset, or FutureTask.runnerOffset and .waitersOffset, if
//    4 or 8 (JDK 8); else 4 if the dumped system properties (System.props in
//    the heap) have "java.vm.compressedOopsMode" (HotSpot sets it when
//    compressed oops are on), else 8. min_instance = id_size + oop_size
//    (8 + 4 = 12 with compressed oops, the size of java.lang.Object's header).
//    - an instance of class C: align8(min_instance + sum over C and all its
//      superclasses of the instance fields' sizes), a field's size being
//      oop_size for a reference and the HPROF size of its type for a primitive
//      (boolean/byte 1, char/short 2, int/float 4, long/double 8). The sum is
//      aligned once, at the end (superclass field blocks are not padded).
//      Same for the java.lang.Class instances HotSpot dumps as INSTANCE_DUMPs
//      (the mirrors of int, void, ...: their size is java.lang.Class's).
//    - an object array of n elements: align8(min_instance + 4 + n * oop_size).
//    - a primitive array of n elements of type T: align8(min_instance + 4 + n * size(T)).
//    - a class object (a CLASS_DUMP; ClassDumpInstance): getSize() is
//      java.lang.Class's instance size (the fields HotSpot lists for
//      java.lang.Class, as for an instance); its statics are not counted. But
//      see 3.: a class object never adds its own size to a retained size
//      unless it is a leaf of the library's tree pass.
// 2. Reachability (NearestGCRoot): a breadth-first walk from the objects of
//    every GC root record in the dump, of every kind (unknown, JNI global, JNI
//    local, Java frame, native stack, sticky class, thread block, monitor
//    used, thread object, interned string, finalizing, debugger, reference
//    cleanup, VM internal, JNI monitor; class objects among them), following:
//    every non-null element of an object array; every reference field of an
//    instance (inherited ones too) EXCEPT the field java.lang.ref.Reference.referent
//    of an instance of WeakReference, SoftReference, FinalReference,
//    PhantomReference or any of their subclasses; a class object's static
//    reference fields and its class loader (the "<classLoader>" value; not its
//    super class, signers or protection domain); and from an instance (an
//    INSTANCE_DUMP, not an array) or a class object to its class object, for
//    the first one of each class the walk takes from its queue. No array
//    leads to its class: an array class nothing else refers to is
//    unreachable (98 of the 101 boot array classes of a RetainedShapes dump).
//    Objects reached only through a referent
//    (softly, weakly, finalizer- or phantom-reachable only) and objects no
//    path reaches (garbage in a `jcmd GC.heap_dump -all` dump) are
//    unreachable: their getRetainedSize() is 0 (never set) and they add
//    nothing to anybody's retained size.
// 3. Retained size (HprofHeap.computeRetainedSize): the sum of the shallow
//    sizes of the reachable objects an object dominates, itself included,
//    where an object's immediate dominator is found so:
//    - an object with one incoming reference: the object that reached it first
//      in the walk (its "nearest GC root pointer").
//    - an object with several incoming references: the iterated intersection
//      (Cooper-Harvey-Kennedy) of the dominator chains of ALL the objects that
//      reference it. "Incoming references" (computed before the walk) are
//      every non-null reference field of every instance (Reference.referent
//      INCLUDED), every object array element and every static reference field,
//      from any object in the dump, reachable or not; plus the first-object-
//      to-class edge of 2. So: (a) a strongly reachable object that a
//      WeakReference/SoftReference also refers to is not dominated by its
//      strong holder but by what dominates both the holder and the Reference;
//      (b) a reachable object that an UNREACHABLE object refers to (only in an
//      -all dump) gets no dominator at all (the intersection with a chain that
//      ends at once is empty): it retains its own subtree but nobody retains it.
//    - an object that is itself a GC root (in any root record) has no
//      dominator (it is never written as reached by another).
//    - class objects: the final pass that adds each object's size up its
//      dominator chain goes over INSTANCE_DUMP, OBJECT_ARRAY_DUMP and
//      PRIMITIVE_ARRAY_DUMP records only, so a class object's own size
//      (java.lang.Class's instance size, 72 bytes on JDK 17 with compressed
//      oops) is never added by it: a class object's retained size is the sum
//      of what it dominates, without itself (RetainedShapes$Statics, whose one
//      static is a byte[2000]: 2016). The exception is the library's "tree
//      object" pass (TreeObject), which sets retained = own size + children's
//      retained for any object (class objects too, statics and the loader as
//      their references) whose non-null references all go to objects with one
//      incoming reference that are tree objects themselves (leaves: objects
//      with no reference out; the class edge of 2. does not count). A class
//      with a loader is never one (its loader has many referrers); a boot
//      class with no static reference, or only tree-shaped ones, is: its
//      retained size is 72 + those trees (112 of the 596 class objects of a
//      RetainedShapes dump have 72: 109 boot instance classes, 3 reachable
//      boot array classes). HotSpot makes the boot loader's instance classes
//      GC roots (sticky class), so nothing is above them; a class object
//      reached through the class edge of 2. keeps its 72 to itself (the
//      object above it is a tree object through its fields only). Instances
//      in a tree get the same numbers as through dominators.
//    - Reference.discovered, .next and .queue are ordinary fields: a
//      Reference the GC cleared and put on the discovered list is referred to
//      by the Reference before it, so its static holder does not dominate it.
//    - the sizes are summed in the map's 32-bit slot when the dump file is
//      smaller than 2 GiB (Integer.MAX_VALUE bytes), in 64 bits otherwise.
// 4. getBiggestObjectsByRetainedSize(N) scans every id in the map, classes
//    included, keeps the N biggest, ties broken by the smaller id first.
// 5. getRetainedSizeByClass(): the sum of getRetainedSize() of the class's
//    instances that have no instance of the same class on their dominator
//    chain (so nested ones are not counted twice).
//
// The library writes index files into "<dump>.hwcache" next to the dump and
// may reuse them for a later dump of the same name; as in HeapVerify the dump
// is opened through a symbolic link in a fresh temporary directory, deleted at
// the end.
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;

public class RetainedRef {
    static final Pattern HEX = Pattern.compile("(?:0[xX])?([0-9a-fA-F]+)");
    static boolean removal;
    static boolean definition;  // --definition: rule (5) alone, split into instances and class objects
    Removal graph;

    final Heap heap;
    final Raw raw;

    RetainedRef(Heap heap) throws ReflectiveOperationException {
        this.heap = heap;
        this.raw = new Raw(heap);
    }

    public static void main(String[] args) {
        String file = null, mode = null, arg = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--removal")) {
                removal = true;
            } else if (args[i].equals("--definition")) {
                definition = true;
            } else if (args[i].equals("--jvmprof-class-size")) {
                jvmprofClassSize = true;
            } else if ((args[i].equals("--top") || args[i].equals("--ids") || args[i].equals("--classes") || args[i].equals("--instances"))
                && i + 1 < args.length && mode == null) {
                mode = args[i];
                arg = args[++i];
            } else if (file == null && !args[i].startsWith("--")) {
                file = args[i];
            } else {
                usage();
            }
        }
        if (file == null || mode == null || (removal && definition)) usage();
        int top = 0;
        List<Long> ids = null;
        if (mode.equals("--ids")) {
            ids = readIds(arg);
        } else if (!mode.equals("--instances")) {
            try {
                top = Integer.parseInt(arg);
            } catch (NumberFormatException e) {
                top = -1;
            }
            if (top <= 0) die(mode + " " + arg + ": expected a positive whole number");
        }
        File dump = new File(file).getAbsoluteFile();
        if (!dump.isFile()) die(file + ": no such file");

        Path tmp = null;
        int rc = 0;
        try {
            tmp = Files.createTempDirectory("retainedref");
            Path link = tmp.resolve(dump.getName());
            Files.createSymbolicLink(link, dump.toPath());
            long t0 = System.nanoTime();
            Heap heap = HeapFactory.createHeap(link.toFile());
            long t1 = System.nanoTime();
            RetainedRef r = new RetainedRef(heap);
            r.run(mode, top, ids, arg, t0, t1);
        } catch (Throwable e) { // IOException, and whatever a damaged file makes the parser throw
            String msg = e.getMessage();
            System.err.println("RetainedRef: " + file + ": cannot parse: " + e.getClass().getSimpleName() +
                               (msg == null ? "" : ": " + msg.replace('\n', ' ')));
            rc = 2;
        } finally {
            if (tmp != null) deleteTree(tmp);
        }
        System.out.flush();
        System.exit(rc);
    }

    void run(String mode, int top, List<Long> ids, String className, long t0, long t1) throws ReflectiveOperationException {
        // the retained sizes first (every later call needs them); getBiggestObjectsByRetainedSize
        // computes them for the whole heap and then picks the biggest
        List<Instance> biggest = heap.getBiggestObjectsByRetainedSize(mode.equals("--top") ? top : 1);
        long t2 = System.nanoTime();
        List<JavaClass> classes = heap.getAllClasses();
        if (mode.equals("--classes")) {
            for (JavaClass c : classes) c.getRetainedSizeByClass(); // the first call computes them all
        }
        long t3 = System.nanoTime();

        long instances = 0, reachable = 0, shallow = 0, reachableShallow = 0;
        for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext(); ) {
            Instance inst = it.next();
            long size = inst.getSize();
            instances++;
            shallow += size;
            if (raw.reached(inst)) {
                reachable++;
                reachableShallow += size;
            }
        }
        long t4 = System.nanoTime();
        System.out.println("# instances=" + instances + " classes=" + classes.size() + " roots=" + heap.getGCRoots().size() +
                           " reachable=" + reachable + " unreachable=" + (instances - reachable) +
                           " shallow=" + shallow + " reachable_shallow=" + reachableShallow +
                           " id_size=" + raw.idSize + " oop_size=" + raw.oopSize() + " min_instance=" + raw.minInstance());

        if (mode.equals("--top")) {
            for (Instance inst : biggest) row(inst.getInstanceId(), inst);
        } else if (mode.equals("--ids")) {
            for (long id : ids) row(id, heap.getInstanceByID(id));
        } else if (mode.equals("--instances")) {
            JavaClass cls = heap.getJavaClassByName(className);
            if (cls == null) {
                System.out.println("# no class " + className);
            } else {
                for (Instance inst : cls.getInstances()) row(inst.getInstanceId(), inst);
                row(cls.getJavaClassId(), heap.getInstanceByID(cls.getJavaClassId()));
            }
        } else {
            List<JavaClass> sorted = new ArrayList<>(classes);
            sorted.sort(Comparator.comparingLong(JavaClass::getRetainedSizeByClass).reversed()
                        .thenComparing(JavaClass::getName));
            for (JavaClass c : sorted.subList(0, Math.min(top, sorted.size())))
                System.out.println("class\t" + c.getName() + "\t" + c.getInstancesCount() + "\t" + c.getAllInstancesSize() +
                                   "\t" + c.getRetainedSizeByClass());
        }
        long t5 = System.nanoTime();
        if (graph != null)
            System.err.printf("RetainedRef: seconds: removal graph %.2f (%d nodes, %d edges), walks %.2f%n",
                              graph.buildSeconds, graph.n, graph.edges, (t5 - t4) / 1e9 - graph.buildSeconds);
        System.err.printf("RetainedRef: seconds: open %.2f, retained sizes %.2f, by class %.2f, totals %.2f, rows %.2f%n",
                          (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9, (t4 - t3) / 1e9, (t5 - t4) / 1e9);
    }

    void row(long id, Instance inst) {
        if (inst == null) {
            System.out.println("0x" + Long.toHexString(id) + "\t-\t-\t-");
            return;
        }
        String extra = "";
        if (removal || definition) {
            try {
                if (graph == null) graph = new Removal(heap);
                if (definition) {
                    long[] split = graph.retainedSplit(id);
                    extra = "\t" + split[0] + "\t" + split[1] + "\t" + split[2] + "\t" + split[3];
                } else {
                    extra = "\t" + graph.retained(id, 0) + "\t" + graph.retained(id, 1) + "\t" + graph.retained(id, 2);
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        System.out.println("0x" + Long.toHexString(id) + "\t" + inst.getJavaClass().getName() + "\t" + inst.getSize() +
                           "\t" + inst.getRetainedSize() + extra);
        JavaClass asClass = heap.getJavaClassByID(id);
        if (asClass != null) System.out.println("# 0x" + Long.toHexString(id) + " is class " + asClass.getName());
    }

    static List<Long> readIds(String file) {
        List<Long> ids = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of(file));
        } catch (IOException e) {
            die(file + ": cannot read: " + e.getMessage());
            return ids;
        }
        for (String line : lines) {
            if (line.startsWith("#")) continue;
            for (String word : line.trim().split("\\s+")) {
                Matcher m = HEX.matcher(word);
                if (m.matches() && (word.length() > 2 && word.substring(0, 2).equalsIgnoreCase("0x") || m.group(1).length() >= 6)) {
                    try {
                        ids.add(Long.parseUnsignedLong(m.group(1), 16));
                    } catch (NumberFormatException e) {
                        die(file + ": " + word + ": not a 64-bit hex id");
                    }
                    break;
                }
            }
        }
        if (ids.isEmpty()) die(file + ": no hex ids (one per line, as 0x1f2e3d or 1f2e3d)");
        return ids;
    }

    // What the public API does not give: package-private members of the library, by reflection.
    static final class Raw {
        final Object idToOffsetMap;    // HprofHeap.idToOffsetMap, a LongMap
        final Method get;              // LongMap.get(long) -> LongMap.Entry
        final Method nearestGCRoot;    // LongMap.Entry.getNearestGCRootPointer()
        final Object sizeSettings;     // ClassDumpSegment.sizeSettings, an ObjectSizeSettings
        final int idSize;

        Raw(Heap heap) throws ReflectiveOperationException {
            String p = "org.graalvm.visualvm.lib.jfluid.heap.";
            Class<?> hprofHeap = Class.forName(p + "HprofHeap");
            idToOffsetMap = open(hprofHeap.getDeclaredField("idToOffsetMap")).get(heap);
            get = open(Class.forName(p + "LongMap").getDeclaredMethod("get", long.class));
            nearestGCRoot = open(Class.forName(p + "LongMap$Entry").getDeclaredMethod("getNearestGCRootPointer"));
            Object segment = open(hprofHeap.getDeclaredMethod("getClassDumpSegment")).invoke(heap);
            sizeSettings = open(Class.forName(p + "ClassDumpSegment").getDeclaredField("sizeSettings")).get(segment);
            Object buffer = open(hprofHeap.getDeclaredField("dumpBuffer")).get(heap);
            idSize = (Integer) open(Class.forName(p + "HprofByteBuffer").getDeclaredMethod("getIDSize")).invoke(buffer);
        }

        static <T extends java.lang.reflect.AccessibleObject> T open(T member) {
            member.setAccessible(true);
            return member;
        }

        // reached by the library's walk from the GC roots (a root itself, or given a nearest GC root pointer)
        boolean reached(Instance inst) throws ReflectiveOperationException {
            if (inst.isGCRoot()) return true;
            Object entry = get.invoke(idToOffsetMap, inst.getInstanceId());
            return entry != null && (Long) nearestGCRoot.invoke(entry) != 0;
        }

        int oopSize() throws ReflectiveOperationException {
            return (Integer) open(sizeSettings.getClass().getDeclaredMethod("getOopSize")).invoke(sizeSettings);
        }

        int minInstance() throws ReflectiveOperationException {
            return (Integer) open(sizeSettings.getClass().getDeclaredMethod("getMinimumInstanceSize")).invoke(sizeSettings);
        }
    }

    // --jvmprof-class-size: (5)-(7) count a class object as `jvmprof heap --retained` does (a 16-byte
    // header + its static values as dumped, references at the id size, rounded up to 8) rather than
    // 0 bytes, so that (5) checks jvmprof's dominators alone, its sizes being the same.
    static boolean jvmprofClassSize;

    static long jvmprofClassSize(JavaClass c, int idSize) {
        long bytes = 16;
        for (org.graalvm.visualvm.lib.jfluid.heap.FieldValue fv : c.getStaticFieldValues()) {
            // the library lists the class loader as a static "<classLoader>"; the dump has it in the
            // CLASS DUMP's header, not among the statics jvmprof counts
            if (fv.getField().getName().equals("<classLoader>")) continue;
            if (fv instanceof org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue) {
                bytes += idSize;
                continue;
            }
            switch (fv.getField().getType().getName()) {
                case "boolean": case "byte": bytes += 1; break;
                case "char": case "short": bytes += 2; break;
                case "int": case "float": bytes += 4; break;
                case "long": case "double": bytes += 8; break;
                default: bytes += idSize; break;
            }
        }
        return (bytes + 7) & ~7L;
    }

    // The dump as a graph of int-numbered nodes (class objects first, then instances), for retained
    // sizes by their definition: what is reachable from the roots minus what stays reachable without X.
    static final class Removal {
        final int n;
        long edges;
        long[] size;
        boolean[] isClass;      // the node is a class object
        long[] libraryClassSize, jvmprofClassBytes; // a class object's size by either rule (--definition), per node
        long[] splitTotal;      // retainedSplit's walk without a skipped node, once
        final Ids index;
        int[] start, to;
        boolean[] referent;     // edge i is a Reference.referent of a Weak/Soft/Final/PhantomReference
        int[] roots;
        final long[] total = new long[3]; // reachable bytes by retained()'s mode; -1 = not computed
        boolean[] live;         // reached from the roots without referents (the library's reachable objects)
        int[] liveRoots;        // roots plus every object not in live (the "library-like" walk's starts)
        final double buildSeconds;
        private int[] seen, queue;
        private int stamp;

        Removal(Heap heap) throws ReflectiveOperationException {
            long t0 = System.nanoTime();
            String p = "org.graalvm.visualvm.lib.jfluid.heap.";
            Object buffer = Raw.open(Class.forName(p + "HprofHeap").getDeclaredField("dumpBuffer")).get(heap);
            Class<?> bufferClass = Class.forName(p + "HprofByteBuffer");
            Method getID = Raw.open(bufferClass.getDeclaredMethod("getID", long.class));
            int idSize = (Integer) Raw.open(bufferClass.getDeclaredMethod("getIDSize")).invoke(buffer);
            Method arrayOffset = Raw.open(Class.forName(p + "ObjectArrayDump").getDeclaredMethod("getOffset"));
            Method rootId = Raw.open(Class.forName(p + "HprofGCRoot").getDeclaredMethod("getInstanceId"));

            List<JavaClass> classes = heap.getAllClasses();
            long count = classes.size();
            for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext(); it.next()) count++;
            if (count > Integer.MAX_VALUE / 4) throw new IllegalStateException(count + " objects: too many for --removal");
            n = (int) count;
            size = new long[n];
            index = new Ids(n);
            isClass = new boolean[n];
            libraryClassSize = new long[n];
            jvmprofClassBytes = new long[n];
            for (JavaClass c : classes) {
                int x = index.put(c.getJavaClassId());
                isClass[x] = true;
                jvmprofClassBytes[x] = jvmprofClassSize(c, idSize);
                Instance self = heap.getInstanceByID(c.getJavaClassId());
                libraryClassSize[x] = self == null ? 0 : self.getSize();
                if (jvmprofClassSize) size[x] = jvmprofClassBytes[x];
            }
            for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext(); ) {
                Instance inst = it.next();
                size[index.put(inst.getInstanceId())] = inst.getSize();
            }

            java.util.Set<Long> refClasses = new java.util.HashSet<>();
            for (String name : new String[] { "java.lang.ref.WeakReference", "java.lang.ref.SoftReference",
                                              "java.lang.ref.FinalReference", "java.lang.ref.PhantomReference" }) {
                JavaClass c = heap.getJavaClassByName(name);
                if (c == null) continue;
                refClasses.add(c.getJavaClassId());
                for (JavaClass sub : c.getSubClasses()) refClasses.add(sub.getJavaClassId());
            }

            // edges, in node order (so they can be laid out by start offsets directly)
            start = new int[n + 1];
            to = new int[1 << 20];
            referent = new boolean[to.length];
            int e = 0, node = 0;
            for (JavaClass c : classes) {
                start[node++] = e;
                for (org.graalvm.visualvm.lib.jfluid.heap.FieldValue fv : c.getStaticFieldValues())
                    if (fv instanceof org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue)
                        e = add(e, Long.parseLong(fv.getValue()), false);
                // --definition: a class keeps its superclass loaded (jvmprof's edge; the library's walk has none)
                if (definition && c.getSuperClass() != null) e = add(e, c.getSuperClass().getJavaClassId(), false);
            }
            for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext(); ) {
                Instance inst = it.next();
                start[node++] = e;
                JavaClass cls = inst.getJavaClass();
                if (inst instanceof org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance) {
                    int len = ((org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance) inst).getLength();
                    long base = (Long) arrayOffset.invoke(inst);
                    for (int i = 0; i < len; i++)
                        e = add(e, (Long) getID.invoke(buffer, base + (long) i * idSize), false);
                } else {
                    boolean isRef = refClasses.contains(cls.getJavaClassId());
                    for (org.graalvm.visualvm.lib.jfluid.heap.FieldValue fv : inst.getFieldValues()) {
                        if (!(fv instanceof org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue)) continue;
                        org.graalvm.visualvm.lib.jfluid.heap.Field f = fv.getField();
                        boolean r = isRef && f.getName().equals("referent") &&
                                    f.getDeclaringClass().getName().equals("java.lang.ref.Reference");
                        e = add(e, Long.parseLong(fv.getValue()), r);
                    }
                }
                // --definition: an array does not lead to its class (jvmprof's rule, and the library's walk's)
                boolean array = inst instanceof org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance ||
                                inst instanceof org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;
                if (cls != null && !(definition && array)) e = add(e, cls.getJavaClassId(), false);
            }
            start[n] = e;
            edges = e;
            List<Integer> rs = new ArrayList<>();
            for (org.graalvm.visualvm.lib.jfluid.heap.GCRoot root : heap.getGCRoots()) {
                int i = index.get((Long) rootId.invoke(root));
                if (i >= 0) rs.add(i);
            }
            roots = rs.stream().mapToInt(Integer::intValue).toArray();
            renumber();
            seen = new int[n];
            queue = new int[n];
            total[0] = total[1] = total[2] = -1;
            buildSeconds = (System.nanoTime() - t0) / 1e9;
        }

        // Numbers the nodes again in the order a walk from the roots (every reference followed)
        // takes them, the others after, so that each later walk, nearly the same, reads the arrays
        // nearly in order (on javac's dump a walk takes a third of the time it took before).
        private void renumber() {
            int[] order = new int[n];   // new number -> old
            int[] newOf = new int[n];   // old number -> new
            java.util.Arrays.fill(newOf, -1);
            int head = 0, tail = 0;
            for (int r : roots)
                if (newOf[r] < 0) { newOf[r] = tail; order[tail++] = r; }
            while (head < tail) {
                int x = order[head++];
                for (int e = start[x]; e < start[x + 1]; e++)
                    if (newOf[to[e]] < 0) { newOf[to[e]] = tail; order[tail++] = to[e]; }
            }
            for (int i = 0; i < n; i++)
                if (newOf[i] < 0) { newOf[i] = tail; order[tail++] = i; }
            int[] nStart = new int[n + 1], nTo = new int[(int) edges];
            boolean[] nReferent = new boolean[(int) edges], nIsClass = new boolean[n];
            long[] nSize = new long[n], nLibrary = new long[n], nJvmprof = new long[n];
            int e2 = 0;
            for (int k = 0; k < n; k++) {
                int x = order[k];
                nStart[k] = e2;
                nSize[k] = size[x];
                nIsClass[k] = isClass[x];
                nLibrary[k] = libraryClassSize[x];
                nJvmprof[k] = jvmprofClassBytes[x];
                for (int e = start[x]; e < start[x + 1]; e++, e2++) {
                    nTo[e2] = newOf[to[e]];
                    nReferent[e2] = referent[e];
                }
            }
            nStart[n] = e2;
            start = nStart; to = nTo; referent = nReferent; isClass = nIsClass;
            size = nSize; libraryClassSize = nLibrary; jvmprofClassBytes = nJvmprof;
            for (int i = 0; i < roots.length; i++) roots[i] = newOf[roots[i]];
            index.renumber(newOf);
        }

        private int add(int e, long id, boolean isReferent) {
            if (id == 0) return e;
            int i = index.get(id);
            if (i < 0) return e; // a dangling reference: nothing to reach
            if (e == to.length) {
                to = java.util.Arrays.copyOf(to, e * 2);
                referent = java.util.Arrays.copyOf(referent, e * 2);
            }
            to[e] = i;
            referent[e] = isReferent;
            return e + 1;
        }

        // bytes reachable from `starts` without passing through node `skip` (-1: none); counted only
        // for objects in `counted` if it is not null
        long reach(int[] starts, int skip, boolean followReferents, boolean[] counted) {
            if (++stamp == Integer.MAX_VALUE) {
                java.util.Arrays.fill(seen, 0);
                stamp = 1;
            }
            int head = 0, tail = 0;
            long bytes = 0;
            for (int r : starts) {
                if (r == skip || seen[r] == stamp) continue;
                seen[r] = stamp;
                queue[tail++] = r;
            }
            while (head < tail) {
                int x = queue[head++];
                if (counted == null || counted[x]) bytes += size[x];
                for (int e = start[x]; e < start[x + 1]; e++) {
                    int y = to[e];
                    if (y == skip || seen[y] == stamp || (!followReferents && referent[e])) continue;
                    seen[y] = stamp;
                    queue[tail++] = y;
                }
            }
            return bytes;
        }

        // rule (5) (every reference followed from the GC roots) split: {instance and array bytes,
        // class objects, their bytes by the library's rule, by jvmprof's} of what is reachable
        // without passing through node `skip`
        long[] reachSplit(int skip) {
            if (++stamp == Integer.MAX_VALUE) {
                java.util.Arrays.fill(seen, 0);
                stamp = 1;
            }
            int head = 0, tail = 0;
            long bytes = 0, classes = 0, library = 0, jvmprof = 0;
            for (int r : roots) {
                if (r == skip || seen[r] == stamp) continue;
                seen[r] = stamp;
                queue[tail++] = r;
            }
            while (head < tail) {
                int x = queue[head++];
                if (isClass[x]) {
                    classes++;
                    library += libraryClassSize[x];
                    jvmprof += jvmprofClassBytes[x];
                } else {
                    bytes += size[x];
                }
                for (int e = start[x]; e < start[x + 1]; e++) {
                    int y = to[e];
                    if (y == skip || seen[y] == stamp) continue;
                    seen[y] = stamp;
                    queue[tail++] = y;
                }
            }
            return new long[] { bytes, classes, library, jvmprof };
        }

        // --definition's four columns for an object: the difference of the two walks, with and without it
        long[] retainedSplit(long id) {
            int x = index.get(id);
            if (x < 0) return new long[4];
            if (splitTotal == null) splitTotal = reachSplit(-1);
            long[] without = reachSplit(x);
            long[] r = new long[4];
            for (int i = 0; i < 4; i++) r[i] = splitTotal[i] - without[i];
            return r;
        }

        // mode 0: every reference; 1: referents skipped; 2: like the library (see the header comment)
        long retained(long id, int mode) {
            int x = index.get(id);
            if (x < 0) return 0;
            if (mode == 2 && live == null) {
                reach(roots, -1, false, null);
                live = new boolean[n];
                List<Integer> starts = new ArrayList<>();
                for (int r : roots) starts.add(r);
                for (int i = 0; i < n; i++) {
                    live[i] = seen[i] == stamp;
                    if (!live[i]) starts.add(i);
                }
                liveRoots = starts.stream().mapToInt(Integer::intValue).toArray();
            }
            if (mode == 2 && !live[x]) return 0;
            int[] starts = mode == 2 ? liveRoots : roots;
            boolean follow = mode != 1;
            boolean[] counted = mode == 2 ? live : null;
            if (total[mode] < 0) total[mode] = reach(starts, -1, follow, counted);
            return total[mode] - reach(starts, x, follow, counted);
        }
    }

    // object id -> node number, open addressing
    static final class Ids {
        final long[] keys;
        final int[] values;
        final int mask;
        int size;

        Ids(int expected) {
            int cap = Integer.highestOneBit(Math.max(4, expected) * 2 - 1) << 1;
            keys = new long[cap];
            values = new int[cap];
            mask = cap - 1;
        }

        private int slot(long id) {
            long h = id * 0x9E3779B97F4A7C15L;
            int i = (int) (h ^ (h >>> 32)) & mask;
            while (keys[i] != 0 && keys[i] != id) i = (i + 1) & mask;
            return i;
        }

        int put(long id) {
            int i = slot(id);
            if (keys[i] == 0) {
                keys[i] = id;
                values[i] = size++;
            }
            return values[i];
        }

        int get(long id) {
            int i = slot(id);
            return keys[i] == 0 ? -1 : values[i];
        }

        void renumber(int[] newOf) {
            for (int i = 0; i < keys.length; i++)
                if (keys[i] != 0) values[i] = newOf[values[i]];
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
        die("usage: RetainedRef FILE.hprof --top N | --ids FILE_OF_HEX_IDS | --classes N | --instances CLASSNAME [--removal [--jvmprof-class-size] | --definition]");
    }

    static void die(String msg) {
        System.err.println("RetainedRef: " + msg);
        System.exit(2);
    }
}
