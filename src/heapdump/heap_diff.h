/* heap_diff.h — two heap dumps compared class by class (`jvmprof heap A
 * --diff B`): for each class, its reachable instances, their shallow bytes
 * and the class's retained bytes (heap_dominators_classes, MAT's rule) in
 * A and in B, matched by class name, sorted by how much the retained size
 * grew from A to B (then the shallow bytes, then the instances, then the
 * name): the leak view over time. A class in one dump only has zeros in
 * the other. Pure: no I/O. */
#ifndef HEAP_DIFF_H
#define HEAP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap_dominators.h"
#include "heap_graph.h"

typedef struct heap_diff_row {
    char *name; /* Java style, owned by the diff */
    uint64_t instances[2], shallow[2], retained[2]; /* [0]: A, [1]: B */
} heap_diff_row;

typedef struct heap_diff {
    heap_diff_row *rows;
    size_t nrows, cap;
    bool sorted; /* heap_diff_finish was called */
} heap_diff;

/* Adds side (0: A, 1: B) from a dump's graph and its class rows; each side
 * once, A first. False when out of memory (the diff is then freed). */
bool heap_diff_add(heap_diff *d, int side, const heap_graph *g, const heap_class_retained *rows, size_t nrows);
/* Merges the rows of the same class name and sorts them by growth (above).
 * False when out of memory. */
bool heap_diff_finish(heap_diff *d);
void heap_diff_free(heap_diff *d);

/* The change of a row's column from A to B, signed. */
static inline int64_t heap_diff_change(const uint64_t v[2]) { return (int64_t)(v[1] - v[0]); }

#endif
