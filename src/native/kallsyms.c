/* kallsyms.c — owns the kernel symbol table: the read of /proc/kallsyms's "ADDRESS TYPE NAME [MODULE]" lines, their
 * sort by address, the lookup of the function holding an address, and the table as bytes (for the per-boot cache,
 * kallsyms_cache.c). */
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
    size_t names_len;
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

/* The hex number at *p (advanced past it); false when there is none. */
static bool ks_hex(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int digits = 0;
    for (;; s++, digits++) {
        unsigned c = (unsigned char)*s, d;
        if (c - '0' < 10u)
            d = c - '0';
        else if ((c | 0x20) - 'a' < 6u)
            d = (c | 0x20) - 'a' + 10;
        else
            break;
        v = v << 4 | d;
    }
    if (digits == 0 || digits > 16)
        return false;
    *p = s;
    *out = v;
    return true;
}

/* Sorts the symbols by ks_cmp. /proc/kallsyms lists the kernel's own symbols by address already (a module's
 * follow), so when the addresses never go down only the runs of equal addresses are put in order. */
static void ks_sort(ks_sym *syms, size_t count)
{
    for (size_t i = 1; i < count; i++)
        if (syms[i].addr < syms[i - 1].addr) {
            qsort(syms, count, sizeof *syms, ks_cmp);
            return;
        }
    for (size_t i = 1; i < count; i++) /* insertion sort: the runs of one address are short */
        for (size_t j = i; j > 0 && syms[j].addr == syms[j - 1].addr && ks_cmp(&syms[j], &syms[j - 1]) < 0; j--) {
            ks_sym t = syms[j];
            syms[j] = syms[j - 1];
            syms[j - 1] = t;
        }
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
        const char *end = line;
        uint64_t addr;
        if (!ks_hex(&end, &addr) || *end != ' ')
            continue;
        char type = end[1];
        if (!strchr("tTwW", type) || type == '\0' || end[2] != ' ')
            continue;
        const char *name = end + 3;
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
    k->names_len = names_len;
    if (ok && k->count == 0) {
        ok = false;
        e = ENOENT;
    }
    if (!ok) {
        kallsyms_free(k);
        errno = e;
        return NULL;
    }
    ks_sort(k->syms, k->count);
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

/* ---- the table as bytes: header, then count records { addr, name offset, global }, then the names ---- */

static const char KS_MAGIC[8] = { 'j', 'p', 'k', 's', 'y', 'm', 's', '1' };

typedef struct ks_image_head {
    char magic[8];
    uint64_t count, names_len;
} ks_image_head;

typedef struct ks_image_sym {
    uint64_t addr;
    uint32_t name, global;
} ks_image_sym;

void *kallsyms_image(const kallsyms *k, size_t *len)
{
    size_t names_len = k->names_len, total = sizeof(ks_image_head) + k->count * sizeof(ks_image_sym) + names_len;
    unsigned char *out = malloc(total);
    if (!out)
        return NULL;
    ks_image_head h = { { 0 }, k->count, names_len };
    memcpy(h.magic, KS_MAGIC, sizeof h.magic);
    memcpy(out, &h, sizeof h);
    ks_image_sym *s = (ks_image_sym *)(void *)(out + sizeof h);
    for (size_t i = 0; i < k->count; i++)
        s[i] = (ks_image_sym){ k->syms[i].addr, k->syms[i].name, k->syms[i].global };
    memcpy(out + sizeof h + k->count * sizeof *s, k->names, names_len);
    *len = total;
    return out;
}

kallsyms *kallsyms_from_image(const void *image, size_t len)
{
    ks_image_head h;
    if (len < sizeof h) {
        errno = EINVAL;
        return NULL;
    }
    memcpy(&h, image, sizeof h);
    if (memcmp(h.magic, KS_MAGIC, sizeof h.magic) != 0 || h.count == 0 || h.names_len == 0 ||
        h.names_len > UINT32_MAX || h.count > (len - sizeof h) / sizeof(ks_image_sym) ||
        len - sizeof h - h.count * sizeof(ks_image_sym) != h.names_len) {
        errno = EINVAL;
        return NULL;
    }
    const unsigned char *base = image;
    const char *names = (const char *)base + sizeof h + h.count * sizeof(ks_image_sym);
    if (names[h.names_len - 1] != '\0') {
        errno = EINVAL;
        return NULL;
    }
    kallsyms *k = calloc(1, sizeof *k);
    if (!k || !(k->syms = malloc(h.count * sizeof *k->syms)) || !(k->names = malloc(h.names_len))) {
        kallsyms_free(k);
        errno = ENOMEM;
        return NULL;
    }
    k->count = h.count;
    k->names_len = h.names_len;
    memcpy(k->names, names, h.names_len);
    for (size_t i = 0; i < h.count; i++) {
        ks_image_sym s;
        memcpy(&s, base + sizeof h + i * sizeof s, sizeof s);
        if (s.name >= h.names_len || s.global > 1 || (i > 0 && s.addr < k->syms[i - 1].addr)) {
            kallsyms_free(k);
            errno = EINVAL;
            return NULL;
        }
        k->syms[i] = (ks_sym){ s.addr, s.name, s.global != 0 };
        if (s.addr)
            k->usable = true;
    }
    return k;
}

void kallsyms_free(kallsyms *k)
{
    if (!k)
        return;
    free(k->syms);
    free(k->names);
    free(k);
}
