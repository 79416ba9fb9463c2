/* code_map.c — see code_map.h. Owns the parse of a maps file into a snapshot
 * (executable ranges with their library, sorted; readable ranges merged where
 * adjacent), the set of libraries (each with its PT_LOAD headers, from which a
 * mapping's load bias follows, and its CFI and symbols), and the vDSO, whose
 * ELF image is read from memory. */
#include "code_map.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "elf_image.h"

#define CM_MAX_LOADS 16

typedef struct cm_load {
    uint64_t offset, vaddr, filesz;
    bool exec;
} cm_load;

typedef struct cm_lib {
    code_lib pub;                    /* first: a code_lib * handed out is a cm_lib * */
    unsigned dev_major, dev_minor;
    uint64_t inode;
    cm_load loads[CM_MAX_LOADS];     /* the file's PT_LOAD headers */
    unsigned nloads;
    const void *image;               /* the vDSO: its ELF image in memory (NULL for a file) */
    size_t image_len;
    bool syms_tried;
    unsigned seen;                   /* the generation of the last snapshot that listed it */
} cm_lib;

struct code_libs {
    cm_lib **libs;
    unsigned n, cap;
    cm_lib *anon;                    /* the one lib of all anonymous executable memory */
    unsigned generation;
};

typedef struct cm_range {
    uint64_t lo, hi;
    const code_lib *lib;
} cm_range;

typedef struct cm_span {
    uint64_t lo, hi;
} cm_span;

struct code_map {
    cm_range *exec;
    size_t nexec, capexec;
    cm_span *readable;
    size_t nread, capread;
    cm_lib **libs;                   /* the libs of this snapshot, each once, by lowest address */
    size_t nlibs, caplibs;
};

/* Grows a snapshot's array (*p of *cap elements of size sz) to hold n + 1. */
static bool cm_grow(void **p, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(*p, c * sz);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

code_libs *code_libs_new(void)
{
    return calloc(1, sizeof(code_libs));
}

static void cm_lib_free(cm_lib *l)
{
    if (!l)
        return;
    dwarf_cfi_free(l->pub.cfi);
    elf_symbols_free(l->pub.syms);
    free(l->pub.path);
    free(l);
}

void code_libs_free(code_libs *libs)
{
    if (!libs)
        return;
    for (unsigned i = 0; i < libs->n; i++)
        cm_lib_free(libs->libs[i]);
    free(libs->libs);
    free(libs);
}

unsigned code_libs_count(const code_libs *libs)
{
    return libs ? libs->n : 0;
}

/* The PT_LOAD headers of an ELF image. */
static unsigned cm_loads_of(const elf_image *img, cm_load *out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < img->eh.e_phnum && n < CM_MAX_LOADS; i++) {
        Elf64_Phdr ph;
        if (elf_image_phdr(img, i, &ph) && ph.p_type == PT_LOAD)
            out[n++] = (cm_load){ ph.p_offset, ph.p_vaddr, ph.p_filesz, (ph.p_flags & PF_X) != 0 };
    }
    return n;
}

/* The PT_LOAD headers of the file at path, read with pread (its header and program headers only). */
static unsigned cm_loads_of_file(const char *path, cm_load *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    uint8_t buf[4096];
    ssize_t got = pread(fd, buf, sizeof buf, 0);
    unsigned n = 0;
    elf_image img;
    if (got > 0 && elf_image_open(&img, buf, (size_t)got)) {
        uint64_t need = img.eh.e_phoff + (uint64_t)img.eh.e_phnum * img.eh.e_phentsize;
        if (need <= (uint64_t)got) {
            n = cm_loads_of(&img, out);
        } else if (need <= 1 << 20) {
            uint8_t *big = malloc(need);
            if (big && pread(fd, big, need, 0) == (ssize_t)need && elf_image_open(&img, big, need))
                n = cm_loads_of(&img, out);
            free(big);
        }
    }
    close(fd);
    return n;
}

/* The load bias of a mapping of file offset off at start: through the PT_LOAD segment holding off (the
 * executable one where segments share a page); start - off when none does. */
static uint64_t cm_bias(const cm_load *loads, unsigned n, uint64_t start, uint64_t off)
{
    const cm_load *best = NULL;
    for (unsigned i = 0; i < n; i++) {
        const cm_load *l = &loads[i];
        if ((l->offset & ~0xfffull) <= off && off < l->offset + l->filesz && (!best || (l->exec && !best->exec)))
            best = l;
    }
    if (!best)
        return start - off;
    return start - off + best->offset - best->vaddr;
}

