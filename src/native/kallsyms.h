/* kallsyms.h — the kernel's function symbols from /proc/kallsyms (or a file of its form), sorted by address, to
 * name the kernel frames of perf_event callchains. Loaded once (it allocates), then read without locks. */
#ifndef JP_NATIVE_KALLSYMS_H
#define JP_NATIVE_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kallsyms kallsyms;

/* Loads the text symbols (types t, T, w, W; a module's too) of path (NULL: /proc/kallsyms). NULL with errno when
 * the file cannot be read or holds no symbol. */
kallsyms *kallsyms_load(const char *path);

/* The function addr lies in: the symbol at or below it, if addr is below the next symbol (or within 1 MiB past the
 * last one); NULL otherwise or when !kallsyms_usable(k). Of symbols at one address, a global one first. */
const char *kallsyms_find(const kallsyms *k, uint64_t addr);

/* As kallsyms_find, with the symbol's start in *start. */
const char *kallsyms_find_start(const kallsyms *k, uint64_t addr, uint64_t *start);

/* The address of the symbol named name (the first in address order), 0 if none. Linear: not for hot paths. */
uint64_t kallsyms_addr(const kallsyms *k, const char *name);

/* False when every address read as 0 (kernel.kptr_restrict, or not root): the kernel frames cannot be named. */
bool kallsyms_usable(const kallsyms *k);

/* How many symbols were loaded. */
size_t kallsyms_count(const kallsyms *k);

void kallsyms_free(kallsyms *k);

#endif
