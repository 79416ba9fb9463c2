/* flame_html.c — an interactive flame graph as ONE self-contained HTML page
 * (no network, no external script or font). The model's stacks, seen as
 * collapsed_frames() shows them, are merged here into a call tree; the page
 * embeds the distinct frame names once (a JSON array) and the tree as a flat
 * preorder list of (name * 16 + kind, samples, depth) triples, and its script
 * draws the frames as absolutely positioned divs (icicle: root on top):
 * click to zoom, a search box (substring, or /regex/), colours by frame kind.
 * Test hook: the URL fragment "#search=TEXT" types TEXT into the search box,
 * "#click=NAME" clicks the widest drawn frame named NAME (or the first containing it).
 * When the samples' times are known (record=y's recording, a window of it, a
 * file's SAMPLE TIMES), the page also embeds a timeline: for each node with
 * samples of its own, the time slices (timeline_bins.h) they fall in with
 * their counts; the script draws them as a heat map and redraws the flame
 * graph from the samples of a range dragged on it ("#range=A-B", seconds
 * after the profile's start, drags it; "#whole=1" goes back to the whole).
 * Nothing in C recurses on stack depth, nor does the script. */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/recording.h"
#include "timeline_bins.h"

enum { FH_KIND_ROOT = 7 };     /* the "all" frame; frame kinds 0..6, allocated class 8, thread 9, state 10 */
#define FH_KIND_BITS 4u

/* The call tree: node 0 is the root; children found by a hash on (parent, key). */
typedef struct fh_tree {
    uint32_t *parent, *key, *depth;   /* key = name index << FH_KIND_BITS | kind */
    uint64_t *total;
    uint32_t n, cap;
    uint32_t *slots;                  /* node index + 1, 0 = empty */
    uint32_t mask;
} fh_tree;

/* The distinct names, in first-seen order (index = intern id - 1), and
 * caches from what a frame refers to to its name index + 1. */
typedef struct fh_names {
    arena mem;
    intern_table tab;
    uint32_t *method, method_cap;     /* [method id] */
    uint32_t *cls, cls_cap;           /* [class id]: allocated classes */
    uint32_t *thread, thread_cap;     /* [thread serial] */
    uint32_t state[SAMPLE_STATES];
    uint32_t empty;
    buf tmp;
    buf libs;                         /* "index":"library" pairs of native frames' names, for the tooltip */
    uint8_t *lib_done;                /* [name index]: its library is in libs */
    uint32_t lib_done_cap;
} fh_names;

static uint32_t fh_hash(uint32_t parent, uint32_t key)
{
    uint64_t h = ((uint64_t)parent << 32 | key) * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 32);
}

static bool fh_tree_grow(fh_tree *t)
{
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 1024;
        if (cap < t->cap)
            return false;
        uint32_t *p = realloc(t->parent, (size_t)cap * sizeof *p);
        if (p)
            t->parent = p;
        uint32_t *k = realloc(t->key, (size_t)cap * sizeof *k);
        if (k)
            t->key = k;
        uint32_t *d = realloc(t->depth, (size_t)cap * sizeof *d);
        if (d)
            t->depth = d;
        uint64_t *v = realloc(t->total, (size_t)cap * sizeof *v);
        if (v)
            t->total = v;
        if (!p || !k || !d || !v)
            return false;
        t->cap = cap;
    }
    if ((uint64_t)(t->n + 1) * 2 > (uint64_t)t->mask + 1 || !t->slots) {
        uint32_t size = t->slots ? (t->mask + 1) * 2 : 2048;
        if (size == 0)
            return false;
        uint32_t *s = calloc(size, sizeof *s);
        if (!s)
            return false;
        for (uint32_t i = 1; i < t->n; i++) {   /* node 0, the root, is nobody's child */
            uint32_t h = fh_hash(t->parent[i], t->key[i]) & (size - 1);
            while (s[h])
                h = (h + 1) & (size - 1);
            s[h] = i + 1;
        }
        free(t->slots);
        t->slots = s;
        t->mask = size - 1;
    }
    return true;
}

