/* test_heap_paths.c — shortest paths from the GC roots (heap_paths.c) and
 * the strings they name threads by (heap_graph_string), on a small dump
 * built here byte by byte (hprof_builder.h), with 4- and 8-byte ids: a
 * chain from a class's static through an array element, an object reached
 * by two paths of different lengths (the shorter wins, though its root
 * comes later in the file), a tie between two roots (the first root wins),
 * an object named by two ROOT records, thread names (a LATIN1 String, a
 * UTF-16 String, a JDK 8 char[]), objects reachable only through a weak or
 * a soft reference's referent, and an unreachable pair. Every expected path
 * is written by hand from the shapes below. */
#include "harness.h"

#include "heapdump/heap_graph.h"
#include "heapdump/heap_paths.h"
#include "hprof_builder.h"

/* string ids */
enum {
    S_OBJECT = 1, S_NODE, S_REF, S_WEAK, S_SOFT, S_OARR, S_STRING, S_THREAD, S_HOLDER,
    S_A, S_B, S_REFERENT, S_QUEUE, S_VALUE, S_CODER, S_NAME, S_CACHE
};
/* class ids */
enum { C_OBJECT = 0x100, C_NODE = 0x110, C_REF = 0x120, C_WEAK = 0x130, C_SOFT = 0x140, C_OARR = 0x150,
       C_STRING = 0x160, C_THREAD = 0x170, C_HOLDER = 0x180 };

/* a java.lang.String: value, coder */
static void string(hb *b, uint64_t o, uint64_t value, unsigned coder)
{
    hb_u1(b, 0x21);
    hb_id(b, o);
    hb_u4(b, 0);
    hb_id(b, C_STRING);
    hb_u4(b, b->idsize + 1);
    hb_id(b, value);
    hb_u1(b, coder);
}
/* object k's id */
static uint64_t oid(unsigned idsize, unsigned k) { return (idsize == 8 ? 0x7f0000001000ull : 0x10000ull) + 0x10u * k; }

static void node(hb *b, unsigned k, uint64_t a, uint64_t bb)
{
    uint64_t v[2] = { a, bb };
    hb_instance(b, oid(b->idsize, k), C_NODE, 2, v);
}

#define NCLASSES 9u

/* The dump (objects by number k, oid(k)):
 *   static chain   class Holder (a sticky root) .static cache -> 1 (Node) .a -> 2 (Object[3] {0, 0, 3}) [2] -> 3
 *   two lengths    JNI global 10 -a-> 11 -a-> 12 -a-> 13; Java frame (thread 3) 14 -b-> 13: 13's path is 14, 13
 *   a tie          JNI globals 16, then 17, each -a-> 15: 15's path is 16, 15
 *   two records    18: a JNI global, then a Java frame of thread 3
 *   threads        20 (serial 3) name 21 = String(22 = byte[] "holder", LATIN1); 23 (serial 4) name 24 =
 *                  char[] "worker" (JDK 8); 25 (serial 5) name 26 = String(27 = byte[] "t\0\xe9\0", UTF16)
 *   weak           JNI global 30 -a-> 31 (WeakReference, referent 32) ; 32 -a-> 33; 30 -b-> 34
 *                  (SoftReference, referent 35)
 *   unreachable    40 <-> 41 */
