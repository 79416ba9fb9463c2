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
 *   CF_INJECT_ALLOCS    a count after each allocation the caller's alloc() gives a site
 *                       number (see cf_alloc_how): new, (a)newarray, multianewarray,
 *                       and calls of the methods named in alloc_calls (the VM's
 *                       allocating natives and intrinsics)
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
    CF_INJECT_ALLOCS = 1u << 3,   /* in every method, at the sites alloc() picks */
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
    bool newarray;        /* allocates an array */
    bool locks;           /* has a monitorenter */
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

/* CF_INJECT_ALLOCS: what an allocation site allocates, and so the count
 * injected after it (site: the number alloc() gave it, pushed with sipush
 * or ldc_w; the Tracker's method names are in cf_alloc_tracker):
 *   OBJECT        new C                 site; invokestatic (I)V
 *   ARRAY_1 .. _REF (a)newarray of 1-, 2-, 4-, 8-byte or reference elements
 *                                       dup; arraylength; site; invokestatic (II)V
 *   MULTI         multianewarray        dup; site; invokestatic (Ljava/lang/Object;I)V
 *   RESULT        a call that returns a new object of a class only known then
 *                                       dup; site; invokestatic (Ljava/lang/Object;I)V
 *   RESULT_MULTI  the same, a multi-dimensional array
 *   CLONE         a call of clone() that may or may not reach Object.clone:
 *                 dup before the call (the receiver), then
 *                                       dup_x1; site; invokestatic (Ljava/lang/Object;Ljava/lang/Object;I)V
 * Every count follows the instruction, so it counts only what was made. */
typedef enum cf_alloc_how {
    CF_ALLOC_SKIP = 0,
    CF_ALLOC_OBJECT,
    CF_ALLOC_ARRAY_1, CF_ALLOC_ARRAY_2, CF_ALLOC_ARRAY_4, CF_ALLOC_ARRAY_8, CF_ALLOC_ARRAY_REF,
    CF_ALLOC_MULTI,
    CF_ALLOC_RESULT,
    CF_ALLOC_RESULT_MULTI,
    CF_ALLOC_CLONE,
    CF_ALLOC_HOWS
} cf_alloc_how;
#define CF_ALLOC_SITE_DESC "(I)V"
#define CF_ALLOC_ARRAY_DESC "(II)V"
#define CF_ALLOC_OBJECT_DESC "(Ljava/lang/Object;I)V"
#define CF_ALLOC_CLONE_DESC "(Ljava/lang/Object;Ljava/lang/Object;I)V"

/* The Tracker's method for each way of counting ([CF_ALLOC_SKIP] unused). */
typedef struct cf_alloc_tracker {
    const char *cls; /* internal name, e.g. "jvmprof/AllocCounts" */
    const char *method[CF_ALLOC_HOWS];
} cf_alloc_tracker;

/* An allocating instruction as alloc() sees it. */
typedef struct cf_alloc_view {
    const cf_method_view *method;
    uint32_t pc;             /* its offset in the original code */
    int32_t line;            /* its source line (LineNumberTable), or -1 */
    uint8_t opcode;
    const char *type;        /* new: the class (java/lang/String); newarray: "[I" ...; anewarray and
                              * multianewarray: the array's descriptor ("[Ljava/lang/String;", "[[I");
                              * an invoke: the owner class (an array descriptor for arr.clone()) */
    const char *name, *desc; /* an invoke's method; NULL otherwise */
    uint8_t dims;            /* multianewarray: the dimensions it makes */
} cf_alloc_view;
/* Returns the site number (> 0) the count carries and sets *how, or 0 for no count. */
typedef uint32_t (*cf_alloc_fn)(void *ctx, const cf_alloc_view *a, cf_alloc_how *how);

typedef struct cf_inject_spec {
    const cf_tracker *tracker;
    unsigned what;        /* CF_INJECT_* bits */
    cf_select_fn select;  /* NULL: every method with code, id = its index + 1 */
    void *ctx;
    /* CF_INJECT_ALLOCS */
    const cf_alloc_tracker *alloc_tracker;
    cf_alloc_fn alloc;
    const char *const *alloc_calls; /* NULL-terminated: the method names whose invokes alloc() is asked about */
} cf_inject_spec;

typedef struct cf_result {
    unsigned char *bytes; /* malloc'ed; NULL when nothing was injected */
    size_t len;
    uint16_t major;
    uint32_t methods;           /* methods with code */
    uint32_t methods_rewritten; /* methods that got at least one call */
    uint32_t methods_unchanged; /* selected (or with allocations) but left as they were */
    uint32_t entries, exits, counts, objinits, newarrays; /* calls injected */
    uint32_t alloc_counts;      /* CF_INJECT_ALLOCS: counts injected */
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
