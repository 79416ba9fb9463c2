/* unwind.h — one step of a native (C/C++) stack walk on x86-64 Linux: from a
 * frame's registers to its caller's, by the CFI of the pc's library
 * (dwarf_cfi, found through a code_map snapshot), else by the frame pointer
 * chain. Async-signal-safe: no allocation, no locks, no I/O, and no read
 * outside the stack bounds the caller gives. */
#ifndef UNWIND_H
#define UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "code_map.h"

typedef struct unwind_regs {
    uint64_t pc, sp, fp;
} unwind_regs;

/* async-signal-safe: from a frame to its caller. `leaf`: r->pc is the interrupted pc itself (else a return address,
 * looked up at pc-1). Reads only 8-byte aligned words inside [stack_lo, stack_hi). Uses the CFI rule of the pc's
 * library; where none covers it, the frame pointer chain (fp must lie in [sp, stack_hi), and the new sp must be
 * above the old). Through a signal trampoline (CFI_SIGNAL) the caller is the interrupted frame, whose pc is not a
 * return address (unwind_step_ex says so; unwind_step's caller would look it up at pc-1). Returns false
 * (r unchanged) at the end of the stack, an unmapped pc, or anything it cannot trust (a read out of bounds, a
 * caller's pc outside the code map, a stack that does not grow toward its base). */
bool unwind_step(const code_map *m, unwind_regs *r, bool leaf, uint64_t stack_lo, uint64_t stack_hi);
/* The same, saying in *next_leaf whether the new r->pc is an interrupted pc (the step went through a signal
 * frame), which the next step must be given as `leaf`. */
bool unwind_step_ex(const code_map *m, unwind_regs *r, bool leaf, uint64_t stack_lo, uint64_t stack_hi,
                    bool *next_leaf);
/* async-signal-safe: the 8-byte word at addr when it lies, aligned, inside [lo, hi) (a stack's span: read
 * directly, its redzones too in an ASan build); false otherwise. */
bool unwind_read(uint64_t addr, uint64_t lo, uint64_t hi, uint64_t *out);
/* async-signal-safe: whether r's frame is the outermost one, its CFI saying its return address is undefined
 * (a thread's start, _start): where a walk ends without having failed. */
bool unwind_outermost(const code_map *m, const unwind_regs *r, bool leaf);
/* Whether a walk stops at the frame of pc (e.g. the first Java frame); called from the signal handler. */
typedef bool (*unwind_stop_fn)(uint64_t pc, void *arg);

/* async-signal-safe: the native walk of a signal's ucontext: the interrupted pc, then return addresses, into
 * pcs[max], within the readable span holding the interrupted sp. Before storing a frame, stop(pc, arg) (when
 * not NULL) may end the walk there: *stopped is set and *last holds that frame's registers, for a walker of
 * other frames to go on from. Otherwise *last holds the last frame stored. Returns how many pcs were stored
 * (0 when the sp lies in no readable mapping of the snapshot, e.g. a thread started after it). last and
 * stopped may be NULL. */
int unwind_walk(const code_map *m, const void *ucontext, uint64_t *pcs, int max, unwind_stop_fn stop, void *arg,
                unwind_regs *last, bool *stopped);
/* convenience: from a ucontext_t * (x86-64 REG_RIP/RSP/RBP) */
void unwind_regs_from_ucontext(const void *ucontext, unwind_regs *r);

#endif
