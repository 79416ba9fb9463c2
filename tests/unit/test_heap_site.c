/* test_heap_site.c — the objects of one allocation site grouped by the paths
 * that hold them (heap_site.c), on a small dump built here byte by byte
 * (hprof_builder.h), with 4- and 8-byte ids. Objects carrying trace 77 (the
 * site) are held four ways: through a static map's table and its nodes'
 * `value` (4 of them), through another static's array (2), as a Java frame
 * root itself (1), and through another site object's field (1); one is
 * unreachable; one byte[] of the same trace hangs below a site object. Every
 * expected count, size and group is written by hand from the shape below. */
#include "harness.h"

#include "heapdump/heap_dominators.h"
#include "heapdump/heap_graph.h"
#include "heapdump/heap_paths.h"
#include "heapdump/heap_site.h"
#include "hprof_builder.h"

enum { S_OBJECT = 1, S_HOLDER, S_MAP, S_NODE, S_ITEM, S_OARR, S_CACHE, S_OTHER, S_TABLE, S_VALUE, S_X };
enum { C_OBJECT = 0x100, C_HOLDER = 0x110, C_MAP = 0x120, C_NODE = 0x130, C_ITEM = 0x140, C_OARR = 0x150 };
#define SITE 77u

static uint64_t oid(unsigned idsize, unsigned k) { return (idsize == 8 ? 0x7f0000001000ull : 0x10000ull) + 0x10u * k; }

/* an INSTANCE DUMP with one reference field */
static void inst1(hb *b, uint64_t o, uint32_t trace, uint64_t cid, uint64_t value)
{
    hb_instance_traced(b, o, trace, cid, 1, &value);
}

/* The dump (objects by number k, oid(k); Items 11..19 and the byte[] 20 carry trace 77, the rest 1):
 *   class Holder (sticky) .static cache -> 1 (Map) .table -> 2 (Object[4]) [i] -> 3..6 (Node) .value -> 11..14
 *   class Holder .static other -> 7 (Object[2]) -> 15, 16
 *   Java frame of thread 3 -> 17
 *   18: unreachable
 *   11 .x -> 19 (held by 11 only)
 *   12 .x -> 20 (byte[10], held by 12 only)
 * Items are 24 bytes (16-byte header + one reference of 8 bytes, or of 4 rounded up), the byte[10] 32. */
