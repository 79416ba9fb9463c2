/* selection.c — see selection.h. */
#include "selection.h"

#include <string.h>

/* Whether the dotted form of internal name `name` starts with one of the
 * ':'-separated dotted prefixes of list. */
static bool sel_has_prefix_in(const char *name, const char *list)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ":");
        bool match = n > 0;
        for (size_t i = 0; match && i < n; i++) {
            char c = name[i] == '/' ? '.' : name[i];
            if (c == '\0' || c != p[i])
                match = false;
        }
        if (match)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

bool cf_class_selected(const char *class_name, const char *include, const char *exclude)
{
    if (strncmp(class_name, "jvmprof/", 8) == 0)
        return false; /* the agent's own classes, Tracker first of all */
    if (exclude[0] && sel_has_prefix_in(class_name, exclude))
        return false;
    return !include[0] || sel_has_prefix_in(class_name, include);
}

static bool sel_is_system(const char *c)
{
    return strncmp(c, "java/", 5) == 0 || strncmp(c, "javax/", 6) == 0 || strncmp(c, "jdk/", 4) == 0 ||
           strncmp(c, "sun/", 4) == 0 || strncmp(c, "com/sun/", 8) == 0;
}

/* The JDK code Tracker.count runs (Thread.currentThread and Unsafe's
 * reads and atomic add): a count in it would call itself without end, and a
 * timed call would put the Tracker's own calls in the profile. Classes
 * loaded before VM init (jdk.internal.misc.Unsafe and Thread, at a launch)
 * are never instrumented anyway. */
static bool sel_runs_in_counter(const char *c, const char *name)
{
    if (strcmp(c, "sun/misc/Unsafe") == 0 || strcmp(c, "jdk/internal/misc/Unsafe") == 0)
        return true;
    return strcmp(c, "java/lang/Thread") == 0 && strcmp(name, "currentThread") == 0;
}

/* The JDK code that carries a virtual thread from its carrier and back
 * (java.lang.VirtualThread's mount, unmount and yield, jdk.internal.vm.
 * Continuation's run and yield): a call of it begins on one thread's stack
 * and ends on the other's, so neither could pair its entry and exit. */
static bool sel_moves_vthreads(const char *c)
{
    return strncmp(c, "java/lang/VirtualThread", 23) == 0 && (c[23] == '\0' || c[23] == '$')
               ? true
               : strncmp(c, "jdk/internal/vm/Continuation", 28) == 0 && (c[28] == '\0' || c[28] == '$');
}

cf_method_rule cf_method_rule_of(const char *class_name, const char *name, uint32_t code_length, unsigned shape,
                                 bool leaves, unsigned tiny)
{
    if (code_length == 0)
        return CF_METHOD_SKIP; /* native or abstract */
    if (sel_is_system(class_name) && strcmp(name, "<clinit>") == 0)
        return CF_METHOD_SKIP; /* HPROF's rule: system class initializers run once, at odd times */
    if (sel_runs_in_counter(class_name, name) || sel_moves_vthreads(class_name))
        return CF_METHOD_SKIP;
    /* A straight-line leaf runs each of its at most CF_LEAF_MAX instructions
     * once a call, none of them a call, a loop, a lock or an array to fill:
     * the time it leaves to its caller is bounded, and less than timing it
     * would cost. */
    if (leaves && !shape && code_length <= CF_LEAF_MAX)
        return CF_METHOD_COUNT;
    /* tiny=N, the user's trade: a loop-free method of at most N bytes that
     * calls others is counted too, and its callees' counted time goes with
     * it to its caller, without a bound (a recursion of such methods) */
    if (tiny && !(shape & CF_CODE_LOOPS) && code_length <= tiny)
        return CF_METHOD_COUNT;
    return CF_METHOD_TIME;
}