static void make_dump(hb *b, unsigned idsize)
{
    hb_start(b, idsize, "1.0.2");
    const char *names[] = { "java/lang/Object", "Node", "java/lang/ref/Reference", "java/lang/ref/WeakReference",
                            "java/lang/ref/SoftReference", "[Ljava/lang/Object;", "java/lang/String",
                            "java/lang/Thread", "Holder", "a", "b", "referent", "queue", "value", "coder", "name",
                            "cache" };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        hb_utf8(b, i + 1, names[i]);
    uint64_t classes[NCLASSES] = { C_OBJECT, C_NODE, C_REF, C_WEAK, C_SOFT, C_OARR, C_STRING, C_THREAD, C_HOLDER };
    for (unsigned i = 0; i < NCLASSES; i++)
        hb_load_class(b, i + 1, classes[i], 0, i + 1);
    hb_rec(b, 0x0C);
    uint64_t ab[2] = { S_A, S_B }, rq[2] = { S_REFERENT, S_QUEUE }, vc[2] = { S_VALUE, S_CODER }, nm[1] = { S_NAME };
    uint8_t refs[2] = { 2, 2 }, ref_byte[2] = { 2, 8 };
    uint64_t cache[1] = { S_CACHE }, cache_v[1] = { oid(idsize, 1) };
    hb_class(b, C_OBJECT, 0, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_NODE, C_OBJECT, 0, 0, NULL, NULL, 2, ab, refs);
    hb_class(b, C_REF, C_OBJECT, 0, 0, NULL, NULL, 2, rq, refs);
    hb_class(b, C_WEAK, C_REF, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_SOFT, C_REF, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_OARR, C_OBJECT, 0, 0, NULL, NULL, 0, NULL, NULL);
    hb_class(b, C_STRING, C_OBJECT, 0, 0, NULL, NULL, 2, vc, ref_byte);
    hb_class(b, C_THREAD, C_OBJECT, 0, 0, NULL, NULL, 1, nm, refs);
    hb_class(b, C_HOLDER, C_OBJECT, 0, 1, cache, cache_v, 0, NULL, NULL);
    for (unsigned i = 0; i < NCLASSES; i++) {
        hb_u1(b, 0x05); /* sticky class */
        hb_id(b, classes[i]);
    }
#define O(k) oid(idsize, k)
    /* static chain, written out of order */
    node(b, 3, 0, 0);
    uint64_t e[3] = { 0, 0, O(3) };
    hb_obj_array(b, O(2), C_OARR, 3, e);
    node(b, 1, O(2), 0);
    /* two lengths */
    node(b, 10, O(11), 0);
    node(b, 11, O(12), 0);
    node(b, 12, O(13), 0);
    node(b, 13, 0, 0);
    node(b, 14, 0, O(13));
    hb_root_global(b, O(10));
    hb_root_frame(b, O(14), 3);
    /* a tie */
    node(b, 15, 0, 0);
    node(b, 16, O(15), 0);
    node(b, 17, O(15), 0);
    hb_root_global(b, O(16));
    hb_root_global(b, O(17));
    /* two records */
    node(b, 18, 0, 0);
    hb_root_global(b, O(18));
    hb_root_frame(b, O(18), 3);
    /* threads */
    uint64_t t20[1] = { O(21) }, t23[1] = { O(24) }, t25[1] = { O(26) };
    hb_instance(b, O(20), C_THREAD, 1, t20);
    string(b, O(21), O(22), 0);
    hb_prim_array(b, O(22), 0, 8, (const unsigned char *)"holder", 6);
    hb_instance(b, O(23), C_THREAD, 1, t23);
    hb_prim_array(b, O(24), 0, 5, (const unsigned char *)"\0w\0o\0r\0k\0e\0r", 6);
    hb_instance(b, O(25), C_THREAD, 1, t25);
    string(b, O(26), O(27), 1);
    hb_prim_array(b, O(27), 0, 8, (const unsigned char *)"t\0\xe9\0", 4);
    hb_root_thread(b, O(20), 3);
    hb_root_thread(b, O(23), 4);
    hb_root_thread(b, O(25), 5);
    /* weak */
    node(b, 30, O(31), O(34));
    uint64_t w[2] = { O(32), 0 }, s[2] = { O(35), 0 };
    hb_instance(b, O(31), C_WEAK, 2, w);
    node(b, 32, O(33), 0);
    node(b, 33, 0, 0);
    hb_instance(b, O(34), C_SOFT, 2, s);
    node(b, 35, 0, 0);
    hb_root_global(b, O(30));
    /* unreachable */
    node(b, 40, O(41), 0);
    node(b, 41, O(40), 0);
#undef O
    hb_end(b);
}

typedef struct world {
    hb b;
    heap_graph g;
    heap_paths p;
} world;

static bool world_build(world *w, unsigned idsize, unsigned flags)
{
    char err[256];
    make_dump(&w->b, idsize);
    if (!heap_graph_build(&w->g, w->b.p, w->b.len, flags, NULL, NULL, err, sizeof err)) {
        fprintf(stderr, "    graph: %s\n", err);
        return false;
    }
    if (!heap_paths_compute(&w->g, &w->p, err, sizeof err)) {
        fprintf(stderr, "    paths: %s\n", err);
        return false;
    }
    return true;
}