static void make_dump(hb *b, unsigned idsize)
{
    hb_start(b, idsize, "1.0.2");
    const char *names[] = { "java/lang/Object", "Holder", "Map", "Node", "Item", "[Ljava/lang/Object;",
                            "cache", "other", "table", "value", "x" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        hb_utf8(b, i + 1, names[i]);
    uint64_t classes[6] = { C_OBJECT, C_HOLDER, C_MAP, C_NODE, C_ITEM, C_OARR };
    for (unsigned i = 0; i < 6; i++)
        hb_load_class(b, i + 1, classes[i], 0, i + 1);
    hb_rec(b, 0x0C);
#define O(k) oid(idsize, k)
    uint64_t st_names[2] = { S_CACHE, S_OTHER }, st_values[2] = { O(1), O(7) };
    uint64_t table[1] = { S_TABLE }, value[1] = { S_VALUE }, x[1] = { S_X };
    hb_class(b, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_HOLDER, C_OBJECT, 0, 2, st_names, st_values, 0, NULL, NULL);
    hb_class(b, C_MAP, C_OBJECT, 0, 0, NULL, NULL, 1, table, NULL);
    hb_class(b, C_NODE, C_OBJECT, 0, 0, NULL, NULL, 1, value, NULL);
    hb_class(b, C_ITEM, C_OBJECT, 0, 0, NULL, NULL, 1, x, NULL);
    hb_class(b, C_OARR, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    for (unsigned i = 0; i < 6; i++)
        hb_root_sticky(b, classes[i]);
    inst1(b, O(1), 1, C_MAP, O(2));
    uint64_t nodes[4] = { O(3), O(4), O(5), O(6) }, two[2] = { O(15), O(16) };
    hb_obj_array(b, O(2), C_OARR, 4, nodes);
    for (unsigned k = 0; k < 4; k++)
        inst1(b, O(3 + k), 1, C_NODE, O(11 + k));
    hb_obj_array(b, O(7), C_OARR, 2, two);
    inst1(b, O(11), SITE, C_ITEM, O(19));
    inst1(b, O(12), SITE, C_ITEM, O(20));
    for (unsigned k = 13; k <= 18; k++)
        inst1(b, O(k), SITE, C_ITEM, 0);
    inst1(b, O(19), SITE, C_ITEM, 0);
    hb_prim_array(b, O(20), SITE, 8, NULL, 10); /* byte[10] */
    hb_root_frame(b, O(17), 3);
#undef O
    hb_end(b);
}

typedef struct world {
    hb b;
    heap_graph g;
    heap_dominators dm;
    heap_paths p;
} world;

static bool world_build(world *w, unsigned idsize)
{
    char err[256];
    make_dump(&w->b, idsize);
    if (!heap_graph_build(&w->g, w->b.p, w->b.len, HEAP_GRAPH_IGNORE_WEAK, NULL, NULL, err, sizeof err) ||
        !heap_dominators_compute(&w->g, &w->dm, NULL, NULL, err, sizeof err) ||
        !heap_paths_compute(&w->g, &w->p, err, sizeof err)) {
        fprintf(stderr, "    %s\n", err);
        return false;
    }
    return true;
}

static void world_free(world *w)
{
    heap_paths_free(&w->p);
    heap_dominators_free(&w->dm);
    heap_graph_free(&w->g);
    free(w->b.p);
}

static uint32_t ix(const world *w, unsigned k) { return heap_graph_find(&w->g, oid(w->b.idsize, k)); }

static void check_items(unsigned idsize)
{
    world w;
    ASSERT(world_build(&w, idsize));
    CHECK(heap_site_any_traced(&w.g));
    heap_site s;
    ASSERT(heap_site_find(&w.g, &w.dm, &w.p, SITE, "Item", &s));
    /* 11..19: nine Items, 18 unreachable */
    CHECK_EQ_INT(s.objects, 9);
    CHECK_EQ_INT(s.shallow, 9 * 24);
    /* each byte once: 11 (+19) 48, 12 (+ byte[] 20) 56, 13..17 24 each; 19 is inside 11; 18 retains nothing */
    CHECK_EQ_INT(s.retained, 48 + 56 + 5 * 24);
    CHECK_EQ_INT(s.unreachable, 1);
    CHECK_EQ_INT(s.nclasses, 1);
    ASSERT(s.ngroups == 4);
    /* 1: the map's values 11..14, by Holder -> 1 -> 2 -> [*] node -> value */
    const heap_site_group *g1 = &s.groups[0];
    CHECK_EQ_INT(g1->objects, 4);
    CHECK_EQ_INT(g1->shallow, 96);
    CHECK_EQ_INT(g1->retained, 48 + 56 + 24 + 24);
    ASSERT(g1->len == 5);
    CHECK_EQ_INT(g1->chain[0], heap_graph_find(&w.g, C_HOLDER));
    CHECK_EQ_INT(g1->chain[1], ix(&w, 1));
    CHECK_EQ_INT(g1->chain[2], ix(&w, 2));
    CHECK_EQ_INT(g1->chain[3], ix(&w, 3)); /* its first member's (11's) node */
    CHECK_EQ_INT(g1->chain[4], ix(&w, 11));
    CHECK(g1->same[0] && g1->same[1] && g1->same[2] && !g1->same[3] && !g1->same[4]);
    CHECK(!g1->weak);
    /* 2: the other static's array, 15 and 16 */
    const heap_site_group *g2 = &s.groups[1];
    CHECK_EQ_INT(g2->objects, 2);
    CHECK_EQ_INT(g2->retained, 48);
    ASSERT(g2->len == 3);
    CHECK_EQ_INT(g2->chain[1], ix(&w, 7));
    CHECK_EQ_INT(g2->chain[2], ix(&w, 15));
    CHECK(g2->same[0] && g2->same[1] && !g2->same[2]);
    /* 3: 17, a root itself (retains 24); 4: 19 through 11 .x (inside 11's retained size: 0) */
    CHECK_EQ_INT(s.groups[2].objects, 1);
    CHECK_EQ_INT(s.groups[2].retained, 24);
    ASSERT(s.groups[2].len == 1);
    CHECK_EQ_INT(s.groups[2].chain[0], ix(&w, 17));
    CHECK_EQ_INT(s.groups[3].objects, 1);
    CHECK_EQ_INT(s.groups[3].retained, 0);
    ASSERT(s.groups[3].len == 6);
    CHECK_EQ_INT(s.groups[3].chain[4], ix(&w, 11));
    CHECK_EQ_INT(s.groups[3].chain[5], ix(&w, 19));
    heap_site_free(&s);

    /* any class: the byte[] too, its own class and group; still each byte once */
    ASSERT(heap_site_find(&w.g, &w.dm, &w.p, SITE, NULL, &s));
    CHECK_EQ_INT(s.objects, 10);
    CHECK_EQ_INT(s.shallow, 9 * 24 + 32);
    CHECK_EQ_INT(s.retained, 48 + 56 + 5 * 24);
    ASSERT(s.nclasses == 2);
    CHECK_EQ_STR(heap_graph_class_name(&w.g, s.classes[0].cls), "Item");
    CHECK_EQ_INT(s.classes[0].objects, 9);
    CHECK_EQ_STR(heap_graph_class_name(&w.g, s.classes[1].cls), "byte[]");
    CHECK_EQ_INT(s.classes[1].shallow, 32);
    CHECK_EQ_INT(s.ngroups, 5);
    heap_site_free(&s);

    /* a trace nothing carries; the empty trace 1 is the rest of the heap */
    ASSERT(heap_site_find(&w.g, &w.dm, &w.p, 99, NULL, &s));
    CHECK_EQ_INT(s.objects, 0);
    CHECK_EQ_INT(s.ngroups, 0);
    heap_site_free(&s);
    ASSERT(heap_site_find(&w.g, &w.dm, &w.p, SITE, "Node", &s));
    CHECK_EQ_INT(s.objects, 0);
    heap_site_free(&s);
    world_free(&w);
}

static void test_items_8(void) { check_items(8); }
static void test_items_4(void) { check_items(4); }

/* a dump where every object has trace 1 (HotSpot's) has no site */
static void test_untraced(void)
{
    hb b;
    hb_start(&b, 8, "1.0.2");
    hb_utf8(&b, 1, "java/lang/Object");
    hb_load_class(&b, 1, C_OBJECT, 0, 1);
    hb_rec(&b, 0x0C);
    hb_class(&b, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_u1(&b, 0x21);
    hb_id(&b, 0x5000);
    hb_u4(&b, 1);
    hb_id(&b, C_OBJECT);
    hb_u4(&b, 0);
    hb_u1(&b, 0x01);
    hb_id(&b, 0x5000);
    hb_id(&b, 0x77);
    hb_end(&b);
    heap_graph g;
    char err[256];
    ASSERT(heap_graph_build(&g, b.p, b.len, HEAP_GRAPH_IGNORE_WEAK, NULL, NULL, err, sizeof err));
    CHECK(!heap_site_any_traced(&g));
    heap_graph_free(&g);
    free(b.p);
}

int main(void)
{
    RUN(test_items_8);
    RUN(test_items_4);
    RUN(test_untraced);
    return DONE();
}
