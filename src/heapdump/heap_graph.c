/* heap_graph.c — the object graph of an HPROF heap dump (see heap_graph.h).
 * Pass 1 is hprof_heap_scan.c's (every length checked, classes, layouts, the
 * count of defined ids); pass 2 collects each object's id and offset, sorted
 * by id (LSD radix sort, stable: the first definition of an id stays first);
 * pass 3 sets each object's class and shallow size and counts its non-null
 * references; pass 4 resolves them into the edge array (a reference to an
 * undefined id leaves a hole, closed up afterwards) and collects the roots. */
#include "heap_graph.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_heap_scan.h"
#include "hprof_read.h"

#define HGR_HOLE UINT32_MAX
#define HGR_PROGRESS_EVERY 0x3ffffu /* objects between progress reports, minus 1 */

/* what a reference is, for hgr_refs' visitor */
enum { HGR_FIELD, HGR_REFERENT, HGR_ELEMENT, HGR_SUPER, HGR_LOADER, HGR_STATIC, HGR_CLASS };

/* visitor of one non-null reference; detail: the field's index in r->refs,
 * the element's index or the static's name id. False stops. */
typedef bool (*hgr_ref_fn)(void *ctx, uint8_t what, uint64_t id, uint64_t detail);

uint64_t heap_graph_shallow(uint8_t tag, uint64_t value_bytes)
{
    return heap_shallow(tag == 0x22 || tag == 0x23 ? HEAP_HDR_ARRAY : HEAP_HDR_INSTANCE, value_bytes);
}

/* Calls fn for each non-null reference of the object whose sub-record's tag
 * is at `at` (checked by pass 1), in edge order (heap_graph.h). */
static bool hgr_refs(const heap_graph *g, size_t at, hgr_ref_fn fn, void *ctx)
{
    ht_reader *r = g->r;
    const uint8_t *d = g->d;
    const size_t id = g->idsize;
    size_t p = at + 1;
    switch (d[at]) {
    case 0x21: { /* INSTANCE DUMP: id, u4 trace, class id, u4 n, values */
        uint64_t cid = hprof_rd_id(r->idsize, d + p + id + 4);
        uint32_t n = hprof_rd_u4(d + p + 2 * id + 4);
        const uint8_t *v = d + p + 2 * id + 8;
        size_t ci = ht_known_class(r, cid);
        uint64_t base = 0;
        for (size_t k = ci; k != HT_NONE && base < n; k = r->cls[k].super_idx) {
            const ht_class *kc = &r->cls[k];
            for (size_t i = 0; i < kc->nrefs; i++) {
                uint64_t off = base + r->refs[kc->ref_first + i].off;
                if (off + id > n)
                    continue;
                uint64_t t = hprof_rd_id(r->idsize, v + off);
                bool referent = k == g->weak_cls && r->refs[kc->ref_first + i].off == g->weak_off &&
                                (g->flags & HEAP_GRAPH_IGNORE_WEAK);
                if (t && !fn(ctx, referent ? HGR_REFERENT : HGR_FIELD, t, kc->ref_first + i))
                    return false;
            }
            base += kc->own_bytes;
        }
        /* and its class, which it keeps loaded */
        return !cid || fn(ctx, HGR_CLASS, cid, 0);
    }
    case 0x22: { /* OBJECT ARRAY DUMP: id, u4 trace, u4 count, class id, elements */
        uint32_t count = hprof_rd_u4(d + p + id + 4);
        const uint8_t *e = d + p + 2 * id + 8;
        for (uint32_t i = 0; i < count; i++) {
            uint64_t t = hprof_rd_id(r->idsize, e + (size_t)i * id);
            if (t && !fn(ctx, HGR_ELEMENT, t, i))
                return false;
        }
        return true;
    }
    case 0x20: { /* CLASS DUMP: id, u4 trace, super, loader, signers, domain, 2 reserved, u4 size, ... */
        uint64_t super = hprof_rd_id(r->idsize, d + p + id + 4), loader = hprof_rd_id(r->idsize, d + p + 2 * id + 4);
        if (super && !fn(ctx, HGR_SUPER, super, 0))
            return false;
        if (loader && !fn(ctx, HGR_LOADER, loader, 0))
            return false;
        size_t q = p + 7 * id + 8;
        unsigned ncp = hprof_rd_u2(d + q);
        q += 2;
        for (unsigned i = 0; i < ncp; i++)
            q += 3 + hprof_rd_type_size(r->idsize, d[q + 2]);
        unsigned nst = hprof_rd_u2(d + q);
        q += 2;
        for (unsigned i = 0; i < nst; i++) {
            uint8_t t = d[q + id];
            if (t == 1 || t == 2) {
                uint64_t v = hprof_rd_id(r->idsize, d + q + id + 1);
                if (v && !fn(ctx, HGR_STATIC, v, hprof_rd_id(r->idsize, d + q)))
                    return false;
            }
            q += id + 1 + hprof_rd_type_size(r->idsize, t);
        }
        return true;
    }
    default:
        return true;
    }
}

