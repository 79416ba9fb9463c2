/* unwind.c — see unwind.h. Owns the step rule: the CFA from the CFI rule (or
 * rbp + 16 on the frame pointer chain), the return address at CFA-8, the
 * caller's rbp where the rule says it was saved, the registers a signal
 * trampoline's ucontext_t saved, and the checks that keep a
 * walk of a corrupt or foreign stack from reading outside its bounds or
 * looping. */
#include "unwind.h"

#include <stddef.h>
#include <ucontext.h>

/* The 8-byte word at addr when it lies, aligned, inside [lo, hi). A stack holds the redzones of an ASan build's
 * frames: a profiler reads them knowingly, so this read is not checked in such a build. */
#if defined(__SANITIZE_ADDRESS__)
__attribute__((no_sanitize_address, noinline))
#endif
bool unwind_read(uint64_t addr, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if ((addr & 7) || addr < lo || addr >= hi || hi - addr < 8)
        return false;
    *out = *(const uint64_t *)(uintptr_t)addr;
    return true;
}

/* The offset in a ucontext_t of saved general register reg (REG_RIP, REG_RSP, REG_RBP). */
#define UW_GREG(reg) (offsetof(ucontext_t, uc_mcontext.gregs) + (reg) * sizeof(greg_t))

/* Through a signal trampoline (glibc's __restore_rt: r->pc is its address, the handler's return address): the
 * kernel's ucontext_t lies at sp and holds the interrupted frame's registers. That pc is an interrupted pc, not a
 * return address: the next step must look it up as a leaf (unwind_step_ex says so). */
static bool uw_signal_frame(const code_map *m, unwind_regs *r, uint64_t stack_lo, uint64_t stack_hi)
{
    uint64_t pc, sp, fp;
    if (!unwind_read(r->sp + UW_GREG(REG_RIP), stack_lo, stack_hi, &pc) ||
        !unwind_read(r->sp + UW_GREG(REG_RSP), stack_lo, stack_hi, &sp) ||
        !unwind_read(r->sp + UW_GREG(REG_RBP), stack_lo, stack_hi, &fp))
        return false;
    /* the interrupted frame lies above the signal frame (a handler on an alternate stack is not followed) */
    if (sp <= r->sp || pc == 0 || !code_map_find(m, pc))
        return false;
    r->pc = pc;
    r->sp = sp;
    r->fp = fp;
    return true;
}

bool unwind_step(const code_map *m, unwind_regs *r, bool leaf, uint64_t stack_lo, uint64_t stack_hi)
{
    bool next_leaf;
    return unwind_step_ex(m, r, leaf, stack_lo, stack_hi, &next_leaf);
}

bool unwind_step_ex(const code_map *m, unwind_regs *r, bool leaf, uint64_t stack_lo, uint64_t stack_hi,
                    bool *next_leaf)
{
    *next_leaf = false;
    const code_lib *lib = code_map_find(m, r->pc);
    if (!lib || r->pc == 0)
        return false;
    /* a return address may be the first byte after a call at a function's end: look up the call itself */
    uint64_t at = leaf ? r->pc : r->pc - 1;
    cfi_rule rule;
    uint64_t cfa, fp = r->fp, pc;
    if (lib->cfi && dwarf_cfi_find(lib->cfi, at - lib->load_bias, &rule)) {
        if (rule.cfa_reg == CFI_SIGNAL)
            return *next_leaf = uw_signal_frame(m, r, stack_lo, stack_hi);
        switch (rule.cfa_reg) {
        case CFI_REG_SP: cfa = r->sp + (uint64_t)(int64_t)rule.cfa_off; break;
        case CFI_REG_FP: cfa = r->fp + (uint64_t)(int64_t)rule.cfa_off; break;
        case CFI_REG_PLT: cfa = r->sp + ((int64_t)(at & 15) >= rule.cfa_off ? 16 : 8); break;
        default: return false;   /* CFI_END: the outermost frame */
        }
        if (rule.fp_off != CFI_FP_SAME && !unwind_read(cfa + (uint64_t)(int64_t)rule.fp_off, stack_lo, stack_hi, &fp))
            return false;
    } else {
        /* the frame pointer chain: [rbp] = the caller's rbp, [rbp + 8] = the return address */
        if (r->fp < r->sp || r->fp >= stack_hi || (r->fp & 7) || !unwind_read(r->fp, stack_lo, stack_hi, &fp))
            return false;
        cfa = r->fp + 16;
    }
    /* the caller's frame lies above this one (the return address at CFA-8 at or above sp) */
    if (cfa - 8 < r->sp || cfa <= r->sp || !unwind_read(cfa - 8, stack_lo, stack_hi, &pc))
        return false;
    if (pc == 0 || !code_map_find(m, pc))
        return false;
    r->pc = pc;
    r->sp = cfa;
    r->fp = fp;
    return true;
}

bool unwind_outermost(const code_map *m, const unwind_regs *r, bool leaf)
{
    const code_lib *lib = code_map_find(m, r->pc);
    cfi_rule rule;
    return lib && lib->cfi && r->pc && dwarf_cfi_find(lib->cfi, (leaf ? r->pc : r->pc - 1) - lib->load_bias, &rule) &&
           rule.cfa_reg == CFI_END;
}

int unwind_walk(const code_map *m, const void *ucontext, uint64_t *pcs, int max, unwind_stop_fn stop, void *arg,
                unwind_regs *last, bool *stopped)
{
    unwind_regs r;
    uint64_t lo, hi;
    int n = 0;
    bool end = false, leaf = true;
    unwind_regs_from_ucontext(ucontext, &r);
    if (stopped)
        *stopped = false;
    if (code_map_readable(m, r.sp, &lo, &hi)) {
        while (n < max) {
            if (stop && stop(r.pc, arg)) {
                end = true;
                break;
            }
            pcs[n++] = r.pc;
            if (n == max || !unwind_step_ex(m, &r, leaf, lo, hi, &leaf))
                break;
        }
    }
    if (stopped)
        *stopped = end;
    if (last)
        *last = r;
    return n;
}

void unwind_regs_from_ucontext(const void *ucontext, unwind_regs *r)
{
    const ucontext_t *uc = ucontext;
    r->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    r->sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    r->fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
}
