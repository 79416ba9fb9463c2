/* heap_dominators.h — the dominator tree of a heap dump's object graph
 * (heap_graph.h) and the retained size of every object: the bytes that
 * would be freed if the object were gone, i.e. its shallow size plus the
 * retained sizes of the objects it immediately dominates.
 *
 * A virtual super root sits above the GC roots: object x dominates y when
 * every path from the super root to y passes through x. The immediate
 * dominators are computed by the Lengauer-Tarjan algorithm in its semi-NCA
 * form (semidominators with path compression, then each immediate dominator
 * as the nearest common ancestor on the DFS tree), iterative throughout (no
 * recursion: ten million objects and chains a million long), in
 * ~ 36 bytes per reachable object and 4 per reference beside the graph.
 *
 * Which references retain: every edge of the graph. Built with
 * HEAP_GRAPH_IGNORE_WEAK, the referent of a java.lang.ref.Reference is no
 * edge; an object reachable only through such referents (of References that
 * are themselves reachable) is then "weakly reachable": it counts as
 * reachable, hangs below the super root (retained by no strongly reachable
 * object, nor retaining one), and is counted apart (weak_only). Objects no
 * root reaches are unreachable: no dominator, retained 0, counted apart. */
#ifndef HEAP_DOMINATORS_H
#define HEAP_DOMINATORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_graph.h"

#define HEAP_DOM_SUPER (UINT32_MAX - 1) /* the immediate dominator of what only the super root dominates */
#define HEAP_DOM_UNREACHABLE UINT32_MAX

typedef struct heap_dominators {
    uint32_t *idom;     /* per object: the index of its immediate dominator, or HEAP_DOM_* */
    uint64_t *retained; /* per object: its retained bytes, 0 when unreachable */
    uint64_t reachable, reachable_bytes;     /* objects and their shallow bytes */
    uint64_t unreachable, unreachable_bytes;
    uint64_t weak_only, weak_only_bytes;     /* of the reachable: only through referents (IGNORE_WEAK) */
} heap_dominators;

/* Dominators and retained sizes of g's objects. False (out of memory, or
 * more objects and references than 32-bit indexes hold) with a one-line
 * reason in err. progress may be NULL. */
bool heap_dominators_compute(const heap_graph *g, heap_dominators *dm, heap_progress_fn progress, void *pctx,
                             char *err, size_t errlen);
void heap_dominators_free(heap_dominators *dm);

/* A class's retained size as MAT computes it: the sum of the retained sizes
 * of its instances that no other instance of the class dominates (an
 * instance inside another's retained set is not counted twice); instances
 * and shallow bytes of its reachable instances. */
typedef struct heap_class_retained {
    uint32_t cls; /* heap_graph class index */
    uint64_t instances, shallow, retained;
} heap_class_retained;

/* One row per class with reachable instances, sorted by retained, then
 * shallow bytes descending, then class name. False when out of memory. */
bool heap_dominators_classes(const heap_graph *g, const heap_dominators *dm, heap_class_retained **rows,
                             size_t *nrows);
/* The orders of class rows: by retained size (heap_dominators_classes's), by
 * shallow bytes, by instances; each largest first, ties in the retained
 * order (retained, then shallow bytes descending, then class name). */
typedef enum heap_class_order {
    HEAP_CLASSES_BY_RETAINED = 0,
    HEAP_CLASSES_BY_SHALLOW,
    HEAP_CLASSES_BY_INSTANCES
} heap_class_order;
/* Sorts heap_dominators_classes's rows in that order. */
void heap_dominators_classes_sort(const heap_graph *g, heap_class_retained *rows, size_t nrows, heap_class_order by);
/* The top reachable objects by retained size (top 0: all), largest first,
 * ties by id; into a malloc'ed *out of *nout indexes. False when out of memory. */
bool heap_dominators_top(const heap_graph *g, const heap_dominators *dm, size_t top, uint32_t **out, size_t *nout);

#endif