static void world_free(world *w)
{
    heap_paths_free(&w->p);
    heap_graph_free(&w->g);
    free(w->b.p);
}

static uint32_t ix(const world *w, unsigned k) { return heap_graph_find(&w->g, oid(w->b.idsize, k)); }

/* The path to object k, as "k k k" (a class by its id in hex: "c180"), with the step names: "c180 -static
 * cache-> 1 -a-> 2 -[2]-> 3" */
static const char *path_of(const world *w, uint32_t i, char *out, size_t len)
{
    uint32_t *c = NULL;
    size_t n = 0;
    out[0] = '\0';
    if (!heap_paths_chain(&w->p, i, &c, &n))
        return "out of memory";
    size_t at = 0;
    for (size_t k = 0; k < n && at < len; k++) {
        char step[64] = "";
        if (k && !heap_paths_step_name(&w->g, &w->p, c[k - 1], c[k], step, sizeof step))
            snprintf(step, sizeof step, "?");
        uint64_t id = w->g.ids[c[k]], base = oid(w->b.idsize, 0);
        if (id >= base && w->g.d[w->g.at[c[k]]] != 0x20)
            at += (size_t)snprintf(out + at, len - at, "%s%s%s%s%u", k ? " -" : "", step, k ? "->" : "", k ? " " : "",
                                   (unsigned)((id - base) / 0x10));
        else
            at += (size_t)snprintf(out + at, len - at, "%s%s%s%sc%x", k ? " -" : "", step, k ? "->" : "",
                                   k ? " " : "", (unsigned)id);
    }
    free(c);
    return out;
}

