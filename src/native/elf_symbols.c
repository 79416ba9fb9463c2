/* elf_symbols.c — see elf_symbols.h. Owns the symbol table of one ELF file:
 * STT_FUNC and STT_GNU_IFUNC symbols of .symtab and .dynsym, their names copied
 * into one pool (so the file is unmapped after loading), sorted by address with
 * the best name first among those at one address (a known size, then global
 * binding, then the fewest leading underscores), exact duplicates (the same symbol in both tables) merged. */
#include "elf_symbols.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/file_map.h"
#include "elf_image.h"

typedef struct es_sym {
    uint64_t addr, size;
    uint32_t name;   /* offset into names */
    uint16_t rank;        /* higher is preferred among symbols at one address */
    uint16_t underscores; /* leading '_' of the name: among equals, the fewest is preferred */
} es_sym;

struct elf_symbols {
    es_sym *syms;
    size_t n, cap;
    char *names;
    size_t names_len, names_cap;
    char build_id[130];
    int from_debug;
    bool complete;        /* a full symbol table: .symtab, the file's own or its debug file's */
};

static bool es_add_name(elf_symbols *s, const char *name, size_t len, uint32_t *off)
{
    if (s->names_len + len + 1 > UINT32_MAX)
        return false;
    if (s->names_len + len + 1 > s->names_cap) {
        size_t cap = s->names_cap ? s->names_cap * 2 : 1 << 16;
        while (cap < s->names_len + len + 1)
            cap *= 2;
        char *p = realloc(s->names, cap);
        if (!p)
            return false;
        s->names = p;
        s->names_cap = cap;
    }
    memcpy(s->names + s->names_len, name, len);
    s->names[s->names_len + len] = '\0';
    *off = (uint32_t)s->names_len;
    s->names_len += len + 1;
    return true;
}

static bool es_push(elf_symbols *s, const es_sym *e)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        es_sym *p = realloc(s->syms, cap * sizeof *p);
        if (!p)
            return false;
        s->syms = p;
        s->cap = cap;
    }
    s->syms[s->n++] = *e;
    return true;
}

/* Adds the function symbols of every section of type `type` (SHT_SYMTAB or SHT_DYNSYM); how many were added, -1 on
 * running out of memory. Entries or names outside the image are skipped. */
static long es_add_table(elf_symbols *s, const elf_image *img, uint32_t type)
{
    long added = 0;
    for (unsigned i = 0; i < elf_image_nsections(img); i++) {
        Elf64_Shdr sh, strs;
        if (!elf_image_shdr(img, i, &sh) || sh.sh_type != type || sh.sh_entsize < sizeof(Elf64_Sym))
            continue;
        const uint8_t *tab = elf_image_bytes(img, sh.sh_offset, sh.sh_size);
        const char *str;
        if (!tab || !elf_image_shdr(img, sh.sh_link, &strs) || strs.sh_type != SHT_STRTAB ||
            !(str = (const char *)elf_image_bytes(img, strs.sh_offset, strs.sh_size)))
            continue;
        uint64_t count = sh.sh_size / sh.sh_entsize;
        for (uint64_t k = 0; k < count; k++) {
            Elf64_Sym sym;
            memcpy(&sym, tab + k * sh.sh_entsize, sizeof sym);
            unsigned t = ELF64_ST_TYPE(sym.st_info), bind = ELF64_ST_BIND(sym.st_info);
            if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0 ||
                sym.st_name == 0 || sym.st_name >= strs.sh_size)
                continue;
            const char *name = str + sym.st_name;
            const char *end = memchr(name, '\0', strs.sh_size - sym.st_name);
            if (!end || end == name)
                continue;
            bool global = bind == STB_GLOBAL || bind == STB_WEAK;
            es_sym e = { .addr = sym.st_value, .size = sym.st_size,
                         .rank = (uint16_t)((sym.st_size ? 2u : 0u) + (global ? 1u : 0u)),
                         .underscores = (uint16_t)strspn(name, "_") };
            if (!es_add_name(s, name, (size_t)(end - name), &e.name) || !es_push(s, &e))
                return -1;
            added++;
        }
    }
    return added;
}

/* A candidate separate debug file: used when it is ELF and its build id (if both have one) matches. */
static bool es_try_debug_file(elf_symbols *s, const char *path)
{
    size_t len;
    char err[256];
    const void *data = file_map(path, &len, err, sizeof err);
    if (!data)
        return false;
    elf_image img;
    bool ok = false;
    if (elf_image_open(&img, data, len)) {
        char id[sizeof s->build_id];
        elf_image_build_id(&img, id, sizeof id);
        if (!s->build_id[0] || !id[0] || strcmp(id, s->build_id) == 0)
            ok = es_add_table(s, &img, SHT_SYMTAB) > 0;
    }
    file_unmap(data, len);
    return ok;
}