/* The child of parent with key, added if new; UINT32_MAX when out of memory. */
static uint32_t fh_child(fh_tree *t, uint32_t parent, uint32_t key)
{
    uint32_t h = fh_hash(parent, key) & t->mask;
    for (; t->slots[h]; h = (h + 1) & t->mask) {
        uint32_t i = t->slots[h] - 1;
        if (t->parent[i] == parent && t->key[i] == key)
            return i;
    }
    if (!fh_tree_grow(t))
        return UINT32_MAX;
    h = fh_hash(parent, key) & t->mask;   /* the table may have been rebuilt */
    while (t->slots[h])
        h = (h + 1) & t->mask;
    uint32_t i = t->n++;
    t->slots[h] = i + 1;
    t->parent[i] = parent;
    t->key[i] = key;
    t->depth[i] = t->depth[parent] + 1;
    t->total[i] = 0;
    return i;
}

/* The child of parent with key, or UINT32_MAX if there is none. */
static uint32_t fh_find(const fh_tree *t, uint32_t parent, uint32_t key)
{
    if (!t->slots)
        return UINT32_MAX;
    for (uint32_t h = fh_hash(parent, key) & t->mask; t->slots[h]; h = (h + 1) & t->mask) {
        uint32_t i = t->slots[h] - 1;
        if (t->parent[i] == parent && t->key[i] == key)
            return i;
    }
    return UINT32_MAX;
}

static void fh_tree_free(fh_tree *t)
{
    free(t->parent);
    free(t->key);
    free(t->depth);
    free(t->total);
    free(t->slots);
}

static uint32_t fh_name_put(fh_names *nm, const void *s, size_t len)
{
    return len < UINT32_MAX ? intern_put(&nm->tab, s, (uint32_t)len, NULL) : 0;
}

static void fh_json_string(buf *out, const char *str, size_t len);

/* Notes the library of a native frame's name (the first seen, when one symbol is in several). */
static void fh_name_lib(const model *m, fh_names *nm, uint32_t index, method_id me)
{
    const model_method *mm = model_method_get(m, me);
    const model_class *c = mm ? model_class_get(m, mm->cls) : NULL;
    if (!c || c->code == MODEL_CODE_JAVA || !model_grow((void **)&nm->lib_done, &nm->lib_done_cap, index + 1, 1) ||
        nm->lib_done[index])
        return;
    size_t len;
    const char *lib = model_string_get(m, c->name, &len);
    nm->lib_done[index] = 1;
    buf_printf(&nm->libs, "%s\"%u\":", nm->libs.len ? "," : "", index);
    fh_json_string(&nm->libs, lib, len);
}

/* The name index + 1 of a frame (0 when out of memory). */
static uint32_t fh_name(const model *m, fh_names *nm, collapsed_frame f)
{
    uint32_t *slot;
    if (f.kind == COLLAPSED_KIND_THREAD) {
        if (f.ref == 0 || !model_grow((void **)&nm->thread, &nm->thread_cap, f.ref, sizeof *nm->thread))
            return 0;
        slot = &nm->thread[f.ref - 1];
    } else if (f.kind == COLLAPSED_KIND_STATE) {
        slot = &nm->state[f.ref < SAMPLE_STATES ? f.ref : 0];
    } else if (f.kind == COLLAPSED_KIND_CLASS) {
        if (f.ref == 0 || !model_grow((void **)&nm->cls, &nm->cls_cap, f.ref, sizeof *nm->cls))
            return 0;
        slot = &nm->cls[f.ref - 1];
    } else if (f.ref == 0) {
        slot = &nm->empty;
    } else {
        if (!model_grow((void **)&nm->method, &nm->method_cap, f.ref, sizeof *nm->method))
            return 0;
        slot = &nm->method[f.ref - 1];
    }
    if (!*slot) {
        buf_reset(&nm->tmp);
        collapsed_frame_name(m, f, &nm->tmp);
        if (nm->tmp.failed)
            return 0;
        *slot = fh_name_put(nm, nm->tmp.data ? (const char *)nm->tmp.data : "", nm->tmp.len);
    }
    if (*slot && (f.kind == FRAME_KIND_CPP || f.kind == FRAME_KIND_KERNEL) && f.ref)
        fh_name_lib(m, nm, *slot - 1, (method_id){ f.ref });
    return *slot;
}

/* Merges every stack into the tree. */
typedef struct fh_build_ctx {
    const model *m;
    fh_tree *t;
    fh_names *nm;
} fh_build_ctx;

/* Adds samples along the path of frames fr[0..k) (made as needed); its last node, or UINT32_MAX when out of
 * memory. */