static void paths(unsigned idsize)
{
    world w = { 0 };
    ASSERT(world_build(&w, idsize, HEAP_GRAPH_IGNORE_WEAK));
    char buf[256];
    const heap_root *r;
    /* the static chain: Holder is a sticky class */
    CHECK_EQ_STR(path_of(&w, ix(&w, 3), buf, sizeof buf), "c180 -static cache-> 1 -a-> 2 -[2]-> 3");
    CHECK_EQ_INT(w.p.how[ix(&w, 3)], HEAP_PATH_STRONG);
    r = heap_paths_root(&w.g, &w.p, heap_graph_find(&w.g, C_HOLDER));
    ASSERT(r != NULL);
    CHECK_EQ_INT(r->kind, 0x05);
    CHECK_EQ_INT(r->thread, 0);
    CHECK(heap_paths_root(&w.g, &w.p, ix(&w, 1)) == NULL);
    /* the shorter path wins over the earlier root */
    CHECK_EQ_STR(path_of(&w, ix(&w, 13), buf, sizeof buf), "14 -b-> 13");
    CHECK_EQ_STR(path_of(&w, ix(&w, 12), buf, sizeof buf), "10 -a-> 11 -a-> 12");
    r = heap_paths_root(&w.g, &w.p, ix(&w, 14));
    ASSERT(r != NULL);
    CHECK_EQ_INT(r->kind, 0x03);
    CHECK_EQ_INT(r->thread, 3);
    CHECK(heap_paths_thread_name(&w.g, r->thread, buf, sizeof buf));
    CHECK_EQ_STR(buf, "holder");
    /* a tie: the earlier root */
    CHECK_EQ_STR(path_of(&w, ix(&w, 15), buf, sizeof buf), "16 -a-> 15");
    /* an object with two ROOT records: the first in the file */
    CHECK_EQ_STR(path_of(&w, ix(&w, 18), buf, sizeof buf), "18");
    r = heap_paths_root(&w.g, &w.p, ix(&w, 18));
    ASSERT(r != NULL);
    CHECK_EQ_INT(r->kind, 0x01);
    CHECK_EQ_STR(heap_graph_root_kind(r->kind), "JNI global");
    /* thread names: a char[] (JDK 8), a UTF-16 String; none for serial 9 */
    CHECK(heap_paths_thread_name(&w.g, 4, buf, sizeof buf));
    CHECK_EQ_STR(buf, "worker");
    CHECK(heap_paths_thread_name(&w.g, 5, buf, sizeof buf));
    CHECK_EQ_STR(buf, "t\xc3\xa9");
    CHECK(!heap_paths_thread_name(&w.g, 9, buf, sizeof buf));
    char small[4];
    CHECK(heap_paths_thread_name(&w.g, 3, small, sizeof small));
    CHECK_EQ_STR(small, "hol"); /* cut to fit */
    CHECK(!heap_graph_string(&w.g, ix(&w, 20), buf, sizeof buf)); /* a Thread is no String */
    CHECK_EQ_STR(path_of(&w, ix(&w, 22), buf, sizeof buf), "20 -name-> 21 -value-> 22");
    /* weakly and softly reachable only */
    CHECK_EQ_INT(w.p.how[ix(&w, 31)], HEAP_PATH_STRONG);
    CHECK_EQ_INT(w.p.how[ix(&w, 32)], HEAP_PATH_WEAK);
    CHECK_EQ_INT(w.p.how[ix(&w, 33)], HEAP_PATH_WEAK);
    CHECK_EQ_INT(w.p.how[ix(&w, 35)], HEAP_PATH_WEAK);
    CHECK_EQ_STR(path_of(&w, ix(&w, 33), buf, sizeof buf), "30 -a-> 31 -referent-> 32 -a-> 33");
    CHECK_EQ_STR(path_of(&w, ix(&w, 35), buf, sizeof buf), "30 -b-> 34 -referent-> 35");
    CHECK_EQ_STR(heap_paths_reference_kind(&w.g, ix(&w, 31)), "weak");
    CHECK_EQ_STR(heap_paths_reference_kind(&w.g, ix(&w, 34)), "soft");
    CHECK(heap_paths_reference_kind(&w.g, ix(&w, 30)) == NULL);
    /* unreachable */
    CHECK_EQ_INT(w.p.how[ix(&w, 40)], HEAP_PATH_NONE);
    CHECK_EQ_STR(path_of(&w, ix(&w, 40), buf, sizeof buf), "");
    uint32_t *c = (uint32_t *)1;
    size_t n = 9;
    CHECK(heap_paths_chain(&w.p, ix(&w, 41), &c, &n));
    CHECK(c == NULL);
    CHECK_EQ_INT(n, 0);
    CHECK(heap_paths_chain(&w.p, w.g.n, &c, &n)); /* out of range: unreachable */
    CHECK_EQ_INT(n, 0);
    /* counts: roots: the classes, 10 14 16 17 18 20 23 25 30; weak only: 32 33 35; unreachable: 40 41 */
    CHECK_EQ_INT(w.p.roots, NCLASSES + 9);
    CHECK_EQ_INT(w.p.weak_only, 3);
    CHECK_EQ_INT(w.p.unreachable, 2);
    CHECK_EQ_INT(w.p.roots + w.p.strong + w.p.weak_only + w.p.unreachable, w.g.n);
    /* a step between objects with no reference between them */
    CHECK(!heap_paths_step_name(&w.g, &w.p, ix(&w, 3), ix(&w, 1), buf, sizeof buf));
    world_free(&w);
}
static void test_paths8(void) { paths(8); }
static void test_paths4(void) { paths(4); }

/* every reference a path: the referent is then an edge like any other */
static void test_every_reference(void)
{
    world w = { 0 };
    ASSERT(world_build(&w, 8, 0));
    char buf[256];
    CHECK_EQ_INT(w.p.how[ix(&w, 33)], HEAP_PATH_STRONG);
    CHECK_EQ_STR(path_of(&w, ix(&w, 33), buf, sizeof buf), "30 -a-> 31 -referent-> 32 -a-> 33");
    CHECK_EQ_INT(w.p.weak_only, 0);
    world_free(&w);
}

/* an empty heap: no objects, no paths */
static void test_empty(void)
{
    hb b;
    hb_start(&b, 8, "1.0.2");
    hb_rec(&b, 0x0C);
    hb_end(&b);
    heap_graph g;
    heap_paths p;
    char err[256];
    ASSERT(heap_graph_build(&g, b.p, b.len, HEAP_GRAPH_IGNORE_WEAK, NULL, NULL, err, sizeof err));
    CHECK(heap_paths_compute(&g, &p, err, sizeof err));
    CHECK_EQ_INT(p.roots + p.strong + p.weak_only + p.unreachable, 0);
    heap_paths_free(&p);
    heap_graph_free(&g);
    free(b.p);
}

int main(void)
{
    RUN(test_paths8);
    RUN(test_paths4);
    RUN(test_every_reference);
    RUN(test_empty);
    return DONE();
}
