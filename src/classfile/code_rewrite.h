/* code_rewrite.h — rewriting one method's Code attribute (code_rewrite.c):
 * what to inject, and the counts of what was injected. */
#ifndef CODE_REWRITE_H
#define CODE_REWRITE_H

#include "classfile_internal.h"

typedef struct code_inject {
    bool entry_exit;   /* enter(id) at entry, exit(id) before each return */
    bool count;        /* count(id) at entry, nothing else */
    bool objinit;      /* aload_0; objectInit(Object) at entry */
    bool newarray;     /* dup; newArray(Object) after each array allocation */
    bool handler;      /* a catch-all handler at the end: exit(id); athrow */
    bool enter_this;   /* the entry is aload_0; enterThis(this, id) */
    bool allocs;       /* a count after each allocation alloc() picks (CF_INJECT_ALLOCS) */
    const cf_inject_spec *spec;     /* allocs: alloc(), its context, the names of allocating calls */
    const cf_method_view *view;     /* allocs: the method, for alloc() */
    uint16_t tracker_cls;           /* allocs: the Tracker's Class entry */
    uint16_t alloc_ref[CF_ALLOC_HOWS]; /* allocs: the Tracker's Methodrefs, added at first use */
    uint32_t id;
    uint16_t enter_ref, exit_ref, exit_throw_ref, count_ref, objinit_ref, newarray_ref, enter_this_ref; /* Methodrefs */
    uint16_t id_cp;            /* Integer constant for an id over 32767, else 0 */
    uint16_t throwable;        /* Class java/lang/Throwable, for the handler's stack map frame */
    uint16_t smt_name;         /* Utf8 "StackMapTable", for methods that need a table they lack */
    uint16_t major;
    cp_append *cp;             /* the class's new constant-pool entries */
} code_inject;

typedef struct code_stats {
    uint32_t entries, exits, counts, handlers, objinits, newarrays, widened, frames_added, allocs;
} code_stats;

/* Memory reused from one method to the next of a class: instruction tables
 * and the code and tail buffers. Zero-initialize; free with code_scratch_free. */
typedef struct insn insn;
typedef struct code_scratch {
    insn *ins;
    int32_t *at;
    uint32_t cap;
    buf code, tail;
} code_scratch;
void code_scratch_free(code_scratch *sc);

/* Appends the rewritten Code attribute (with its 6-byte header) of method m
 * to out and adds to *st. JP_ERR_FORMAT: the code is malformed; JP_ERR_ARG:
 * the method cannot be rewritten (why says which); out is then unchanged
 * except for its length, which the caller restores. */
jp_status code_rewrite(const cf_class *c, const cf_member *m, const code_inject *inj, code_scratch *sc, buf *out,
                       code_stats *st, char *why, size_t cap);

#endif
