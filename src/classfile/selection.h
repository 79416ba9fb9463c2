/* selection.h — which classes and methods get the entry and exit calls of
 * cpu=times: the class filter (include=/exclude= name prefixes; never
 * jvmprof's own classes) and the method rules (code to instrument; a tiny
 * loop-free method only counted; never a system class's initializer, nor
 * the JDK code the Tracker's counting runs: Thread.currentThread, Unsafe). Pure: the agent's ClassFileLoadHook (bci.c) asks
 * it for every class and method, and tests/unit/test_selection.c tests it. */
#ifndef SELECTION_H
#define SELECTION_H

#include <stdbool.h>
#include <stdint.h>

/* class_name in internal form (java/util/HashMap); include and exclude are
 * ':'-separated dotted prefixes ("" = no rule); exclude wins. */
bool cf_class_selected(const char *class_name, const char *include, const char *exclude);

/* What a method gets: nothing, a count of its calls (no time of its own:
 * it counts as its caller's), or entry and exit calls that time it. */
typedef enum cf_method_rule { CF_METHOD_SKIP, CF_METHOD_COUNT, CF_METHOD_TIME } cf_method_rule;

/* The rule for a method of class class_name (internal form) with
 * code_length bytes of bytecode (0: native or abstract), that makes calls
 * and/or has loops; tiny: the size up to which a loop-free method is only
 * counted (0: none is). */
cf_method_rule cf_method_rule_of(const char *class_name, const char *name, uint32_t code_length, bool calls,
                                 bool loops, unsigned tiny);

#endif