/* The shallow size of the object at `at`. */
static uint64_t hgr_shallow_at(const heap_graph *g, size_t at)
{
    const uint8_t *d = g->d;
    const size_t id = g->idsize;
    size_t p = at + 1;
    switch (d[at]) {
    case 0x21:
        return heap_graph_shallow(0x21, hprof_rd_u4(d + p + 2 * id + 4));
    case 0x22:
        return heap_graph_shallow(0x22, (uint64_t)hprof_rd_u4(d + p + id + 4) * id);
    case 0x23:
        return heap_graph_shallow(0x23, (uint64_t)hprof_rd_u4(d + p + id + 4) * hprof_rd_type_size(g->idsize, d[p + id + 8]));
    default: { /* CLASS DUMP: its static values */
        size_t q = p + 7 * id + 8;
        unsigned ncp = hprof_rd_u2(d + q);
        q += 2;
        for (unsigned i = 0; i < ncp; i++)
            q += 3 + hprof_rd_type_size(g->idsize, d[q + 2]);
        unsigned nst = hprof_rd_u2(d + q);
        q += 2;
        uint64_t bytes = 0;
        for (unsigned i = 0; i < nst; i++) {
            unsigned sz = hprof_rd_type_size(g->idsize, d[q + id]);
            bytes += sz;
            q += id + 1 + sz;
        }
        return heap_graph_shallow(0x20, bytes);
    }
    }
}

