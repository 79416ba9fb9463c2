/* heap_site.h — what keeps alive the objects of one allocation site in a
 * heap dump, for `jvmprof heap FILE --site TRACE`: a dump jvmprof took with
 * heap=sites gives each live sampled object its site's trace serial
 * (heap_graph_trace_serial; docs/heap-dumps.md), and this module takes the
 * objects carrying one serial (and, optionally, of one class: a site is a
 * trace and a class) and groups them by the path that holds them.
 *
 * Paths are the shortest from the GC roots (heap_paths.h). Two objects are
 * in one group when their paths pass the same fields the same way: the same
 * root kind (and thread, and the same class object for a class root), then
 * at each step the same field of the same class (for a class object's
 * statics: of the same class object), an element of an object array of the
 * same class at any index, and the objects themselves of one class. So the
 * 20,000 values of one HashMap are one group whatever their keys, and a
 * second map under another static field is another group. Each group keeps
 * the path of its first object (in index order) and, for each step, whether
 * every object of the group passes the same object there (the map, its
 * table) or not (each entry's node).
 *
 * Retained bytes of a set of objects count each byte once: an object that
 * another object of the set dominates is inside that one's retained size,
 * so only the objects no other member dominates are summed (as a class's
 * retained size is, heap_dominators.h). Objects with no strong path (only
 * through a weak, soft, phantom or final reference's referent) get their
 * weak path and are grouped the same way, flagged; unreachable ones are
 * counted apart.
 *
 * Cost: a byte per object of the dump while the retained sizes are summed,
 * and per member its path while grouping. Pure C. */
#ifndef HEAP_SITE_H
#define HEAP_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_dominators.h"
#include "heap_graph.h"
#include "heap_paths.h"

typedef struct heap_site_group {
    uint64_t objects, shallow, retained; /* of its members (retained: each byte once) */
    uint32_t *chain;                     /* the path of its first member: a GC root first, that member last */
    size_t len;
    uint8_t *same;                       /* per step of chain: 1 when every member passes that object there */
    bool weak;                           /* the path passes a referent (no strong path) */
} heap_site_group;

typedef struct heap_site_class {
    uint32_t cls;                        /* heap_graph class index */
    uint64_t objects, shallow;
} heap_site_class;

typedef struct heap_site {
    uint32_t trace;
    uint64_t objects, shallow, retained;  /* every member; retained each byte once */
    uint64_t unreachable;                 /* members no path reaches (in no group) */
    heap_site_group *groups;              /* by objects, then retained, descending */
    size_t ngroups;
    heap_site_class *classes;             /* the members' classes, by objects descending */
    size_t nclasses;
} heap_site;

/* The objects of g whose record carries trace serial `trace` and, when
 * class_name is not NULL, whose class is named so (Java style, as
 * heap_graph_class_name spells it: java.lang.String, int[], a class object
 * counting as java.lang.Class), grouped by their paths. hp: g's paths
 * (heap_paths_compute); dm: its dominators, for retained sizes. False when
 * out of memory (s then empty). */
bool heap_site_find(const heap_graph *g, const heap_dominators *dm, const heap_paths *hp, uint32_t trace,
                    const char *class_name, heap_site *s);
void heap_site_free(heap_site *s);
/* True when some object of g carries a trace serial other than 0 and 1
 * (a dump jvmprof took with heap=sites; HotSpot's dumper writes 1 for all). */
bool heap_site_any_traced(const heap_graph *g);

#endif
