/* fuzz_rewrite.c — libFuzzer target for the class-file rewriter
 * (src/classfile). Each input is rewritten with several specs (entry/exit
 * calls with small and ldc_w-sized method ids, newArray only, everything
 * including objectInit, with every third method count-only, a selector that
 * picks every other method; alloc_count=site's counts with enterThis); each
 * output is rewritten again. Beyond "no crash, no sanitizer report" it is a
 * differential test: when the independent reader (tests/tools/cf_walk.h)
 * also accepts the input, every method the rewriter changed must check out
 * against its original (frames the rewriter inferred stand only after
 * widened branches), and the counts in cf_result must match; anything
 * else aborts with the reason. Built and run by `make fuzz`; the seed corpus
 * is tests/fuzz/corpus/, crashes found earlier are in tests/fuzz/regressions/
 * (also replayed by tests/unit/test_classfile.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "../tools/cf_walk.h"

/* ids: every other method, numbered from 40000 (pushed with ldc_w) */
static uint32_t every_other(void *ctx, const cf_method_view *m)
{
    (void)ctx;
    return (m->index & 1) == 0 && m->name[0] != 0 ? 40000u + m->index : 0;
}

/* ids pushed with iconst, bipush, sipush; every third method count-only */
static uint32_t small_ids(void *ctx, const cf_method_view *m)
{
    (void)ctx;
    return (m->index % 200 + 1u) | (m->index % 3 == 2 ? CF_SELECT_COUNT_ONLY : 0);
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_rewrite: %s: %s\n", what, detail);
    abort();
}

/* The rewriter's output for in, against the input, with the independent reader. */
static void differential(const unsigned char *in, size_t len, const cf_result *r)
{
    cw_class oc, nc;
    if (!cw_parse(&oc, in, len)) {
        cw_free(&oc);
        return; /* the rewriter is more lenient in places (it does not look inside unselected Code) */
    }
    if (!cw_parse(&nc, r->bytes, r->len))
        die("output does not parse", nc.err);
    if (nc.nmethods != oc.nmethods || nc.cp_count <= oc.cp_count)
        die("output", "method count changed or constant pool did not grow");
    uint32_t entries = 0, exits = 0, counts = 0, newarrays = 0, handlers = 0, frames = 0, unchanged_or_untouched = 0;
    for (uint16_t i = 0; i < oc.nmethods; i++) {
        const cw_method *om = &oc.m[i], *nm = &nc.m[i];
        if (om->code < 0)
            continue;
        const cw_attr *a = &om->attrs[om->code], *b = &nm->attrs[nm->code];
        if (a->len == b->len && !memcmp(a->p, b->p, a->len)) {
            unchanged_or_untouched++;
            continue;
        }
        cw_map map;
        char err[256];
        if (!cw_check_method(&oc, om, &nc, nm, &map, err, sizeof err))
            die("a rewritten method does not check out", err);
        entries += map.entries;
        exits += map.exits;
        counts += map.counts;
        newarrays += map.newarrays;
        handlers += map.handlers;
        frames += map.frames_added;
        cw_map_free(&map);
    }
    if (entries != r->entries || exits != r->exits || counts != r->counts || newarrays != r->newarrays || handlers != r->handlers ||
        frames != r->frames_added)
        die("cf_result counts", "differ from the calls found in the output");
    if (r->methods - r->methods_rewritten != unchanged_or_untouched)
        die("cf_result counts", "methods_rewritten differs from the methods changed in the output");
    cw_free(&oc);
    cw_free(&nc);
}

/* every allocation a site, numbered in turn (some past sipush's range), each way of counting in turn */
static uint32_t any_site(void *ctx, const cf_alloc_view *a, cf_alloc_how *how)
{
    uint32_t *next = ctx;
    *how = (cf_alloc_how)(1 + (*next + a->opcode) % (CF_ALLOC_HOWS - 1));
    uint32_t site = *next;
    *next += 16381;
    return site;
}

/* by member name, so that a member added to cf_tracker cannot shift the others (positional
 * initializers once named objectInit as the count method); count and exitThrow are what
 * cw_check_method knows, enterThis is only checked by the counts' run below (it parses) */
static const cf_tracker tracker = {.cls = "jvmprof/Tracker", .enter = "enter", .exit = "exit", .count = "count",
                                   .exit_throw = "exitThrow", .object_init = "objectInit", .new_array = "newArray"};
static const cf_tracker receivers_tracker = {.cls = "jvmprof/Tracker", .enter = "enter", .exit = "exit",
                                             .count = "count", .exit_throw = "exitThrow",
                                             .object_init = "objectInit", .new_array = "newArray",
                                             .enter_this = "enterThis"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct {
        unsigned what;
        cf_select_fn select;
    } specs[] = {
        {CF_INJECT_CALLS | CF_INJECT_NEWARRAY, NULL},
        {CF_INJECT_CALLS, every_other},
        {CF_INJECT_NEWARRAY, NULL},
        {CF_INJECT_CALLS | CF_INJECT_NEWARRAY | CF_INJECT_OBJINIT, small_ids},
    };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        cf_inject_spec spec = {.tracker = &tracker, .what = specs[s].what, .select = specs[s].select};
        cf_result r;
        jp_status st = cf_rewrite(data, size, &spec, &r);
        if (st != JP_OK) {
            if (r.bytes)
                die("error", "with output");
            if (!r.why[0] && st == JP_ERR_FORMAT)
                die("JP_ERR_FORMAT", "without a message");
            continue;
        }
        if (!r.bytes)
            continue;
        if (r.len < 10 || memcmp(r.bytes, data, 8) != 0)
            die("output", "header changed");
        differential(data, size, &r);
        cf_result r2;
        if (cf_rewrite(r.bytes, r.len, &spec, &r2) == JP_OK)
            free(r2.bytes);
        free(r.bytes);
    }
    /* alloc_count=site's counts: any input, no crash; an output parses and can be rewritten again */
    static const cf_alloc_tracker alloc_tracker = {
        "jvmprof/AllocCounts",
        { [CF_ALLOC_OBJECT] = "newObject", [CF_ALLOC_ARRAY_1] = "newArray1", [CF_ALLOC_ARRAY_2] = "newArray2",
          [CF_ALLOC_ARRAY_4] = "newArray4", [CF_ALLOC_ARRAY_8] = "newArray8", [CF_ALLOC_ARRAY_REF] = "newArrayRef",
          [CF_ALLOC_MULTI] = "allocatedMulti", [CF_ALLOC_RESULT] = "allocated",
          [CF_ALLOC_RESULT_MULTI] = "allocatedMulti", [CF_ALLOC_CLONE] = "cloned" },
    };
    static const char *const calls[] = { "clone", "newArray", "copyOf", NULL };
    uint32_t next = 1;
    cf_inject_spec spec = {.tracker = &receivers_tracker, .what = CF_INJECT_ALLOCS | CF_INJECT_CALLS, .ctx = &next,
                           .alloc_tracker = &alloc_tracker, .alloc = any_site, .alloc_calls = calls};
    cf_result r;
    if (cf_rewrite(data, size, &spec, &r) == JP_OK && r.bytes) {
        cw_class nc;
        if (!cw_parse(&nc, r.bytes, r.len))
            die("output with counts does not parse", nc.err);
        cw_free(&nc);
        cf_result r2;
        if (cf_rewrite(r.bytes, r.len, &spec, &r2) == JP_OK)
            free(r2.bytes);
    }
    free(r.bytes);
    char name[256];
    (void)cf_class_name(data, size, name, sizeof name);
    return 0;
}
