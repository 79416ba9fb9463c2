/* selection.h — which classes and methods get the entry and exit calls of
 * cpu=times: the class filter (include=/exclude= name prefixes; never
 * jvmprof's own classes) and the method rules (code to instrument; a small
 * straight-line leaf, or with tiny=N a small loop-free method, only counted;
 * never a system class's initializer, nor the JDK code the Tracker's
 * counting runs: Thread.currentThread, Unsafe). Pure: the agent's
 * ClassFileLoadHook (bci.c) asks it for every class and method, and
 * tests/unit/test_selection.c tests it. */
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

/* What a method's code does that can make a call of it last longer than
 * its length says (CF_CODE_* or'ed: 0 = a straight-line leaf). */
enum {
    CF_CODE_CALLS = 1u << 0,    /* an invoke instruction */
    CF_CODE_LOOPS = 1u << 1,    /* a backward branch or a switch */
    CF_CODE_NEWARRAY = 1u << 2, /* allocates an array (time grows with its length) */
    CF_CODE_LOCKS = 1u << 3,    /* synchronized, or monitorenter (may wait) */
};

/* The largest straight-line leaf counted, not timed, by default. */
#define CF_LEAF_MAX 80u

/* The rule for a method of class class_name (internal form) with
 * code_length bytes of bytecode (0: native or abstract) whose code does
 * shape (CF_CODE_*). Counted only: with leaves, a straight-line leaf (shape
 * 0) of at most CF_LEAF_MAX bytes; with tiny > 0 (tiny=N), also any method
 * without loops of at most tiny bytes, calls or not. Everything else with
 * code is timed. cpu=times' default: leaves, tiny 0; tiny=0: neither. */
cf_method_rule cf_method_rule_of(const char *class_name, const char *name, uint32_t code_length, unsigned shape,
                                 bool leaves, unsigned tiny);

#endif
