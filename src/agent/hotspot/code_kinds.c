/* code_kinds.c — JIT code load/unload bookkeeping for frame kinds (see
 * code_kinds.h). The compiler thread's callback turns the inlining records
 * of one nmethod into a sorted list of distinct (caller, callee) pairs and
 * queues it (a ck_load_event; an unload is a ck_unload_event); the agent
 * thread counts, per method, its loaded nmethods and, per pair, the loaded
 * nmethods that inline callee into caller. */
#include "code_kinds.h"

#include <jvmticmlr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/agent_env.h"
#include "../core/eventq.h"
#include "../core/jvmti_util.h"


/* An nmethod loaded: its code's address, its method, and the distinct
 * (caller, callee) pairs its inlining records name, sorted. The agent thread
 * keeps it (in ck_code.code) until the nmethod unloads. */
typedef struct ck_load_event {
    eventq_event head;
    const void *code;
    jmethodID method;
    uint32_t npairs;
    jmethodID pairs[];        /* 2 * npairs: caller, callee */
} ck_load_event;

/* An nmethod unloaded: its code's address and its method. */
typedef struct ck_unload_event {
    eventq_event head;
    const void *code;
    jmethodID method;
} ck_unload_event;

static bool ck_apply_load(model *m, JNIEnv *jni, eventq_event *e);
static bool ck_apply_unload(model *m, JNIEnv *jni, eventq_event *e);

/* An open-addressing map from a pair of pointers to a count and a pointer
 * (agent thread only). */
typedef struct ck_entry {
    uintptr_t a, b;           /* a == 0: empty */
    int64_t count;
    ck_load_event *edges;     /* code map: the nmethod's load event, kept until it unloads */
} ck_entry;
typedef struct ck_map {
    ck_entry *slots;
    size_t mask, used;
} ck_map;

/* The JVM's loaded nmethods, as the JIT's events tell them (agent thread
 * only): a mirror of the JVM's code, the same whichever session asks, so
 * not a session's part; the queued events' apply functions (eventq) and the
 * sampler's code_kinds_of reach it with no session at hand. Filled from
 * code_kinds_vm_init (which replays the code loaded before) and emptied by
 * code_kinds_end, as it cannot be kept current while no session listens. */
static struct {
    ck_map methods;           /* (method, 0) -> loaded nmethods of method */
    ck_map inlines;           /* (caller, callee) -> loaded nmethods inlining callee into caller */
    ck_map code;              /* (code address, method) -> its load event */
    bool ready;               /* the events are on */
} ck_code;

static size_t ck_hash(uintptr_t a, uintptr_t b)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ ((uint64_t)b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29));
}

