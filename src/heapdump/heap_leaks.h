/* heap_leaks.h — leak suspects of a heap dump, as MAT's leak-suspects report
 * finds them, from the dominator tree (heap_dominators.h), and the tree's
 * children lists they are found with.
 *
 * The dominator tree's children, in CSR form: object i's children (the
 * objects it immediately dominates) are list[at[i] .. at[i + 1]), largest
 * retained size first, ties by id; index n (one past the objects) stands for
 * the super root above the GC roots, whose children are the objects nothing
 * but the super root dominates. 4 bytes per reachable object and 4 per object.
 *
 * The heap is the reachable objects' shallow bytes; a suspect holds more than
 * threshold percent of it:
 *   object  an object retaining more than the threshold, the top-most such
 *           on its branch of the tree. From it the walk down the tree follows
 *           the largest child while that child retains at least
 *           HEAP_LEAK_FOLLOW (80%) of its parent's retained size. Where the
 *           walk stops, the retained size spreads over the children: that is
 *           the accumulation point (typically a collection's backing array,
 *           whose elements each retain a little), with the class whose instances
 *           among its children retain the most. When, instead, two or more
 *           of the point's children are themselves above the threshold (a
 *           class loader holding two leaking collections), those children
 *           are the suspects, not the object the walk started from.
 *   class   a class whose instances retain more than the threshold together
 *           (heap_dominators_classes: an instance inside another's retained
 *           set counted once), none of them HEAP_LEAK_FOLLOW of it alone (one
 *           instance holding it all is an object suspect's story), with the
 *           nearest object that dominates at least half of its instances: the
 *           one immediately dominating the most of them (ties: the most of
 *           their bytes), else, up to HEAP_LEAK_LEVELS levels up, the one
 *           dominating the most through one more level (a byte[] held by an
 *           Entry held by a HashMap$Node of one table: the table, 3 levels).
 */
#ifndef HEAP_LEAKS_H
#define HEAP_LEAKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_dominators.h"
#include "heap_graph.h"

#define HEAP_LEAK_FOLLOW 0.8
#define HEAP_LEAK_LEVELS 4u

typedef struct heap_dom_children {
    uint32_t n;     /* objects; index n is the super root */
    uint32_t *at;   /* n + 2 */
    uint32_t *list; /* each object's children, largest retained first, ties by id */
} heap_dom_children;

/* The children lists of dm's tree over g's objects. False when out of memory. */
bool heap_dom_children_build(const heap_graph *g, const heap_dominators *dm, heap_dom_children *c);
void heap_dom_children_free(heap_dom_children *c);
static inline uint32_t heap_dom_children_count(const heap_dom_children *c, uint32_t i)
{
    return c->at[i + 1] - c->at[i];
}
/* object i's immediate dominator as a children-list index: n for the super root, HEAP_GRAPH_NONE when unreachable */
uint32_t heap_dom_parent(const heap_dominators *dm, const heap_dom_children *c, uint32_t i);

/* Where a suspect's retained size spreads out (above). */
typedef struct heap_leak_point {
    uint32_t obj;               /* the accumulation point */
    uint32_t steps;             /* tree levels below the suspect (0: the suspect itself) */
    uint32_t children;          /* objects it immediately dominates */
    uint64_t children_retained; /* their retained bytes */
    uint32_t top_cls;           /* the class whose children retain the most (ties: the larger child's; HEAP_GRAPH_NONE:
                                 * no child) ... */
    uint32_t top_cls_children;  /* ... how many of its children are of that class ... */
    uint64_t top_cls_retained;  /* ... and their retained bytes */
} heap_leak_point;

enum { HEAP_LEAK_OBJECT = 0, HEAP_LEAK_CLASS = 1 };

typedef struct heap_leak_suspect {
    int kind;          /* HEAP_LEAK_* */
    uint32_t obj;      /* OBJECT: the object; CLASS: its instance that retains the most */
    uint32_t cls;      /* the object's class index; CLASS: the class */
    uint64_t instances; /* CLASS: reachable instances */
    uint64_t retained; /* OBJECT: the object's; CLASS: the class's */
    heap_leak_point point;     /* OBJECT only */
    uint32_t holder;           /* CLASS: the object dominating the most of its instances (above; HEAP_GRAPH_NONE:
                                * the super root) ... */
    uint32_t holder_levels;    /* ... that many levels above them ... */
    uint64_t held, held_bytes; /* ... how many of them, and their retained bytes */
} heap_leak_suspect;

typedef struct heap_leaks {
    uint64_t heap;    /* the reachable bytes */
    double threshold; /* percent */
    heap_leak_suspect *s;
    size_t n; /* objects first, largest first; then classes, largest first */
} heap_leaks;

/* The object a suspect's path from a GC root leads to: an object suspect's accumulation point (the suspect
 * is on the way: it dominates the point), a class suspect's holder, else its largest instance. */
uint32_t heap_leak_target(const heap_leak_suspect *s);

/* The suspects above threshold percent (0 < threshold <= 100) of the heap;
 * rows are heap_dominators_classes's. False when out of memory. */
bool heap_leaks_find(const heap_graph *g, const heap_dominators *dm, const heap_dom_children *c,
                     const heap_class_retained *rows, size_t nrows, double threshold, heap_leaks *out);
void heap_leaks_free(heap_leaks *l);

#endif
