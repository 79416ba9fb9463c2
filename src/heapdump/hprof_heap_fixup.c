/* hprof_heap_fixup.c — see hprof_heap_fixup.h. Pass 1 is hprof_heap_scan.c's
 * (checks, classes, layouts, the range and the count of the defined ids);
 * pass 2 records every defined id; pass 3 visits every reference and nulls
 * those that name no defined id. Ids are spaced by the largest power of two
 * that divides them all (8 for HotSpot's addresses, 1 for our dumps'
 * sequence numbers); the defined ids are kept as one bit per possible id,
 * (highest - lowest) / spacing + 1 bits, when that is no larger than a sorted
 * array of them (8 bytes each: the jvmti dumper's ids are sparse, array ids
 * carry the length in their high bits), else as that array, searched. */
#include "hprof_heap_fixup.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_heap_scan.h"
#include "hprof_read.h"

typedef struct fx_state {
    ht_reader r;
    uint8_t *w;            /* the same bytes as r.d, writable */
    uint64_t *bits;        /* one bit per possible id from r.id_min, or NULL ... */
    unsigned shift;        /* log2 of the id spacing */
    uint64_t *ids;         /* ... the defined ids instead, sorted (duplicates kept) */
    size_t nids, capids;
    hprof_fixup_stats st;
} fx_state;

static int fx_cmp_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool fx_defined(const fx_state *f, uint64_t id)
{
    if (id < f->r.id_min || id > f->r.id_max)
        return false;
    if (f->ids)
        return bsearch(&id, f->ids, f->nids, sizeof *f->ids, fx_cmp_id) != NULL;
    uint64_t d = id - f->r.id_min;
    if (d & ((UINT64_C(1) << f->shift) - 1))
        return false;
    d >>= f->shift;
    return f->bits[d >> 6] >> (d & 63) & 1;
}

static void fx_define(fx_state *f, uint64_t id)
{
    if (f->ids) {
        if (f->nids < f->capids) /* always: pass 1 counted every id */
            f->ids[f->nids++] = id;
        return;
    }
    uint64_t d = (id - f->r.id_min) >> f->shift; /* in range and spaced: pass 1 saw every id */
    f->bits[d >> 6] |= UINT64_C(1) << (d & 63);
}

/* Between pass 1 and 2: the bitmap or the id array, whichever is smaller.
 * Every size is checked: ids from the file may span 0..2^64-1 at spacing 1. */
static bool fx_alloc(fx_state *f)
{
    ht_reader *r = &f->r;
    uint64_t spacing = r->id_or & (~r->id_or + 1); /* the lowest bit set in any id */
    while (f->shift < 63 && (UINT64_C(1) << f->shift) < spacing)
        f->shift++;
    uint64_t words = ((r->id_max - r->id_min) >> f->shift >> 6) + 1; /* at most 2^58: no wrap */
    if (words <= r->defined) { /* words * 8 bytes of bitmap <= defined * 8 bytes of ids */
        if ((size_t)words != words)
            return ht_fail(r, "the dump's object ids span 0x%" PRIx64 "..0x%" PRIx64 ": too wide a range for this machine",
                           r->id_min, r->id_max);
        f->bits = calloc((size_t)words, sizeof *f->bits);
        return f->bits || ht_nomem(r);
    }
    if ((size_t)r->defined != r->defined || r->defined > SIZE_MAX / sizeof *f->ids)
        return ht_fail(r, "the dump defines %" PRIu64 " objects and classes: too many for this machine", r->defined);
    f->capids = (size_t)r->defined;
    f->ids = malloc(f->capids * sizeof *f->ids);
    return f->ids || ht_nomem(r);
}

/* The reference at offset `at`: counted, and nulled when it names nothing. */
static void fx_ref(fx_state *f, size_t at, bool root)
{
    uint64_t v = hprof_rd_id(f->r.idsize, f->r.d + at);
    if (!v)
        return;
    f->st.references++;
    if (fx_defined(f, v))
        return;
    memset(f->w + at, 0, f->r.idsize);
    f->st.nulled++;
    if (root)
        f->st.roots_nulled++;
}

/* CLASS DUMP at p: super, loader, signers, domain; object constant pool
 * entries and static fields (lengths checked in pass 1). */
