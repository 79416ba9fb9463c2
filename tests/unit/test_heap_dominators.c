/* test_heap_dominators.c — the heap graph (heap_graph.c) and retained sizes
 * (heap_dominators.c) on small dumps built here byte by byte, with 4- and
 * 8-byte ids, objects written out of id order: a chain, a diamond, a cycle,
 * an object array, a weak reference (both rules), an unreachable island,
 * unresolved references and roots, a duplicate definition, edge names, the
 * class retained sizes; every truncation of a dump ends in an error or a
 * graph, never a crash. Expected sizes are worked out by hand from the
 * shapes: an instance of Node (two reference fields) is 16 + 2 x id bytes
 * rounded to 8 (32 with 8-byte ids, 24 with 4-byte ids); a class with no
 * statics is 16. */
#include "harness.h"

#include "heapdump/heap_dominators.h"
#include "heapdump/heap_graph.h"
#include "hprof_builder.h"

/* ---- the world every shape lives in ---- */

/* string ids */
enum { S_OBJECT = 1, S_NODE, S_REF, S_WEAK, S_OARR, S_A, S_B, S_REFERENT, S_QUEUE, S_HOLDER, S_KEEP };
/* class ids */
#define C_OBJECT 0x100u
#define C_NODE 0x110u
#define C_REF 0x120u
#define C_WEAK 0x130u
#define C_OARR 0x140u
#define C_HOLDER 0x150u
#define NCLASSES 6u

/* object k's id: spread, with high bits in 8-byte dumps */
static uint64_t oid(const hb *b, unsigned k)
{
    return (b->idsize == 8 ? 0x7f0000001000ull : 0x10000ull) + 0x10u * k;
}

