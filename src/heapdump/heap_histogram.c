/* heap_histogram.c — counts the objects of an HPROF binary heap dump per
 * class in one front-to-back pass, through the heap dump readers' record and
 * sub-record walk (hprof_heap_scan.c: UTF8 strings remembered by position,
 * LOAD CLASS names, every length checked, so a truncated or corrupt file ends
 * in a one-line error with the byte offset). */
#include "heap_histogram.h"
#include "hprof_heap_scan.h"
#include "hprof_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- counting ---- */

typedef struct hg_count {
    heap_histogram *h;
    uint64_t prim_instances[12], prim_bytes[12]; /* primitive arrays by basic type 4..11 */
} hg_count;

static bool hg_add(ht_reader *r, hg_count *x, uint64_t cid, uint64_t bytes)
{
    size_t ci = ht_class_of(r, cid);
    if (ci == HT_NONE)
        return ht_nomem(r);
    r->cls[ci].count++;
    r->cls[ci].count_bytes += bytes;
    x->h->instances++;
    x->h->bytes += bytes;
    return true;
}

/* One sub-record, already checked by ht_sub_scan; p is just past its tag. */
static bool hg_sub(ht_reader *r, uint8_t tag, size_t p, void *ctx)
{
    hg_count *x = ctx;
    const uint8_t *d = r->d;
    const size_t id = r->idsize;
    switch (tag) {
    case 0x21: /* INSTANCE DUMP: id, u4 stack, class id, u4 n, n bytes */
        return hg_add(r, x, hprof_rd_id(r->idsize, d + p + id + 4),
                      heap_shallow(HEAP_HDR_INSTANCE, hprof_rd_u4(d + p + 2 * id + 4)));
    case 0x22: /* OBJECT ARRAY DUMP: id, u4 stack, u4 count, class id, count ids */
        return hg_add(r, x, hprof_rd_id(r->idsize, d + p + id + 8),
                      heap_shallow(HEAP_HDR_ARRAY, (uint64_t)hprof_rd_u4(d + p + id + 4) * id));
    case 0x23: { /* PRIMITIVE ARRAY DUMP: id, u4 stack, u4 count, u1 type, data */
        uint8_t t = d[p + id + 8];
        uint64_t b = heap_shallow(HEAP_HDR_ARRAY, (uint64_t)hprof_rd_u4(d + p + id + 4) * hprof_rd_type_size(r->idsize, t));
        x->prim_instances[t]++;
        x->prim_bytes[t] += b;
        x->h->instances++;
        x->h->bytes += b;
        return true;
    }
    case 0x20:
        x->h->class_dumps++;
        return true;
    default:
        x->h->gc_roots++;
        return true;
    }
}

static int hg_row_cmp(const void *a, const void *b)
{
    const heap_class_row *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->instances != y->instances)
        return x->instances > y->instances ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Turns the counted classes into sorted, named rows. */
static bool hg_rows(ht_reader *r, hg_count *x)
{
    static const char *const prim_names[12] = { NULL,     NULL,     NULL,    NULL,     "boolean[]", "char[]",
                                                "float[]", "double[]", "byte[]", "short[]", "int[]",     "long[]" };
    heap_histogram *h = x->h;
    size_t n = 0;
    for (size_t i = 0; i < r->ncls; i++)
        n += r->cls[i].count > 0;
    for (int t = 4; t < 12; t++)
        n += x->prim_instances[t] > 0;
    h->rows = calloc(n ? n : 1, sizeof *h->rows);
    if (!h->rows)
        return ht_nomem(r);
    for (size_t i = 0; i < r->ncls; i++) {
        const ht_class *c = &r->cls[i];
        if (!c->count)
            continue;
        heap_class_row *row = &h->rows[h->nrows++];
        const char *name = ht_name_of(r, i);
        if (!name || !(row->name = strdup(name)))
            return ht_nomem(r);
        row->instances = c->count;
        row->bytes = c->count_bytes;
    }
    for (int t = 4; t < 12; t++) {
        if (!x->prim_instances[t])
            continue;
        heap_class_row *row = &h->rows[h->nrows++];
        if (!(row->name = strdup(prim_names[t])))
            return ht_nomem(r);
        row->instances = x->prim_instances[t];
        row->bytes = x->prim_bytes[t];
    }
    qsort(h->rows, h->nrows, sizeof *h->rows, hg_row_cmp);
    return true;
}

bool heap_histogram_read(const void *data, size_t len, heap_histogram *h, char *errbuf, size_t errlen)
{
    memset(h, 0, sizeof *h);
    errbuf[0] = '\0';
    ht_reader r;
    ht_reader_init(&r, data, len, errbuf, errlen);
    hg_count x = { .h = h };
    bool ok = ht_walk_once(&r, hg_sub, &x) && hg_rows(&r, &x);
    if (ok) {
        snprintf(h->version, sizeof h->version, "1.0.%c", r.d[HT_VERSION_AT]);
        h->idsize = r.idsize;
    }
    ht_reader_free(&r);
    if (!ok)
        heap_histogram_free(h);
    return ok;
}

void heap_histogram_free(heap_histogram *h)
{
    for (size_t i = 0; i < h->nrows; i++)
        free(h->rows[i].name);
    free(h->rows);
    h->rows = NULL;
    h->nrows = 0;
}
