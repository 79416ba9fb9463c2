// BigMethodGen DIR: writes class files whose methods are so large that the
// calls the rewriter injects (4 bytes after every array allocation) push
// their 16-bit branches out of range, for tests/it/t3002:
//   GenWide49 (version 49, no stack maps): a forward if_icmpge and a backward
//     goto over the body (-> if_icmplt +8; goto_w and goto_w), a backward jsr
//     to a subroutine (-> jsr_w);
//   GenWide52 (version 52, with a StackMapTable): a forward ifle whose next
//     instruction has a frame (-> widened), a backward goto (-> goto_w),
//     forward conditionals whose next instruction has no frame, so that the
//     rewriter must infer one: after a plain int test, with long, double,
//     String, int[] locals and two Uninitialized(new) on the stack, and in a
//     constructor before super() (uninitializedThis); and Uninitialized(offset)
//     frames after a long body.
// Each has a main that prints what its methods compute. javac cannot write
// version 49 or choose where frames go, so this assembles the bytes itself.
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class BigMethodGen {
    static final int BODY = 2500; // repetitions of an 11-byte body with one newarray: 27500 bytes, 37500 rewritten

    /** The constant pool, with entries shared by value. */
    static final class Pool {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        final Map<String, Integer> index = new HashMap<>();
        int count = 1;

        int entry(String key, int tag, int a, int b, boolean twoShorts) throws IOException {
            Integer i = index.get(key);
            if (i != null)
                return i;
            out.writeByte(tag);
            out.writeShort(a);
            if (twoShorts)
                out.writeShort(b);
            index.put(key, count);
            return count++;
        }
        int utf8(String s) throws IOException {
            Integer i = index.get("U" + s);
            if (i != null)
                return i;
            out.writeByte(1);
            out.writeUTF(s);
            index.put("U" + s, count);
            return count++;
        }
        int cls(String name) throws IOException { return entry("C" + name, 7, utf8(name), 0, false); }
        int string(String s) throws IOException { return entry("S" + s, 8, utf8(s), 0, false); }
        int nat(String n, String d) throws IOException { return entry("N" + n + d, 12, utf8(n), utf8(d), true); }
        int method(String c, String n, String d) throws IOException { return entry("M" + c + n + d, 10, cls(c), nat(n, d), true); }
        int field(String c, String n, String d) throws IOException { return entry("F" + c + n + d, 9, cls(c), nat(n, d), true); }
    }

    /** Bytecode with labels; 16-bit branches, checked to reach. */
    static final class Code {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        final Map<String, Integer> labels = new HashMap<>();
        final List<int[]> fixups = new ArrayList<>(); // at, from, label id
        final List<String> names = new ArrayList<>();

        int pc() { return b.size(); }
        Code op(int... bytes) {
            for (int x : bytes)
                b.write(x);
            return this;
        }
        Code u2(int v) { return op(v >> 8 & 0xff, v & 0xff); }
        Code label(String l) {
            labels.put(l, pc());
            return this;
        }
        Code br(int opcode, String l) {
            int from = pc();
            op(opcode);
            names.add(l);
            fixups.add(new int[] {pc(), from, names.size() - 1});
            return u2(0);
        }
        int at(String l) { return labels.get(l); }
        byte[] done() {
            byte[] c = b.toByteArray();
            for (int[] f : fixups) {
                int off = at(names.get(f[2])) - f[1];
                if (off < -32768 || off > 32767)
                    throw new IllegalStateException("branch out of range before rewriting: " + off);
                c[f[0]] = (byte) (off >> 8);
                c[f[0] + 1] = (byte) off;
            }
            return c;
        }
    }

    static final int ILOAD_0 = 0x1a, ILOAD_1 = 0x1b, ILOAD_2 = 0x1c, ISTORE_1 = 0x3c, ISTORE_2 = 0x3d, ICONST_0 = 3,
            ICONST_1 = 4, ICONST_3 = 6, IADD = 0x60, IAND = 0x7e, NEWARRAY = 0xbc, T_INT = 10, ARRAYLENGTH = 0xbe,
            IRETURN = 0xac, ARETURN = 0xb0, RETURN = 0xb1, GOTO = 0xa7, JSR = 0xa8, RET = 0xa9, ASTORE_3 = 0x4e,
            IINC = 0x84, IFLE = 0x9e, IFEQ = 0x99, IF_ICMPGE = 0xa2, GETSTATIC = 0xb2, INVOKEVIRTUAL = 0xb6,
            INVOKESPECIAL = 0xb7, INVOKESTATIC = 0xb8, NEW = 0xbb, DUP = 0x59, LDC_W = 0x13, BIPUSH = 0x10;

    /** sum += new int[(local & 3) + 1].length, BODY times (11 bytes each). */
    static void body(Code c, int local) {
        for (int i = 0; i < BODY; i++)
            c.op(local, ICONST_3, IAND, ICONST_1, IADD, NEWARRAY, T_INT, ARRAYLENGTH, ILOAD_1, IADD, ISTORE_1);
    }

    static final class Method {
        final int access;
        final String name, desc;
        final byte[] code;
        final int maxStack, maxLocals;
        final byte[] stackMap; // the StackMapTable's body, or null

        Method(int access, String name, String desc, byte[] code, int maxStack, int maxLocals, byte[] stackMap) {
            this.access = access;
            this.name = name;
            this.desc = desc;
            this.code = code;
            this.maxStack = maxStack;
            this.maxLocals = maxLocals;
            this.stackMap = stackMap;
        }
    }

    static byte[] classFile(int major, String name, Pool pool, List<Method> methods) throws IOException {
        int thisClass = pool.cls(name), superClass = pool.cls("java/lang/Object");
        int code = pool.utf8("Code"), smt = pool.utf8("StackMapTable");
        int[][] nd = new int[methods.size()][];
        for (int i = 0; i < nd.length; i++)
            nd[i] = new int[] {pool.utf8(methods.get(i).name), pool.utf8(methods.get(i).desc)};
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream o = new DataOutputStream(bytes);
        o.writeInt(0xCAFEBABE);
        o.writeShort(0);
        o.writeShort(major);
        o.writeShort(pool.count);
        o.write(pool.bytes.toByteArray());
        o.writeShort(0x0021);
        o.writeShort(thisClass);
        o.writeShort(superClass);
        o.writeShort(0); // interfaces
        o.writeShort(0); // fields
        o.writeShort(methods.size());
        for (int i = 0; i < nd.length; i++) {
            Method m = methods.get(i);
            o.writeShort(m.access);
            o.writeShort(nd[i][0]);
            o.writeShort(nd[i][1]);
            o.writeShort(1);
            o.writeShort(code);
            int attrs = m.stackMap == null ? 0 : 6 + m.stackMap.length;
            o.writeInt(12 + m.code.length + attrs);
            o.writeShort(m.maxStack);
            o.writeShort(m.maxLocals);
            o.writeInt(m.code.length);
            o.write(m.code);
            o.writeShort(0); // exception table
            o.writeShort(m.stackMap == null ? 0 : 1);
            if (m.stackMap != null) {
                o.writeShort(smt);
                o.writeInt(m.stackMap.length);
                o.write(m.stackMap);
            }
        }
        o.writeShort(0);
        return bytes.toByteArray();
    }

    /** main: System.out.println(NAME.m(arg)) for each (method, int arg, returns Object?) */
    static Method main(Pool p, String cls, Object[][] calls) throws IOException {
        Code c = new Code();
        int out = p.field("java/lang/System", "out", "Ljava/io/PrintStream;");
        for (Object[] call : calls) {
            boolean obj = (Boolean) call[2];
            c.op(GETSTATIC).u2(out).op(BIPUSH, (Integer) call[1]);
            c.op(INVOKESTATIC).u2(p.method(cls, (String) call[0], obj ? "(Z)Ljava/lang/Object;" : "(I)I"));
            c.op(INVOKEVIRTUAL).u2(p.method("java/io/PrintStream", "println", obj ? "(Ljava/lang/Object;)V" : "(I)V"));
        }
        c.op(RETURN);
        return new Method(0x0009, "main", "([Ljava/lang/String;)V", c.done(), 3, 1, null);
    }

    static byte[] wide49() throws IOException {
        Pool p = new Pool();
        List<Method> ms = new ArrayList<>();
        // int fwd(int n) { int sum = 0; for (int i = 0; i < n; i++) sum += BODY * ((i & 3) + 1); return sum; }
        Code c = new Code();
        c.op(ICONST_0, ISTORE_1, ICONST_0, ISTORE_2);
        c.label("loop").op(ILOAD_2, ILOAD_0).br(IF_ICMPGE, "end");
        body(c, ILOAD_2);
        c.op(IINC, 2, 1).br(GOTO, "loop");
        c.label("end").op(ILOAD_1, IRETURN);
        ms.add(new Method(0x0009, "fwd", "(I)I", c.done(), 3, 3, null));
        // int subr(int n): a subroutine before a long body that jsr's back to it
        c = new Code();
        c.br(GOTO, "start");
        c.label("sub").op(ASTORE_3, IINC, 1, 7, RET, 3);
        c.label("start").op(ICONST_0, ISTORE_1);
        body(c, ILOAD_0);
        c.br(JSR, "sub").op(ILOAD_1, IRETURN);
        ms.add(new Method(0x0009, "subr", "(I)I", c.done(), 3, 4, null));
        ms.add(main(p, "GenWide49", new Object[][] {{"fwd", 3, false}, {"fwd", 0, false}, {"subr", 2, false}, {"subr", 5, false}}));
        return classFile(49, "GenWide49", p, ms);
    }

    static void u2(ByteArrayOutputStream b, int v) {
        b.write(v >> 8 & 0xff);
        b.write(v & 0xff);
    }

    static byte[] wide52() throws IOException {
        Pool p = new Pool();
        List<Method> ms = new ArrayList<>();
        // int loop(int n): ifle over everything (its next instruction, the loop head, has a frame), goto back
        Code c = new Code();
        c.op(ICONST_0, ISTORE_1, ICONST_0, ISTORE_2, ILOAD_0).br(IFLE, "end");
        c.label("loop");
        body(c, ILOAD_2);
        c.op(IINC, 2, 1, ILOAD_2, ILOAD_0).br(IF_ICMPGE, "end").br(GOTO, "loop");
        c.label("end").op(ILOAD_1, IRETURN);
        byte[] code = c.done();
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        u2(f, 2);
        f.write(253); // append_frame: int int
        u2(f, c.at("loop"));
        f.write(1);
        f.write(1);
        f.write(251); // same_frame_extended
        u2(f, c.at("end") - c.at("loop") - 1);
        ms.add(new Method(0x0009, "loop", "(I)I", code, 3, 3, f.toByteArray()));
        // int inferred(int n): ifle over the body, no frame after it: the rewriter infers one
        c = new Code();
        c.op(ICONST_0, ISTORE_1, ILOAD_0).br(IFLE, "end");
        body(c, ILOAD_0);
        c.label("end").op(ILOAD_1, IRETURN);
        code = c.done();
        f = new ByteArrayOutputStream();
        u2(f, 1);
        f.write(252); // append_frame: int
        u2(f, c.at("end"));
        f.write(1);
        ms.add(new Method(0x0009, "inferred", "(I)I", code, 3, 2, f.toByteArray()));
        // Object uninit(boolean b): a long body, then new StringBuilder(b ? "yes" : "no") with frames holding
        // Uninitialized(new) far from pc 0
        c = new Code();
        c.op(ICONST_0, ISTORE_1);
        body(c, ILOAD_1);
        int newAt = c.pc();
        c.op(NEW).u2(p.cls("java/lang/StringBuilder")).op(DUP, ILOAD_0).br(IFEQ, "no");
        c.op(LDC_W).u2(p.string("yes")).br(GOTO, "join");
        c.label("no").op(LDC_W).u2(p.string("no"));
        c.label("join").op(INVOKESPECIAL).u2(p.method("java/lang/StringBuilder", "<init>", "(Ljava/lang/String;)V"));
        c.op(ILOAD_1, INVOKEVIRTUAL).u2(p.method("java/lang/StringBuilder", "append", "(I)Ljava/lang/StringBuilder;"));
        c.op(ARETURN);
        code = c.done();
        int string = p.cls("java/lang/String");
        f = new ByteArrayOutputStream();
        u2(f, 2);
        f.write(255); // full_frame [int int] [uninit uninit]
        u2(f, c.at("no"));
        u2(f, 2);
        f.write(1);
        f.write(1);
        u2(f, 2);
        f.write(8);
        u2(f, newAt);
        f.write(8);
        u2(f, newAt);
        f.write(255); // full_frame [int int] [uninit uninit String]
        u2(f, c.at("join") - c.at("no") - 1);
        u2(f, 2);
        f.write(1);
        f.write(1);
        u2(f, 3);
        f.write(8);
        u2(f, newAt);
        f.write(8);
        u2(f, newAt);
        f.write(7);
        u2(f, string);
        ms.add(new Method(0x0009, "uninit", "(Z)Ljava/lang/Object;", code, 5, 2, f.toByteArray()));
        ms.add(mix(p));
        ms.add(constructor(p));
        Method m = main(p, "GenWide52", new Object[][] {{"loop", 3, false}, {"loop", 0, false}, {"inferred", 2, false},
                {"uninit", 1, true}, {"uninit", 0, true}});
        // then: println(mix(1L, "s", {1}, 0)); println(mix(1L, "s", {0}, 0)); new GenWide52(3); println("ctor")
        Code c2 = new Code();
        c2.b.write(m.code, 0, m.code.length - 1); // its calls, without its return
        int out = p.field("java/lang/System", "out", "Ljava/io/PrintStream;");
        int mixRef = p.method("GenWide52", "mix", "(JLjava/lang/String;[II)Ljava/lang/Object;");
        int println = p.method("java/io/PrintStream", "println", "(Ljava/lang/Object;)V");
        for (int first = 1; first >= 0; first--) {
            c2.op(GETSTATIC).u2(out).op(0x0a).op(LDC_W).u2(p.string("s"));
            c2.op(ICONST_1, NEWARRAY, T_INT, DUP, ICONST_0, first == 1 ? ICONST_1 : ICONST_0, 0x4f, ICONST_0);
            c2.op(INVOKESTATIC).u2(mixRef).op(INVOKEVIRTUAL).u2(println);
        }
        c2.op(NEW).u2(p.cls("GenWide52")).op(DUP, ICONST_3).op(INVOKESPECIAL).u2(p.method("GenWide52", "<init>", "(I)V"));
        c2.op(0x57, GETSTATIC).u2(out).op(LDC_W).u2(p.string("ctor")).op(INVOKEVIRTUAL).u2(println);
        c2.op(RETURN);
        ms.add(new Method(0x0009, "main", "([Ljava/lang/String;)V", c2.done(), 8, 1, null));
        return classFile(52, "GenWide52", p, ms);
    }

    /** Object mix(long a, String s, int[] arr, int x): double d = 1; [frame] x = arr[0];
     *  new StringBuilder(x != 0 ? (x = new int[x].length ... 4000 times, "t") : "f").append(s).append(a).append(d) */
    static Method mix(Pool p) throws IOException {
        Code c = new Code();
        c.op(0x0f, 0x39, 5); // dconst_1, dstore 5
        c.label("l0").op(0x2d, ICONST_0, 0x2e, 0x36, 4); // aload_3, iconst_0, iaload, istore 4
        int newAt = c.pc();
        c.op(NEW).u2(p.cls("java/lang/StringBuilder")).op(DUP, 0x15, 4).br(IFEQ, "far");
        for (int i = 0; i < 4000; i++)
            c.op(0x15, 4, NEWARRAY, T_INT, ARRAYLENGTH, 0x36, 4);
        c.op(LDC_W).u2(p.string("t")).br(GOTO, "join");
        c.label("far").op(LDC_W).u2(p.string("f"));
        c.label("join").op(INVOKESPECIAL).u2(p.method("java/lang/StringBuilder", "<init>", "(Ljava/lang/String;)V"));
        c.op(0x2c, INVOKEVIRTUAL).u2(p.method("java/lang/StringBuilder", "append", "(Ljava/lang/String;)Ljava/lang/StringBuilder;"));
        c.op(0x1e, INVOKEVIRTUAL).u2(p.method("java/lang/StringBuilder", "append", "(J)Ljava/lang/StringBuilder;"));
        c.op(0x18, 5, INVOKEVIRTUAL).u2(p.method("java/lang/StringBuilder", "append", "(D)Ljava/lang/StringBuilder;"));
        c.op(ARETURN);
        byte[] code = c.done();
        int string = p.cls("java/lang/String"), ints = p.cls("[I");
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        u2(f, 3);
        f.write(252); // append_frame: double
        u2(f, c.at("l0"));
        f.write(3);
        for (int k = 0; k < 2; k++) { // full frames at far [.. uninit uninit] and join [.. uninit uninit String]
            f.write(255);
            u2(f, k == 0 ? c.at("far") - c.at("l0") - 1 : c.at("join") - c.at("far") - 1);
            u2(f, 5);
            f.write(4);
            f.write(7);
            u2(f, string);
            f.write(7);
            u2(f, ints);
            f.write(1);
            f.write(3);
            u2(f, k == 0 ? 2 : 3);
            f.write(8);
            u2(f, newAt);
            f.write(8);
            u2(f, newAt);
            if (k == 1) {
                f.write(7);
                u2(f, string);
            }
        }
        return new Method(0x0009, "mix", "(JLjava/lang/String;[II)Ljava/lang/Object;", code, 6, 7, f.toByteArray());
    }

    /** GenWide52(int n) { if (n != 0) n = new int[n].length ... 5000 times; super(); } */
    static Method constructor(Pool p) throws IOException {
        Code c = new Code();
        c.op(ILOAD_1).br(IFEQ, "far");
        for (int i = 0; i < 5000; i++)
            c.op(ILOAD_1, NEWARRAY, T_INT, ARRAYLENGTH, ISTORE_1);
        c.label("far").op(0x2a, INVOKESPECIAL).u2(p.method("java/lang/Object", "<init>", "()V")).op(RETURN);
        byte[] code = c.done();
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        u2(f, 1);
        f.write(255); // full_frame [uninitializedThis, int] []
        u2(f, c.at("far"));
        u2(f, 2);
        f.write(6);
        f.write(1);
        u2(f, 0);
        return new Method(0x0001, "<init>", "(I)V", code, 2, 2, f.toByteArray());
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        Files.write(dir.resolve("GenWide49.class"), wide49());
        Files.write(dir.resolve("GenWide52.class"), wide52());
    }
}
