// RewriteSubjects: a deterministic program that exercises the bytecode shapes
// the class-file rewriter must carry over (returns of every type, switches,
// try/catch/finally, exceptions through frames, synchronized code, loops at
// pc 0, uninitialized objects across branches, arrays of every kind, lambdas,
// enums, records, inner classes). tests/it/t3002 runs it before and after
// rewriting, with -Xverify:all, and compares the output: stack-trace line
// numbers included, so the LineNumberTable must be remapped exactly.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

public class RewriteSubjects {
    enum Color {
        RED(1), GREEN(2), BLUE(4);
        final int bits;
        Color(int bits) { this.bits = bits; }
    }

    record Point(int x, int y) {
        Point {
            if (x < 0) throw new IllegalArgumentException("x < 0: " + x);
        }
    }

    static class Base {
        final String tag;
        Base(String tag) { this.tag = tag; }
    }

    static class Derived extends Base {
        final int n;
        Derived(int n) {
            super(n > 2 ? "big" : n == 2 ? "two" : "small"); // branches before super(): uninitializedThis frames
            this.n = n;
        }
    }

    interface Shape {
        double area();
        default String describe() { return getClass().getSimpleName() + String.format("(%.2f)", area()); }
        static Shape square(double s) { return () -> s * s; }
    }

    static int counter;
    static final int[] TABLE;
    static {
        TABLE = new int[8];
        for (int i = 0; i < TABLE.length; i++)
            TABLE[i] = i * i;
    }

    static boolean z(int i) { return i % 2 == 0; }
    static byte b(int i) { return (byte) (i * 3); }
    static char c(int i) { return (char) ('a' + i); }
    static short s(int i) { return (short) (i * 1000); }
    static long l(int i) { return (long) i << 40; }
    static float f(int i) { return i / 4f; }
    static double d(int i) { return Math.sqrt(i); }
    static Object o(int i) { return i == 0 ? null : "o" + i; }
    static void v(int i) { counter += i; }

    static int spin(int n) { // the loop head is pc 0: a branch target before the entry call
        while (n > 10)
            n -= 3;
        return n;
    }

    static int table(int k) {
        switch (k) {
        case 0: return 10;
        case 1: return 11;
        case 2: counter++; // fall through
        case 3: return 13;
        case 5: return 15;
        default: return -1;
        }
    }

    static String lookup(int k) {
        switch (k) {
        case -1000: return "minus";
        case 7: return "seven";
        case 1 << 20: return "big";
        default: return "other";
        }
    }

    static int strings(String s) {
        return switch (s) {
            case "alpha" -> 1;
            case "beta", "gamma" -> 2;
            default -> s.length();
        };
    }

    static String colors(Color c) {
        switch (c) {
        case RED: return "r";
        case GREEN: return "g";
        default: return "b" + c.bits;
        }
    }

    static int tryFinally(int x) {
        try {
            if (x == 0)
                return 100;
            if (x == 1)
                throw new IllegalStateException("one");
            return 200 / (x - 2);
        } catch (IllegalStateException e) {
            return 300;
        } finally {
            counter += 1000;
        }
    }

    static void thrower(int depth) {
        if (depth == 0)
            throw new UnsupportedOperationException("deep"); // its line must survive the rewrite
        thrower(depth - 1);
    }

    static String trace(Throwable t) {
        StringBuilder sb = new StringBuilder(t.getClass().getSimpleName()).append(':').append(t.getMessage());
        for (StackTraceElement e : t.getStackTrace())
            if (e.getClassName().startsWith("RewriteSubjects"))
                sb.append(' ').append(e.getMethodName()).append('@').append(e.getLineNumber());
        return sb.toString();
    }

    static final Object LOCK = new Object();

    static synchronized int syncMethod(int x) {
        if (x < 0)
            throw new ArithmeticException("negative");
        return x + 1;
    }

    static int syncBlock(int x) {
        synchronized (LOCK) {
            if (x == 3)
                throw new IllegalStateException("three in lock");
            return x * 2;
        }
    }