uint32_t heap_graph_find(const heap_graph *g, uint64_t id)
{
    if (!g->n || id < g->ids[0] || id > g->ids[g->n - 1])
        return HEAP_GRAPH_NONE;
    uint64_t b = (id - g->ids[0]) >> g->bucket_shift;
    uint32_t lo = g->bucket[b], hi = g->bucket[b + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n && g->ids[lo] == id ? lo : HEAP_GRAPH_NONE;
}

/* ---- build ---- */

typedef struct hgr_build {
    heap_graph *g;
    uint64_t seen; /* objects visited in this pass */
    heap_progress_fn progress;
    void *pctx;
    const char *phase;
    /* pass 4 */
    uint32_t from, next, end; /* the object being filled, its next edge slot, its end */
    size_t caproots, capreferents;
    bool nomem;
} hgr_build;

static void hgr_tick(hgr_build *b, size_t p)
{
    if (b->progress && (++b->seen & HGR_PROGRESS_EVERY) == 0)
        b->progress(b->pctx, b->phase, p, b->g->len);
}

/* the object defined by the sub-record at p - 1, HEAP_GRAPH_NONE for a duplicate definition */
static uint32_t hgr_self(const heap_graph *g, size_t p)
{
    uint32_t i = heap_graph_find(g, hprof_rd_id(g->idsize, g->d + p));
    return i != HEAP_GRAPH_NONE && g->at[i] == p - 1 ? i : HEAP_GRAPH_NONE;
}

/* pass 2: ids and offsets, in file order */
static bool hgr_collect_sub(ht_reader *r, uint8_t tag, size_t p, void *ctx)
{
    hgr_build *b = ctx;
    heap_graph *g = b->g;
    if (tag < 0x20 || tag > 0x23)
        return true;
    if (g->n >= r->defined) /* pass 1 counted each one */
        return ht_fail(r, "the dump changed while read (more objects than counted)");
    g->ids[g->n] = hprof_rd_id(r->idsize, r->d + p);
    g->at[g->n++] = p - 1;
    hgr_tick(b, p);
    return true;
}

/* Sorts ids[] (and at[] with them) by id, stable: LSD radix by bytes, a
 * byte all ids share skipped. */
static bool hgr_sort(heap_graph *g)
{
    uint32_t n = g->n;
    bool sorted = true;
    for (uint32_t i = 1; i < n && sorted; i++)
        sorted = g->ids[i - 1] <= g->ids[i];
    if (sorted)
        return true;
    uint64_t *ids2 = malloc((size_t)n * sizeof *ids2), *at2 = malloc((size_t)n * sizeof *at2);
    uint32_t *count = malloc(256 * sizeof *count);
    if (!ids2 || !at2 || !count) {
        free(ids2), free(at2), free(count);
        return false;
    }
    for (unsigned shift = 0; shift < 64; shift += 8) {
        memset(count, 0, 256 * sizeof *count);
        for (uint32_t i = 0; i < n; i++)
            count[g->ids[i] >> shift & 0xff]++;
        if (count[g->ids[0] >> shift & 0xff] == n)
            continue;
        uint32_t sum = 0;
        for (int k = 0; k < 256; k++) {
            uint32_t c = count[k];
            count[k] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = count[g->ids[i] >> shift & 0xff]++;
            ids2[j] = g->ids[i];
            at2[j] = g->at[i];
        }
        uint64_t *t = g->ids;
        g->ids = ids2, ids2 = t;
        t = g->at;
        g->at = at2, at2 = t;
    }
    free(ids2), free(at2), free(count);
    return true;
}

/* After the sort: later definitions of an id dropped, the bucket table made. */
static bool hgr_index(heap_graph *g)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        if (n && g->ids[n - 1] == g->ids[i]) {
            g->duplicates++;
            continue;
        }
        g->ids[n] = g->ids[i];
        g->at[n++] = g->at[i];
    }
    g->n = n;
    uint64_t range = n ? g->ids[n - 1] - g->ids[0] : 0;
    unsigned bits = 0, want = 0; /* bits of the range; log2 of the buckets wanted: ~ n / 4 */
    while (bits < 64 && (range >> bits))
        bits++;
    while (want < 30 && (UINT64_C(1) << (want + 2)) < n)
        want++;
    g->bucket_shift = bits > want ? bits - want : 0;
    if (g->bucket_shift > 63) /* a range of 64 bits and at most 7 objects */
        g->bucket_shift = 63;
    g->bucket_n = (range >> g->bucket_shift) + 1;
    g->bucket = malloc((size_t)(g->bucket_n + 1) * sizeof *g->bucket);
    if (!g->bucket)
        return false;
    uint32_t i = 0;
    for (uint64_t k = 0; k <= g->bucket_n; k++) {
        while (i < n && ((g->ids[i] - g->ids[0]) >> g->bucket_shift) < k)
            i++;
        g->bucket[k] = i;
    }
    return true;
}

static bool hgr_count_ref(void *ctx, uint8_t what, uint64_t id, uint64_t detail)
{
    (void)id, (void)detail;
    *(uint32_t *)ctx += what != HGR_REFERENT;
    return true;
}

/* pass 3: class, shallow size, references counted (into edge_at) */
static bool hgr_count_sub(ht_reader *r, uint8_t tag, size_t p, void *ctx)
{
    hgr_build *b = ctx;
    heap_graph *g = b->g;
    if (tag < 0x20 || tag > 0x23) {
        b->caproots++;
        return true;
    }
    hgr_tick(b, p);
    uint32_t i = hgr_self(g, p);
    if (i == HEAP_GRAPH_NONE)
        return true;
    const size_t id = r->idsize;
    uint32_t c;
    if (tag == 0x21) {
        c = HEAP_CLASS_FIRST + (uint32_t)ht_known_class(r, hprof_rd_id(r->idsize, r->d + p + id + 4));
    } else if (tag == 0x22) {
        size_t ci = ht_class_of(r, hprof_rd_id(r->idsize, r->d + p + id + 8));
        if (ci == HT_NONE || ci >= HEAP_GRAPH_MAX_OBJECTS)
            return ht_nomem(r);
        c = HEAP_CLASS_FIRST + (uint32_t)ci;
    } else if (tag == 0x23) {
        c = HEAP_CLASS_PRIM + r->d[p + id + 8] - 4;
    } else {
        c = g->cls[i]; /* set before the pass: java.lang.Class */
    }
    g->cls[i] = c;
    uint64_t shallow = hgr_shallow_at(g, p - 1);
    g->size8[i] = shallow / 8 > UINT32_MAX ? UINT32_MAX : (uint32_t)(shallow / 8);
    g->shallow_total += shallow;
    uint32_t refs = 0;
    hgr_refs(g, p - 1, hgr_count_ref, &refs);
    g->edge_at[i] = refs;
    return true;
}