static const char *cm_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static cm_lib *cm_add_lib(code_libs *libs, cm_lib *l)
{
    if (libs->n == libs->cap) {
        unsigned cap = libs->cap ? libs->cap * 2 : 32;
        cm_lib **p = realloc(libs->libs, cap * sizeof *p);
        if (!p) {
            cm_lib_free(l);
            return NULL;
        }
        libs->libs = p;
        libs->cap = cap;
    }
    libs->libs[libs->n++] = l;
    return l;
}

/* The lib of an executable mapping [lo, hi) of path at file offset off, found or made (with its CFI). */
static cm_lib *cm_lib_for(code_libs *libs, const char *path, unsigned maj, unsigned min, uint64_t inode,
                          uint64_t lo, uint64_t hi, uint64_t off)
{
    bool vdso = strcmp(path, "[vdso]") == 0;
    if (!vdso && path[0] != '/') {
        if (!libs->anon) {
            cm_lib *a = calloc(1, sizeof *a);
            if (!a || !(a->pub.path = strdup(""))) {
                free(a);
                return NULL;
            }
            a->pub.name = "[anon]";
            libs->anon = cm_add_lib(libs, a);
        }
        return libs->anon;
    }
    const cm_lib *twin = NULL;   /* the same file seen before (its PT_LOADs known) */
    for (unsigned i = 0; i < libs->n; i++) {
        cm_lib *l = libs->libs[i];
        if (l->dev_major != maj || l->dev_minor != min || l->inode != inode || strcmp(l->pub.path, path) != 0)
            continue;
        if (vdso && l->image != (const void *)(uintptr_t)lo)
            continue;
        if (l->pub.load_bias == cm_bias(l->loads, l->nloads, lo, off))
            return l;
        twin = l;
    }
    cm_lib *l = calloc(1, sizeof *l);
    if (!l || !(l->pub.path = strdup(path))) {
        free(l);
        return NULL;
    }
    l->pub.name = vdso ? l->pub.path : cm_basename(l->pub.path);
    l->dev_major = maj, l->dev_minor = min, l->inode = inode;
    elf_image img;
    if (twin) {
        memcpy(l->loads, twin->loads, sizeof l->loads);
        l->nloads = twin->nloads;
    } else if (vdso) {
        /* the kernel maps the whole vDSO image, readable, at the start of its executable mapping; read only
         * this process's (a maps file of another process names addresses not mapped here) */
        if (off == 0 && getauxval(AT_SYSINFO_EHDR) == lo &&
            elf_image_open(&img, (const void *)(uintptr_t)lo, (size_t)(hi - lo))) {
            l->image = (const void *)(uintptr_t)lo;
            l->image_len = (size_t)(hi - lo);
            l->nloads = cm_loads_of(&img, l->loads);
        }
    } else {
        l->nloads = cm_loads_of_file(path, l->loads);
    }
    l->pub.load_bias = cm_bias(l->loads, l->nloads, lo, off);
    if (vdso)
        l->pub.cfi = l->image ? dwarf_cfi_load_image(l->image, l->image_len) : NULL;
    else if (l->nloads)
        l->pub.cfi = dwarf_cfi_load(path);
    return cm_add_lib(libs, l);
}

static bool cm_add_readable(code_map *m, uint64_t lo, uint64_t hi)
{
    if (m->nread && m->readable[m->nread - 1].hi == lo) {
        m->readable[m->nread - 1].hi = hi;
        return true;
    }
    if (!cm_grow((void **)&m->readable, &m->capread, m->nread, sizeof *m->readable))
        return false;
    m->readable[m->nread++] = (cm_span){ lo, hi };
    return true;
}