static bool ck_grow(ck_map *m)
{
    size_t n = m->slots ? (m->mask + 1) * 2 : 1024;
    ck_entry *slots = calloc(n, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; m->slots && i <= m->mask; i++) {
        if (!m->slots[i].a || m->slots[i].count == 0)
            continue; /* entries that went back to zero are dropped on growth */
        size_t j = ck_hash(m->slots[i].a, m->slots[i].b) & (n - 1);
        while (slots[j].a)
            j = (j + 1) & (n - 1);
        slots[j] = m->slots[i];
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        used += slots[i].a != 0;
    free(m->slots);
    m->slots = slots;
    m->mask = n - 1;
    m->used = used;
    return true;
}

/* The entry for (a, b); created (count 0) when add is true, else NULL if absent. */
static ck_entry *ck_find(ck_map *m, uintptr_t a, uintptr_t b, bool add)
{
    if (!m->slots) {
        if (!add || !ck_grow(m))
            return NULL;
    }
    if (add && (m->used + 1) * 4 > (m->mask + 1) * 3 && !ck_grow(m))
        return NULL;
    size_t i = ck_hash(a, b) & m->mask;
    while (m->slots[i].a) {
        if (m->slots[i].a == a && m->slots[i].b == b)
            return &m->slots[i];
        i = (i + 1) & m->mask;
    }
    if (!add)
        return NULL;
    m->slots[i].a = a;
    m->slots[i].b = b;
    m->used++;
    return &m->slots[i];
}

jp_status code_kinds_init(jvmtiCapabilities *caps)
{
    caps->can_generate_compiled_method_load_events = 1;
    return JP_OK;
}

void code_kinds_vm_init(void)
{
    jvmtiEnv *jv = agent_jvmti;
    if (jvmti_check((*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL),
                    "SetEventNotificationMode") != JP_OK ||
        jvmti_check((*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL),
                    "SetEventNotificationMode") != JP_OK)
        return;
    ck_code.ready = true;
    jvmti_check((*jv)->GenerateEvents(jv, JVMTI_EVENT_COMPILED_METHOD_LOAD), "GenerateEvents");
}

void code_kinds_end(void)
{
    jvmtiEnv *jv = agent_jvmti;
    ck_code.ready = false;
    (*jv)->SetEventNotificationMode(jv, JVMTI_DISABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
    (*jv)->SetEventNotificationMode(jv, JVMTI_DISABLE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL);
    for (size_t i = 0; ck_code.code.slots && i <= ck_code.code.mask; i++)
        free(ck_code.code.slots[i].edges);
    ck_map *maps[] = { &ck_code.methods, &ck_code.inlines, &ck_code.code };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        free(maps[i]->slots);
        *maps[i] = (ck_map){ 0 };
    }
}

static int ck_pair_cmp(const void *x, const void *y)
{
    const jmethodID *p = x, *q = y;
    uintptr_t a = (uintptr_t)p[0], b = (uintptr_t)q[0];
    if (a != b)
        return a < b ? -1 : 1;
    a = (uintptr_t)p[1], b = (uintptr_t)q[1];
    return a < b ? -1 : (a > b);
}

void JNICALL code_kinds_compiled_method_load(jvmtiEnv *jv, jmethodID method, jint code_size, const void *code_addr,
                                             jint map_length, const jvmtiAddrLocationMap *map,
                                             const void *compile_info)
{
    (void)jv, (void)code_size, (void)map_length, (void)map;
    /* count the (caller, callee) pairs the inlining records name */
    size_t npairs = 0;
    const jvmtiCompiledMethodLoadRecordHeader *h = compile_info;
    for (; h; h = h->next) {
        if (h->kind != JVMTI_CMLR_INLINE_INFO)
            continue;
        const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;
        for (jint i = 0; i < r->numpcs; i++)
            npairs += r->pcinfo[i].numstackframes > 1 ? (size_t)r->pcinfo[i].numstackframes - 1 : 0;
    }
    if (npairs > (1u << 24))
        npairs = 1u << 24;
    ck_load_event *e = (ck_load_event *)eventq_new(sizeof *e + 2 * npairs * sizeof e->pairs[0], ck_apply_load, 0);
    if (!e)
        return;
    e->code = code_addr;
    e->method = method;
    size_t k = 0;
    for (h = compile_info; h && k < npairs; h = h->next) {
        if (h->kind != JVMTI_CMLR_INLINE_INFO)
            continue;
        const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;
        for (jint i = 0; i < r->numpcs && k < npairs; i++) {
            const PCStackInfo *pc = &r->pcinfo[i];
            for (jint f = 0; f + 1 < pc->numstackframes && k < npairs; f++, k++) {
                e->pairs[2 * k] = pc->methods[f + 1];
                e->pairs[2 * k + 1] = pc->methods[f];
            }
        }
    }
    qsort(e->pairs, k, 2 * sizeof e->pairs[0], ck_pair_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++) {
        if (u > 0 && ck_pair_cmp(e->pairs + 2 * (u - 1), e->pairs + 2 * i) == 0)
            continue;
        e->pairs[2 * u] = e->pairs[2 * i];
        e->pairs[2 * u + 1] = e->pairs[2 * i + 1];
        u++;
    }
    e->npairs = (uint32_t)u;
    eventq_push(&e->head);
}

void JNICALL code_kinds_compiled_method_unload(jvmtiEnv *jv, jmethodID method, const void *code_addr)
{
    (void)jv;
    ck_unload_event *e = (ck_unload_event *)eventq_new(sizeof *e, ck_apply_unload, 0);
    if (!e)
        return;
    e->code = code_addr;
    e->method = method;
    eventq_push(&e->head);
}

/* The counts of a load event's method and pairs, up (+1) or down (-1). */
static void ck_count(const ck_load_event *e, int64_t delta)
{
    ck_entry *me = ck_find(&ck_code.methods, (uintptr_t)e->method, 0, true);
    if (me)
        me->count += delta;
    for (uint32_t i = 0; i < e->npairs; i++) {
        ck_entry *in = ck_find(&ck_code.inlines, (uintptr_t)e->pairs[2 * i], (uintptr_t)e->pairs[2 * i + 1], true);
        if (in)
            in->count += delta;
    }
}

static bool ck_apply_load(model *m, JNIEnv *jni, eventq_event *e)
{
    (void)m, (void)jni;
    ck_load_event *l = (ck_load_event *)e;
    ck_entry *c = ck_find(&ck_code.code, (uintptr_t)l->code, (uintptr_t)l->method, true);
    if (!c)
        return false;
    if (c->edges) { /* the same address loaded again without an unload: replace */
        ck_count(c->edges, -1);
        free(c->edges);
    }
    ck_count(l, +1);
    c->edges = l;
    c->count = 1;
    return true; /* kept until it unloads */
}

static bool ck_apply_unload(model *m, JNIEnv *jni, eventq_event *e)
{
    (void)m, (void)jni;
    const ck_unload_event *u = (const ck_unload_event *)e;
    ck_entry *c = ck_find(&ck_code.code, (uintptr_t)u->code, (uintptr_t)u->method, false);
    if (c && c->edges) {
        ck_count(c->edges, -1);
        free(c->edges);
        c->edges = NULL;
        c->count = 0;
    }
    return false;
}

frame_kind code_kinds_of(jmethodID method, jmethodID caller)
{
    if (!ck_code.ready)
        return FRAME_KIND_UNKNOWN;
    if (caller) {
        ck_entry *in = ck_find(&ck_code.inlines, (uintptr_t)caller, (uintptr_t)method, false);
        if (in && in->count > 0)
            return FRAME_KIND_INLINED;
    }
    ck_entry *me = ck_find(&ck_code.methods, (uintptr_t)method, 0, false);
    return me && me->count > 0 ? FRAME_KIND_JIT : FRAME_KIND_INTERPRETED;
}
