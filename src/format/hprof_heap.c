/* hprof_heap.c — streams an HPROF binary heap dump to a sink (see
 * hprof_heap.h). A HEAP DUMP SEGMENT's header is written with a zero length
 * when the segment opens and patched when it closes, so sub-records never
 * wait in memory; a sub-record never spans two segments. */
#include "hprof_heap.h"

#include <stdlib.h>
#include <string.h>

#include "hprof_bin.h"

struct hprof_heap {
    sink *s;
    uint64_t limit;
    bool in_segment;
    uint64_t seg_at;          /* offset of the open segment's length field */
    uint64_t seg_bytes;       /* bytes of sub-records in the open segment */
    /* the object array being written */
    uint32_t arr_len, arr_next;
    bool in_array;
    hprof_heap_stats st;
};

unsigned hprof_type_size(unsigned type)
{
    switch (type) {
    case HPROF_OBJECT: case HPROF_DOUBLE: case HPROF_LONG: return 8;
    case HPROF_FLOAT: case HPROF_INT: return 4;
    case HPROF_CHAR: case HPROF_SHORT: return 2;
    case HPROF_BOOLEAN: case HPROF_BYTE: return 1;
    default: return 0;
    }
}

unsigned hprof_type_of_descriptor(char c)
{
    switch (c) {
    case 'L': case '[': return HPROF_OBJECT;
    case 'Z': return HPROF_BOOLEAN;
    case 'C': return HPROF_CHAR;
    case 'F': return HPROF_FLOAT;
    case 'D': return HPROF_DOUBLE;
    case 'B': return HPROF_BYTE;
    case 'S': return HPROF_SHORT;
    case 'I': return HPROF_INT;
    case 'J': return HPROF_LONG;
    default: return 0;
    }
}

hprof_heap *hprof_heap_begin(sink *s, uint64_t time_ms, uint64_t segment_limit)
{
    hprof_heap *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->s = s;
    h->limit = segment_limit && segment_limit < UINT32_MAX ? segment_limit : HPROF_HEAP_SEGMENT_LIMIT;
    sink_write(s, HPROF_BIN_MAGIC, sizeof HPROF_BIN_MAGIC); /* with its NUL */
    sink_u4(s, HPROF_BIN_ID_SIZE);
    sink_u8(s, time_ms);
    return h;
}

static void heap_close_segment(hprof_heap *h)
{
    if (!h->in_segment)
        return;
    sink_patch_u4(h->s, h->seg_at, (uint32_t)h->seg_bytes);
    h->in_segment = false;
}

static void heap_record(hprof_heap *h, uint8_t tag, uint32_t len)
{
    heap_close_segment(h);
    sink_u1(h->s, tag);
    sink_u4(h->s, 0);      /* time: 0, as HotSpot writes it */
    sink_u4(h->s, len);
}

/* Makes room for a sub-record of `size` bytes in a segment. */
static void heap_sub(hprof_heap *h, uint64_t size)
{
    if (h->in_segment && h->seg_bytes + size > h->limit)
        heap_close_segment(h);
    if (!h->in_segment) {
        sink_u1(h->s, HPROF_TAG_HEAP_DUMP_SEGMENT);
        sink_u4(h->s, 0);
        h->seg_at = sink_bytes(h->s);
        sink_u4(h->s, 0);  /* patched when the segment closes */
        h->in_segment = true;
        h->seg_bytes = 0;
        h->st.segments++;
    }
    h->seg_bytes += size;
}

void hprof_heap_utf8(hprof_heap *h, uint64_t id, const char *str, size_t len)
{
    if (len > UINT32_MAX - 8)
        len = UINT32_MAX - 8;
    heap_record(h, HPROF_TAG_UTF8, (uint32_t)(8 + len));
    sink_u8(h->s, id);
    sink_write(h->s, str, len);
}

void hprof_heap_load_class(hprof_heap *h, uint32_t serial, uint64_t class_id, uint32_t trace, uint64_t name)
{
    heap_record(h, HPROF_TAG_LOAD_CLASS, 4 + 8 + 4 + 8);
    sink_u4(h->s, serial);
    sink_u8(h->s, class_id);
    sink_u4(h->s, trace);
    sink_u8(h->s, name);
}

void hprof_heap_frame(hprof_heap *h, uint64_t frame, uint64_t method_name, uint64_t method_sig, uint64_t source,
                      uint32_t class_serial, int32_t line)
{
    heap_record(h, HPROF_TAG_FRAME, 8 * 4 + 4 + 4);
    sink_u8(h->s, frame);
    sink_u8(h->s, method_name);
    sink_u8(h->s, method_sig);
    sink_u8(h->s, source);
    sink_u4(h->s, class_serial);
    sink_u4(h->s, (uint32_t)line);
}

