/* classfile.h — the class-file rewriter's public interface: bytes in, bytes
 * out, no JVMTI. cf_rewrite parses a class file (any version 45 … 69),
 * injects `invokestatic` calls to a tracker class into the methods a caller
 * selects, and returns the new class file:
 *
 *   CF_INJECT_CALLS     push id, invokestatic enter(I)V   at method entry, and
 *                       push id, invokestatic exit(I)V    before every *return, and
 *                       push id, invokestatic exitThrow(I)V (the tracker's exit_throw, or exit)
 *                       in a catch-all handler covering the method (then athrow; not in
 *                       <init>, whose uninitialized `this` no single handler frame can describe)
 *                       or, for a method select() marks CF_SELECT_COUNT_ONLY,
 *                       push id, invokestatic count(I)V    at method entry only
 *   CF_INJECT_OBJINIT   aload_0, invokestatic objectInit(Object)V       at entry of java/lang/Object.<init>
 *   CF_INJECT_NEWARRAY  dup, invokestatic newArray(Object)V             after (multi)(a)newarray
 *
 * id is the method's number, chosen by the caller's select() (6 bytes per
 * call site: sipush or ldc_w, invokestatic). Malformed input, including
 * malformed code in any method, returns JP_ERR_FORMAT with a message and no
 * output: the class loads unchanged and the JVM judges it. A well-formed
 * method that cannot be rewritten (too big after injection, a widened branch
 * whose stack map frame cannot be inferred) is left unchanged and counted in
 * methods_unchanged. */
#ifndef CLASSFILE_H
#define CLASSFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/jp_error.h"

enum {
    CF_INJECT_CALLS = 1u << 0,    /* entry and exit calls, in the methods select() picks */
    CF_INJECT_OBJINIT = 1u << 1,
    CF_INJECT_NEWARRAY = 1u << 2, /* in every method */
};

#define CF_MAJOR_MIN 45
#define CF_MAJOR_MAX 69 /* Java 25 */

/* A method as the selector sees it. name and desc are NUL-terminated
 * (modified UTF-8, as in the class file); valid only during the call. */
typedef struct cf_method_view {
    uint16_t index;      /* position in the class file: the mnum */
    uint16_t access;     /* ACC_* flags */
    const char *name, *desc;
    uint32_t code_length; /* 0 for abstract and native methods */
    bool calls;           /* has an invoke instruction */
    bool loops;           /* has a backward branch or a switch */
} cf_method_view;

/* Returns the id the entry/exit calls of this method carry, or 0 to leave
 * the method without them; with CF_SELECT_COUNT_ONLY or'ed in, the method
 * gets only a count(id) call at entry (ids are below that bit). Called once
 * per method that has code, in class-file order. */
#define CF_SELECT_COUNT_ONLY 0x80000000u
typedef uint32_t (*cf_select_fn)(void *ctx, const cf_method_view *m);

/* The class whose static methods the injected code calls, and their names.
 * Their descriptors are fixed by the code injected: an int (the method's id)
 * for entry and exit, the new object for the allocation calls. */
#define CF_TRACKER_ID_DESC "(I)V"
#define CF_TRACKER_OBJECT_DESC "(Ljava/lang/Object;)V"
#define CF_TRACKER_THIS_DESC "(Ljava/lang/Object;I)V"
typedef struct cf_tracker {
    const char *cls;                     /* internal name, e.g. "jvmprof/Tracker" */
    const char *enter, *exit;            /* CF_TRACKER_ID_DESC: a selected method's entry and every exit */
    const char *count;                   /* CF_TRACKER_ID_DESC: a count-only method's entry */
    const char *exit_throw;              /* CF_TRACKER_ID_DESC: the catch-all handler's exit (NULL: exit) */
    const char *object_init, *new_array; /* CF_TRACKER_OBJECT_DESC: at Object.<init>, after each array allocation */
    const char *enter_this;              /* CF_TRACKER_THIS_DESC: an instance method's entry, with its receiver
                                          * (not a constructor's: its receiver is not an object yet); NULL: enter */
} cf_tracker;

typedef struct cf_inject_spec {
    const cf_tracker *tracker;
    unsigned what;        /* CF_INJECT_* bits */
    cf_select_fn select;  /* NULL: every method with code, id = its index + 1 */
    void *ctx;
} cf_inject_spec;

typedef struct cf_result {
    unsigned char *bytes; /* malloc'ed; NULL when nothing was injected */
    size_t len;
    uint16_t major;
    uint32_t methods;           /* methods with code */
    uint32_t methods_rewritten; /* methods that got at least one call */
    uint32_t methods_unchanged; /* selected (or with allocations) but left as they were */
    uint32_t entries, exits, counts, objinits, newarrays; /* calls injected */
    uint32_t handlers;          /* catch-all handlers injected (exit on a throw) */
    uint32_t widened;           /* branches widened to 32-bit forms */
    uint32_t frames_added;      /* stack map frames the rewriter inferred */
    char source_file[128];      /* the SourceFile attribute, "" if none (or too long) */
    char why[320];              /* the error, or why the last unchanged method was left */
} cf_result;

/* Rewrites in[0..len). On JP_OK, out->bytes is the new class file (free() it)
 * or NULL if no method needed a call. On error, out->why says what was wrong. */
jp_status cf_rewrite(const unsigned char *in, size_t len, const cf_inject_spec *spec, cf_result *out);

/* The internal name of the class (this_class), e.g. "java/lang/String",
 * copied NUL-terminated into name[cap]. JP_ERR_FORMAT if unreadable. */
jp_status cf_class_name(const unsigned char *in, size_t len, char *name, size_t cap);

#endif
