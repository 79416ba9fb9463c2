/* stackmap.h — carrying a method's StackMapTable over to the rewritten
 * code (stackmap.c): frame offsets re-encoded as deltas of the new layout,
 * Uninitialized(offset) types pointed at the moved `new` instructions. */
#ifndef STACKMAP_H
#define STACKMAP_H

#include "bytecode.h"
#include "classfile_internal.h"

typedef struct stackmap_ctx {
    const cf_class *cls;
    const cf_member *method;
    const unsigned char *code;
    uint32_t code_len;
    uint16_t max_locals, max_stack;
    cp_append *cp;                                   /* for the Class entries an inferred frame needs */
    uint16_t smt_name;                               /* Utf8 "StackMapTable" */
    void *map;                                       /* passed to the three functions below */
    uint32_t (*new_target)(void *map, uint32_t old); /* where a jump to old lands now */
    uint32_t (*new_insn)(void *map, uint32_t old);   /* where the instruction at old is now */
    bool (*is_insn)(void *map, uint32_t old);
} stackmap_ctx;

/* Whether old offset off holds a `new`, as an Uninitialized(off) type needs. */
static inline bool stackmap_is_new(const stackmap_ctx *sm, uint32_t off)
{
    return sm->is_insn(sm->map, off) && sm->code[off] == OP_NEW;
}

/* Appends the rewritten StackMapTable attribute a (header included) to out.
 * need[0..nneed) are old offsets of conditional branches widened into
 * `if!cond +8; goto_w`: the instruction after each must have a frame.
 * When one is needed that the table does not have, the table is rebuilt by
 * stackmap_rewrite_full. handler_at >= 0 appends the frame of the injected
 * catch-all handler there. */
jp_status stackmap_rewrite(const stackmap_ctx *sm, const cf_attr *a, const uint32_t *need, uint32_t nneed,
                           int64_t handler_at, uint16_t throwable, buf *out, uint32_t *frames_added, char *why,
                           size_t cap);

/* The same, writing every frame as a full frame, with the frames the
 * widened branches at old offsets ifs[0..nifs) need inferred (frames.c).
 * a may be NULL (no table yet). */
jp_status stackmap_rewrite_full(const stackmap_ctx *sm, const cf_attr *a, const uint32_t *ifs, uint32_t nifs,
                                int64_t handler_at, uint16_t throwable, buf *out, uint32_t *frames_added, char *why,
                                size_t cap);

/* The frame of the injected catch-all handler at new offset handler_at:
 * full_frame, no locals, stack [Throwable], as the first frame of a table
 * (delta = offset). */
void stackmap_put_handler_frame(buf *out, uint32_t delta, uint16_t throwable);

#endif