void hprof_heap_trace(hprof_heap *h, uint32_t serial, uint32_t thread_serial, uint32_t nframes,
                      const uint64_t *frames)
{
    if (nframes > (UINT32_MAX - 12) / 8)
        nframes = (UINT32_MAX - 12) / 8;
    heap_record(h, HPROF_TAG_TRACE, 12 + 8 * nframes);
    sink_u4(h->s, serial);
    sink_u4(h->s, thread_serial);
    sink_u4(h->s, nframes);
    for (uint32_t i = 0; i < nframes; i++)
        sink_u8(h->s, frames[i]);
}

void hprof_heap_start_thread(hprof_heap *h, uint32_t serial, uint64_t thread_id, uint32_t trace, uint64_t name,
                             uint64_t group, uint64_t parent_group)
{
    heap_record(h, HPROF_TAG_START_THREAD, 4 + 8 + 4 + 8 * 3);
    sink_u4(h->s, serial);
    sink_u8(h->s, thread_id);
    sink_u4(h->s, trace);
    sink_u8(h->s, name);
    sink_u8(h->s, group);
    sink_u8(h->s, parent_group);
}

void hprof_heap_root(hprof_heap *h, enum hprof_root kind, uint64_t id, uint64_t a, uint32_t b)
{
    unsigned extra;
    switch (kind) {
    case HPROF_ROOT_JNI_GLOBAL: case HPROF_ROOT_JNI_LOCAL: case HPROF_ROOT_JAVA_FRAME:
    case HPROF_ROOT_THREAD_OBJECT: extra = 8; break;
    case HPROF_ROOT_NATIVE_STACK: case HPROF_ROOT_THREAD_BLOCK: extra = 4; break;
    default: extra = 0; break;
    }
    heap_sub(h, 1 + 8 + extra);
    sink_u1(h->s, (uint8_t)kind);
    sink_u8(h->s, id);
    if (kind == HPROF_ROOT_JNI_GLOBAL) {
        sink_u8(h->s, a);
    } else if (extra == 8) {
        sink_u4(h->s, (uint32_t)a);
        sink_u4(h->s, b);
    } else if (extra == 4) {
        sink_u4(h->s, (uint32_t)a);
    }
    h->st.roots++;
}

void hprof_heap_class(hprof_heap *h, const hprof_class_dump *c)
{
    uint64_t size = 1 + 8 + 4 + 8 * 6 + 4 + 2 + 2 + 2 + (uint64_t)c->nfields * 9;
    for (uint16_t i = 0; i < c->nstatics; i++)
        size += 9 + hprof_type_size(c->statics[i].type);
    heap_sub(h, size);
    sink *s = h->s;
    sink_u1(s, HPROF_SUB_CLASS_DUMP);
    sink_u8(s, c->id);
    sink_u4(s, c->trace);
    sink_u8(s, c->super);
    sink_u8(s, c->loader);
    sink_u8(s, c->signers);
    sink_u8(s, c->domain);
    sink_u8(s, 0);
    sink_u8(s, 0);
    sink_u4(s, c->instance_size);
    sink_u2(s, 0);             /* constant pool: none, as HotSpot */
    sink_u2(s, c->nstatics);
    for (uint16_t i = 0; i < c->nstatics; i++) {
        const hprof_field *f = &c->statics[i];
        sink_u8(s, f->name);
        sink_u1(s, f->type);
        switch (hprof_type_size(f->type)) {
        case 1: sink_u1(s, (uint8_t)f->value); break;
        case 2: sink_u2(s, (uint16_t)f->value); break;
        case 4: sink_u4(s, (uint32_t)f->value); break;
        default: sink_u8(s, f->value); break;
        }
    }
    sink_u2(s, c->nfields);
    for (uint16_t i = 0; i < c->nfields; i++) {
        sink_u8(s, c->fields[i].name);
        sink_u1(s, c->fields[i].type);
    }
    h->st.classes++;
}

void hprof_heap_instance(hprof_heap *h, uint64_t id, uint32_t trace, uint64_t class_id, const unsigned char *values,
                         uint32_t nbytes)
{
    heap_sub(h, 1 + 8 + 4 + 8 + 4 + (uint64_t)nbytes);
    sink_u1(h->s, HPROF_SUB_INSTANCE_DUMP);
    sink_u8(h->s, id);
    sink_u4(h->s, trace);
    sink_u8(h->s, class_id);
    sink_u4(h->s, nbytes);
    sink_write(h->s, values, nbytes);
    h->st.instances++;
}