static bool hgr_fill_ref(void *ctx, uint8_t what, uint64_t id, uint64_t detail)
{
    (void)detail;
    hgr_build *b = ctx;
    heap_graph *g = b->g;
    uint32_t t = heap_graph_find(g, id);
    if (t == HEAP_GRAPH_NONE) {
        g->unresolved++;
        return true;
    }
    if (what == HGR_REFERENT) {
        if (g->nreferents == b->capreferents) {
            size_t cap = b->capreferents ? 2 * b->capreferents : 256;
            uint32_t *f = realloc(g->referent_from, cap * sizeof *f);
            if (f)
                g->referent_from = f;
            uint32_t *to = f ? realloc(g->referent_to, cap * sizeof *to) : NULL;
            if (!to)
                return !(b->nomem = true);
            g->referent_to = to;
            b->capreferents = cap;
        }
        g->referent_from[g->nreferents] = b->from;
        g->referent_to[g->nreferents++] = t;
        return true;
    }
    if (b->next < b->end) /* always: pass 3 counted them */
        g->edges[b->next++] = t;
    return true;
}

/* pass 4: edges and roots */
static bool hgr_fill_sub(ht_reader *r, uint8_t tag, size_t p, void *ctx)
{
    hgr_build *b = ctx;
    heap_graph *g = b->g;
    if (tag < 0x20 || tag > 0x23) {
        uint32_t t = heap_graph_find(g, hprof_rd_id(r->idsize, r->d + p));
        if (t == HEAP_GRAPH_NONE) {
            g->unresolved_roots++;
            return true;
        }
        if (g->nroots >= b->caproots) /* pass 3 counted them */
            return true;
        uint32_t thread = 0;
        if (tag == 0x02 || tag == 0x03 || tag == 0x04 || tag == 0x06 || tag == 0x08)
            thread = hprof_rd_u4(r->d + p + r->idsize);
        g->roots[g->nroots++] = (heap_root){ t, tag, thread };
        return true;
    }
    hgr_tick(b, p);
    uint32_t i = hgr_self(g, p);
    if (i == HEAP_GRAPH_NONE)
        return true;
    b->from = i;
    b->next = g->edge_at[i];
    b->end = g->edge_at[i + 1];
    hgr_refs(g, p - 1, hgr_fill_ref, b);
    if (b->nomem)
        return ht_nomem(r);
    while (b->next < b->end)
        g->edges[b->next++] = HGR_HOLE;
    return true;
}

/* The holes of unresolved references closed up. */
static void hgr_compact(heap_graph *g)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        uint32_t from = g->edge_at[i], to = g->edge_at[i + 1];
        g->edge_at[i] = w;
        for (uint32_t k = from; k < to; k++)
            if (g->edges[k] != HGR_HOLE)
                g->edges[w++] = g->edges[k];
    }
    g->edge_at[g->n] = w;
    g->nedges = w;
}

/* ---- compressed references ---- */

/* The target of object i's edge called name (heap_graph_edge_name's names), HEAP_GRAPH_NONE if none. */
static uint32_t hgr_edge_to(const heap_graph *g, uint32_t i, const char *name)
{
    char buf[64];
    /* each name costs a read of the record: not for objects of many references (no property holder is) */
    if (i == HEAP_GRAPH_NONE || g->edge_at[i + 1] - g->edge_at[i] > 1024)
        return HEAP_GRAPH_NONE;
    for (uint32_t k = 0; k < g->edge_at[i + 1] - g->edge_at[i]; k++)
        if (heap_graph_edge_name(g, i, k, buf, sizeof buf) && strcmp(buf, name) == 0)
            return g->edges[g->edge_at[i] + k];
    return HEAP_GRAPH_NONE;
}

/* Whether object i is a String whose bytes (LATIN1) are text. */
static bool hgr_string_is(const heap_graph *g, uint32_t i, const char *text)
{
    uint32_t v = hgr_edge_to(g, i, "value");
    if (v == HEAP_GRAPH_NONE || g->d[g->at[v]] != 0x23)
        return false;
    size_t p = g->at[v] + 1 + g->idsize + 4;
    size_t n = strlen(text);
    return hprof_rd_u4(g->d + p) == n && g->d[p + 4] == 8 /* byte */ && memcmp(g->d + p + 5, text, n) == 0;
}