static uint32_t fh_path(fh_build_ctx *b, const collapsed_frame *fr, uint32_t k, uint64_t samples)
{
    uint32_t node = 0;
    b->t->total[0] += samples;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t name = fh_name(b->m, b->nm, fr[i]);
        if (name == 0 || name - 1 > (UINT32_MAX >> FH_KIND_BITS))
            return UINT32_MAX;
        node = fh_child(b->t, node, (name - 1) << FH_KIND_BITS | fr[i].kind);
        if (node == UINT32_MAX)
            return UINT32_MAX;
        b->t->total[node] += samples;
    }
    return node;
}

static jp_status fh_add_stack(const collapsed_frame *fr, uint32_t k, uint64_t samples, void *ctx)
{
    return fh_path(ctx, fr, k, samples) == UINT32_MAX ? JP_ERR_NOMEM : JP_OK;
}

static jp_status fh_build(const model *m, fh_tree *t, fh_names *nm)
{
    fh_build_ctx b = { m, t, nm };
    return stack_walk(m, fh_add_stack, &b);
}

/* ---- timeline ----------------------------------------------------------- */

static void fh_flush(buf *out, sink *s, bool all);

/* The samples with their times and stacks: record=y's recording (the session's model: its CPU and wall
 * samples), else the model's sample times that know their stack (a window of the recording, a file's
 * SAMPLE TIMES read back). None for allocation stacks or exact call times. */
typedef void (*fh_timed_fn)(uint64_t time_ns, uint32_t stack, uint32_t weight, void *ctx);
typedef struct fh_timed_ctx {
    fh_timed_fn fn;
    void *ctx;
} fh_timed_ctx;

static void fh_timed_event(const recording_event *e, void *arg)
{
    const fh_timed_ctx *c = arg;
    if ((e->kind == RECORDING_CPU || e->kind == RECORDING_WALL) && e->ref)
        c->fn(e->time_ns, e->ref, e->weight, c->ctx);
}

static bool fh_timed(const model *m)
{
    if (m->stacks_alloc || m->stacks_ns)
        return false;
    if (m->recording)
        return true;
    for (uint32_t i = 0; i < m->sample_times_len; i++)
        if (model_sample_time_stack(m, i))
            return true;
    return false;
}

static void fh_timed_each(const model *m, fh_timed_fn fn, void *ctx)
{
    if (m->recording) {
        fh_timed_ctx c = { fn, ctx };
        recording_each(m->recording, 0, UINT64_MAX, fh_timed_event, &c);
        return;
    }
    for (uint32_t i = 0; i < m->sample_times_len; i++)
        if (model_sample_time_stack(m, i))
            fn(m->sample_times[i].wall_ns, model_sample_time_stack(m, i), m->sample_times[i].weight, ctx);
}

/* The timeline's state: each timed stack's node in the tree (made with 0 samples when the tree has no
 * samples of it: a recording holds samples a reset=y report no longer counts), the times' span, then the
 * slices by node (its position in the page's preorder list). */
typedef struct fh_timeline {
    fh_build_ctx b;
    uint32_t *leaf;           /* [stack id]: its node + 1, 0 not yet */
    uint32_t nstacks, fcap;
    collapsed_frame *fr;
    uint64_t first_ns, last_ns, samples;
    const uint32_t *pos;      /* [node]: its position in the page */
    timeline_bins bins;
    bool oom;
} fh_timeline;

static uint32_t fh_leaf(fh_timeline *tl, uint32_t stack)
{
    if (stack == 0 || stack > tl->nstacks)
        return UINT32_MAX;
    if (!tl->leaf[stack]) {
        model_stack ms = model_stack_get(tl->b.m, (stack_id){ stack });
        if (ms.nframes + 2 > tl->fcap) {
            collapsed_frame *p = realloc(tl->fr, (size_t)(ms.nframes + 2) * sizeof *p);
            if (!p) {
                tl->oom = true;
                return UINT32_MAX;
            }
            tl->fr = p;
            tl->fcap = ms.nframes + 2;
        }
        uint32_t node = fh_path(&tl->b, tl->fr, collapsed_frames(tl->b.m, &ms, tl->fr), 0);
        if (node == UINT32_MAX) {
            tl->oom = true;
            return UINT32_MAX;
        }
        tl->leaf[stack] = node + 1;
    }
    return tl->leaf[stack] - 1;
}

