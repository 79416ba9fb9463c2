/*
 * ProbeProviders.java: jvmprof's ProviderFactory (com.sun.tracing): checks a
 * provider interface, names its provider, probes, module and functions (from
 * the annotations, or the interface's and methods' names), registers them
 * with the agent (which makes their USDT probes, unless the property
 * com.sun.tracing.dtrace is "disable"), and defines the class that
 * implements the interface (ProbeClassWriter) in the interface's package.
 * Without an agent the class's probe methods are empty.
 */
package jvmprof;

import com.sun.tracing.ProbeName;
import com.sun.tracing.Provider;
import com.sun.tracing.ProviderFactory;
import com.sun.tracing.ProviderName;
import com.sun.tracing.dtrace.ArgsAttributes;
import com.sun.tracing.dtrace.Attributes;
import com.sun.tracing.dtrace.FunctionAttributes;
import com.sun.tracing.dtrace.FunctionName;
import com.sun.tracing.dtrace.ModuleAttributes;
import com.sun.tracing.dtrace.ModuleName;
import com.sun.tracing.dtrace.NameAttributes;
import com.sun.tracing.dtrace.ProviderAttributes;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

public final class ProbeProviders extends ProviderFactory {
    /** The most parameters a probe takes: what <sys/sdt.h> gives a USDT probe. */
    static final int MAX_ARGS = 12;
    /** The longest name (provider, probe, module, function). */
    static final int MAX_NAME = 64;

    private static final ProbeProviders FACTORY = new ProbeProviders();
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private ProbeProviders() {}

    public static ProviderFactory factory() {
        return FACTORY;
    }

    static Class<?> box(Class<?> primitive) {
        if (primitive == int.class) return Integer.class;
        if (primitive == long.class) return Long.class;
        if (primitive == boolean.class) return Boolean.class;
        if (primitive == byte.class) return Byte.class;
        if (primitive == char.class) return Character.class;
        if (primitive == short.class) return Short.class;
        if (primitive == float.class) return Float.class;
        if (primitive == double.class) return Double.class;
        return primitive;
    }

    /**
     * A parameter's kind: its primitive's descriptor letter (a box counts as
     * its primitive), 's' a String, 'o' any other object (a placeholder: 0);
     * '[' an array, which a probe cannot carry.
     */
    static char kind(Class<?> t) {
        if (t.isArray())
            return '[';
        if (t == String.class)
            return 's';
        Class<?> p = t;
        if (!t.isPrimitive()) {
            p = null;
            for (Class<?> c : new Class<?>[] { int.class, long.class, boolean.class, byte.class, char.class,
                                                 short.class, float.class, double.class })
                if (box(c) == t)
                    p = c;
            if (p == null)
                return 'o';
        }
        return ProbeClassWriter.descriptor(p).charAt(0);
    }