/* Whether the dumped system properties (System.props: a Properties, whose entries are in its map, a
 * ConcurrentHashMap, from JDK 9, or in itself, a Hashtable, before) hold the key
 * java.vm.compressedOopsMode, which HotSpot sets when it compresses references, as VisualVM's heap
 * library decides it. At most 100,000 entries are looked at. */
static bool hgr_compressed_oops(const heap_graph *g)
{
    const ht_reader *r = g->r;
    uint32_t system = HEAP_GRAPH_NONE;
    for (size_t k = 0; k < r->ncls && system == HEAP_GRAPH_NONE; k++)
        if (r->cls[k].name && strcmp(r->cls[k].name, "java.lang.System") == 0)
            system = heap_graph_find(g, r->cls[k].id);
    uint32_t props = hgr_edge_to(g, system, "static props");
    uint32_t map = hgr_edge_to(g, props, "map");
    uint32_t table = hgr_edge_to(g, map != HEAP_GRAPH_NONE ? map : props, "table");
    if (table == HEAP_GRAPH_NONE || g->d[g->at[table]] != 0x22)
        return false;
    unsigned seen = 0;
    for (uint32_t k = g->edge_at[table]; k < g->edge_at[table + 1]; k++)
        for (uint32_t e = g->edges[k]; e != HEAP_GRAPH_NONE && seen < 100000; e = hgr_edge_to(g, e, "next"), seen++)
            if (hgr_string_is(g, hgr_edge_to(g, e, "key"), "java.vm.compressedOopsMode"))
                return true;
    return false;
}

/* The shallow sizes again for a dump of a JVM that compressed its references (8-byte ids): an instance
 * is a 12-byte header + its fields, each reference 4 bytes; an array a 16-byte header and length +
 * its elements, each reference 4 bytes; each rounded up to 8 (a class object keeps its rule). */
static void hgr_compressed_sizes(heap_graph *g)
{
    const ht_reader *r = g->r;
    g->shallow_total = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const uint8_t *d = g->d;
        size_t p = g->at[i] + 1;
        const size_t id = g->idsize;
        uint64_t bytes = (uint64_t)g->size8[i] * 8u;
        switch (d[p - 1]) {
        case 0x21: {
            uint64_t values = hprof_rd_u4(d + p + 2 * id + 4), refs = 0;
            size_t ci = g->cls[i] >= HEAP_CLASS_FIRST ? g->cls[i] - HEAP_CLASS_FIRST : HT_NONE;
            for (size_t k = ci; k != HT_NONE && k < r->ncls; k = r->cls[k].super_idx)
                refs += r->cls[k].nrefs;
            uint64_t narrow = refs * (id - 4) <= values ? values - refs * (id - 4) : values;
            bytes = (12 + narrow + 7) & ~(uint64_t)7;
            break;
        }
        case 0x22:
            bytes = (16 + (uint64_t)hprof_rd_u4(d + p + id + 4) * 4 + 7) & ~(uint64_t)7;
            break;
        case 0x23:
            bytes = (16 + (uint64_t)hprof_rd_u4(d + p + id + 4) * hprof_rd_type_size(g->idsize, d[p + id + 8]) + 7) &
                    ~(uint64_t)7;
            break;
        default:
            break;
        }
        g->size8[i] = bytes / 8 > UINT32_MAX ? UINT32_MAX : (uint32_t)(bytes / 8);
        g->shallow_total += bytes;
    }
}

/* java.lang.Class's and java.lang.ref.Reference's classes, Reference's referent field */
static void hgr_known_classes(heap_graph *g, uint32_t *class_class)
{
    ht_reader *r = g->r;
    *class_class = HEAP_CLASS_CLASS;
    g->weak_cls = HT_NONE;
    for (size_t i = 0; i < r->ncls; i++) {
        const ht_class *c = &r->cls[i];
        if (!c->dumped || !c->name)
            continue;
        if (!strcmp(c->name, "java.lang.Class") && *class_class == HEAP_CLASS_CLASS)
            *class_class = HEAP_CLASS_FIRST + (uint32_t)i;
        if (!strcmp(c->name, "java.lang.ref.Reference") && g->weak_cls == HT_NONE) {
            for (size_t k = 0; k < c->nrefs; k++) {
                const ht_ref *f = &r->refs[c->ref_first + k];
                if (f->name_len == 8 && !memcmp(f->name, "referent", 8)) {
                    g->weak_cls = i;
                    g->weak_off = f->off;
                    break;
                }
            }
        }
    }
}

