/* test_selection.c — the class filter and the method rules of cpu=times
 * (src/classfile/selection.c): include=/exclude= prefixes (dotted, ':'-
 * separated, exclude wins, a prefix matches a package or a class name's
 * start), jvmprof's own classes never, and which methods get entry/exit
 * calls: not native or abstract, not the small straight-line leaves (no
 * call, loop, array allocation or lock; and with tiny=N the loop-free
 * methods of at most N bytes), not system class initializers, not
 * Thread.currentThread. */
#include "harness.h"

#include "classfile/selection.h"

static void test_class_filter(void)
{
    /* no rules: everything but jvmprof's own */
    CHECK(cf_class_selected("java/util/HashMap", "", ""));
    CHECK(cf_class_selected("Main", "", ""));
    CHECK(!cf_class_selected("jvmprof/Tracker", "", ""));
    CHECK(!cf_class_selected("jvmprof/Control", "jvmprof.", ""));
    /* include: a dotted prefix of the dotted name */
    CHECK(cf_class_selected("com/example/App", "com.example.", ""));
    CHECK(cf_class_selected("com/example/sub/Deep", "com.example.", ""));
    CHECK(!cf_class_selected("com/examples/App", "com.example.", ""));
    CHECK(cf_class_selected("com/examples/App", "com.example", ""));   /* without the dot: a name prefix */
    CHECK(!cf_class_selected("org/acme/Other", "com.example.:org.acme.Parser", ""));
    CHECK(cf_class_selected("org/acme/Parser", "com.example.:org.acme.Parser", ""));
    CHECK(cf_class_selected("org/acme/Parser$Inner", "com.example.:org.acme.Parser", ""));
    CHECK(cf_class_selected("com/example/App", "org.x:com.example.", ""));  /* any item of the list */
    /* exclude, and exclude over include */
    CHECK(!cf_class_selected("java/util/HashMap", "", "java."));
    CHECK(cf_class_selected("javax/Foo", "", "java."));
    CHECK(!cf_class_selected("javax/Foo", "", "java"));
    CHECK(!cf_class_selected("com/example/gen/X", "com.example.", "com.example.gen."));
    CHECK(cf_class_selected("com/example/App", "com.example.", "com.example.gen."));
    /* a prefix longer than the name matches nothing */
    CHECK(!cf_class_selected("a/B", "a.B.C", ""));
    CHECK(cf_class_selected("a/B", "a.B", ""));
}

#define RULE(...) cf_method_rule_of(__VA_ARGS__)
#define SKIP CF_METHOD_SKIP
#define COUNT CF_METHOD_COUNT
#define TIME CF_METHOD_TIME

#define CALLS CF_CODE_CALLS
#define LOOPS CF_CODE_LOOPS
#define ARRAY CF_CODE_NEWARRAY
#define LOCKS CF_CODE_LOCKS
#define DEFAULT true, 0 /* cpu=times without tiny=: the straight-line leaves only */
#define TINY(n) true, n /* tiny=N, N > 0: those and the loop-free methods of at most N bytes */
#define TINY0 false, 0  /* tiny=0: none */