/* The most elements of `esize` bytes an array sub-record with a header of
 * `head` bytes may hold in one segment. */
static uint32_t heap_array_fit(const hprof_heap *h, uint32_t length, unsigned esize, unsigned head)
{
    uint64_t max = (h->limit - head) / esize;
    return length > max ? (uint32_t)max : length;
}

void hprof_heap_obj_array_begin(hprof_heap *h, uint64_t id, uint32_t trace, uint32_t length, uint64_t class_id)
{
    enum { HEAD = 1 + 8 + 4 + 4 + 8 };
    uint32_t n = heap_array_fit(h, length, 8, HEAD);
    if (n < length)
        h->st.arrays_cut++;
    heap_sub(h, HEAD + 8 * (uint64_t)n);
    sink_u1(h->s, HPROF_SUB_OBJ_ARRAY_DUMP);
    sink_u8(h->s, id);
    sink_u4(h->s, trace);
    sink_u4(h->s, n);
    sink_u8(h->s, class_id);
    h->arr_len = n;
    h->arr_next = 0;
    h->in_array = true;
    h->st.obj_arrays++;
}

static void heap_nulls(hprof_heap *h, uint32_t upto)
{
    static const unsigned char zeros[4096];
    while (h->arr_next < upto) {
        uint32_t k = upto - h->arr_next;
        if (k > sizeof zeros / 8)
            k = sizeof zeros / 8;
        sink_write(h->s, zeros, (size_t)k * 8);
        h->arr_next += k;
    }
}

void hprof_heap_obj_array_element(hprof_heap *h, uint32_t index, uint64_t id)
{
    if (!h->in_array || index < h->arr_next || index >= h->arr_len)
        return;   /* out of order, or past a cut */
    heap_nulls(h, index);
    sink_u8(h->s, id);
    h->arr_next = index + 1;
}

void hprof_heap_obj_array_end(hprof_heap *h)
{
    if (!h->in_array)
        return;
    heap_nulls(h, h->arr_len);
    h->in_array = false;
}

/* Copies k bytes of esize-byte values from the machine's order to big-endian. */
static void heap_to_big_endian(unsigned char *out, const unsigned char *in, size_t k, unsigned esize)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    (void)esize;
    memcpy(out, in, k);
#else
    for (size_t i = 0; i < k; i += esize) {
        if (esize == 2) {
            uint16_t v;
            memcpy(&v, in + i, 2);
            v = __builtin_bswap16(v);
            memcpy(out + i, &v, 2);
        } else if (esize == 4) {
            uint32_t v;
            memcpy(&v, in + i, 4);
            v = __builtin_bswap32(v);
            memcpy(out + i, &v, 4);
        } else {
            uint64_t v;
            memcpy(&v, in + i, 8);
            v = __builtin_bswap64(v);
            memcpy(out + i, &v, 8);
        }
    }
#endif
}

void hprof_heap_prim_array(hprof_heap *h, uint64_t id, uint32_t trace, uint8_t type, uint32_t length,
                           const void *elements)
{
    enum { HEAD = 1 + 8 + 4 + 4 + 1 };
    unsigned esize = hprof_type_size(type);
    if (esize == 0 || type == HPROF_OBJECT)
        return;
    uint32_t n = heap_array_fit(h, length, esize, HEAD);
    if (n < length)
        h->st.arrays_cut++;
    heap_sub(h, HEAD + (uint64_t)esize * n);
    sink_u1(h->s, HPROF_SUB_PRIM_ARRAY_DUMP);
    sink_u8(h->s, id);
    sink_u4(h->s, trace);
    sink_u4(h->s, n);
    sink_u1(h->s, type);
    if (esize == 1) {
        sink_write(h->s, elements, n);
    } else {
        /* big-endian, in chunks */
        unsigned char chunk[8192];
        const unsigned char *p = elements;
        uint64_t total = (uint64_t)n * esize;
        for (uint64_t off = 0; off < total;) {
            size_t k = total - off < sizeof chunk ? (size_t)(total - off) : sizeof chunk;
            heap_to_big_endian(chunk, p + off, k, esize);
            sink_write(h->s, chunk, k);
            off += k;
        }
    }
    h->st.prim_arrays++;
}

jp_status hprof_heap_end(hprof_heap *h, hprof_heap_stats *stats)
{
    hprof_heap_obj_array_end(h);
    heap_record(h, HPROF_TAG_HEAP_DUMP_END, 0);
    if (stats)
        *stats = h->st;
    jp_status st = sink_status(h->s);
    free(h);
    return st;
}

void hprof_heap_free(hprof_heap *h) { free(h); }