static bool hgr_fail_nomem(heap_graph *g)
{
    return ht_nomem(g->r);
}

bool heap_graph_build(heap_graph *g, const void *data, size_t len, unsigned flags, heap_progress_fn progress,
                      void *pctx, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    err[0] = '\0';
    g->r = malloc(sizeof *g->r);
    if (!g->r) {
        snprintf(err, errlen, "out of memory reading the heap dump");
        return false;
    }
    ht_reader *r = g->r;
    ht_reader_init(r, data, len, err, errlen);
    g->d = r->d;
    g->len = r->len;
    g->flags = flags;
    hgr_build b = { .g = g, .progress = progress, .pctx = pctx };
    if (progress)
        progress(pctx, "checking", 0, len);
    bool ok = ht_walk(r, ht_record_scan, true) && ht_finish(r);
    if (ok && r->defined > HEAP_GRAPH_MAX_OBJECTS)
        ok = ht_fail(r, "the dump defines %" PRIu64 " objects and classes; at most %u are supported", r->defined,
                     HEAP_GRAPH_MAX_OBJECTS);
    uint32_t class_class = HEAP_CLASS_CLASS;
    if (ok) {
        g->idsize = r->idsize;
        snprintf(g->version, sizeof g->version, "1.0.%c", r->d[HT_VERSION_AT]);
        hgr_known_classes(g, &class_class);
        size_t cap = r->defined ? (size_t)r->defined : 1;
        g->ids = malloc(cap * sizeof *g->ids);
        g->at = malloc(cap * sizeof *g->at);
        ok = (g->ids && g->at) || hgr_fail_nomem(g);
    }
    b.phase = "indexing objects";
    ok = ok && ht_walk_subs(r, hgr_collect_sub, &b);
    if (ok && progress)
        progress(pctx, "sorting ids", 0, g->n);
    ok = ok && ((hgr_sort(g) && hgr_index(g)) || hgr_fail_nomem(g));
    if (ok) {
        size_t n1 = (size_t)g->n + 1;
        g->cls = malloc(n1 * sizeof *g->cls);
        g->size8 = malloc(n1 * sizeof *g->size8);
        g->edge_at = calloc(n1, sizeof *g->edge_at);
        ok = (g->cls && g->size8 && g->edge_at) || hgr_fail_nomem(g);
    }
    if (ok)
        for (uint32_t i = 0; i < g->n; i++)
            g->cls[i] = class_class;
    b.phase = "counting references";
    b.seen = 0;
    ok = ok && ht_walk_subs(r, hgr_count_sub, &b);
    if (ok) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < g->n; i++) {
            uint32_t c = g->edge_at[i];
            g->edge_at[i] = (uint32_t)sum;
            sum += c;
            if (sum >= UINT32_MAX) {
                ok = ht_fail(r, "the dump holds more than %u references; at most that many are supported", UINT32_MAX - 1);
                break;
            }
        }
        g->edge_at[g->n] = (uint32_t)sum;
        g->nclasses = HEAP_CLASS_FIRST + (uint32_t)r->ncls;
        if (ok) {
            g->edges = malloc((sum ? (size_t)sum : 1) * sizeof *g->edges);
            g->roots = malloc((b.caproots ? b.caproots : 1) * sizeof *g->roots);
            ok = (g->edges && g->roots) || hgr_fail_nomem(g);
        }
    }
    b.phase = "reading references";
    b.seen = 0;
    ok = ok && ht_walk_subs(r, hgr_fill_sub, &b);
    if (ok)
        hgr_compact(g);
    if (ok && g->idsize == 8 && hgr_compressed_oops(g)) {
        g->compressed_oops = true;
        hgr_compressed_sizes(g);
    }
    if (!ok) {
        heap_graph_free(g);
        return false;
    }
    return true;
}

void heap_graph_free(heap_graph *g)
{
    if (g->r) {
        ht_reader_free(g->r);
        free(g->r);
    }
    free(g->ids);
    free(g->at);
    free(g->cls);
    free(g->size8);
    free(g->edge_at);
    free(g->edges);
    free(g->roots);
    free(g->referent_from);
    free(g->referent_to);
    free(g->bucket);
    memset(g, 0, sizeof *g);
}

/* ---- names ---- */

