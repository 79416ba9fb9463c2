/* test_cxx_name.c — cxx_name_short on names as __cxa_demangle gives them
 * (taken from libjvm.so's and libstdc++'s symbol tables). */
#include "harness.h"

#include "../../src/native/cxx_name.h"

static void check_short(const char *full, const char *want, const char *file, int line)
{
    size_t start = 0, len = cxx_name_short(full, &start);
    char got[512];
    snprintf(got, sizeof got, "%.*s", (int)len, full + start);
    th_check_str(got, want, file, line, full, want);
}
#define SHORT(full, want) check_short(full, want, __FILE__, __LINE__)

static void test_functions(void)
{
    SHORT("JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)",
          "JavaCalls::call_helper");
    SHORT("jni_invoke_static(JNIEnv_*, JavaValue*, _jobject*, JNICallType, _jmethodID*, JNI_ArgumentPusher*, "
          "JavaThread*) [clone .constprop.1]",
          "jni_invoke_static");
    SHORT("Thread::call_run()", "Thread::call_run");
    SHORT("InstanceKlass::uncached_lookup_method(Symbol const*, Symbol const*, Klass::OverpassLookupMode, "
          "Klass::PrivateLookupMode) const",
          "InstanceKlass::uncached_lookup_method");
    SHORT("os::PlatformEvent::park(long) [clone .part.0] [clone .cold]", "os::PlatformEvent::park");
    SHORT("void G1ParScanThreadState::do_copy_to_survivor_space<true>(G1HeapRegionAttr, oopDesc*, markWord)",
          "G1ParScanThreadState::do_copy_to_survivor_space<true>");
    SHORT("std::vector<int, std::allocator<int> >::push_back(int const&)",
          "std::vector<int, std::allocator<int> >::push_back");
    SHORT("(anonymous namespace)::helper(int)", "(anonymous namespace)::helper");
    SHORT("Foo::operator()(int) const", "Foo::operator()");
    SHORT("operator new(unsigned long)", "operator new");
    SHORT("Foo::operator bool() const", "Foo::operator bool");
    SHORT("Foo::bar() &&", "Foo::bar");
}

static void test_not_functions(void)
{
    SHORT("vtable for JavaThread", "vtable for JavaThread");
    SHORT("jp_hot_loop", "jp_hot_loop");
    SHORT("guard variable for foo [clone .cold]", "guard variable for foo");
    SHORT("", "");
    SHORT(")", ")");
    SHORT("broken)", "broken)");
}

int main(void)
{
    RUN(test_functions);
    RUN(test_not_functions);
    return DONE();
}
