/* usdt_elf.c — see usdt_elf.h. The image, with each address equal to its
 * file offset (p_offset == p_vaddr: tools that mix the two up still agree):
 *   R+X  (offset 0)  ELF header, program headers, .note.gnu.build-id (perf
 *                    keys its caches by it: without one `perf buildid-cache
 *                    --add` refuses the file), .text (a 16-byte slot per
 *                    probe: nop, ret, int3...), .stapsdt.base (1 byte),
 *                    .hash, .dynsym, .dynstr
 *   R+W  (next page) .dynamic (glibc relocates it in place: it must be
 *                    writable), .probes (the semaphores: PROGBITS inside the
 *                    segment's file bytes, since the kernel raises them by
 *                    file offset, uprobe ref_ctr_offset, only in file-backed
 *                    writable mappings)
 *   not loaded       .note.stapsdt, .symtab, .strtab, .shstrtab, section headers
 * Program headers: the two PT_LOADs, PT_DYNAMIC, PT_NOTE (the build id) and
 * PT_GNU_STACK (RW: without it glibc makes every thread's stack executable
 * when the library is dlopened). .note.stapsdt stays after .text in the
 * section table: bcc's listprobes (src/cc/bcc_elf.c) looks for it only past
 * the first executable section. Sizes are all computed first, then the
 * image is written in one zeroed allocation. The structs of <elf.h> are
 * copied in host byte order, which is the image's (little-endian). */
#include "usdt_elf.h"

#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "usdt_elf.c writes <elf.h> structs in host order: it needs a little-endian host"
#endif

#define UE_PAGE 4096u
#define UE_SLOT 16u           /* bytes of .text per probe */
#define UE_NOTE_NAME "stapsdt" /* <sys/sdt.h>'s _SDT_NOTE_NAME */
#define UE_NT_STAPSDT 3u      /* ... and _SDT_NOTE_TYPE */
#define UE_BASE_SYMBOL "_.stapsdt.base"
#define UE_SEMAPHORE_SUFFIX "_semaphore"
#define UE_PHNUM 5u
#define UE_BUILD_ID_SIZE 20u  /* as ld's --build-id=sha1 */
#define UE_DYNNUM 7u

/* Section header indices, in address (then file) order. */
enum {
    UE_SH_NULL,
    UE_SH_BUILD_ID,
    UE_SH_TEXT,
    UE_SH_BASE,
    UE_SH_HASH,
    UE_SH_DYNSYM,
    UE_SH_DYNSTR,
    UE_SH_DYNAMIC,
    UE_SH_PROBES,
    UE_SH_NOTE,
    UE_SH_SYMTAB,
    UE_SH_STRTAB,
    UE_SH_SHSTRTAB,
    UE_SH_COUNT
};