/* the header, names, classes (all sticky roots) and an open HEAP DUMP record */
static void world_start(hb *b, unsigned idsize)
{
    hb_start(b, idsize, "1.0.2");
    hb_utf8(b, S_OBJECT, "java/lang/Object");
    hb_utf8(b, S_NODE, "Node");
    hb_utf8(b, S_REF, "java/lang/ref/Reference");
    hb_utf8(b, S_WEAK, "java/lang/ref/WeakReference");
    hb_utf8(b, S_OARR, "[Ljava/lang/Object;");
    hb_utf8(b, S_A, "a");
    hb_utf8(b, S_B, "b");
    hb_utf8(b, S_REFERENT, "referent");
    hb_utf8(b, S_QUEUE, "queue");
    hb_utf8(b, S_HOLDER, "Holder");
    hb_utf8(b, S_KEEP, "keep");
    hb_load_class(b, 1, C_OBJECT, 0, S_OBJECT);
    hb_load_class(b, 2, C_NODE, 0, S_NODE);
    hb_load_class(b, 3, C_REF, 0, S_REF);
    hb_load_class(b, 4, C_WEAK, 0, S_WEAK);
    hb_load_class(b, 5, C_OARR, 0, S_OARR);
    hb_load_class(b, 6, C_HOLDER, 0, S_HOLDER);
    hb_rec(b, 0x0C);
    hb_class(b, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    uint64_t ab[2] = { S_A, S_B }, rq[2] = { S_REFERENT, S_QUEUE };
    hb_class(b, C_NODE, C_OBJECT, 0, 0, NULL, NULL, 2, ab, NULL);
    hb_class(b, C_REF, C_OBJECT, 0, 0, NULL, NULL, 2, rq, NULL);
    hb_class(b, C_WEAK, C_REF, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_OARR, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_HOLDER, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL); /* statics added by a shape's own class */
    uint64_t classes[] = { C_OBJECT, C_NODE, C_REF, C_WEAK, C_OARR, C_HOLDER };
    for (unsigned i = 0; i < NCLASSES; i++)
        hb_root_sticky(b, classes[i]);
}

static void node(hb *b, unsigned k, uint64_t a, uint64_t bb)
{
    uint64_t v[2] = { a, bb };
    hb_instance(b, oid(b, k), C_NODE, 2, v);
}

static unsigned node_size(unsigned idsize) { return idsize == 8 ? 32 : 24; }

typedef struct built {
    hb b;
    heap_graph g;
    heap_dominators dm;
    bool ok;
    char err[256];
} built;

static bool build(built *x, unsigned flags)
{
    hb_end(&x->b);
    x->ok = heap_graph_build(&x->g, x->b.p, x->b.len, flags, NULL, NULL, x->err, sizeof x->err);
    if (!x->ok) {
        fprintf(stderr, "    graph: %s\n", x->err);
        return false;
    }
    x->ok = heap_dominators_compute(&x->g, &x->dm, NULL, NULL, x->err, sizeof x->err);
    if (!x->ok)
        fprintf(stderr, "    dominators: %s\n", x->err);
    return x->ok;
}

static void done(built *x)
{
    heap_dominators_free(&x->dm);
    heap_graph_free(&x->g);
    free(x->b.p);
}

static uint32_t idx(const built *x, unsigned k) { return heap_graph_find(&x->g, oid(&x->b, k)); }
static uint64_t ret(const built *x, unsigned k) { return x->dm.retained[idx(x, k)]; }
static uint32_t dom(const built *x, unsigned k) { return x->dm.idom[idx(x, k)]; }

/* ---- shapes ---- */

/* A -> B -> C, root A (a JNI global); written C, A, B */
static void chain(unsigned idsize)
{
    built x = { 0 };
    world_start(&x.b, idsize);
    node(&x.b, 3, 0, 0);
    node(&x.b, 1, oid(&x.b, 2), 0);
    node(&x.b, 2, oid(&x.b, 3), 0);
    hb_root_global(&x.b, oid(&x.b, 1));
    ASSERT(build(&x, 0));
    unsigned N = node_size(idsize);
    CHECK_EQ_INT(x.g.n, NCLASSES + 3);
    CHECK_EQ_INT(x.g.idsize, idsize);
    CHECK_EQ_INT(x.dm.reachable, NCLASSES + 3);
    CHECK_EQ_INT(x.dm.unreachable, 0);
    CHECK_EQ_INT(ret(&x, 3), N);
    CHECK_EQ_INT(ret(&x, 2), 2 * N);
    CHECK_EQ_INT(ret(&x, 1), 3 * N);
    CHECK_EQ_INT(dom(&x, 1), HEAP_DOM_SUPER);
    CHECK_EQ_INT(dom(&x, 2), idx(&x, 1));
    CHECK_EQ_INT(dom(&x, 3), idx(&x, 2));
    CHECK_EQ_INT(heap_graph_shallow_of(&x.g, idx(&x, 1)), N);
    /* edges: Node's classes: <super> java.lang.Object; the nodes' field a, then their class */
    uint32_t a = idx(&x, 1);
    uint32_t node_cls = heap_graph_find(&x.g, C_NODE);
    CHECK_EQ_INT(x.g.edge_at[a + 1] - x.g.edge_at[a], 2);
    CHECK_EQ_INT(x.g.edges[x.g.edge_at[a]], idx(&x, 2));
    CHECK_EQ_INT(x.g.edges[x.g.edge_at[a] + 1], node_cls);
    char name[64];
    CHECK(heap_graph_edge_name(&x.g, a, 0, name, sizeof name));
    CHECK_EQ_STR(name, "a");
    CHECK(heap_graph_edge_name(&x.g, a, 1, name, sizeof name));
    CHECK_EQ_STR(name, "<class>");
    CHECK(!heap_graph_edge_name(&x.g, a, 2, name, sizeof name));
    CHECK(heap_graph_edge_name(&x.g, node_cls, 0, name, sizeof name));
    CHECK_EQ_STR(name, "<super>");
    const char *cname = NULL;
    CHECK(heap_graph_is_class(&x.g, node_cls, &cname));
    CHECK_EQ_STR(cname, "Node");
    CHECK(!heap_graph_is_class(&x.g, a, &cname));
    CHECK_EQ_STR(heap_graph_class_name(&x.g, x.g.cls[a]), "Node");
    CHECK_EQ_INT(x.dm.retained[node_cls], 16); /* its super java.lang.Object is a root of its own */
    /* roots: 6 sticky classes and A's JNI global */
    CHECK_EQ_INT(x.g.nroots, NCLASSES + 1);
    CHECK_EQ_INT(x.g.roots[NCLASSES].obj, a);
    CHECK_EQ_INT(x.g.roots[NCLASSES].kind, 0x01);
    /* the top object: A */
    uint32_t *top = NULL;
    size_t ntop = 0;
    CHECK(heap_dominators_top(&x.g, &x.dm, 2, &top, &ntop));
    CHECK_EQ_INT(ntop, 2);
    if (ntop == 2) {
        CHECK_EQ_INT(top[0], a);
        CHECK_EQ_INT(top[1], idx(&x, 2));
    }
    free(top);
    done(&x);
}
static void test_chain8(void) { chain(8); }
static void test_chain4(void) { chain(4); }

/* A -> B, A -> C, B -> D, C -> D; root A (a Java frame of thread 5): D is A's alone */
static void diamond(unsigned idsize)
{
    built x = { 0 };
    world_start(&x.b, idsize);
    node(&x.b, 4, 0, 0);
    node(&x.b, 2, oid(&x.b, 4), 0);
    node(&x.b, 3, oid(&x.b, 4), 0);
    node(&x.b, 1, oid(&x.b, 2), oid(&x.b, 3));
    hb_root_frame(&x.b, oid(&x.b, 1), 5);
    ASSERT(build(&x, 0));
    unsigned N = node_size(idsize);
    CHECK_EQ_INT(ret(&x, 4), N);
    CHECK_EQ_INT(ret(&x, 2), N);
    CHECK_EQ_INT(ret(&x, 3), N);
    CHECK_EQ_INT(ret(&x, 1), 4 * N);
    CHECK_EQ_INT(dom(&x, 4), idx(&x, 1));
    CHECK_EQ_INT(dom(&x, 2), idx(&x, 1));
    CHECK_EQ_INT(x.g.roots[NCLASSES].kind, 0x03);
    CHECK_EQ_INT(x.g.roots[NCLASSES].thread, 5);
    char name[64];
    CHECK(heap_graph_edge_name(&x.g, idx(&x, 1), 1, name, sizeof name));
    CHECK_EQ_STR(name, "b");
    /* per class: the 4 Nodes, retained = A's alone (A dominates the other three) */
    heap_class_retained *rows = NULL;
    size_t nrows = 0;
    CHECK(heap_dominators_classes(&x.g, &x.dm, &rows, &nrows));
    ASSERT(nrows >= 1);
    CHECK_EQ_STR(heap_graph_class_name(&x.g, rows[0].cls), "Node");
    CHECK_EQ_INT(rows[0].instances, 4);
    CHECK_EQ_INT(rows[0].shallow, 4 * N);
    CHECK_EQ_INT(rows[0].retained, 4 * N);
    /* the other rows: the 6 class objects, one row (java.lang.Class pseudo class), 16 bytes each */
    CHECK_EQ_INT(nrows, 2);
    if (nrows == 2) {
        CHECK_EQ_STR(heap_graph_class_name(&x.g, rows[1].cls), "java.lang.Class");
        CHECK_EQ_INT(rows[1].instances, NCLASSES);
        CHECK_EQ_INT(rows[1].retained, NCLASSES * 16);
    }
    free(rows);
    done(&x);
}
static void test_diamond8(void) { diamond(8); }
static void test_diamond4(void) { diamond(4); }

/* A -> B -> C -> A, root A */
static void test_cycle(void)
{
    built x = { 0 };
    world_start(&x.b, 8);
    node(&x.b, 1, oid(&x.b, 2), 0);
    node(&x.b, 2, oid(&x.b, 3), 0);
    node(&x.b, 3, oid(&x.b, 1), 0);
    hb_root_global(&x.b, oid(&x.b, 1));
    ASSERT(build(&x, 0));
    CHECK_EQ_INT(ret(&x, 1), 96);
    CHECK_EQ_INT(ret(&x, 2), 64);
    CHECK_EQ_INT(ret(&x, 3), 32);
    CHECK_EQ_INT(dom(&x, 3), idx(&x, 2));
    /* Node's retained: A's (it dominates B and C), not 96 + 64 + 32 */
    heap_class_retained *rows = NULL;
    size_t nrows = 0;
    CHECK(heap_dominators_classes(&x.g, &x.dm, &rows, &nrows));
    ASSERT(nrows >= 1);
    CHECK_EQ_INT(rows[0].instances, 3);
    CHECK_EQ_INT(rows[0].retained, 96);
    free(rows);
    done(&x);
}

/* the class rows of test_array's shape in each order: Object[3] {A, null, B}, A -> byte[100]; the 6 class
 * objects. By hand: Object[] 1 instance, 48 shallow, 232 retained; Node 2 (A, B), 64, 152 + 32 = 184; byte[]
 * 1, 120, 120; java.lang.Class 6, 96, 96. */
static void check_order(const heap_graph *g, const heap_class_retained *rows, size_t nrows, const char *const *want)
{
    CHECK_EQ_INT(nrows, 4);
    for (size_t k = 0; k < nrows && k < 4; k++)
        CHECK_EQ_STR(heap_graph_class_name(g, rows[k].cls), want[k]);
}

/* test_array's and test_class_orders' shape: an Object[3] root {A, null, B}; A -> byte[100] */
static void array_shape(built *x)
{
    world_start(&x->b, 8);
    uint64_t elems[3] = { oid(&x->b, 1), 0, oid(&x->b, 2) };
    hb_obj_array(&x->b, oid(&x->b, 9), C_OARR, 3, elems);
    node(&x->b, 1, oid(&x->b, 5), 0);
    node(&x->b, 2, 0, 0);
    hb_bytes(&x->b, oid(&x->b, 5), 100);
    hb_root_global(&x->b, oid(&x->b, 9));
}

static void test_class_orders(void)
{
    built x = { 0 };
    array_shape(&x);
    ASSERT(build(&x, 0));
    heap_class_retained *rows = NULL;
    size_t nrows = 0;
    ASSERT(heap_dominators_classes(&x.g, &x.dm, &rows, &nrows));
    static const char *const by_retained[] = { "java.lang.Object[]", "Node", "byte[]", "java.lang.Class" };
    static const char *const by_shallow[] = { "byte[]", "java.lang.Class", "Node", "java.lang.Object[]" };
    /* Object[] and byte[] tie on 1 instance: the larger retained first */
    static const char *const by_instances[] = { "java.lang.Class", "Node", "java.lang.Object[]", "byte[]" };
    check_order(&x.g, rows, nrows, by_retained);
    if (nrows == 4) {
        CHECK_EQ_INT(rows[1].instances, 2);
        CHECK_EQ_INT(rows[1].shallow, 64);
        CHECK_EQ_INT(rows[1].retained, 184);
        CHECK_EQ_INT(rows[3].shallow, 96);
    }
    heap_dominators_classes_sort(&x.g, rows, nrows, HEAP_CLASSES_BY_SHALLOW);
    check_order(&x.g, rows, nrows, by_shallow);
    heap_dominators_classes_sort(&x.g, rows, nrows, HEAP_CLASSES_BY_INSTANCES);
    check_order(&x.g, rows, nrows, by_instances);
    heap_dominators_classes_sort(&x.g, rows, nrows, HEAP_CLASSES_BY_RETAINED);
    check_order(&x.g, rows, nrows, by_retained);
    /* rows equal in every number: by name ("Node" before "byte[]": 'N' < 'b') */
    if (nrows == 4) {
        heap_class_retained two[2] = { rows[2], rows[1] }; /* byte[], Node */
        two[0].instances = two[1].instances = 3;
        two[0].shallow = two[1].shallow = 40;
        two[0].retained = two[1].retained = 50;
        for (int by = HEAP_CLASSES_BY_RETAINED; by <= HEAP_CLASSES_BY_INSTANCES; by++) {
            heap_dominators_classes_sort(&x.g, two, 2, (heap_class_order)by);
            CHECK_EQ_STR(heap_graph_class_name(&x.g, two[0].cls), "Node");
            CHECK_EQ_STR(heap_graph_class_name(&x.g, two[1].cls), "byte[]");
        }
    }
    free(rows);
    done(&x);
}

/* an Object[3] root {A, null, B}; A -> byte[100]; Holder's static keep -> B as well */
static void test_array(void)
{
    built x = { 0 };
    array_shape(&x);
    ASSERT(build(&x, 0));
    /* byte[100]: 20 + 100 = 120; Object[3]: 20 + 24 = 44 -> 48 */
    CHECK_EQ_INT(heap_graph_shallow_of(&x.g, idx(&x, 5)), 120);
    CHECK_EQ_STR(heap_graph_class_name(&x.g, x.g.cls[idx(&x, 5)]), "byte[]");
    CHECK_EQ_STR(heap_graph_class_name(&x.g, x.g.cls[idx(&x, 9)]), "java.lang.Object[]");
    CHECK_EQ_INT(ret(&x, 1), 32 + 120);
    CHECK_EQ_INT(ret(&x, 9), 48 + 32 + 120 + 32);
    char name[64];
    CHECK(heap_graph_edge_name(&x.g, idx(&x, 9), 1, name, sizeof name));
    CHECK_EQ_STR(name, "[2]");
    done(&x);
}

/* a class's statics: Holder.keep -> A (Holder is a sticky root) */
static void test_statics(void)
{
    built x = { 0 };
    hb *b = &x.b;
    world_start(b, 8);
    uint64_t names[1] = { S_KEEP }, values[1] = { oid(b, 1) };
    hb_class(b, 0x160, C_OBJECT, oid(b, 7), 1, names, values, 0, NULL, NULL); /* unnamed, loader: object 7 */
    hb_root_sticky(b, 0x160);
    node(b, 1, 0, 0);
    node(b, 7, 0, 0);
    hb_root_global(b, oid(b, 7));
    ASSERT(build(&x, 0));
    uint32_t c = heap_graph_find(&x.g, 0x160);
    ASSERT(c != HEAP_GRAPH_NONE);
    /* a class with one static reference: 16 + 8 */
    CHECK_EQ_INT(heap_graph_shallow_of(&x.g, c), 24);
    CHECK_EQ_INT(x.dm.retained[c], 24 + 32);
    CHECK_EQ_INT(x.g.edge_at[c + 1] - x.g.edge_at[c], 3);
    char name[64];
    CHECK(heap_graph_edge_name(&x.g, c, 0, name, sizeof name));
    CHECK_EQ_STR(name, "<super>");
    CHECK(heap_graph_edge_name(&x.g, c, 1, name, sizeof name));
    CHECK_EQ_STR(name, "<loader>");
    CHECK(heap_graph_edge_name(&x.g, c, 2, name, sizeof name));
    CHECK_EQ_STR(name, "static keep");
    done(&x);
}

/* root R -> W (a WeakReference, referent X, queue null); X -> Y */
static void weak(unsigned flags)
{
    built x = { 0 };
    hb *b = &x.b;
    world_start(b, 8);
    node(b, 1, oid(b, 2), 0);                 /* R */
    uint64_t w[2] = { oid(b, 3), 0 };         /* referent X, queue */
    hb_instance(b, oid(b, 2), C_WEAK, 2, w);  /* W */
    node(b, 3, oid(b, 4), 0);                 /* X */
    node(b, 4, 0, 0);                         /* Y */
    hb_root_global(b, oid(b, 1));
    ASSERT(build(&x, flags));
    CHECK_EQ_INT(x.dm.unreachable, 0);
    CHECK_EQ_INT(x.dm.reachable, NCLASSES + 4);
    if (!flags) {
        /* every reference retains: W holds X and Y */
        CHECK_EQ_INT(ret(&x, 2), 3 * 32);
        CHECK_EQ_INT(ret(&x, 1), 4 * 32);
        CHECK_EQ_INT(dom(&x, 3), idx(&x, 2));
        CHECK_EQ_INT(x.dm.weak_only, 0);
        CHECK_EQ_INT(x.g.nreferents, 0);
        char name[64];
        CHECK(heap_graph_edge_name(&x.g, idx(&x, 2), 0, name, sizeof name));
        CHECK_EQ_STR(name, "referent");
    } else {
        /* the referent is no edge: X and Y are weakly reachable, below the super root only */
        CHECK_EQ_INT(x.g.nreferents, 1);
        CHECK_EQ_INT(x.g.edge_at[idx(&x, 2) + 1] - x.g.edge_at[idx(&x, 2)], 1); /* its class only */
        CHECK_EQ_INT(ret(&x, 2), 32);
        CHECK_EQ_INT(ret(&x, 1), 2 * 32);
        CHECK_EQ_INT(dom(&x, 3), HEAP_DOM_SUPER);
        CHECK_EQ_INT(dom(&x, 4), idx(&x, 3));
        CHECK_EQ_INT(ret(&x, 3), 2 * 32);
        CHECK_EQ_INT(x.dm.weak_only, 2);
        CHECK_EQ_INT(x.dm.weak_only_bytes, 64);
    }
    done(&x);
}
static void test_weak_default(void) { weak(0); }
static void test_weak_ignored(void) { weak(HEAP_GRAPH_IGNORE_WEAK); }

/* weak-only objects retain no strongly reachable one: root R -> W -referent-> X -> S, and R -> S */
static void test_weak_into_strong(void)
{
    built x = { 0 };
    hb *b = &x.b;
    world_start(b, 8);
    node(b, 1, oid(b, 2), oid(b, 4));         /* R: W, S */
    uint64_t w[2] = { oid(b, 3), 0 };
    hb_instance(b, oid(b, 2), C_WEAK, 2, w);  /* W */
    node(b, 3, oid(b, 4), 0);                 /* X -> S */
    node(b, 4, 0, 0);                         /* S */
    hb_root_global(b, oid(b, 1));
    ASSERT(build(&x, HEAP_GRAPH_IGNORE_WEAK));
    CHECK_EQ_INT(dom(&x, 4), idx(&x, 1));
    CHECK_EQ_INT(ret(&x, 1), 3 * 32); /* R, W, S */
    CHECK_EQ_INT(ret(&x, 3), 32);
    CHECK_EQ_INT(x.dm.weak_only, 1);
    done(&x);
}

/* P <-> Q, no root; S rooted */
static void test_island(void)
{
    built x = { 0 };
    world_start(&x.b, 4);
    node(&x.b, 1, oid(&x.b, 2), 0);
    node(&x.b, 2, oid(&x.b, 1), 0);
    node(&x.b, 3, 0, 0);
    hb_root_global(&x.b, oid(&x.b, 3));
    ASSERT(build(&x, 0));
    CHECK_EQ_INT(x.dm.unreachable, 2);
    CHECK_EQ_INT(x.dm.unreachable_bytes, 2 * 24);
    CHECK_EQ_INT(x.dm.reachable, NCLASSES + 1);
    CHECK_EQ_INT(x.dm.reachable_bytes, NCLASSES * 16 + 24);
    CHECK_EQ_INT(dom(&x, 1), HEAP_DOM_UNREACHABLE);
    CHECK_EQ_INT(ret(&x, 1), 0);
    uint32_t *top = NULL;
    size_t ntop = 0;
    CHECK(heap_dominators_top(&x.g, &x.dm, 0, &top, &ntop));
    CHECK_EQ_INT(ntop, NCLASSES + 1); /* --top 0: every reachable object */
    if (ntop)
        CHECK_EQ_INT(top[0], idx(&x, 3)); /* 24 > each class's 16 */
    free(top);
    done(&x);
}

/* A -> undefined id, root of an undefined id, an id defined twice (the first kept), in HEAP DUMP SEGMENTs */
static void test_unresolved(void)
{
    built x = { 0 };
    hb *b = &x.b;
    world_start(b, 8);
    hb_end(b); /* the HEAP DUMP world_start opened */
    hb_rec(b, 0x1C);
    node(b, 1, 0x999990, oid(b, 2));
    node(b, 2, 0, 0);
    hb_end(b);
    hb_rec(b, 0x1C);
    node(b, 2, oid(b, 1), 0); /* a second definition of 2: left out */
    hb_root_global(b, oid(b, 1));
    hb_root_global(b, 0x888880);
    hb_end(b);
    hb_rec(b, 0x2C);
    ASSERT(build(&x, 0)); /* closes the empty HEAP DUMP END */
    CHECK_EQ_INT(x.g.unresolved, 1);
    CHECK_EQ_INT(x.g.unresolved_roots, 1);
    CHECK_EQ_INT(x.g.duplicates, 1);
    CHECK_EQ_INT(x.g.n, NCLASSES + 2);
    CHECK_EQ_INT(ret(&x, 1), 64);
    CHECK_EQ_INT(x.g.edge_at[idx(&x, 2) + 1] - x.g.edge_at[idx(&x, 2)], 1); /* the first 2: its class only */
    char name[64];
    CHECK(heap_graph_edge_name(&x.g, idx(&x, 1), 0, name, sizeof name));
    CHECK_EQ_STR(name, "b"); /* a's target is undefined: edge 0 is b */
    done(&x);
}

/* every truncation of a dump: an error or a graph, never a crash; garbage is refused */
static void test_truncations(void)
{
    hb b;
    world_start(&b, 8);
    node(&b, 1, oid(&b, 2), 0);
    node(&b, 2, oid(&b, 1), 0);
    uint64_t e[2] = { oid(&b, 1), oid(&b, 2) };
    hb_obj_array(&b, oid(&b, 3), C_OARR, 2, e);
    hb_bytes(&b, oid(&b, 4), 3);
    hb_root_global(&b, oid(&b, 3));
    hb_end(&b);
    unsigned good = 0;
    for (size_t cut = 0; cut <= b.len; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, b.p, cut);
        heap_graph g;
        char err[256];
        if (heap_graph_build(&g, copy, cut, HEAP_GRAPH_IGNORE_WEAK, NULL, NULL, err, sizeof err)) {
            heap_dominators dm;
            good += heap_dominators_compute(&g, &dm, NULL, NULL, err, sizeof err);
            heap_dominators_free(&dm);
            heap_graph_free(&g);
        } else {
            CHECK(err[0] != '\0');
        }
        free(copy);
    }
    CHECK(good >= 1); /* the whole dump */
    heap_graph g;
    char err[256];
    CHECK(!heap_graph_build(&g, "JAVA PROFILE 9", 14, 0, NULL, NULL, err, sizeof err));
    CHECK(strstr(err, "not an HPROF") != NULL);
    free(b.p);
}

int main(void)
{
    RUN(test_chain8);
    RUN(test_chain4);
    RUN(test_diamond8);
    RUN(test_diamond4);
    RUN(test_cycle);
    RUN(test_array);
    RUN(test_class_orders);
    RUN(test_statics);
    RUN(test_weak_default);
    RUN(test_weak_ignored);
    RUN(test_weak_into_strong);
    RUN(test_island);
    RUN(test_unresolved);
    RUN(test_truncations);
    return DONE();
}
