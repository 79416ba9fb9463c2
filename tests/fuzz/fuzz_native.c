/* fuzz_native.c — libFuzzer harness for the readers of src/native: an input is
 * taken as an ELF image; its CFI table (dwarf_cfi_load_image) and its symbols
 * (elf_symbols_load_image) are built and looked up at addresses spread over
 * the image's range. Run by `make fuzz-native` (seeds: small shared objects of
 * this machine, copied by the target). */
#include <stddef.h>
#include <stdint.h>

#include "../../src/native/dwarf_cfi.h"
#include "../../src/native/elf_symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dwarf_cfi *c = dwarf_cfi_load_image(data, size);
    elf_symbols *s = elf_symbols_load_image(data, size);
    cfi_rule r;
    uint64_t start;
    for (uint64_t a = 0; a < 0x40000; a += 61) {
        dwarf_cfi_find(c, a, &r);
        elf_symbols_find(s, a, &start);
    }
    dwarf_cfi_find(c, UINT64_MAX, &r);
    elf_symbols_address(s, "main");
    dwarf_cfi_free(c);
    elf_symbols_free(s);
    return 0;
}
