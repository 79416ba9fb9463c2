/* heap_paths.h — shortest paths from the GC roots to each object of a heap
 * dump's object graph (heap_graph.h), for "why is this object alive?": the
 * chain root -> ... -> object, each step named by field or array index
 * (heap_paths_step_name), and the root's kind and thread (heap_paths_root,
 * heap_paths_thread_name).
 *
 * One breadth-first search from every GC root at once (multi-source BFS):
 * each object gets the object before it on one shortest path (parent[]),
 * 5 bytes per object plus a 4-byte queue while computing; no recursion.
 * Ties: the roots enter the queue in the dump's order of their ROOT
 * records, and each object's references are followed in edge order
 * (heap_graph.h), so of several shortest paths the one through the earlier
 * root (then the earlier reference) wins; an object named by several ROOT
 * records is a root of the first one in the file.
 *
 * Build the graph with HEAP_GRAPH_IGNORE_WEAK: the referent of a weak,
 * soft, phantom or final reference is then no edge, so no strong path runs
 * through one. An object no strong path reaches but a referent of a
 * reachable Reference does is "weakly reachable only" (HEAP_PATH_WEAK): a
 * second search from those referents gives it a path too, whose step from
 * the Reference is named "referent" (heap_paths_reference_kind tells soft,
 * weak, phantom or final). Everything else is unreachable (HEAP_PATH_NONE). */
#ifndef HEAP_PATHS_H
#define HEAP_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_graph.h"

/* how[i]: how object i is reachable */
enum { HEAP_PATH_NONE = 0, HEAP_PATH_ROOT, HEAP_PATH_STRONG, HEAP_PATH_WEAK };

typedef struct heap_paths {
    uint32_t *parent; /* per object: the object before it on its path; for a root, the index in g->roots of
                       * its (first) ROOT record; HEAP_GRAPH_NONE when unreachable */
    uint8_t *how;     /* per object: HEAP_PATH_* */
    uint32_t n;       /* objects (g->n) */
    uint64_t roots, strong, weak_only, unreachable; /* objects of each kind (strong: roots not counted) */
} heap_paths;

/* The shortest paths of g's objects. False (out of memory) with a one-line reason in err. */
bool heap_paths_compute(const heap_graph *g, heap_paths *p, char *err, size_t errlen);
void heap_paths_free(heap_paths *p);

/* The path to object i, its root first and i last, into a malloc'ed *out of
 * *len indexes (*out NULL, *len 0 when i is unreachable). Steps after a
 * HEAP_PATH_WEAK object's first weak step are weak too. False only when
 * out of memory. */
bool heap_paths_chain(const heap_paths *p, uint32_t i, uint32_t **out, size_t *len);
/* The ROOT record that makes object i a root (the first in the file), NULL if i is not a root. */
const heap_root *heap_paths_root(const heap_graph *g, const heap_paths *p, uint32_t i);
/* The name of the step from object `from` to `to` on a path (to's parent is
 * from): the field or element of from's first reference to to
 * (heap_graph_edge_name: "table", "[7]", "static cache", "<class>"...), or
 * "referent" for a weak step. False when from does not refer to to. */
bool heap_paths_step_name(const heap_graph *g, const heap_paths *p, uint32_t from, uint32_t to, char *buf,
                          size_t len);
/* The name of the thread of serial number `serial`: the `name` of the
 * thread object its ROOT THREAD OBJECT record names (heap_graph_string).
 * False when the dump has no such record or name. */
bool heap_paths_thread_name(const heap_graph *g, uint32_t serial, char *buf, size_t len);
/* Which reference object i is, by its class's superclasses: "soft", "weak",
 * "phantom" or "final" (java.lang.ref.SoftReference, WeakReference,
 * PhantomReference, FinalReference and their subclasses), "reference" for
 * another java.lang.ref.Reference; NULL when i is none. */
const char *heap_paths_reference_kind(const heap_graph *g, uint32_t i);

#endif
