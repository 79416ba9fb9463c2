/*
 * ProbeClassWriter.java: the class file of a provider's implementation, byte
 * by byte (no bytecode library in the JDK). The class implements the
 * provider interface: each probe method tests its probe's word and, when it
 * is set, converts its arguments and calls ProbeRuntime.fire; getProbe and
 * dispose go to the provider's ProviderState. Version 49 class files need no
 * stack map frames.
 */
package jvmprof;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class ProbeClassWriter {
    /** One probe method to write: its method, and where its word is and its key (agent: false → empty body). */
    static final class ProbeMethod {
        final java.lang.reflect.Method method;
        final String kinds;
        final long address, key;

        ProbeMethod(java.lang.reflect.Method method, String kinds, long address, long key) {
            this.method = method;
            this.kinds = kinds;
            this.address = address;
            this.key = key;
        }
    }

    private static final String STATE = "jvmprof/ProviderState";
    private static final String RUNTIME = "jvmprof/ProbeRuntime";

    private final ByteArrayOutputStream pool = new ByteArrayOutputStream();
    private final DataOutputStream cp = new DataOutputStream(pool);
    private final Map<String, Integer> entries = new HashMap<>();
    private int count = 1;

    private int entry(String key, int slots, byte[] bytes) {
        Integer old = entries.get(key);
        if (old != null)
            return old;
        int index = count;
        count += slots;
        pool.write(bytes, 0, bytes.length);
        entries.put(key, index);
        return index;
    }

    private static byte[] bytes(int tag, int... u2s) {
        byte[] b = new byte[1 + 2 * u2s.length];
        b[0] = (byte) tag;
        for (int i = 0; i < u2s.length; i++) {
            b[1 + 2 * i] = (byte) (u2s[i] >> 8);
            b[2 + 2 * i] = (byte) u2s[i];
        }
        return b;
    }

    int utf8(String s) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try {
            DataOutputStream d = new DataOutputStream(b);
            d.writeByte(1);
            d.writeUTF(s);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return entry("U" + s, 1, b.toByteArray());
    }

    int cls(String internal) {
        int name = utf8(internal);
        return entry("C" + internal, 1, bytes(7, name));
    }

    private int nameAndType(String name, String desc) {
        int n = utf8(name), d = utf8(desc);
        return entry("N" + name + ' ' + desc, 1, bytes(12, n, d));
    }

    private int member(int tag, String owner, String name, String desc) {
        int c = cls(owner), nt = nameAndType(name, desc);
        return entry(tag + owner + '.' + name + desc, 1, bytes(tag, c, nt));
    }

    int field(String owner, String name, String desc) {
        return member(9, owner, name, desc);
    }

    int method(String owner, String name, String desc) {
        return member(10, owner, name, desc);
    }

    int longConstant(long v) {
        byte[] b = new byte[9];
        b[0] = 5;
        for (int i = 0; i < 8; i++)
            b[1 + i] = (byte) (v >>> (56 - 8 * i));
        return entry("J" + v, 2, b);
    }

    /** A method's code being written. */
    private static final class Code {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();

        void u1(int v) {
            b.write(v);
        }

        void u2(int v) {
            b.write(v >> 8);
            b.write(v);
        }

        void op(int opcode, int u2) {
            u1(opcode);
            u2(u2);
        }

        void push(int small) {
            u1(0x10); // bipush (every index and length here is < 128)
            u1(small);
        }
    }

    private static final class MethodInfo {
        final int access, name, desc, maxStack, maxLocals;
        final byte[] code;

        MethodInfo(int access, int name, int desc, int maxStack, int maxLocals, byte[] code) {
            this.access = access;
            this.name = name;
            this.desc = desc;
            this.maxStack = maxStack;
            this.maxLocals = maxLocals;
            this.code = code;
        }
    }

    private final List<MethodInfo> methods = new ArrayList<>();

    private void add(int access, String name, String desc, int maxStack, int maxLocals, Code c) {
        methods.add(new MethodInfo(access, utf8(name), utf8(desc), maxStack, maxLocals, c.b.toByteArray()));
    }

    static String descriptor(Class<?> c) {
        if (c.isPrimitive()) {
            if (c == int.class) return "I";
            if (c == long.class) return "J";
            if (c == boolean.class) return "Z";
            if (c == byte.class) return "B";
            if (c == char.class) return "C";
            if (c == short.class) return "S";
            if (c == float.class) return "F";
            if (c == double.class) return "D";
            return "V";
        }
        if (c.isArray())
            return c.getName().replace('.', '/');
        return "L" + c.getName().replace('.', '/') + ";";
    }

    static String descriptor(java.lang.reflect.Method m) {
        StringBuilder sb = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes())
            sb.append(descriptor(p));
        return sb.append(')').append(descriptor(m.getReturnType())).toString();
    }

    /** A probe method: test the word, then the arguments as longs (and Strings) to ProbeRuntime.fire. */
    private void probe(ProbeMethod p, boolean agent) {
        Class<?>[] types = p.method.getParameterTypes();
        int locals = 1;
        for (Class<?> t : types)
            locals += t == long.class || t == double.class ? 2 : 1;
        Code c = new Code();
        if (agent) {
            c.op(0x14, longConstant(p.address));                                  // ldc2_w address
            c.op(0xb8, method(RUNTIME, "on", "(J)Z"));                            // invokestatic on
            int branch = c.b.size();
            c.op(0x99, 0);                                                         // ifeq → return (patched)
            c.op(0x14, longConstant(p.key));                                      // ldc2_w key
            c.push(types.length);
            c.u1(0xbc);                                                            // newarray long
            c.u1(11);
            boolean strings = false;
            int slot = 1;
            for (int i = 0; i < types.length; i++) {
                char k = p.kinds.charAt(i);
                Class<?> t = types[i];
                int here = slot;
                slot += t == long.class || t == double.class ? 2 : 1;
                if (k == 's') {
                    strings = true;
                    continue;
                }
                if (k == 'o')
                    continue;
                c.u1(0x59);                                                        // dup
                c.push(i);
                if (!t.isPrimitive()) {
                    c.u1(0x19);                                                    // aload
                    c.u1(here);
                    c.op(0xb8, method(RUNTIME, "unbox", "(Ljava/lang/Object;)J"));
                } else if (t == long.class) {
                    c.u1(0x16);                                                    // lload
                    c.u1(here);
                } else if (t == double.class) {
                    c.u1(0x18);                                                    // dload
                    c.u1(here);
                    c.op(0xb8, method("java/lang/Double", "doubleToRawLongBits", "(D)J"));
                } else if (t == float.class) {
                    c.u1(0x17);                                                    // fload
                    c.u1(here);
                    c.op(0xb8, method("java/lang/Float", "floatToRawIntBits", "(F)I"));
                    c.u1(0x85);                                                    // i2l
                } else {
                    c.u1(0x15);                                                    // iload
                    c.u1(here);
                    c.u1(0x85);                                                    // i2l
                }
                c.u1(0x50);                                                        // lastore
            }
            if (strings) {
                c.push(types.length);
                c.op(0xbd, cls("java/lang/Object"));                              // anewarray
                slot = 1;
                for (int i = 0; i < types.length; i++) {
                    int here = slot;
                    slot += types[i] == long.class || types[i] == double.class ? 2 : 1;
                    if (p.kinds.charAt(i) != 's')
                        continue;
                    c.u1(0x59);                                                    // dup
                    c.push(i);
                    c.u1(0x19);                                                    // aload
                    c.u1(here);
                    c.u1(0x53);                                                    // aastore
                }
            } else {
                c.u1(0x01);                                                        // aconst_null
            }
            c.op(0xb8, method(RUNTIME, "fire", "(J[J[Ljava/lang/Object;)V"));
            byte[] sofar = c.b.toByteArray();
            int offset = sofar.length - branch;
            sofar[branch + 1] = (byte) (offset >> 8);
            sofar[branch + 2] = (byte) offset;
            c.b.reset();
            c.b.write(sofar, 0, sofar.length);
        }
        c.u1(0xb1);                                                                // return
        add(0x0001, p.method.getName(), descriptor(p.method), 12, locals, c);
    }

    /** A method passing its one argument, if any, to the same method of the ProviderState. */
    private void delegate(int stateField, String name, String desc, int returnOp) {
        boolean arg = !desc.startsWith("()");
        Code c = new Code();
        c.u1(0x2a);                                                                // aload_0
        c.op(0xb4, stateField);                                                    // getfield state
        if (arg)
            c.u1(0x2b);                                                            // aload_1
        c.op(0xb6, method(STATE, name, desc));                                     // invokevirtual
        c.u1(returnOp);
        add(0x0001, name, desc, 2, arg ? 2 : 1, c);
    }

    /**
     * The class file of name (internal form), implementing iface, with a
     * ProviderState field, a constructor taking it, getProbe and dispose,
     * and the probe methods (empty without an agent).
     */
    byte[] write(String name, Class<?> iface, List<ProbeMethod> probes, boolean agent) {
        int self = cls(name), object = cls("java/lang/Object"), itf = cls(iface.getName().replace('.', '/'));
        int stateField = field(name, "state", "L" + STATE + ";");
        int fieldName = utf8("state"), fieldDesc = utf8("L" + STATE + ";");

        Code init = new Code();
        init.u1(0x2a);                                                             // aload_0
        init.op(0xb7, method("java/lang/Object", "<init>", "()V"));              // invokespecial
        init.u1(0x2a);
        init.u1(0x2b);                                                             // aload_1
        init.op(0xb5, stateField);                                                 // putfield
        init.u1(0xb1);
        add(0x0001, "<init>", "(L" + STATE + ";)V", 2, 2, init);

        delegate(stateField, "getProbe", "(Ljava/lang/reflect/Method;)Lcom/sun/tracing/Probe;", 0xb0);
        delegate(stateField, "dispose", "()V", 0xb1);
        delegate(stateField, "toString", "()Ljava/lang/String;", 0xb0);

        for (ProbeMethod p : probes)
            probe(p, agent);
        int code = utf8("Code");

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            DataOutputStream d = new DataOutputStream(out);
            d.writeInt(0xCAFEBABE);
            d.writeShort(0);
            d.writeShort(49);
            d.writeShort(count);
            pool.writeTo(d);
            d.writeShort(0x0010 | 0x0020);                                        // final, super
            d.writeShort(self);
            d.writeShort(object);
            d.writeShort(1);
            d.writeShort(itf);
            d.writeShort(1);                                                       // the state field
            d.writeShort(0x0002 | 0x0010);
            d.writeShort(fieldName);
            d.writeShort(fieldDesc);
            d.writeShort(0);
            d.writeShort(methods.size());
            for (MethodInfo m : methods) {
                d.writeShort(m.access);
                d.writeShort(m.name);
                d.writeShort(m.desc);
                d.writeShort(1);
                d.writeShort(code);
                d.writeInt(12 + m.code.length);
                d.writeShort(m.maxStack);
                d.writeShort(m.maxLocals);
                d.writeInt(m.code.length);
                d.write(m.code);
                d.writeShort(0);                                                   // no exception table
                d.writeShort(0);                                                   // no attributes
            }
            d.writeShort(0);                                                       // no class attributes
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }
}