static void fh_timeline_span(uint64_t time_ns, uint32_t stack, uint32_t weight, void *ctx)
{
    fh_timeline *tl = ctx;
    if (fh_leaf(tl, stack) == UINT32_MAX)
        return;
    if (!tl->samples || time_ns < tl->first_ns)
        tl->first_ns = time_ns;
    if (!tl->samples || time_ns > tl->last_ns)
        tl->last_ns = time_ns;
    tl->samples += weight;
}

static void fh_timeline_bin(uint64_t time_ns, uint32_t stack, uint32_t weight, void *ctx)
{
    fh_timeline *tl = ctx;
    uint32_t node = stack && stack <= tl->nstacks && tl->leaf[stack] ? tl->leaf[stack] - 1 : UINT32_MAX;
    if (node != UINT32_MAX)
        timeline_bins_add(&tl->bins, time_ns, tl->pos[node], weight);
}

/* ,"timeline": {"t0": the origin (ms since the epoch), "from": the first slice's start (ms after t0),
 * "slice": its width (ms), "n": slices, "samples": how many, "cells": [position, pairs, then pairs of
 * (slice, count), each slice after the first as the step from the one before, ...]} */
static void fh_timeline_write(const model *m, fh_timeline *tl, buf *out, sink *s)
{
    timeline_bins *b = &tl->bins;
    uint64_t origin_ns = m->start_time_ms * 1000000u;
    buf_printf(out, ",\n\"timeline\": {\"t0\": %llu, \"from\": %.3f, \"slice\": %.3f, \"n\": %u, \"samples\": %llu, "
                    "\"cells\": [", (unsigned long long)m->start_time_ms,
               (double)(int64_t)(b->from_ns - origin_ns) / 1e6, (double)b->slice_ns / 1e6, b->nslices,
               (unsigned long long)tl->samples);
    for (uint32_t i = 0; i < b->ncells;) {
        uint32_t k = i;
        while (k < b->ncells && b->cells[k].key == b->cells[i].key)
            k++;
        buf_printf(out, "%s%u,%u", i ? "," : "", b->cells[i].key, k - i);
        for (uint32_t j = i; j < k; j++)
            buf_printf(out, ",%u,%llu", j == i ? b->cells[j].slice : b->cells[j].slice - b->cells[j - 1].slice,
                       (unsigned long long)b->cells[j].count);
        fh_flush(out, s, false);
        i = k;
    }
    buf_put(out, "]}", 2);
}

/* ---- output ------------------------------------------------------------- */

/* Valid UTF-8 sequence length at s (1..4), or 0. */
static size_t fh_utf8_len(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (left < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

/* A JSON string that is also safe inside a <script> element: no '<', '>' or
 * '&', no U+2028/2029, invalid UTF-8 as U+FFFD; Java's modified UTF-8
 * surrogates (ED A0..BF xx) as \u escapes, so surrogate pairs survive. */
static void fh_json_string(buf *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    buf_put(out, "\"", 1);
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        size_t n = fh_utf8_len(s + i, len - i);
        if (c == '"' || c == '\\') {
            buf_put(out, "\\", 1);
            buf_put(out, &c, 1);
            i++;
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
            buf_printf(out, "\\u%04x", c);
            i++;
        } else if (n == 3 && c == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) {
            buf_printf(out, "\\u%04x", 0x2000u + (s[i + 2] - 0xA8u) + 0x28u);
            i += 3;
        } else if (n > 0) {
            buf_put(out, s + i, n);
            i += n;
        } else if (c == 0xED && len - i >= 3 && s[i + 1] >= 0xA0 && s[i + 1] <= 0xBF && s[i + 2] >= 0x80 &&
                   s[i + 2] <= 0xBF) {
            buf_printf(out, "\\u%04x", 0xD000u | (s[i + 1] & 0x3Fu) << 6 | (s[i + 2] & 0x3Fu));
            i += 3;
        } else {
            buf_put(out, "\\ufffd", 6);
            i++;
        }
    }
    buf_put(out, "\"", 1);
}

static void fh_puts(buf *out, const char *s) { buf_put(out, s, strlen(s)); }

static void fh_html_text(buf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': buf_put(out, "&amp;", 5); break;
        case '<': buf_put(out, "&lt;", 4); break;
        case '>': buf_put(out, "&gt;", 4); break;
        case '"': buf_put(out, "&quot;", 6); break;
        case '\'': buf_put(out, "&#39;", 5); break;
        default: buf_put(out, s, 1);
        }
    }
}

