/* selection.h — which classes and methods get the entry and exit calls of
 * cpu=times: the class filter (include=/exclude= name prefixes; never
 * jvmprof's own classes) and the method rules (code to instrument, not a
 * tiny loop-free method, not a system class's initializer, not
 * Thread.currentThread). Pure: the agent's ClassFileLoadHook (bci.c) asks
 * it for every class and method, and tests/unit/test_selection.c tests it. */
#ifndef SELECTION_H
#define SELECTION_H

#include <stdbool.h>
#include <stdint.h>

/* class_name in internal form (java/util/HashMap); include and exclude are
 * ':'-separated dotted prefixes ("" = no rule); exclude wins. */
bool cf_class_selected(const char *class_name, const char *include, const char *exclude);

/* A method of class class_name (internal form) with code_length bytes of
 * bytecode (0: native or abstract), that makes calls and/or has loops;
 * tiny: the size under which a loop-free method is left out (0: none is). */
bool cf_method_selected(const char *class_name, const char *name, uint32_t code_length, bool calls, bool loops,
                        unsigned tiny);

#endif