/* The file's separate debug file, by build id, then by .gnu_debuglink beside the file's real directory. */
static void es_find_debug_file(elf_symbols *s, const elf_image *img, const char *path)
{
    char cand[PATH_MAX + 64];
    if (strlen(s->build_id) > 2) {
        snprintf(cand, sizeof cand, "/usr/lib/debug/.build-id/%.2s/%s.debug", s->build_id, s->build_id + 2);
        if (es_try_debug_file(s, cand))
            return;
    }
    Elf64_Shdr sh;
    const char *link;
    if (!path || elf_image_section(img, ".gnu_debuglink", &sh) < 0 ||
        !(link = (const char *)elf_image_bytes(img, sh.sh_offset, sh.sh_size)) || !memchr(link, '\0', sh.sh_size) ||
        !link[0] || strchr(link, '/'))
        return;
    char real[PATH_MAX], dir[PATH_MAX];
    if (!realpath(path, real))
        return;
    memcpy(dir, real, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    const char *forms[] = { "/usr/lib/debug%s/%s", "%s/.debug/%s", "%s/%s" };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        snprintf(cand, sizeof cand, forms[i], dir, link);
        if (strcmp(cand, real) != 0 && es_try_debug_file(s, cand))   /* never the file itself */
            return;
    }
}

static int es_cmp(const void *a, const void *b)
{
    const es_sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank > y->rank ? -1 : 1;
    if (x->underscores != y->underscores)   /* "write" before "__write" */
        return x->underscores < y->underscores ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* Sorts, then merges the entries of one address that carry the same name. */
static void es_finish(elf_symbols *s)
{
    if (s->n == 0)
        return;
    qsort(s->syms, s->n, sizeof *s->syms, es_cmp);
    size_t out = 0;
    for (size_t i = 0; i < s->n; i++) {
        bool dup = false;
        for (size_t j = out; j-- > 0 && s->syms[j].addr == s->syms[i].addr;)
            if (strcmp(s->names + s->syms[j].name, s->names + s->syms[i].name) == 0) {
                dup = true;
                break;
            }
        if (!dup)
            s->syms[out++] = s->syms[i];
    }
    s->n = out;
}

static elf_symbols *es_load(const void *data, size_t len, const char *path)
{
    elf_image img;
    if (!elf_image_open(&img, data, len))
        return NULL;
    elf_symbols *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    elf_image_build_id(&img, s->build_id, sizeof s->build_id);
    long own = es_add_table(s, &img, SHT_SYMTAB);
    if (own < 0 || es_add_table(s, &img, SHT_DYNSYM) < 0) {
        elf_symbols_free(s);
        return NULL;
    }
    if (own == 0) {
        size_t before = s->n;
        es_find_debug_file(s, &img, path);
        s->from_debug = s->n > before;
    }
    s->complete = own > 0 || s->from_debug;
    es_finish(s);
    return s;
}

elf_symbols *elf_symbols_load(const char *path)
{
    size_t len;
    char err[256];
    const void *data = file_map(path, &len, err, sizeof err);
    if (!data)
        return NULL;
    elf_symbols *s = es_load(data, len, path);
    file_unmap(data, len);
    return s;
}

elf_symbols *elf_symbols_load_image(const void *data, size_t len)
{
    return es_load(data, len, NULL);
}

const char *elf_symbols_find(const elf_symbols *s, uint64_t vaddr, uint64_t *start)
{
    if (!s || s->n == 0 || vaddr < s->syms[0].addr)
        return NULL;
    size_t lo = 0, hi = s->n;   /* the last entry with addr <= vaddr lies in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->syms[mid].addr <= vaddr)
            lo = mid;
        else
            hi = mid;
    }
    while (lo > 0 && s->syms[lo - 1].addr == s->syms[lo].addr)
        lo--;   /* the best-ranked name at that address */
    const es_sym *e = &s->syms[lo];
    if (e->size && vaddr - e->addr >= e->size)
        return NULL;
    if (start)
        *start = e->addr;
    return s->names + e->name;
}

uint64_t elf_symbols_address(const elf_symbols *s, const char *name)
{
    if (!s)
        return 0;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->names + s->syms[i].name, name) == 0)
            return s->syms[i].addr;
    return 0;
}

const char *elf_symbols_build_id(const elf_symbols *s)
{
    return s ? s->build_id : "";
}

size_t elf_symbols_count(const elf_symbols *s)
{
    return s ? s->n : 0;
}

bool elf_symbols_complete(const elf_symbols *s) { return s && s->complete; }

int elf_symbols_from_debug_file(const elf_symbols *s)
{
    return s ? s->from_debug : 0;
}

void elf_symbols_free(elf_symbols *s)
{
    if (!s)
        return;
    free(s->syms);
    free(s->names);
    free(s);
}