/* Moves out's bytes to the sink when there are many (or all, if `all`). */
static void fh_flush(buf *out, sink *s, bool all)
{
    if (out->len >= (all ? 1 : 64u * 1024)) {
        sink_write(s, out->data, out->len);
        buf_reset(out);
    }
}

typedef struct fh_child_ref {
    uint64_t order;       /* name rank << FH_KIND_BITS | kind */
    uint32_t node;
} fh_child_ref;

typedef struct fh_name_ref {
    const char *s;
    uint32_t len, index;
} fh_name_ref;

static int fh_child_cmp(const void *a, const void *b)
{
    const fh_child_ref *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int fh_name_cmp(const void *a, const void *b)
{
    const fh_name_ref *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The tree in preorder, children sorted by name (then kind), as
 * "key,total,depth," triples; pos (if not NULL) gets each node's place in
 * that order. Iterative: an explicit stack of nodes. */
static jp_status fh_write_nodes(const fh_tree *t, fh_names *nm, buf *out, sink *s, const uint64_t *before,
                                buf *before_out, uint32_t *pos)
{
    uint32_t emitted = 0;
    uint32_t nnames = intern_count(&nm->tab);
    fh_name_ref *names = malloc(((size_t)nnames + 1) * sizeof *names);
    uint32_t *rank = malloc(((size_t)nnames + 1) * sizeof *rank);
    uint32_t *first = calloc((size_t)t->n + 1, sizeof *first);   /* children of i: [first[i], first[i + 1]) */
    fh_child_ref *kids = malloc(((size_t)t->n + 1) * sizeof *kids);
    uint32_t *todo = malloc(((size_t)t->n + 1) * sizeof *todo);
    jp_status st = JP_ERR_NOMEM;
    if (!names || !rank || !first || !kids || !todo)
        goto out;
    for (uint32_t i = 0; i < nnames; i++) {
        uint32_t len;
        names[i].s = intern_key(&nm->tab, i + 1, &len);
        names[i].len = len;
        names[i].index = i;
    }
    qsort(names, nnames, sizeof *names, fh_name_cmp);
    for (uint32_t i = 0; i < nnames; i++)
        rank[names[i].index] = i;
    for (uint32_t i = 1; i < t->n; i++)
        first[t->parent[i] + 1]++;
    for (uint32_t i = 0; i < t->n; i++)
        first[i + 1] += first[i];
    uint32_t *fill = todo;                                       /* borrowed as fill cursors */
    memcpy(fill, first, (size_t)t->n * sizeof *fill);
    for (uint32_t i = 1; i < t->n; i++)
        kids[fill[t->parent[i]]++] = (fh_child_ref){ (uint64_t)rank[t->key[i] >> FH_KIND_BITS] << FH_KIND_BITS |
                                                         (t->key[i] & ((1u << FH_KIND_BITS) - 1)), i };
    for (uint32_t i = 0; i < t->n; i++)
        if (first[i + 1] - first[i] > 1)
            qsort(kids + first[i], first[i + 1] - first[i], sizeof *kids, fh_child_cmp);
    uint32_t sp = 0;
    todo[sp++] = 0;
    while (sp > 0) {
        uint32_t i = todo[--sp];
        if (pos)
            pos[i] = emitted++;
        buf_printf(out, "%s%u,%llu,%u", i ? "," : "", t->key[i], (unsigned long long)t->total[i], t->depth[i]);
        if (before)
            buf_printf(before_out, "%s%llu", i ? "," : "", (unsigned long long)before[i]);
        for (uint32_t c = first[i + 1]; c-- > first[i];)
            todo[sp++] = kids[c].node;
        fh_flush(out, s, false);
    }
    st = out->failed || (before && before_out->failed) ? JP_ERR_NOMEM : JP_OK;
out:
    free(names);
    free(rank);
    free(first);
    free(kids);
    free(todo);
    return st;
}

/* The page's fixed parts, kept as files in src/format/flame_page/ and
 * compiled in (build/gen/flame_page.h, made by tools/embed.sh): fh_head (the
 * document head and its style), fh_controls (the search bar, up to the
 * names array) and fh_script (the drawing code). Each is NUL-terminated. */
#include "flame_page.h"




/* The tree of m, node 0 the root "all" (name index 0); false when out of memory. */
static bool fh_tree_root(fh_tree *t)
{
    if (!fh_tree_grow(t))
        return false;
    t->n = 1;
    t->parent[0] = 0;
    t->key[0] = FH_KIND_ROOT;
    t->depth[0] = 0;
    t->total[0] = 0;
    return true;
}

/* The page of m; with before (jvmprof diff), each node also carries what the same call path had in before's
 * tree, and the script colours by the change of share. */
static jp_status fh_write_page(const model *m, const model *before, const report_opts *o, sink *s)
{
    fh_tree t = { 0 }, tb = { 0 };
    fh_names nm = { 0 };
    fh_timeline tl = { 0 };
    uint32_t *pos = NULL;
    uint64_t *before_total = NULL;
    buf out, before_out;
    buf_init(&out);
    buf_init(&before_out);
    buf_init(&nm.tmp);
    buf_init(&nm.libs);
    arena_init(&nm.mem);
    intern_init(&nm.tab, &nm.mem);
    jp_status st = JP_ERR_NOMEM;
    /* name index 0 is the root's; node 0 the root */
    if (fh_name_put(&nm, "all", 3) != 1 || !fh_tree_root(&t))
        goto out;
    if ((st = fh_build(m, &t, &nm)) != JP_OK)
        goto out;
    if (!before && fh_timed(m)) { /* the timed samples' nodes, and their span */
        st = JP_ERR_NOMEM;
        tl.b = (fh_build_ctx){ m, &t, &nm };
        tl.nstacks = model_stack_count(m);
        if (!(tl.leaf = calloc((size_t)tl.nstacks + 1, sizeof *tl.leaf)))
            goto out;
        fh_timed_each(m, fh_timeline_span, &tl);
        if (tl.oom || !(pos = malloc(((size_t)t.n + 1) * sizeof *pos)))
            goto out;
        st = JP_OK;
    }
    if (before) { /* before's tree over the same names (its ids are its own: the caches start again) */
        st = JP_ERR_NOMEM;
        free(nm.method);
        free(nm.cls);
        free(nm.thread);
        nm.method = nm.cls = nm.thread = NULL;
        nm.method_cap = nm.cls_cap = nm.thread_cap = 0;
        memset(nm.state, 0, sizeof nm.state);
        nm.empty = 0;
        if (!fh_tree_root(&tb) || (st = fh_build(before, &tb, &nm)) != JP_OK)
            goto out;
        st = JP_ERR_NOMEM;
        uint32_t *same = malloc((size_t)t.n * sizeof *same); /* the node of before's tree on the same path */
        before_total = calloc(t.n, sizeof *before_total);
        if (!same || !before_total) {
            free(same);
            goto out;
        }
        same[0] = 0;
        before_total[0] = tb.total[0];
        for (uint32_t i = 1; i < t.n; i++) { /* parents come before their children */
            uint32_t p = same[t.parent[i]];
            same[i] = p == UINT32_MAX ? UINT32_MAX : fh_find(&tb, p, t.key[i]);
            before_total[i] = same[i] == UINT32_MAX ? 0 : tb.total[same[i]];
        }
        free(same);
    }

    const char *title = o && o->title && o->title[0] ? o->title
                        : before                             ? "Differential flame graph"
                        : m->stacks_alloc                    ? "Allocations (bytes allocated)"
                        : m->stacks_ns                       ? "Exact call times"

                        : m->wall                            ? "Wall-clock samples"
                                                             : "CPU samples";
    sink_write(s, fh_head, sizeof fh_head - 1);
    fh_puts(&out, "<title>");
    fh_html_text(&out, title);
    fh_puts(&out, "</title>\n</head>\n<body>\n<h1 id=\"title\">");
    fh_html_text(&out, title);
    if (m->stacks_alloc)
        buf_printf(&out, "</h1>\n<div id=\"sub\">%llu bytes allocated%s, by allocation site, the allocated class "
                   "on top", (unsigned long long)t.total[0], m->sites_exact ? "" : " (estimated from samples)");
    else if (m->stacks_ns)
        buf_printf(&out, "</h1>\n<div id=\"sub\">%llu ns in traced calls, exact: each frame's width is the time "
                   "of its calls, its callees' included", (unsigned long long)t.total[0]);
    else
        buf_printf(&out, "</h1>\n<div id=\"sub\">%llu %s sample%s", (unsigned long long)t.total[0],
                   m->wall ? "wall-clock" : "CPU", t.total[0] == 1 ? "" : "s");
    if (m->interval_us && !m->stacks_alloc)
        buf_printf(&out, ", one every %g ms", m->interval_us / 1000.0);
    else if (m->sample_event[0] && !m->stacks_alloc && !m->stacks_ns) {
        buf_printf(&out, ", one every %llu ", (unsigned long long)m->event_period);
        fh_html_text(&out, m->sample_event);
        buf_printf(&out, " event%s", m->event_period == 1 ? "" : "s");
    }
    if (before)
        buf_printf(&out, "; drawn as they are now, each frame coloured by how its share changed since before "
                         "(%llu): red grew, blue shrank, the deeper the more", (unsigned long long)tb.total[0]);
    buf_printf(&out, ", %u frames in the call tree. Click a frame to zoom in; click the top frame or press Esc "
                     "to zoom out.</div>\n", t.n - 1);
    fh_puts(&out, fh_controls);
    uint32_t nnames = intern_count(&nm.tab);
    for (uint32_t i = 1; i <= nnames; i++) {
        uint32_t len;
        const char *name = intern_key(&nm.tab, i, &len);
        if (i > 1)
            buf_put(&out, ",", 1);
        fh_json_string(&out, name, len);
        fh_flush(&out, s, false);
    }
    fh_puts(&out, "],\n\"nodes\": [");
    if ((st = fh_write_nodes(&t, &nm, &out, s, before_total, &before_out, pos)) != JP_OK)
        goto out;
    if (before) {
        fh_puts(&out, "],\n\"before\": [");
        buf_put(&out, before_out.data, before_out.len);
        buf_printf(&out, "],\n\"beforeTotal\": %llu", (unsigned long long)tb.total[0]);
    } else {
        fh_puts(&out, "]");
    }
    if (tl.samples) { /* the timeline: the timed samples by node and time slice */
        timeline_bins_init(&tl.bins, m->start_time_ms * 1000000u, tl.first_ns, tl.last_ns, 1000);
        tl.pos = pos;
        fh_timed_each(m, fh_timeline_bin, &tl);
        if (!timeline_bins_finish(&tl.bins)) {
            st = JP_ERR_NOMEM;
            goto out;
        }
        fh_timeline_write(m, &tl, &out, s);
    }
    if (nm.libs.len) {
        fh_puts(&out, ",\n\"libs\": {");
        buf_put(&out, nm.libs.data, nm.libs.len);
        fh_puts(&out, "}");
    }
    if (nm.libs.failed)
        out.failed = true;
    fh_puts(&out, m->stacks_alloc ? ",\n\"unit\": \"bytes\"};\n</script>\n<script>\n"
                  : m->stacks_ns  ? ",\n\"unit\": \"ns\"};\n</script>\n<script>\n"
                                  : "};\n</script>\n<script>\n");
    fh_puts(&out, fh_script);
    fh_puts(&out, "</script>\n</body>\n</html>\n");
    st = out.failed ? JP_ERR_NOMEM : JP_OK;
    fh_flush(&out, s, true);
    if (st == JP_OK)
        st = sink_status(s);
out:
    buf_free(&out);
    buf_free(&before_out);
    buf_free(&nm.tmp);
    buf_free(&nm.libs);
    free(nm.lib_done);
    free(nm.method);
    free(nm.cls);
    free(nm.thread);
    free(before_total);
    free(tl.leaf);
    free(tl.fr);
    free(pos);
    timeline_bins_free(&tl.bins);
    intern_free(&nm.tab);
    arena_free(&nm.mem);
    fh_tree_free(&t);
    fh_tree_free(&tb);
    return st;
}

static jp_status flame_html_write(const model *m, const report_opts *o, sink *s) { return fh_write_page(m, NULL, o, s); }

jp_status flame_html_write_diff(const model *after, const model *before, const char *title, sink *s)
{
    report_opts o = { 0 };
    o.title = title;
    return fh_write_page(after, before, &o, s);
}

static void flame_html_summary(const model *m, char *out, size_t len)
{
    snprintf(out, len, "flame graph of %llu %s in %u stacks", (unsigned long long)m->total_stack_samples,
             m->stacks_alloc ? "bytes allocated" : m->stacks_ns ? "ns of calls" : "samples", model_stack_count(m));
}

const jp_format_ops flame_html_format = { "flame-html", "flame=", "the HTML flame graph",
                                          FMT_CPU_SAMPLES | FMT_WALL_SAMPLES, flame_html_write, flame_html_summary };
