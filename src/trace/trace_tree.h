/* trace_tree.h — a call tree with exact times (`jvmprof trace --flame`): one
 * node per path of calls (its caller's node and its key: a method id, or a
 * thread at the root), each with the nanoseconds spent in it but not in its
 * callees. Pure C: trace_text.c fills it from a trace's calls and walks it
 * to write collapsed stacks. */
#ifndef TRACE_TREE_H
#define TRACE_TREE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct trace_tree trace_tree;

/* NULL if out of memory. The root is node 0. */
trace_tree *trace_tree_new(void);
void trace_tree_free(trace_tree *t);
/* The node of key under parent, made if new; 0 if out of memory. */
uint32_t trace_tree_child(trace_tree *t, uint32_t parent, uint64_t key);
/* Adds self time to a node (0: ignored). */
void trace_tree_add(trace_tree *t, uint32_t node, uint64_t ns);
/* Each node with time, in the order made: the keys of its path from the
 * root's child down (at most max, the deepest cut) and its time. fn returns
 * false to stop; so does this. */
typedef bool (*trace_tree_fn)(const uint64_t *keys, uint32_t n, uint64_t ns, void *ctx);
bool trace_tree_walk(const trace_tree *t, uint32_t max, trace_tree_fn fn, void *ctx);

#endif
