/* test_heap_leaks.c — leak suspects (heap_leaks.c) on small dumps built here
 * byte by byte (8-byte ids, no compressed references: an instance of Node,
 * two reference fields, is 16 + 2 x 8 = 32 bytes; byte[k] 20 + k rounded up
 * to 8; Object[k] 20 + 8k rounded up to 8; a class without statics 16), the
 * dominator tree's children lists, the class that dominates a point's
 * children when its largest child is of another, and no suspect below the
 * threshold.
 * Expected numbers are worked out by hand from the shapes. */
#include "harness.h"

#include "heapdump/heap_dominators.h"
#include "heapdump/heap_graph.h"
#include "heapdump/heap_leaks.h"
#include "hprof_builder.h"

enum { S_OBJECT = 1, S_NODE, S_OARR, S_A, S_B };
#define C_OBJECT 0x100u
#define C_NODE 0x110u
#define C_OARR 0x140u
#define NCLASSES 3u

static uint64_t oid(unsigned k) { return 0x7f0000001000ull + 0x10u * k; }

/* the header, names, the classes Object, Node (fields a, b), Object[] (sticky roots), an open HEAP DUMP */
static void world_start(hb *b)
{
    hb_start(b, 8, "1.0.2");
    hb_utf8(b, S_OBJECT, "java/lang/Object");
    hb_utf8(b, S_NODE, "Node");
    hb_utf8(b, S_OARR, "[Ljava/lang/Object;");
    hb_utf8(b, S_A, "a");
    hb_utf8(b, S_B, "b");
    hb_load_class(b, 1, C_OBJECT, 0, S_OBJECT);
    hb_load_class(b, 2, C_NODE, 0, S_NODE);
    hb_load_class(b, 3, C_OARR, 0, S_OARR);
    hb_rec(b, 0x0C);
    uint64_t ab[2] = { S_A, S_B };
    hb_class(b, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_NODE, C_OBJECT, 0, 0, NULL, NULL, 2, ab, NULL);
    hb_class(b, C_OARR, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_root_sticky(b, C_OBJECT);
    hb_root_sticky(b, C_NODE);
    hb_root_sticky(b, C_OARR);
}

static void node(hb *b, unsigned k, uint64_t a, uint64_t bb)
{
    uint64_t v[2] = { a, bb };
    hb_instance(b, oid(k), C_NODE, 2, v);
}

typedef struct built {
    hb b;
    heap_graph g;
    heap_dominators dm;
    heap_dom_children c;
    heap_class_retained *rows;
    size_t nrows;
} built;

static bool build(built *x)
{
    char err[256];
    hb_end(&x->b);
    if (!heap_graph_build(&x->g, x->b.p, x->b.len, 0, NULL, NULL, err, sizeof err)) {
        fprintf(stderr, "    graph: %s\n", err);
        return false;
    }
    if (!heap_dominators_compute(&x->g, &x->dm, NULL, NULL, err, sizeof err)) {
        fprintf(stderr, "    dominators: %s\n", err);
        return false;
    }
    return heap_dom_children_build(&x->g, &x->dm, &x->c) &&
           heap_dominators_classes(&x->g, &x->dm, &x->rows, &x->nrows);
}

static void done(built *x)
{
    free(x->rows);
    heap_dom_children_free(&x->c);
    heap_dominators_free(&x->dm);
    heap_graph_free(&x->g);
    free(x->b.p);
}

static uint32_t idx(const built *x, unsigned k) { return heap_graph_find(&x->g, oid(k)); }

/* Holder H (a JNI global) -> list L -> Object[100] ARR -> 100 elements E (each -> its byte[200]); beside
 * it Z (a JNI global) -> byte[2000]. Ids: H 1, L 2, ARR 3, Z 4, byte[2000] 5, E 100.., their byte[] 300..
 *   E: 32 + 224 = 256; ARR: 824 + 100 x 256 = 26424; L: 26456; H: 26488; Z: 32 + 2024 = 2056
 *   heap: 3 classes x 16 + 26488 + 2056 = 28592 */
static void collection(built *x)
{
    world_start(&x->b);
    uint64_t elems[100];
    for (unsigned k = 0; k < 100; k++) {
        elems[k] = oid(100 + k);
        node(&x->b, 100 + k, oid(300 + k), 0);
        hb_bytes(&x->b, oid(300 + k), 200);
    }
    hb_obj_array(&x->b, oid(3), C_OARR, 100, elems);
    node(&x->b, 2, oid(3), 0);
    node(&x->b, 1, oid(2), 0);
    node(&x->b, 4, oid(5), 0);
    hb_bytes(&x->b, oid(5), 2000);
    hb_root_global(&x->b, oid(1));
    hb_root_global(&x->b, oid(4));
}

static void test_collection(void)
{
    built x = { 0 };
    collection(&x);
    ASSERT(build(&x));
    CHECK_EQ_INT(x.dm.reachable_bytes, 28592);
    CHECK_EQ_INT(x.dm.retained[idx(&x, 1)], 26488);
    /* the children lists: the super root's are H, Z, then the three classes (16 each, by id) */
    uint32_t sup = x.g.n;
    CHECK_EQ_INT(x.c.n, x.g.n);
    CHECK_EQ_INT(heap_dom_children_count(&x.c, sup), 5);
    CHECK_EQ_INT(x.c.list[x.c.at[sup]], idx(&x, 1));
    CHECK_EQ_INT(x.c.list[x.c.at[sup] + 1], idx(&x, 4));
    CHECK_EQ_INT(x.c.list[x.c.at[sup] + 2], heap_graph_find(&x.g, C_OBJECT));
    CHECK_EQ_INT(heap_dom_children_count(&x.c, idx(&x, 3)), 100);
    CHECK_EQ_INT(heap_dom_children_count(&x.c, idx(&x, 100)), 1);
    CHECK_EQ_INT(x.c.list[x.c.at[idx(&x, 100)]], idx(&x, 300));
    CHECK_EQ_INT(heap_dom_parent(&x.dm, &x.c, idx(&x, 1)), sup);
    CHECK_EQ_INT(heap_dom_parent(&x.dm, &x.c, idx(&x, 3)), idx(&x, 2));
    CHECK_EQ_INT(x.c.at[sup + 1], x.dm.reachable); /* every reachable object once */

    /* 10% (2859.2 bytes): the holder, its point the array; of the classes Node (H alone holds 26488 of its
     * 28544: H's story), Object[] (one instance) and byte[] (100 x 224 + 2024 = 24424), byte[] */
    heap_leaks l;
    ASSERT(heap_leaks_find(&x.g, &x.dm, &x.c, x.rows, x.nrows, 10.0, &l));
    CHECK_EQ_INT(l.heap, 28592);
    ASSERT(l.n == 2);
    const heap_leak_suspect *s = &l.s[0];
    CHECK_EQ_INT(s->kind, HEAP_LEAK_OBJECT);
    CHECK_EQ_INT(s->obj, idx(&x, 1));
    CHECK_EQ_INT(s->retained, 26488);
    CHECK_EQ_STR(heap_graph_class_name(&x.g, s->cls), "Node");
    CHECK_EQ_INT(s->point.obj, idx(&x, 3));
    CHECK_EQ_INT(s->point.steps, 2);
    CHECK_EQ_INT(s->point.children, 100);
    CHECK_EQ_INT(s->point.children_retained, 25600);
    CHECK_EQ_STR(heap_graph_class_name(&x.g, s->point.top_cls), "Node");
    CHECK_EQ_INT(s->point.top_cls_children, 100);
    CHECK_EQ_INT(s->point.top_cls_retained, 25600);
    /* byte[]: its largest Z's; each held alone by its Node, so one level more: ARR dominates 100 of 101 */
    s = &l.s[1];
    CHECK_EQ_INT(s->kind, HEAP_LEAK_CLASS);
    CHECK_EQ_STR(heap_graph_class_name(&x.g, s->cls), "byte[]");
    CHECK_EQ_INT(s->instances, 101);
    CHECK_EQ_INT(s->retained, 24424);
    CHECK_EQ_INT(s->obj, idx(&x, 5));
    CHECK_EQ_INT(s->holder, idx(&x, 3));
    CHECK_EQ_INT(s->holder_levels, 2);
    CHECK_EQ_INT(s->held, 100);
    CHECK_EQ_INT(s->held_bytes, 22400);
    heap_leaks_free(&l);

    /* 5% (1429.6): Z too, its point its byte[2000] (2024 of 2056), which dominates nothing */
    ASSERT(heap_leaks_find(&x.g, &x.dm, &x.c, x.rows, x.nrows, 5.0, &l));
    ASSERT(l.n == 3);
    CHECK_EQ_INT(l.s[1].kind, HEAP_LEAK_OBJECT);
    CHECK_EQ_INT(l.s[1].obj, idx(&x, 4));
    CHECK_EQ_INT(l.s[1].point.obj, idx(&x, 5));
    CHECK_EQ_INT(l.s[1].point.steps, 1);
    CHECK_EQ_INT(l.s[1].point.children, 0);
    CHECK_EQ_INT(l.s[1].point.top_cls, HEAP_GRAPH_NONE);
    CHECK_EQ_INT(l.s[2].kind, HEAP_LEAK_CLASS);
    heap_leaks_free(&l);

    /* 99.9%: nothing (H is 92.64%, byte[] 85.42%); 90%: H alone */
    ASSERT(heap_leaks_find(&x.g, &x.dm, &x.c, x.rows, x.nrows, 99.9, &l));
    CHECK_EQ_INT(l.n, 0);
    heap_leaks_free(&l);
    ASSERT(heap_leaks_find(&x.g, &x.dm, &x.c, x.rows, x.nrows, 90.0, &l));
    CHECK_EQ_INT(l.n, 1);
    CHECK_EQ_INT(l.s[0].obj, idx(&x, 1));
    heap_leaks_free(&l);
    done(&x);
}

/* P (a JNI global) -> A1 -> byte[5000], P -> A2 -> byte[4000]: A1 5056, A2 4056, P 9144, heap 48 + 9144 = 9192.
 * At 10%, P's largest child holds 55% of it, and both are above the threshold: they are the suspects. */
static void test_split(void)
{
    built x = { 0 };
    world_start(&x.b);
    node(&x.b, 1, oid(2), oid(3));
    node(&x.b, 2, oid(4), 0);
    node(&x.b, 3, oid(5), 0);
    hb_bytes(&x.b, oid(4), 5000);
    hb_bytes(&x.b, oid(5), 4000);
    hb_root_global(&x.b, oid(1));
    ASSERT(build(&x));
    CHECK_EQ_INT(x.dm.reachable_bytes, 9192);
    heap_leaks l;
    ASSERT(heap_leaks_find(&x.g, &x.dm, &x.c, x.rows, x.nrows, 10.0, &l));
    ASSERT(l.n >= 2);
    CHECK_EQ_INT(l.s[0].kind, HEAP_LEAK_OBJECT);
    CHECK_EQ_INT(l.s[0].obj, idx(&x, 2));
    CHECK_EQ_INT(l.s[0].retained, 5056);
    CHECK_EQ_INT(l.s[0].point.obj, idx(&x, 4));
    CHECK_EQ_INT(l.s[1].kind, HEAP_LEAK_OBJECT);
    CHECK_EQ_INT(l.s[1].obj, idx(&x, 3));
    CHECK_EQ_INT(l.s[1].point.obj, idx(&x, 5));
    /* the classes: Node is P's alone; byte[] 5024 + 4024, each held by its own Node: A1 has the more bytes */
    ASSERT(l.n == 3);
    CHECK_EQ_INT(l.s[2].kind, HEAP_LEAK_CLASS);
    CHECK_EQ_STR(heap_graph_class_name(&x.g, l.s[2].cls), "byte[]");
    CHECK_EQ_INT(l.s[2].retained, 9048);
    CHECK_EQ_INT(l.s[2].holder, idx(&x, 2));
    CHECK_EQ_INT(l.s[2].holder_levels, 1);
    CHECK_EQ_INT(l.s[2].held, 1);
    heap_leaks_free(&l);
    /* at 60%, only P (99.5%) is above: its point is P itself, its two children spread 5056 and 4056 */
    ASSERT(heap_leaks_find(&x.g, &x.dm, &x.c, x.rows, x.nrows, 60.0, &l));
    ASSERT(l.n >= 1);
    CHECK_EQ_INT(l.s[0].obj, idx(&x, 1));
    CHECK_EQ_INT(l.s[0].point.obj, idx(&x, 1));
    CHECK_EQ_INT(l.s[0].point.steps, 0);
    CHECK_EQ_INT(l.s[0].point.children, 2);
    CHECK_EQ_INT(l.s[0].point.children_retained, 9112);
    heap_leaks_free(&l);
    done(&x);
}

/* H (a JNI global) -> Object[11] ARR -> 10 Nodes, each -> byte[400] (32 + 424 = 456), and a byte[2000] (2024):
 * ARR is 20 + 88 -> 112 and retains 112 + 4560 + 2024 = 6696, H 6728, the heap 48 + 6728 = 6776. The point is
 * ARR; its largest child is the byte[2000], but the class whose children retain the most is Node (4560). */
static void test_mixed(void)
{
    built x = { 0 };
    world_start(&x.b);
    uint64_t elems[11];
    for (unsigned k = 0; k < 10; k++) {
        elems[k] = oid(100 + k);
        node(&x.b, 100 + k, oid(300 + k), 0);
        hb_bytes(&x.b, oid(300 + k), 400);
    }
    elems[10] = oid(5);
    hb_bytes(&x.b, oid(5), 2000);
    hb_obj_array(&x.b, oid(3), C_OARR, 11, elems);
    node(&x.b, 1, oid(3), 0);
    hb_root_global(&x.b, oid(1));
    ASSERT(build(&x));
    CHECK_EQ_INT(x.dm.reachable_bytes, 6776);
    heap_leaks l;
    ASSERT(heap_leaks_find(&x.g, &x.dm, &x.c, x.rows, x.nrows, 10.0, &l));
    ASSERT(l.n >= 1);
    CHECK_EQ_INT(l.s[0].obj, idx(&x, 1));
    CHECK_EQ_INT(l.s[0].point.obj, idx(&x, 3));
    CHECK_EQ_INT(l.s[0].point.children, 11);
    CHECK_EQ_INT(l.s[0].point.children_retained, 6584);
    CHECK_EQ_INT(x.c.list[x.c.at[idx(&x, 3)]], idx(&x, 5)); /* the largest child: the byte[2000] */
    CHECK_EQ_STR(heap_graph_class_name(&x.g, l.s[0].point.top_cls), "Node");
    CHECK_EQ_INT(l.s[0].point.top_cls_children, 10);
    CHECK_EQ_INT(l.s[0].point.top_cls_retained, 4560);
    heap_leaks_free(&l);
    done(&x);
}

int main(void)
{
    RUN(test_collection);
    RUN(test_split);
    RUN(test_mixed);
    return DONE();
}