static void fx_class(fx_state *f, size_t p)
{
    const size_t id = f->r.idsize;
    const uint8_t *d = f->r.d;
    for (size_t k = 1; k <= 4; k++)
        fx_ref(f, p + k * id + 4, false);
    size_t q = p + 7 * id + 8;
    unsigned ncp = hprof_rd_u2(d + q);
    q += 2;
    for (unsigned i = 0; i < ncp; i++) {
        uint8_t t = d[q + 2];
        if (t == 1 || t == 2)
            fx_ref(f, q + 3, false);
        q += 3 + hprof_rd_type_size(f->r.idsize, t);
    }
    unsigned nst = hprof_rd_u2(d + q);
    q += 2;
    for (unsigned i = 0; i < nst; i++) {
        uint8_t t = d[q + id];
        if (t == 1 || t == 2)
            fx_ref(f, q + id + 1, false);
        q += id + 1 + hprof_rd_type_size(f->r.idsize, t);
    }
}

/* INSTANCE DUMP at p: the reference fields of its class, then its
 * superclass's ... (the layout ht_finish checked). */
static void fx_instance(fx_state *f, size_t p)
{
    ht_reader *r = &f->r;
    const size_t id = r->idsize;
    uint64_t cid = hprof_rd_id(r->idsize, r->d + p + id + 4);
    uint32_t n = hprof_rd_u4(r->d + p + 2 * id + 4);
    size_t ci = ht_known_class(r, cid); /* present: pass 1 made it */
    size_t v = p + 2 * id + 8;
    uint64_t base = 0;
    for (size_t k = ci; k != HT_NONE && base < n; k = r->cls[k].super_idx) {
        const ht_class *kc = &r->cls[k];
        for (size_t i = 0; i < kc->nrefs; i++) {
            uint64_t at = base + r->refs[kc->ref_first + i].off;
            if (at + id <= n)
                fx_ref(f, v + (size_t)at, false);
        }
        base += kc->own_bytes;
    }
}

/* Pass 2: the ids the dump defines. */
static bool fx_define_sub(ht_reader *r, uint8_t tag, size_t p, void *ctx)
{
    fx_state *f = ctx;
    if (tag >= 0x20 && tag <= 0x23) {
        fx_define(f, hprof_rd_id(r->idsize, r->d + p));
        f->st.objects++;
    }
    return true;
}

/* Pass 3: the references. */
static bool fx_check_sub(ht_reader *r, uint8_t tag, size_t p, void *ctx)
{
    fx_state *f = ctx;
    const size_t id = r->idsize;
    switch (tag) {
    case 0x20: fx_class(f, p); break;
    case 0x21: fx_instance(f, p); break;
    case 0x22: {
        uint32_t len = hprof_rd_u4(r->d + p + id + 4);
        for (uint32_t i = 0; i < len; i++)
            fx_ref(f, p + 2 * id + 8 + (size_t)i * id, false);
        break;
    }
    case 0x23: break;
    default: fx_ref(f, p, true); break; /* a GC root: its object */
    }
    return true;
}

jp_status hprof_heap_fixup(uint8_t *data, size_t len, hprof_fixup_stats *stats, char *errbuf, size_t errlen)
{
    errbuf[0] = '\0';
    fx_state *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(errbuf, errlen, "out of memory checking the heap dump");
        return JP_ERR_NOMEM;
    }
    ht_reader *r = &f->r;
    ht_reader_init(r, data, len, errbuf, errlen);
    f->w = data;
    bool ok = ht_walk(r, ht_record_scan, true) && ht_finish(r);
    if (ok && r->id_min <= r->id_max) {
        ok = fx_alloc(f) && ht_walk_subs(r, fx_define_sub, f);
        if (ok && f->ids)
            qsort(f->ids, f->nids, sizeof *f->ids, fx_cmp_id);
        ok = ok && ht_walk_subs(r, fx_check_sub, f);
    } else if (ok) { /* nothing defined: every reference dangles */
        r->id_min = 1;
        r->id_max = 0;
        ok = ht_walk_subs(r, fx_check_sub, f);
    }
    jp_status st = ok ? JP_OK : r->st ? r->st : JP_ERR_FORMAT;
    if (stats)
        *stats = f->st;
    free(f->bits);
    free(f->ids);
    ht_reader_free(r);
    free(f);
    return st;
}