const char *heap_graph_class_name(const heap_graph *g, uint32_t ci)
{
    static const char *const prims[8] = { "boolean[]", "char[]", "float[]", "double[]",
                                          "byte[]",    "short[]", "int[]",  "long[]" };
    if (ci < HEAP_CLASS_CLASS)
        return prims[ci];
    if (ci == HEAP_CLASS_CLASS)
        return "java.lang.Class";
    const char *name = ci - HEAP_CLASS_FIRST < g->r->ncls ? ht_name_of(g->r, ci - HEAP_CLASS_FIRST) : NULL;
    return name ? name : "?";
}

bool heap_graph_is_class(const heap_graph *g, uint32_t i, const char **name)
{
    if (g->d[g->at[i]] != 0x20)
        return false;
    size_t ci = ht_find_class(g->r, g->ids[i]);
    const char *s = ci != HT_NONE ? ht_name_of(g->r, ci) : NULL;
    *name = s ? s : "?";
    return true;
}

typedef struct hgr_label {
    const heap_graph *g;
    uint32_t k; /* edges to pass before the one named */
    char *buf;
    size_t len;
    bool found;
} hgr_label;

static bool hgr_label_ref(void *ctx, uint8_t what, uint64_t id, uint64_t detail)
{
    hgr_label *l = ctx;
    if (what == HGR_REFERENT || heap_graph_find(l->g, id) == HEAP_GRAPH_NONE)
        return true;
    if (l->k--)
        return true;
    l->found = true;
    const ht_reader *r = l->g->r;
    uint32_t slen = 0;
    const char *s;
    switch (what) {
    case HGR_FIELD:
        snprintf(l->buf, l->len, "%.*s", (int)r->refs[detail].name_len, r->refs[detail].name);
        break;
    case HGR_ELEMENT:
        snprintf(l->buf, l->len, "[%" PRIu64 "]", detail);
        break;
    case HGR_SUPER:
        snprintf(l->buf, l->len, "<super>");
        break;
    case HGR_LOADER:
        snprintf(l->buf, l->len, "<loader>");
        break;
    case HGR_CLASS:
        snprintf(l->buf, l->len, "<class>");
        break;
    default:
        s = ht_string_of(r, detail, &slen);
        if (s)
            snprintf(l->buf, l->len, "static %.*s", (int)slen, s);
        else
            snprintf(l->buf, l->len, "static <field 0x%" PRIx64 ">", detail);
        break;
    }
    for (char *c = l->buf; *c; c++) /* names come from the file: one line */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return false;
}

bool heap_graph_edge_name(const heap_graph *g, uint32_t i, uint32_t k, char *buf, size_t len)
{
    if (i >= g->n || k >= g->edge_at[i + 1] - g->edge_at[i] || !len)
        return false;
    hgr_label l = { g, k, buf, len, false };
    hgr_refs(g, g->at[i], hgr_label_ref, &l);
    return l.found;
}

uint32_t heap_graph_trace_serial(const heap_graph *g, uint32_t i)
{
    /* CLASS, INSTANCE, OBJECT ARRAY and PRIMITIVE ARRAY DUMP: the tag, the id, then the u4 serial (pass 1
     * checked the record's length) */
    return i < g->n ? hprof_rd_u4(g->d + g->at[i] + 1 + g->idsize) : 0;
}

const char *heap_graph_root_kind(uint8_t kind)
{
    switch (kind) {
    case 0x01: return "JNI global";
    case 0x02: return "JNI local";
    case 0x03: return "Java frame";
    case 0x04: return "native stack";
    case 0x05: return "sticky class";
    case 0x06: return "thread block";
    case 0x07: return "monitor used";
    case 0x08: return "thread object";
    default: return "unknown";
    }
}

/* ---- field values and strings ---- */