static int cm_range_cmp(const void *a, const void *b)
{
    const cm_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cm_span_cmp(const void *a, const void *b)
{
    const cm_span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

code_map *code_map_read(code_libs *libs, const char *maps_path)
{
    FILE *f = fopen(maps_path ? maps_path : "/proc/self/maps", "re");
    if (!f)
        return NULL;
    code_map *m = calloc(1, sizeof *m);
    char *line = NULL;
    size_t cap = 0;
    bool ok = m != NULL;
    libs->generation++;
    while (ok && getline(&line, &cap, f) > 0) {
        uint64_t lo, hi, off, inode;
        char perms[8];
        unsigned maj, min;
        int at = 0;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &lo, &hi, perms, &off, &maj,
                   &min, &inode, &at) < 7 || hi <= lo || strlen(perms) < 4)
            continue;
        char *path = line + at;
        path[strcspn(path, "\n")] = '\0';
        if (perms[0] == 'r' && !cm_add_readable(m, lo, hi))
            ok = false;
        if (!ok || perms[2] != 'x')
            continue;
        cm_lib *l = cm_lib_for(libs, path, maj, min, inode, lo, hi, off);
        if (!l || !cm_grow((void **)&m->exec, &m->capexec, m->nexec, sizeof *m->exec)) {
            ok = false;
            continue;
        }
        m->exec[m->nexec++] = (cm_range){ lo, hi, &l->pub };
        if (l->seen != libs->generation) {
            l->seen = libs->generation;
            if (!cm_grow((void **)&m->libs, &m->caplibs, m->nlibs, sizeof *m->libs))
                ok = false;
            else
                m->libs[m->nlibs++] = l;
        }
    }
    free(line);
    fclose(f);
    if (!ok) {
        code_map_free(m);
        return NULL;
    }
    /* maps is sorted already; a file of any other order still gives sorted tables */
    qsort(m->exec, m->nexec, sizeof *m->exec, cm_range_cmp);
    qsort(m->readable, m->nread, sizeof *m->readable, cm_span_cmp);
    size_t n = 0;
    for (size_t i = 0; i < m->nread; i++) {
        if (n && m->readable[n - 1].hi >= m->readable[i].lo) {
            if (m->readable[i].hi > m->readable[n - 1].hi)
                m->readable[n - 1].hi = m->readable[i].hi;
        } else {
            m->readable[n++] = m->readable[i];
        }
    }
    m->nread = n;
    return m;
}

void code_map_free(code_map *m)
{
    if (!m)
        return;
    free(m->exec);
    free(m->readable);
    free(m->libs);
    free(m);
}

const code_lib *code_map_find(const code_map *m, uint64_t pc)
{
    if (!m || m->nexec == 0 || pc < m->exec[0].lo)
        return NULL;
    size_t lo = 0, hi = m->nexec;   /* the last range with lo <= pc lies in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->exec[mid].lo <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return pc < m->exec[lo].hi ? m->exec[lo].lib : NULL;
}

bool code_map_readable(const code_map *m, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    if (!m || m->nread == 0 || addr < m->readable[0].lo)
        return false;
    size_t a = 0, b = m->nread;
    while (b - a > 1) {
        size_t mid = a + (b - a) / 2;
        if (m->readable[mid].lo <= addr)
            a = mid;
        else
            b = mid;
    }
    if (addr >= m->readable[a].hi)
        return false;
    *lo = m->readable[a].lo;
    *hi = m->readable[a].hi;
    return true;
}

/* The lib's symbols, loaded on first use (from its file, or the vDSO's image). */
static const elf_symbols *cm_symbols(cm_lib *l)
{
    if (!l->syms_tried) {
        l->syms_tried = true;
        if (l->image)
            l->pub.syms = elf_symbols_load_image(l->image, l->image_len);
        else if (l->pub.path[0] == '/')
            l->pub.syms = elf_symbols_load(l->pub.path);
    }
    return l->pub.syms;
}

const code_lib *code_map_symbol(const code_map *m, uint64_t pc, const char **sym, uint64_t *vaddr)
{
    const code_lib *lib = code_map_find(m, pc);
    *sym = NULL;
    *vaddr = 0;
    if (!lib)
        return NULL;
    *vaddr = pc - lib->load_bias;
    *sym = elf_symbols_find(cm_symbols((cm_lib *)lib), *vaddr, NULL);
    return lib;
}

uint64_t code_map_function_address(const code_map *m, const char *name, const char *skip_substr)
{
    for (size_t i = 0; m && i < m->nlibs; i++) {
        cm_lib *l = m->libs[i];
        if (!l->pub.path[0] || (skip_substr && strstr(l->pub.path, skip_substr)))
            continue;
        uint64_t a = elf_symbols_address(cm_symbols(l), name);
        if (a)
            return a + l->pub.load_bias;
    }
    return 0;
}