/* Each section's name and kind (sh_info: see ue_write_sections). */
static const struct {
    const char *name;
    uint32_t type;
    uint64_t flags, align, entsize;
    uint32_t link;
} ue_sections[UE_SH_COUNT] = {
    [UE_SH_NULL] = { "", SHT_NULL, 0, 0, 0, 0 },
    [UE_SH_BUILD_ID] = { ".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, 4, 0, 0 },
    [UE_SH_TEXT] = { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, UE_SLOT, 0, 0 },
    [UE_SH_BASE] = { ".stapsdt.base", SHT_PROGBITS, SHF_ALLOC, 1, 0, 0 },
    [UE_SH_HASH] = { ".hash", SHT_HASH, SHF_ALLOC, 8, 4, UE_SH_DYNSYM },
    [UE_SH_DYNSYM] = { ".dynsym", SHT_DYNSYM, SHF_ALLOC, 8, sizeof(Elf64_Sym), UE_SH_DYNSTR },
    [UE_SH_DYNSTR] = { ".dynstr", SHT_STRTAB, SHF_ALLOC, 1, 0, 0 },
    [UE_SH_DYNAMIC] = { ".dynamic", SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE, 8, sizeof(Elf64_Dyn), UE_SH_DYNSTR },
    [UE_SH_PROBES] = { ".probes", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 2, 0, 0 },
    [UE_SH_NOTE] = { ".note.stapsdt", SHT_NOTE, 0, 4, 0, 0 },
    [UE_SH_SYMTAB] = { ".symtab", SHT_SYMTAB, 0, 8, sizeof(Elf64_Sym), UE_SH_STRTAB },
    [UE_SH_STRTAB] = { ".strtab", SHT_STRTAB, 0, 1, 0, 0 },
    [UE_SH_SHSTRTAB] = { ".shstrtab", SHT_STRTAB, 0, 1, 0, 0 },
};

/* Where each section goes: file offset (== vaddr for the loaded ones) and size. */
typedef struct ue_layout {
    uint64_t off[UE_SH_COUNT], size[UE_SH_COUNT];
    uint64_t rx_end, rw_start, rw_end, shoff, total;
    uint32_t nbucket, nsym, nsymtab, first_global; /* nsym: .dynsym's; the others .symtab's */
} ue_layout;

/* A string table being filled: offsets handed out as strings are added. */
typedef struct ue_strtab {
    uint8_t *p;
    uint64_t used, cap;
} ue_strtab;

static jp_status ue_fail(usdt_elf_image *out, jp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static jp_status ue_fail(usdt_elf_image *out, jp_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
    return st;
}

static uint64_t ue_align(uint64_t v, uint64_t a)
{
    return (v + a - 1) & ~(a - 1);
}

static const char *ue_args(const usdt_probe_spec *p)
{
    return p->args ? p->args : "";
}

/* The SysV ELF hash (the gABI's elf_hash), as ld.so computes it for DT_HASH. */
static uint32_t ue_elf_hash(const char *name)
{
    uint32_t h = 0;
    for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
        h = (h << 4) + *s;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

/* The note's descriptor: pc, base, semaphore (8 bytes each), then
 * "provider\0name\0args\0"; the note pads it to 4 bytes. */
static uint64_t ue_desc_size(const usdt_probe_spec *p)
{
    return 24 + strlen(p->provider) + 1 + strlen(p->name) + 1 + strlen(ue_args(p)) + 1;
}

static uint64_t ue_note_size(const usdt_probe_spec *p)
{
    return 12 + ue_align(sizeof UE_NOTE_NAME, 4) + ue_align(ue_desc_size(p), 4);
}

/* NULL, empty or too long: the name of what is wrong, else NULL. */
static const char *ue_check_string(const char *s, bool may_be_empty)
{
    if (!s)
        return "missing";
    if (!*s && !may_be_empty)
        return "empty";
    if (strnlen(s, USDT_ELF_MAX_STRING + 1) > USDT_ELF_MAX_STRING)
        return "too long";
    return NULL;
}

static jp_status ue_validate(const usdt_probe_spec *probes, size_t n, const char *soname, usdt_elf_image *out)
{
    if (!probes)
        return ue_fail(out, JP_ERR_ARG, "no probes");
    if (n == 0 || n > USDT_ELF_MAX_PROBES)
        return ue_fail(out, JP_ERR_ARG, "%zu probes: expected 1..%u", n, USDT_ELF_MAX_PROBES);
    const char *bad = ue_check_string(soname, false);
    if (bad)
        return ue_fail(out, JP_ERR_ARG, "soname: %s", bad);
    for (size_t i = 0; i < n; i++) {
        static const char *const fields[] = { "provider", "name", "function", "args" };
        const char *values[] = { probes[i].provider, probes[i].name, probes[i].function, ue_args(&probes[i]) };
        for (size_t k = 0; k < 4; k++) {
            bad = ue_check_string(values[k], k == 3);
            if (bad)
                return ue_fail(out, JP_ERR_ARG, "probe %zu (%.40s:%.40s): %s %s", i,
                               probes[i].provider ? probes[i].provider : "?",
                               probes[i].name ? probes[i].name : "?", fields[k], bad);
        }
    }
    return JP_OK;
}

static void ue_plan(const usdt_probe_spec *probes, size_t n, const char *soname, ue_layout *l)
{
    uint64_t dynstr = 1 + strlen(soname) + 1, strtab = 1 + sizeof UE_BASE_SYMBOL, notes = 0, shstr = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t fn = strlen(probes[i].function) + 1;
        dynstr += fn;
        strtab += fn + strlen(probes[i].provider) + 1 + strlen(probes[i].name) + sizeof UE_SEMAPHORE_SUFFIX;
        notes += ue_note_size(&probes[i]);
    }
    for (unsigned s = 0; s < UE_SH_COUNT; s++)
        shstr += strlen(ue_sections[s].name) + 1;
    l->nsym = (uint32_t)n + 1;
    l->nsymtab = 2 * (uint32_t)n + 2; /* null, the base, n semaphores (local), n functions (global) */
    l->first_global = (uint32_t)n + 2;
    l->nbucket = (uint32_t)n;

    l->size[UE_SH_BUILD_ID] = 12 + 4 + UE_BUILD_ID_SIZE;
    l->size[UE_SH_TEXT] = UE_SLOT * n;
    l->size[UE_SH_BASE] = 1;
    l->size[UE_SH_HASH] = 4 * (2 + (uint64_t)l->nbucket + l->nsym);
    l->size[UE_SH_DYNSYM] = sizeof(Elf64_Sym) * l->nsym;
    l->size[UE_SH_DYNSTR] = dynstr;
    l->size[UE_SH_DYNAMIC] = sizeof(Elf64_Dyn) * UE_DYNNUM;
    l->size[UE_SH_PROBES] = 2 * n;
    l->size[UE_SH_NOTE] = notes;
    l->size[UE_SH_SYMTAB] = sizeof(Elf64_Sym) * l->nsymtab;
    l->size[UE_SH_STRTAB] = strtab;
    l->size[UE_SH_SHSTRTAB] = shstr;

    uint64_t at = sizeof(Elf64_Ehdr) + UE_PHNUM * sizeof(Elf64_Phdr);
    for (unsigned s = UE_SH_BUILD_ID; s < UE_SH_COUNT; s++) {
        if (s == UE_SH_DYNAMIC) {
            l->rx_end = at;
            at = ue_align(at, UE_PAGE);
            l->rw_start = at;
        }
        if (s == UE_SH_NOTE)
            l->rw_end = at;
        at = ue_align(at, ue_sections[s].align);
        l->off[s] = at;
        at += l->size[s];
    }
    l->shoff = ue_align(at, 8);
    l->total = l->shoff + UE_SH_COUNT * sizeof(Elf64_Shdr);
}

/* Appends the k parts as one string; returns its offset. */
static uint32_t ue_str_cat(ue_strtab *t, const char *const *parts, size_t k)
{
    uint64_t at = t->used;
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(parts[i]);
        JP_ASSERT(t->used + len + 1 <= t->cap);
        memcpy(t->p + t->used, parts[i], len);
        t->used += len;
    }
    t->p[t->used++] = '\0';
    return (uint32_t)at;
}

static uint32_t ue_str_add(ue_strtab *t, const char *s)
{
    return ue_str_cat(t, &s, 1);
}

static void ue_put_sym(uint8_t *at, uint32_t name, unsigned bind, unsigned type, uint16_t shndx, uint64_t value,
                       uint64_t size)
{
    Elf64_Sym s = { .st_name = name,
                    .st_info = (unsigned char)ELF64_ST_INFO(bind, type),
                    .st_other = STV_DEFAULT,
                    .st_shndx = shndx,
                    .st_value = value,
                    .st_size = size };
    memcpy(at, &s, sizeof s);
}

static void ue_put_u32(uint8_t *at, uint32_t v)
{
    memcpy(at, &v, 4);
}

static void ue_put_u64(uint8_t *at, uint64_t v)
{
    memcpy(at, &v, 8);
}

/* A build id: 20 bytes that differ between different images (here, three
 * FNV-1a hashes of the image, its build id still zero, from different
 * starts, each finished with splitmix64's mixer). Not cryptographic: it only
 * has to tell images apart, and equal images may share one. */
static void ue_build_id(const uint8_t *img, uint64_t len, uint8_t out[UE_BUILD_ID_SIZE])
{
    uint64_t h[3] = { 0xcbf29ce484222325u, 0x9e3779b97f4a7c15u, 0xbf58476d1ce4e5b9u };
    for (uint64_t i = 0; i < len; i++)
        for (unsigned k = 0; k < 3; k++)
            h[k] = (h[k] ^ img[i]) * 0x100000001b3u;
    uint8_t all[24];
    for (unsigned k = 0; k < 3; k++) {
        uint64_t z = h[k] + k;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        memcpy(all + 8 * k, &z, 8);
    }
    memcpy(out, all, UE_BUILD_ID_SIZE);
}

static void ue_write_headers(uint8_t *img, const ue_layout *l)
{
    Elf64_Ehdr eh = { .e_type = ET_DYN,
                      .e_machine = EM_X86_64,
                      .e_version = EV_CURRENT,
                      .e_phoff = sizeof(Elf64_Ehdr),
                      .e_shoff = l->shoff,
                      .e_ehsize = sizeof(Elf64_Ehdr),
                      .e_phentsize = sizeof(Elf64_Phdr),
                      .e_phnum = UE_PHNUM,
                      .e_shentsize = sizeof(Elf64_Shdr),
                      .e_shnum = UE_SH_COUNT,
                      .e_shstrndx = UE_SH_SHSTRTAB };
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
    memcpy(img, &eh, sizeof eh);

    const Elf64_Phdr ph[UE_PHNUM] = {
        { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = 0, .p_paddr = 0,
          .p_filesz = l->rx_end, .p_memsz = l->rx_end, .p_align = UE_PAGE },
        { .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = l->rw_start, .p_vaddr = l->rw_start,
          .p_paddr = l->rw_start, .p_filesz = l->rw_end - l->rw_start, .p_memsz = l->rw_end - l->rw_start,
          .p_align = UE_PAGE },
        { .p_type = PT_DYNAMIC, .p_flags = PF_R | PF_W, .p_offset = l->off[UE_SH_DYNAMIC],
          .p_vaddr = l->off[UE_SH_DYNAMIC], .p_paddr = l->off[UE_SH_DYNAMIC], .p_filesz = l->size[UE_SH_DYNAMIC],
          .p_memsz = l->size[UE_SH_DYNAMIC], .p_align = 8 },
        { .p_type = PT_NOTE, .p_flags = PF_R, .p_offset = l->off[UE_SH_BUILD_ID], .p_vaddr = l->off[UE_SH_BUILD_ID],
          .p_paddr = l->off[UE_SH_BUILD_ID], .p_filesz = l->size[UE_SH_BUILD_ID],
          .p_memsz = l->size[UE_SH_BUILD_ID], .p_align = 4 },
        { .p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W, .p_align = 16 },
    };
    memcpy(img + sizeof eh, ph, sizeof ph);
}

static void ue_write_sections(uint8_t *img, const ue_layout *l)
{
    ue_strtab names = { img + l->off[UE_SH_SHSTRTAB], 0, l->size[UE_SH_SHSTRTAB] };
    for (unsigned s = 0; s < UE_SH_COUNT; s++) {
        uint32_t name = ue_str_add(&names, ue_sections[s].name);
        if (s == UE_SH_NULL)
            continue; /* all zero */
        Elf64_Shdr sh = { .sh_name = name,
                          .sh_type = ue_sections[s].type,
                          .sh_flags = ue_sections[s].flags,
                          .sh_addr = ue_sections[s].flags & SHF_ALLOC ? l->off[s] : 0,
                          .sh_offset = l->off[s],
                          .sh_size = l->size[s],
                          .sh_link = ue_sections[s].link,
                          .sh_info = s == UE_SH_DYNSYM ? 1 : s == UE_SH_SYMTAB ? l->first_global : 0,
                          .sh_addralign = ue_sections[s].align,
                          .sh_entsize = ue_sections[s].entsize };
        memcpy(img + l->shoff + s * sizeof sh, &sh, sizeof sh);
    }
}

static void ue_write(uint8_t *img, const ue_layout *l, const usdt_probe_spec *probes, size_t n, const char *soname,
                     usdt_probe_place *places)
{
    ue_write_headers(img, l);
    ue_write_sections(img, l);

    ue_strtab dynstr = { img + l->off[UE_SH_DYNSTR], 1, l->size[UE_SH_DYNSTR] };
    ue_strtab strtab = { img + l->off[UE_SH_STRTAB], 1, l->size[UE_SH_STRTAB] };
    uint32_t soname_at = ue_str_add(&dynstr, soname);
    uint64_t base = l->off[UE_SH_BASE];
    uint8_t *symtab = img + l->off[UE_SH_SYMTAB];
    ue_put_sym(symtab + sizeof(Elf64_Sym), ue_str_add(&strtab, UE_BASE_SYMBOL), STB_LOCAL, STT_OBJECT, UE_SH_BASE,
               base, 1);

    uint8_t *note = img + l->off[UE_SH_NOTE];
    for (size_t i = 0; i < n; i++) {
        const usdt_probe_spec *p = &probes[i];
        uint64_t site = l->off[UE_SH_TEXT] + UE_SLOT * i, sem = l->off[UE_SH_PROBES] + 2 * i;
        if (places) {
            places[i].site = site;
            places[i].semaphore = sem;
        }
        memset(img + site, 0xcc, UE_SLOT); /* int3 after the ret */
        img[site] = 0x90;                  /* nop: the probe */
        img[site + 1] = 0xc3;              /* ret */

        uint32_t dyn_name = ue_str_add(&dynstr, p->function);
        ue_put_sym(img + l->off[UE_SH_DYNSYM] + (i + 1) * sizeof(Elf64_Sym), dyn_name, STB_GLOBAL, STT_FUNC,
                   UE_SH_TEXT, site, 2);
        uint32_t sem_name = ue_str_cat(&strtab, (const char *[]){ p->provider, "_", p->name, UE_SEMAPHORE_SUFFIX }, 4);
        ue_put_sym(symtab + (2 + i) * sizeof(Elf64_Sym), sem_name, STB_LOCAL, STT_OBJECT, UE_SH_PROBES, sem, 2);
        ue_put_sym(symtab + (2 + n + i) * sizeof(Elf64_Sym), ue_str_add(&strtab, p->function), STB_GLOBAL,
                   STT_FUNC, UE_SH_TEXT, site, 2);

        uint64_t desc = ue_desc_size(p);
        ue_put_u32(note, sizeof UE_NOTE_NAME);
        ue_put_u32(note + 4, (uint32_t)desc);
        ue_put_u32(note + 8, UE_NT_STAPSDT);
        memcpy(note + 12, UE_NOTE_NAME, sizeof UE_NOTE_NAME);
        uint8_t *d = note + 12 + ue_align(sizeof UE_NOTE_NAME, 4);
        ue_put_u64(d, site);
        ue_put_u64(d + 8, base);
        ue_put_u64(d + 16, sem);
        ue_strtab strings = { d + 24, 0, desc - 24 };
        ue_str_add(&strings, p->provider);
        ue_str_add(&strings, p->name);
        ue_str_add(&strings, ue_args(p));
        note += ue_note_size(p); /* the padding is already zero */
    }
    JP_ASSERT(dynstr.used == l->size[UE_SH_DYNSTR] && strtab.used == l->size[UE_SH_STRTAB]);
    JP_ASSERT(note == img + l->off[UE_SH_NOTE] + l->size[UE_SH_NOTE]);

    /* .hash: nbucket, nchain, the buckets, the chains. Symbols go in from
     * the last, so that each chain runs in symbol order and dlsym of a
     * function two probes share finds the first probe's. */
    uint8_t *h = img + l->off[UE_SH_HASH];
    ue_put_u32(h, l->nbucket);
    ue_put_u32(h + 4, l->nsym);
    uint8_t *buckets = h + 8, *chains = h + 8 + 4 * (uint64_t)l->nbucket;
    for (size_t i = n; i >= 1; i--) {
        uint32_t b = ue_elf_hash(probes[i - 1].function) % l->nbucket, head;
        memcpy(&head, buckets + 4 * (uint64_t)b, 4);
        ue_put_u32(chains + 4 * i, head);
        ue_put_u32(buckets + 4 * (uint64_t)b, (uint32_t)i);
    }

    const Elf64_Dyn dyn[UE_DYNNUM] = {
        { .d_tag = DT_HASH, .d_un.d_ptr = l->off[UE_SH_HASH] },
        { .d_tag = DT_STRTAB, .d_un.d_ptr = l->off[UE_SH_DYNSTR] },
        { .d_tag = DT_SYMTAB, .d_un.d_ptr = l->off[UE_SH_DYNSYM] },
        { .d_tag = DT_STRSZ, .d_un.d_val = l->size[UE_SH_DYNSTR] },
        { .d_tag = DT_SYMENT, .d_un.d_val = sizeof(Elf64_Sym) },
        { .d_tag = DT_SONAME, .d_un.d_val = soname_at },
        { .d_tag = DT_NULL, .d_un.d_val = 0 },
    };
    memcpy(img + l->off[UE_SH_DYNAMIC], dyn, sizeof dyn);

    /* last: the build id is a hash of all the rest */
    uint8_t *b = img + l->off[UE_SH_BUILD_ID];
    ue_put_u32(b, 4);
    ue_put_u32(b + 4, UE_BUILD_ID_SIZE);
    ue_put_u32(b + 8, NT_GNU_BUILD_ID);
    memcpy(b + 12, "GNU", 4);
    ue_build_id(img, l->total, b + 16);
}

jp_status usdt_elf_build(const usdt_probe_spec *probes, size_t n, const char *soname, usdt_elf_image *out,
                         usdt_probe_place *places)
{
    out->data = NULL;
    out->len = 0;
    out->why[0] = '\0';
    jp_status st = ue_validate(probes, n, soname, out);
    if (st != JP_OK)
        return st;
    ue_layout l;
    memset(&l, 0, sizeof l);
    ue_plan(probes, n, soname, &l);
    uint8_t *img = calloc(1, l.total);
    if (!img)
        return ue_fail(out, JP_ERR_NOMEM, "no memory for a %llu-byte USDT image", (unsigned long long)l.total);
    ue_write(img, &l, probes, n, soname, places);
    out->data = img;
    out->len = l.total;
    return JP_OK;
}

void usdt_elf_free(usdt_elf_image *img)
{
    free(img->data);
    img->data = NULL;
    img->len = 0;
}
