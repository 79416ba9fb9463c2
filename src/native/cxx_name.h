/* cxx_name.h — the short form of a demangled C++ name, as a profile shows a
 * native frame: the qualified function name without its parameter list,
 * cv- and ref-qualifiers, return type and the compiler's " [clone .xxx]"
 * suffixes ("jni_invoke_static(JNIEnv_*, ...) [clone .constprop.1]" is
 * "jni_invoke_static", "void G1ParScanThreadState::do_copy<true>(oop*)" is
 * "G1ParScanThreadState::do_copy<true>"). Overloads share a short name, as
 * they do in async-profiler's and perf's folded output. Pure; no allocation. */
#ifndef CXX_NAME_H
#define CXX_NAME_H

#include <stddef.h>

/* The short form of demangled (NUL-terminated) as [*start, *start + return):
 * its length, and where it starts. A name that is not a function's (no
 * parameter list, "vtable for X") is kept whole but for its clone suffixes. */
size_t cxx_name_short(const char *demangled, size_t *start);

#endif