    /** Whether s is a name USDT tools accept: a C identifier of at most MAX_NAME characters. */
    static boolean identifier(String s) {
        if (s.isEmpty() || s.length() > MAX_NAME || Character.isDigit(s.charAt(0)))
            return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'))
                return false;
        }
        return true;
    }

    /** Whether s can be a module: a file name of letters, digits, '_', '-', '.' (not starting with '.'). */
    static boolean moduleName(String s) {
        if (s.isEmpty() || s.length() > MAX_NAME || s.charAt(0) == '.')
            return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
                  || c == '.'))
                return false;
        }
        return true;
    }

    private static String attributes(String field, Attributes a) {
        String s = a == null ? "Private/Private/Unknown"
                             : display(a.name().name()) + "/" + display(a.data().name()) + "/"
                                   + display(a.dependency().name());
        return field + "=" + s;
    }

    private static String display(String constant) {
        return constant.charAt(0) + constant.substring(1).toLowerCase();
    }

    /** The interface attributes, as the trace records them: "provider=Evolving/Evolving/Common module=...". */
    static String attributes(Class<?> cls) {
        ProviderAttributes p = cls.getAnnotation(ProviderAttributes.class);
        ModuleAttributes m = cls.getAnnotation(ModuleAttributes.class);
        FunctionAttributes f = cls.getAnnotation(FunctionAttributes.class);
        NameAttributes n = cls.getAnnotation(NameAttributes.class);
        ArgsAttributes a = cls.getAnnotation(ArgsAttributes.class);
        return attributes("provider", p == null ? null : p.value()) + " " + attributes("module", m == null ? null : m.value())
            + " " + attributes("function", f == null ? null : f.value()) + " "
            + attributes("name", n == null ? null : n.value()) + " " + attributes("args", a == null ? null : a.value());
    }

    private static IllegalArgumentException bad(Class<?> cls, String what) {
        return new IllegalArgumentException("provider " + cls.getName() + ": " + what);
    }

    @Override
    public <T extends Provider> T createProvider(Class<T> cls) {
        if (cls == null)
            throw new NullPointerException("cls");
        if (!cls.isInterface() || !Provider.class.isAssignableFrom(cls) || cls == Provider.class)
            throw bad(cls, "a provider must be an interface extending com.sun.tracing.Provider");

        ProviderName pn = cls.getAnnotation(ProviderName.class);
        String provider = pn != null ? pn.value() : cls.getSimpleName();
        if (!identifier(provider))
            throw bad(cls, "provider name \"" + provider + "\" is not a valid USDT name (letters, digits and '_', "
                           + "not starting with a digit, at most " + MAX_NAME + " characters)");
        ModuleName mn = cls.getAnnotation(ModuleName.class);
        String module = mn != null ? mn.value() : "";
        if (mn != null && !moduleName(module))
            throw bad(cls, "module name \"" + module + "\" is not a valid file name (letters, digits, '_', '-' and "
                           + "'.', not starting with '.', at most " + MAX_NAME + " characters)");

        List<Method> methods = new ArrayList<>();
        for (Method m : cls.getMethods())
            if (Modifier.isAbstract(m.getModifiers()) && m.getDeclaringClass() != Provider.class)
                methods.add(m);
        methods.sort(Comparator.comparing(Method::getName).thenComparing(ProbeClassWriter::descriptor));

        int n = methods.size();
        String[] names = new String[n], functions = new String[n], kinds = new String[n];
        Map<String, Method> taken = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Method m = methods.get(i);
            String where = "probe " + m.getName();
            if (m.getReturnType() != void.class)
                throw bad(cls, where + " returns " + m.getReturnType().getName() + ": a probe method must return void");
            Class<?>[] params = m.getParameterTypes();
            if (params.length > MAX_ARGS)
                throw bad(cls, where + " has " + params.length + " parameters: a probe takes at most " + MAX_ARGS);
            StringBuilder k = new StringBuilder();
            for (int j = 0; j < params.length; j++) {
                char c = kind(params[j]);
                if (c == '[')
                    throw bad(cls, where + ": parameter " + (j + 1) + " has type " + params[j].getSimpleName()
                                   + ", which a probe cannot carry (accepted: primitives, their boxes, String, "
                                   + "and other objects, passed as 0)");
                k.append(c);
            }
            ProbeName qn = m.getAnnotation(ProbeName.class);
            String name = qn != null ? qn.value() : m.getName();
            if (!identifier(name))
                throw bad(cls, where + ": probe name \"" + name + "\" is not a valid USDT name (letters, digits and "
                               + "'_', not starting with a digit, at most " + MAX_NAME + " characters)");
            Method other = taken.put(name, m);
            if (other != null)
                throw bad(cls, "two methods are probe \"" + name + "\": " + ProbeClassWriter.descriptor(other) + " and "
                               + ProbeClassWriter.descriptor(m) + "; give one a @ProbeName");
            FunctionName fn = m.getAnnotation(FunctionName.class);
            String function = fn != null ? fn.value() : "";
            if (fn != null && !identifier(function))
                throw bad(cls, where + ": function name \"" + function + "\" is not a valid symbol name (letters, "
                               + "digits and '_', not starting with a digit, at most " + MAX_NAME + " characters)");
            names[i] = name;
            functions[i] = function;
            kinds[i] = k.toString();
        }

        long handle = 0;
        long[] out = new long[1 + 2 * n];
        boolean agent = ProbeRuntime.usable();
        if (agent) {
            try {
                String error = ProbeRuntime.create0(provider, module, attributes(cls), names, functions, kinds,
                                                    !"disable".equals(System.getProperty("com.sun.tracing.dtrace")), out);
                if (error != null)
                    throw new IllegalStateException("jvmprof: provider " + provider + ": " + error);
                handle = out[0];
            } catch (UnsatisfiedLinkError e) {
                agent = false;
            }
        }

        Map<Method, ProbeHandle> handles = new LinkedHashMap<>();
        List<ProbeClassWriter.ProbeMethod> probes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long key = agent ? out[1 + i] : 0, address = agent ? out[1 + n + i] : 0;
            handles.put(methods.get(i), new ProbeHandle(methods.get(i), kinds[i], key, address));
            probes.add(new ProbeClassWriter.ProbeMethod(methods.get(i), kinds[i], address, key));
        }
        ProviderState state = new ProviderState(provider, handle, handles);
        try {
            String pkg = cls.getPackageName();
            String simple = cls.getName().substring(pkg.isEmpty() ? 0 : pkg.length() + 1);
            String name = (pkg.isEmpty() ? "" : pkg + ".") + simple + "$$JvmprofProvider" + SEQUENCE.incrementAndGet();
            byte[] bytes = new ProbeClassWriter().write(name.replace('.', '/'), cls, probes, agent);
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(cls, MethodHandles.lookup());
            Class<?> impl = lookup.defineClass(bytes);
            MethodHandle make = lookup.findConstructor(impl, MethodType.methodType(void.class, ProviderState.class));
            return cls.cast((Object) make.invoke(state));
        } catch (Throwable e) {
            state.dispose();
            if (e instanceof IllegalArgumentException)
                throw (IllegalArgumentException) e;
            throw bad(cls, "cannot implement it (" + e + ")");
        }
    }
}
