/* kallsyms.c — owns the kernel symbol table: the read of /proc/kallsyms's "ADDRESS TYPE NAME [MODULE]" lines, their
 * sort by address and the lookup of the function holding an address. */
#include "kallsyms.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far past the last symbol an address still counts as in it. */
#define KS_TAIL (1u << 20)

typedef struct ks_sym {
    uint64_t addr;
    uint32_t name; /* offset in names */
    bool global;
} ks_sym;

struct kallsyms {
    ks_sym *syms;
    size_t count;
    char *names;
    bool usable;
};

static int ks_cmp(const void *pa, const void *pb)
{
    const ks_sym *a = pa, *b = pb;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    if (a->global != b->global)
        return a->global ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

kallsyms *kallsyms_load(const char *path)
{
    FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
    if (!f)
        return NULL;
    kallsyms *k = calloc(1, sizeof *k);
    size_t cap = 0, names_len = 0, names_cap = 0;
    char line[1024];
    bool ok = k != NULL;
    while (ok && fgets(line, sizeof line, f)) {
        char *end;
        unsigned long long addr = strtoull(line, &end, 16);
        if (end == line || *end != ' ')
            continue;
        char type = end[1];
        if (!strchr("tTwW", type) || type == '\0' || end[2] != ' ')
            continue;
        char *name = end + 3;
        size_t n = strcspn(name, " \t\n");
        if (n == 0)
            continue;
        if (k->count == cap) {
            cap = cap ? cap * 2 : 4096;
            ks_sym *s = realloc(k->syms, cap * sizeof *s);
            if (!s) {
                ok = false;
                break;
            }
            k->syms = s;
        }
        if (names_len + n + 1 > names_cap || names_len + n + 1 > UINT32_MAX) {
            names_cap = names_cap ? names_cap * 2 : 1 << 20;
            char *s = names_len + n + 1 > UINT32_MAX ? NULL : realloc(k->names, names_cap);
            if (!s) {
                ok = false;
                break;
            }
            k->names = s;
        }
        memcpy(k->names + names_len, name, n);
        k->names[names_len + n] = '\0';
        k->syms[k->count++] = (ks_sym){ addr, (uint32_t)names_len, type == 'T' || type == 'W' };
        names_len += n + 1;
        if (addr)
            k->usable = true;
    }
    int e = ferror(f) ? EIO : ENOMEM;
    fclose(f);
    if (ok && k->count == 0) {
        ok = false;
        e = ENOENT;
    }
    if (!ok) {
        kallsyms_free(k);
        errno = e;
        return NULL;
    }
    qsort(k->syms, k->count, sizeof *k->syms, ks_cmp);
    return k;
}

const char *kallsyms_find_start(const kallsyms *k, uint64_t addr, uint64_t *start)
{
    if (!k || !k->usable || k->count == 0 || addr < k->syms[0].addr)
        return NULL;
    size_t lo = 0, hi = k->count; /* the last symbol at or below addr is in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->syms[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    if (lo + 1 == k->count && addr - k->syms[lo].addr >= KS_TAIL)
        return NULL;
    while (lo > 0 && k->syms[lo - 1].addr == k->syms[lo].addr)
        lo--;
    if (start)
        *start = k->syms[lo].addr;
    return k->names + k->syms[lo].name;
}

const char *kallsyms_find(const kallsyms *k, uint64_t addr)
{
    return kallsyms_find_start(k, addr, NULL);
}

uint64_t kallsyms_addr(const kallsyms *k, const char *name)
{
    for (size_t i = 0; k && i < k->count; i++)
        if (strcmp(k->names + k->syms[i].name, name) == 0)
            return k->syms[i].addr;
    return 0;
}

bool kallsyms_usable(const kallsyms *k)
{
    return k && k->usable;
}

size_t kallsyms_count(const kallsyms *k)
{
    return k ? k->count : 0;
}

void kallsyms_free(kallsyms *k)
{
    if (!k)
        return;
    free(k->syms);
    free(k->names);
    free(k);
}