static void test_method_rules(void)
{
    /* native or abstract: no code */
    CHECK_EQ_INT(RULE("app/Main", "run", 0, 0, DEFAULT), SKIP);
    CHECK_EQ_INT(RULE("app/Main", "run", 0, CALLS | LOOPS, TINY0), SKIP);
    /* by default only a straight-line leaf of at most CF_LEAF_MAX (80) bytes is counted: no call,
     * no loop, no array allocation, no lock */
    CHECK_EQ_INT(RULE("app/Main", "get", 5, 0, DEFAULT), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "sum", CF_LEAF_MAX, 0, DEFAULT), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "sum", CF_LEAF_MAX + 1, 0, DEFAULT), TIME);
    CHECK_EQ_INT(RULE("app/Main", "fib", 20, CALLS, DEFAULT), TIME);     /* recursion, delegators: timed */
    CHECK_EQ_INT(RULE("app/Main", "get", 4, CALLS, DEFAULT), TIME);
    CHECK_EQ_INT(RULE("app/Main", "loop", 5, LOOPS, DEFAULT), TIME);
    CHECK_EQ_INT(RULE("app/Main", "alloc", 5, ARRAY, DEFAULT), TIME);    /* new long[n]: n to zero */
    CHECK_EQ_INT(RULE("app/Main", "locked", 5, LOCKS, DEFAULT), TIME);   /* may wait for the lock */
    /* tiny=N: also the loop-free methods of at most N bytes, calls or not (the user's trade) */
    CHECK_EQ_INT(RULE("app/Main", "get", 12, CALLS, TINY(12)), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "get", 13, CALLS, TINY(12)), TIME);
    CHECK_EQ_INT(RULE("app/Main", "fib", 20, CALLS, TINY(80)), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "alloc", 12, ARRAY | LOCKS | CALLS, TINY(12)), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "sum", 40, 0, TINY(12)), COUNT);       /* a leaf: still counted */
    CHECK_EQ_INT(RULE("app/Main", "sum", CF_LEAF_MAX + 1, 0, TINY(12)), TIME);
    CHECK_EQ_INT(RULE("app/Main", "sum", CF_LEAF_MAX + 1, 0, TINY(100)), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "loop", 5, LOOPS, TINY(100)), TIME);   /* a loop: always timed */
    CHECK_EQ_INT(RULE("app/Main", "get", 1, 0, TINY0), TIME);            /* tiny=0: every method */
    /* system class initializers are left out (HPROF's rule), others' are not */
    CHECK_EQ_INT(RULE("java/util/HashMap", "<clinit>", 100, CALLS | LOOPS, DEFAULT), SKIP);
    CHECK_EQ_INT(RULE("javax/swing/X", "<clinit>", 100, CALLS | LOOPS, DEFAULT), SKIP);
    CHECK_EQ_INT(RULE("jdk/internal/Y", "<clinit>", 100, CALLS | LOOPS, DEFAULT), SKIP);
    CHECK_EQ_INT(RULE("sun/misc/Z", "<clinit>", 100, CALLS | LOOPS, DEFAULT), SKIP);
    CHECK_EQ_INT(RULE("com/sun/W", "<clinit>", 100, CALLS | LOOPS, DEFAULT), SKIP);
    CHECK_EQ_INT(RULE("java/util/HashMap", "<clinit>", 5, 0, DEFAULT), SKIP); /* not even counted */
    CHECK_EQ_INT(RULE("com/example/App", "<clinit>", 100, CALLS | LOOPS, DEFAULT), TIME);
    CHECK_EQ_INT(RULE("java/util/HashMap", "<init>", 100, CALLS | LOOPS, DEFAULT), TIME);
    CHECK_EQ_INT(RULE("javafoo/Bar", "<clinit>", 100, CALLS | LOOPS, DEFAULT), TIME);
    /* Thread.currentThread, and only it */
    CHECK_EQ_INT(RULE("java/lang/Thread", "currentThread", 100, CALLS | LOOPS, TINY0), SKIP);
    CHECK_EQ_INT(RULE("java/lang/Thread", "run", 100, CALLS | LOOPS, TINY0), TIME);
    CHECK_EQ_INT(RULE("app/Thread", "currentThread", 100, CALLS | LOOPS, TINY0), TIME);
    /* what Tracker.count runs: never, timed or counted (it would count itself) */
    CHECK_EQ_INT(RULE("sun/misc/Unsafe", "getAndAddLong", 10, CALLS, TINY(12)), SKIP);
    CHECK_EQ_INT(RULE("sun/misc/Unsafe", "getAndAddLong", 10, CALLS, TINY0), SKIP);
    CHECK_EQ_INT(RULE("jdk/internal/misc/Unsafe", "getAndAddLong", 30, CALLS | LOOPS, DEFAULT), SKIP);
    CHECK_EQ_INT(RULE("jdk/internal/misc/UnsafeX", "get", 30, CALLS | LOOPS, TINY(12)), TIME);
    CHECK_EQ_INT(RULE("java/lang/ThreadLocal", "get", 10, CALLS, TINY(12)), COUNT);
    CHECK_EQ_INT(RULE("java/lang/ThreadLocal", "get", 10, CALLS, DEFAULT), TIME);
}

int main(void)
{
    RUN(test_class_filter);
    RUN(test_method_rules);
    return DONE();
}