bool heap_graph_field(const heap_graph *g, uint32_t i, const char *name, uint8_t *type, uint64_t *value)
{
    if (i >= g->n || g->d[g->at[i]] != 0x21 || g->cls[i] < HEAP_CLASS_FIRST)
        return false;
    const ht_reader *r = g->r;
    const uint8_t *d = g->d;
    const size_t id = g->idsize;
    size_t p = g->at[i] + 1;
    uint32_t nbytes = hprof_rd_u4(d + p + 2 * id + 4);
    const uint8_t *v = d + p + 2 * id + 8;
    size_t nlen = strlen(name);
    uint64_t base = 0;
    unsigned depth = 0;
    for (size_t k = g->cls[i] - HEAP_CLASS_FIRST; k < r->ncls && depth < 4096; k = r->cls[k].super_idx, depth++) {
        const ht_class *c = &r->cls[k];
        if (!c->dumped)
            return false;
        const uint8_t *f = d + c->fields_at; /* checked by pass 1 */
        uint64_t off = base;
        for (unsigned j = 0; j < c->nfields; j++, f += id + 1) {
            uint8_t t = f[id];
            unsigned sz = hprof_rd_type_size(g->idsize, t);
            uint32_t slen = 0;
            const char *s = ht_string_of(r, hprof_rd_id(g->idsize, f), &slen);
            if (s && slen == nlen && memcmp(s, name, nlen) == 0) {
                if (off + sz > nbytes)
                    return false;
                uint64_t x = 0;
                for (unsigned b = 0; b < sz; b++)
                    x = x << 8 | v[off + b];
                *type = t == 1 ? 2 : t;
                *value = x;
                return true;
            }
            off += sz;
        }
        base += c->own_bytes;
    }
    return false;
}

/* one code point as UTF-8 into buf at *w (room for len - 1 bytes and the NUL), control characters as '?' */
static void hgr_put_utf8(char *buf, size_t len, size_t *w, uint32_t c)
{
    unsigned char u[4];
    size_t n;
    if (c < 0x20 || c == 0x7f || (c >= 0xd800 && c < 0xe000))
        c = '?';
    if (c < 0x80)
        u[0] = (unsigned char)c, n = 1;
    else if (c < 0x800)
        u[0] = (unsigned char)(0xc0 | c >> 6), u[1] = (unsigned char)(0x80 | (c & 0x3f)), n = 2;
    else if (c < 0x10000)
        u[0] = (unsigned char)(0xe0 | c >> 12), u[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f)),
        u[2] = (unsigned char)(0x80 | (c & 0x3f)), n = 3;
    else
        u[0] = (unsigned char)(0xf0 | c >> 18), u[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f)),
        u[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f)), u[3] = (unsigned char)(0x80 | (c & 0x3f)), n = 4;
    if (*w + n >= len)
        return;
    memcpy(buf + *w, u, n);
    *w += n;
}

bool heap_graph_string(const heap_graph *g, uint32_t i, char *buf, size_t len)
{
    if (!len || i >= g->n)
        return false;
    buf[0] = '\0';
    const uint8_t *d = g->d;
    const size_t id = g->idsize;
    uint32_t arr = i;
    bool utf16_le = false; /* a byte[] of coder UTF16: StringUTF16 stores chars in the JVM's (x86, ARM: little) order */
    if (d[g->at[i]] == 0x21) {
        uint8_t t;
        uint64_t v;
        if (strcmp(heap_graph_class_name(g, g->cls[i]), "java.lang.String") != 0 ||
            !heap_graph_field(g, i, "value", &t, &v) || t != 2 || (arr = heap_graph_find(g, v)) == HEAP_GRAPH_NONE)
            return false;
        uint64_t coder = 0;
        if (heap_graph_field(g, i, "coder", &t, &coder) && t == 8)
            utf16_le = coder == 1;
    }
    if (d[g->at[arr]] != 0x23)
        return false;
    size_t p = g->at[arr] + 1;
    uint32_t count = hprof_rd_u4(d + p + id + 4);
    uint8_t type = d[p + id + 8];
    const uint8_t *e = d + p + id + 9;
    size_t w = 0;
    if (type == 8 && !utf16_le) { /* LATIN1 */
        for (uint32_t k = 0; k < count && w + 1 < len; k++)
            hgr_put_utf8(buf, len, &w, e[k]);
    } else if (type == 8 || type == 5) { /* UTF-16: a byte[] in pairs, or a char[] (big-endian in the file) */
        uint32_t n = type == 8 ? count / 2 : count;
        for (uint32_t k = 0; k < n && w + 1 < len; k++) {
            uint32_t c = type == 8 ? (uint32_t)e[2 * k] | (uint32_t)e[2 * k + 1] << 8 : hprof_rd_u2(e + 2 * k);
            if (c >= 0xd800 && c < 0xdc00 && k + 1 < n) {
                uint32_t lo = type == 8 ? (uint32_t)e[2 * k + 2] | (uint32_t)e[2 * k + 3] << 8 : hprof_rd_u2(e + 2 * k + 2);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                    k++;
                }
            }
            hgr_put_utf8(buf, len, &w, c);
        }
    } else {
        return false;
    }
    buf[w] = '\0';
    return true;
}
