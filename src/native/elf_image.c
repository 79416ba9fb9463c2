/* elf_image.c — see elf_image.h. Every offset and size read from the image is
 * checked against its length before use; tables are copied out with memcpy. */
#include "elf_image.h"

#include <string.h>

bool elf_image_open(elf_image *img, const void *data, size_t len)
{
    memset(img, 0, sizeof *img);
    if (!data || len < sizeof(Elf64_Ehdr))
        return false;
    memcpy(&img->eh, data, sizeof img->eh);
    const unsigned char *id = img->eh.e_ident;
    if (memcmp(id, ELFMAG, SELFMAG) != 0 || id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB)
        return false;
    img->data = data;
    img->len = len;
    return true;
}

const uint8_t *elf_image_bytes(const elf_image *img, uint64_t off, uint64_t size)
{
    if (off > img->len || size > img->len - off)
        return NULL;
    return img->data + off;
}

bool elf_image_phdr(const elf_image *img, unsigned i, Elf64_Phdr *out)
{
    if (i >= img->eh.e_phnum || img->eh.e_phentsize < sizeof *out)
        return false;
    const uint8_t *p = elf_image_bytes(img, img->eh.e_phoff + (uint64_t)i * img->eh.e_phentsize, sizeof *out);
    if (!p)
        return false;
    memcpy(out, p, sizeof *out);
    return true;
}

bool elf_image_shdr(const elf_image *img, unsigned i, Elf64_Shdr *out)
{
    if (i >= img->eh.e_shnum || img->eh.e_shentsize < sizeof *out)
        return false;
    const uint8_t *p = elf_image_bytes(img, img->eh.e_shoff + (uint64_t)i * img->eh.e_shentsize, sizeof *out);
    if (!p)
        return false;
    memcpy(out, p, sizeof *out);
    return true;
}

unsigned elf_image_nsections(const elf_image *img)
{
    return img->eh.e_shoff ? img->eh.e_shnum : 0;
}

int elf_image_section(const elf_image *img, const char *name, Elf64_Shdr *out)
{
    Elf64_Shdr strs;
    if (!elf_image_shdr(img, img->eh.e_shstrndx, &strs))
        return -1;
    const char *names = (const char *)elf_image_bytes(img, strs.sh_offset, strs.sh_size);
    if (!names)
        return -1;
    size_t want = strlen(name) + 1;
    for (unsigned i = 0; i < elf_image_nsections(img); i++) {
        Elf64_Shdr sh;
        if (!elf_image_shdr(img, i, &sh) || sh.sh_name >= strs.sh_size || strs.sh_size - sh.sh_name < want)
            continue;
        if (memcmp(names + sh.sh_name, name, want) == 0) {
            *out = sh;
            return (int)i;
        }
    }
    return -1;
}

bool elf_image_vaddr_offset(const elf_image *img, uint64_t vaddr, uint64_t *off, uint64_t *avail)
{
    for (unsigned i = 0; i < img->eh.e_phnum; i++) {
        Elf64_Phdr ph;
        if (!elf_image_phdr(img, i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
            uint64_t at = ph.p_offset + (vaddr - ph.p_vaddr), n = ph.p_filesz - (vaddr - ph.p_vaddr);
            if (at < ph.p_offset || at >= img->len)
                return false;   /* the segment's file image is not (all) in this image */
            *off = at;
            *avail = n < img->len - at ? n : img->len - at;
            return true;
        }
    }
    return false;
}

/* Walks the notes in [p, p + len) for NT_GNU_BUILD_ID "GNU". */
static size_t ei_build_id_in(const uint8_t *p, uint64_t len, char *hex, size_t cap)
{
    static const char digits[] = "0123456789abcdef";
    uint64_t at = 0;
    while (len - at >= 12) {
        uint32_t w[3];
        memcpy(w, p + at, 12);
        uint64_t namesz = (w[0] + 3ull) & ~3ull, descsz = (w[1] + 3ull) & ~3ull;
        if (namesz > len - at - 12 || descsz > len - at - 12 - namesz)
            return 0;
        const uint8_t *name = p + at + 12, *desc = name + namesz;
        if (w[2] == NT_GNU_BUILD_ID && w[0] == 4 && memcmp(name, "GNU", 4) == 0) {
            size_t n = 0;
            for (uint32_t i = 0; i < w[1] && n + 2 < cap; i++) {
                hex[n++] = digits[desc[i] >> 4];
                hex[n++] = digits[desc[i] & 15];
            }
            hex[n] = '\0';
            return n;
        }
        at += 12 + namesz + descsz;
    }
    return 0;
}

size_t elf_image_build_id(const elf_image *img, char *hex, size_t cap)
{
    if (cap == 0)
        return 0;
    hex[0] = '\0';
    for (unsigned i = 0; i < elf_image_nsections(img); i++) {
        Elf64_Shdr sh;
        const uint8_t *p;
        if (elf_image_shdr(img, i, &sh) && sh.sh_type == SHT_NOTE &&
            (p = elf_image_bytes(img, sh.sh_offset, sh.sh_size))) {
            size_t n = ei_build_id_in(p, sh.sh_size, hex, cap);
            if (n)
                return n;
        }
    }
    for (unsigned i = 0; i < img->eh.e_phnum; i++) {
        Elf64_Phdr ph;
        const uint8_t *p;
        if (elf_image_phdr(img, i, &ph) && ph.p_type == PT_NOTE &&
            (p = elf_image_bytes(img, ph.p_offset, ph.p_filesz))) {
            size_t n = ei_build_id_in(p, ph.p_filesz, hex, cap);
            if (n)
                return n;
        }
    }
    return 0;
}
