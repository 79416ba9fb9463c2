/* elf_image.h — bounds-checked access to an ELF64 little-endian image held in
 * memory (a mapped file, or the vDSO as the kernel maps it): the header, the
 * program and section headers (copied out, so a misaligned or truncated table
 * never faults), sections by name, and the GNU build id. The readers of
 * src/native (elf_symbols, dwarf_cfi, code_map) share it; it never allocates. */
#ifndef ELF_IMAGE_H
#define ELF_IMAGE_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct elf_image {
    const uint8_t *data;
    size_t len;
    Elf64_Ehdr eh;   /* a copy of the header */
} elf_image;

/* false unless data holds an ELF64 little-endian header */
bool elf_image_open(elf_image *img, const void *data, size_t len);
/* The bytes [off, off + size) of the image, NULL when they are not all inside it. */
const uint8_t *elf_image_bytes(const elf_image *img, uint64_t off, uint64_t size);
/* The i-th program / section header, copied into *out; false when outside the image. */
bool elf_image_phdr(const elf_image *img, unsigned i, Elf64_Phdr *out);
bool elf_image_shdr(const elf_image *img, unsigned i, Elf64_Shdr *out);
unsigned elf_image_nsections(const elf_image *img);
/* The first section named name (its header into *out, its index returned), -1 if none. */
int elf_image_section(const elf_image *img, const char *name, Elf64_Shdr *out);
/* The file offset of vaddr through the PT_LOAD segments, and the bytes of the segment's file image from there
 * (never past the image's end); false when no segment holds vaddr inside the image. */
bool elf_image_vaddr_offset(const elf_image *img, uint64_t vaddr, uint64_t *off, uint64_t *avail);
/* The NT_GNU_BUILD_ID note as lowercase hex into hex[cap] ("" when none); its length in hex digits. */
size_t elf_image_build_id(const elf_image *img, char *hex, size_t cap);

#endif
