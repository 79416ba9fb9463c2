/* elf_symbols.h — the function symbols of one ELF64 file, for naming native
 * frames: .symtab and .dynsym merged and sorted by address, or, where the file
 * has no .symtab, those of its separate debug file when one is installed (by
 * build id under /usr/lib/debug/.build-id/, or by .gnu_debuglink). Loaded on
 * the agent thread (it allocates and reads files); lookups are read-only, so
 * any thread may use a loaded table. Names are as in the file (C++ mangled). */
#ifndef ELF_SYMBOLS_H
#define ELF_SYMBOLS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct elf_symbols elf_symbols;

/* The function symbols of the ELF file at path (see above); NULL if the file cannot be read or is not ELF64. */
elf_symbols *elf_symbols_load(const char *path);
/* The same, of an image already in memory (e.g. the vDSO); data must stay mapped only during the call. */
elf_symbols *elf_symbols_load_image(const void *data, size_t len);
/* The function containing vaddr (an ELF virtual address, i.e. runtime pc - load bias): its name, and its start
 * address into *start (may be NULL); NULL when none (past a symbol's size counts as none when the size is known). */
const char *elf_symbols_find(const elf_symbols *s, uint64_t vaddr, uint64_t *start);
/* The ELF virtual address of the function named name, 0 if none. */
uint64_t elf_symbols_address(const elf_symbols *s, const char *name);
/* The GNU build id in hex, "" if none. */
const char *elf_symbols_build_id(const elf_symbols *s);
/* How many symbols the table holds (after merging duplicates). */
size_t elf_symbols_count(const elf_symbols *s);
/* Whether the symbols came (also) from a separate debug file. */
int elf_symbols_from_debug_file(const elf_symbols *s);
/* Whether s is a full symbol table (.symtab, the file's own or its separate debug file's), which names
 * local functions too; false when only .dynsym's exported functions are known (a stripped library). */
bool elf_symbols_complete(const elf_symbols *s);
void elf_symbols_free(elf_symbols *s);

#endif
