/* dwarf_cfi.h — the unwind rules of one x86-64 ELF file, from its .eh_frame
 * (DWARF call frame information), as a compact table sorted by address: for
 * each range of code, how to find the canonical frame address (CFA) and where
 * the caller's rbp was saved. The return address is always at CFA-8 on x86-64;
 * a range whose return address is elsewhere, or whose rules need a DWARF
 * expression, has no row (the unwinder falls back to the frame pointer there).
 * Loading allocates (the agent thread); the table is immutable afterwards and
 * dwarf_cfi_find is async-signal-safe (a binary search, no locks, no writes). */
#ifndef DWARF_CFI_H
#define DWARF_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFI_REG_SP 0   /* CFA = rsp + cfa_off */
#define CFI_REG_FP 1   /* CFA = rbp + cfa_off */
#define CFI_REG_PLT 2  /* a PLT entry's expression: CFA = rsp + 8, or rsp + 16 when (pc & 15) >= cfa_off */
#define CFI_END 3      /* the return address is undefined: the outermost frame (_start, thread start) */
#define CFI_SIGNAL 4   /* a signal trampoline (an FDE of augmentation "S", e.g. glibc's __restore_rt): sp points
                        * at the ucontext_t the kernel saved, which holds the interrupted rip, rsp and rbp */
#define CFI_FP_SAME INT32_MIN   /* fp_off: rbp still holds the caller's value */

typedef struct dwarf_cfi dwarf_cfi;

typedef struct cfi_rule {
    uint8_t cfa_reg;   /* CFI_REG_SP, CFI_REG_FP, CFI_REG_PLT, CFI_END, CFI_SIGNAL */
    int32_t cfa_off;   /* see CFI_REG_* */
    int32_t fp_off;    /* CFI_FP_SAME, or where the caller's rbp is saved: CFA + fp_off */
} cfi_rule;

/* The table of the file at path (its .eh_frame found by section header, else through PT_GNU_EH_FRAME); NULL when
 * the file has no .eh_frame or cannot be read. */
dwarf_cfi *dwarf_cfi_load(const char *path);
/* The same, of an ELF image already in memory (e.g. the vDSO); data need stay mapped only during the call. */
dwarf_cfi *dwarf_cfi_load_image(const void *data, size_t len);
void dwarf_cfi_free(dwarf_cfi *c);
/* async-signal-safe: the rule at vaddr (an ELF virtual address); false when no FDE covers it or its rule there
 * is one the table does not hold (an expression, a return address not at CFA-8). */
bool dwarf_cfi_find(const dwarf_cfi *c, uint64_t vaddr, cfi_rule *out);
/* How many rows the table holds (each row: a start address and its rule, up to the next row). */
size_t dwarf_cfi_rows(const dwarf_cfi *c);
/* How many FDEs were read, and how many of them were skipped (malformed, overlapping, unsupported encoding). */
void dwarf_cfi_stats(const dwarf_cfi *c, size_t *fdes, size_t *skipped);

#endif