    static int labeled(int n) {
        int hits = 0;
        outer:
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (j > i)
                    continue outer;
                if (i * j > 20)
                    break outer;
                hits++;
            }
        }
        return hits;
    }

    static String arrays(int n) {
        int[] a = new int[n];
        long[][] m = new long[n][n + 1];
        String[][][] cube = new String[2][n][];
        Object[] objs = {a, m, cube, new boolean[1], new char[] {'x', 'y'}, new double[0]};
        for (int i = 0; i < n; i++) {
            a[i] = TABLE[i % TABLE.length];
            m[i][i] = l(i);
        }
        cube[1][0] = new String[] {"p", "q"};
        return Arrays.toString(a) + " " + m[n - 1][n - 1] + " " + cube[1][0][1] + " " + objs.length + " " + varargs(1, 2, 3);
    }

    static int varargs(int... xs) { return xs.length; }

    static Point point(boolean flip, int a, int b) {
        return new Point(flip ? b : a, flip ? a : b); // Uninitialized(new) on the stack across branches
    }

    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 4; i++)
            out.append(z(i)).append(b(i)).append(c(i)).append(s(i)).append(l(i)).append(f(i)).append(d(i)).append(o(i)).append(' ');
        v(5);
        System.out.println(out);
        System.out.println("spin " + spin(100) + " " + spin(3));
        StringBuilder sw = new StringBuilder();
        for (int k = -1; k < 7; k++)
            sw.append(table(k)).append(',');
        System.out.println("table " + sw + " lookup " + lookup(7) + lookup(-1000) + lookup(1 << 20) + lookup(0));
        System.out.println("strings " + strings("alpha") + strings("gamma") + strings("delta!"));
        for (Color col : Color.values())
            System.out.print(colors(col) + " ");
        System.out.println();
        System.out.println("finally " + tryFinally(0) + " " + tryFinally(1) + " " + counter);
        try {
            tryFinally(2);
        } catch (ArithmeticException e) {
            System.out.println("caught " + e.getMessage() + " " + counter);
        }
        try {
            thrower(3);
        } catch (RuntimeException e) {
            System.out.println("trace " + trace(e));
        }
        try {
            syncMethod(-1);
        } catch (ArithmeticException e) {
            System.out.println("sync " + trace(e) + " " + syncMethod(4));
        }
        try {
            syncBlock(3);
        } catch (IllegalStateException e) {
            System.out.println("block " + e.getMessage() + " " + syncBlock(5) + " " + Thread.holdsLock(LOCK));
        }
        System.out.println("labeled " + labeled(8));
        System.out.println("arrays " + arrays(5));
        System.out.println("points " + point(false, 1, 2) + " " + point(true, 1, 2));
        try {
            point(false, -1, 0);
        } catch (IllegalArgumentException e) {
            System.out.println("record " + trace(e));
        }
        System.out.println("derived " + new Derived(1).tag + new Derived(2).tag + new Derived(3).tag);
        Shape sq = Shape.square(1.5);
        Shape anon = new Shape() {
            public double area() { return 2.25; }
        };
        System.out.println("shapes " + sq.area() + " " + anon.describe().endsWith("(2.25)"));
        IntUnaryOperator twice = x -> x * 2;
        List<String> words = new ArrayList<>(List.of("delta", "alpha", "charlie", "bravo"));
        words.sort(String::compareTo);
        System.out.println("lambdas " + twice.applyAsInt(21) + " " + words + " "
                + IntStream.rangeClosed(1, 10).filter(x -> x % 3 == 0).mapToObj(Integer::toString).collect(Collectors.joining("+")));
        Object obj = words;
        if (obj instanceof List<?> list && !list.isEmpty())
            System.out.println("pattern " + list.size());
        StackTraceElement here = new Throwable().getStackTrace()[0];
        System.out.println("here " + here.getMethodName() + "@" + here.getLineNumber());
        System.out.println("counter " + counter);
    }
}
