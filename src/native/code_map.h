/* code_map.h — the process's code as mapped, read from /proc/self/maps (or any
 * maps file, for tests): which library holds a pc and its load bias (with the
 * library's unwind table, dwarf_cfi), and which address ranges are readable
 * (the bounds of a stack). Libraries live in a code_libs that only grows, so a
 * snapshot (code_map) taken later reuses the tables already loaded (a library
 * is known by path, device, inode and load bias), and pointers taken from an
 * old snapshot stay valid until code_libs_free. Reading maps and naming frames
 * allocate and read files: one thread (the agent's) does them; the lookups
 * marked async-signal-safe only read an immutable snapshot. */
#ifndef CODE_MAP_H
#define CODE_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "dwarf_cfi.h"
#include "elf_symbols.h"

typedef struct code_lib {            /* one mapped ELF file (or anonymous executable memory: path "") */
    char *path;
    const char *name;                /* the basename of path ("libc.so.6"); "[anon]" for anonymous memory */
    uint64_t load_bias;              /* runtime address - ELF vaddr (from the file's PT_LOAD headers and the
                                      * mapping's offset) */
    dwarf_cfi *cfi;                  /* loaded when the lib is first seen; NULL: none */
    elf_symbols *syms;               /* loaded lazily by code_map_symbol (agent thread) */
} code_lib;

typedef struct code_libs code_libs;  /* the libraries seen so far: only grows */
typedef struct code_map code_map;    /* one immutable snapshot: executable ranges -> lib, and readable ranges */

code_libs *code_libs_new(void);
void code_libs_free(code_libs *libs);
/* How many libraries libs holds (anonymous memory counted once when seen). */
unsigned code_libs_count(const code_libs *libs);

/* A snapshot of maps_path (NULL: /proc/self/maps); new libraries are added to libs with their CFI loaded. NULL if
 * the file cannot be read or memory runs out. */
code_map *code_map_read(code_libs *libs, const char *maps_path);
void code_map_free(code_map *m);     /* the snapshot only, not the libs */

/* async-signal-safe (binary search): the lib whose executable mapping holds pc, NULL if none */
const code_lib *code_map_find(const code_map *m, uint64_t pc);
/* async-signal-safe: the contiguous readable span [lo, hi) holding addr (adjacent readable mappings merged) */
bool code_map_readable(const code_map *m, uint64_t addr, uint64_t *lo, uint64_t *hi);
/* agent thread: the symbol of pc (loads the lib's symbols on first use): the lib (NULL: pc not in code), its
 * symbol in *sym (NULL if none), the offset of pc in the lib's vaddr space in *vaddr */
const code_lib *code_map_symbol(const code_map *m, uint64_t pc, const char **sym, uint64_t *vaddr);
/* agent thread: the runtime address of function name in the first library (lowest address) that defines it,
 * skipping a lib whose path contains skip_substr if not NULL; 0 if none */
uint64_t code_map_function_address(const code_map *m, const char *name, const char *skip_substr);

#endif
