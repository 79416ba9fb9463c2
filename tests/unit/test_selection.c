/* test_selection.c — the class filter and the method rules of cpu=times
 * (src/classfile/selection.c): include=/exclude= prefixes (dotted, ':'-
 * separated, exclude wins, a prefix matches a package or a class name's
 * start), jvmprof's own classes never, and which methods get entry/exit
 * calls: not native or abstract, not tiny loop-free ones (tiny=, and 32
 * bytes without calls), not system class initializers, not
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

static void test_method_rules(void)
{
    /* native or abstract: no code */
    CHECK_EQ_INT(RULE("app/Main", "run", 0, false, false, 12), SKIP);
    CHECK_EQ_INT(RULE("app/Main", "run", 0, true, true, 0), SKIP);
    /* tiny: loop-free methods of at most tiny bytes, and of at most 32 without calls, are counted */
    CHECK_EQ_INT(RULE("app/Main", "get", 5, false, false, 12), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "get", 12, true, false, 12), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "get", 13, true, false, 12), TIME);
    CHECK_EQ_INT(RULE("app/Main", "sum", 32, false, false, 12), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "sum", 33, false, false, 12), TIME);
    CHECK_EQ_INT(RULE("app/Main", "get", 40, true, false, 40), COUNT);
    CHECK_EQ_INT(RULE("app/Main", "loop", 5, false, true, 12), TIME);     /* a loop: always timed */
    CHECK_EQ_INT(RULE("app/Main", "get", 1, false, false, 0), TIME);      /* tiny=0: every method */
    /* system class initializers are left out (HPROF's rule), others' are not */
    CHECK_EQ_INT(RULE("java/util/HashMap", "<clinit>", 100, true, true, 12), SKIP);
    CHECK_EQ_INT(RULE("javax/swing/X", "<clinit>", 100, true, true, 12), SKIP);
    CHECK_EQ_INT(RULE("jdk/internal/Y", "<clinit>", 100, true, true, 12), SKIP);
    CHECK_EQ_INT(RULE("sun/misc/Z", "<clinit>", 100, true, true, 12), SKIP);
    CHECK_EQ_INT(RULE("com/sun/W", "<clinit>", 100, true, true, 12), SKIP);
    CHECK_EQ_INT(RULE("java/util/HashMap", "<clinit>", 5, false, false, 12), SKIP); /* not even counted */
    CHECK_EQ_INT(RULE("com/example/App", "<clinit>", 100, true, true, 12), TIME);
    CHECK_EQ_INT(RULE("java/util/HashMap", "<init>", 100, true, true, 12), TIME);
    CHECK_EQ_INT(RULE("javafoo/Bar", "<clinit>", 100, true, true, 12), TIME);
    /* Thread.currentThread, and only it */
    CHECK_EQ_INT(RULE("java/lang/Thread", "currentThread", 100, true, true, 0), SKIP);
    CHECK_EQ_INT(RULE("java/lang/Thread", "run", 100, true, true, 0), TIME);
    CHECK_EQ_INT(RULE("app/Thread", "currentThread", 100, true, true, 0), TIME);
    /* what Tracker.count runs: never, timed or counted (it would count itself) */
    CHECK_EQ_INT(RULE("sun/misc/Unsafe", "getAndAddLong", 10, true, false, 12), SKIP);
    CHECK_EQ_INT(RULE("sun/misc/Unsafe", "getAndAddLong", 10, true, false, 0), SKIP);
    CHECK_EQ_INT(RULE("jdk/internal/misc/Unsafe", "getAndAddLong", 30, true, true, 12), SKIP);
    CHECK_EQ_INT(RULE("jdk/internal/misc/UnsafeX", "get", 30, true, true, 12), TIME);
    CHECK_EQ_INT(RULE("java/lang/ThreadLocal", "get", 10, true, false, 12), COUNT);
}

int main(void)
{
    RUN(test_class_filter);
    RUN(test_method_rules);
    return DONE();
}
