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

/* The table as bytes kallsyms_from_image reads back (on a machine of this byte order): malloc'd, its length in
 * *len; NULL when out of memory. */
void *kallsyms_image(const kallsyms *k, size_t *len);

/* The table in image (len bytes), copied; NULL with errno EINVAL when it is not one kallsyms_image wrote (a wrong
 * magic, a length that does not add up, a name offset past the names, addresses out of order). */
kallsyms *kallsyms_from_image(const void *image, size_t len);

void kallsyms_free(kallsyms *k);

#endif
