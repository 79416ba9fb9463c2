/* heap_leaks_html.h — the leak report of a heap dump as ONE self-contained
 * HTML page (no network, no external script or font; `jvmprof heap FILE
 * --leaks --html`): the suspects with their accumulation points (and, when
 * given, the path from a GC root to each), the dominator tree as an icicle
 * chart (click to zoom, a reset, hover for class, id, shallow and retained
 * bytes), and the classes by retained size.
 *
 * The tree drawn is the part a reader can see: objects retaining at least
 * HEAP_LEAKS_HTML_MIN of the heap (0.1%), at most HEAP_LEAKS_HTML_DEPTH
 * levels deep and HEAP_LEAKS_HTML_NODES nodes in all; what a node's smaller
 * children retain is one node per parent, "(n smaller objects)". So the page
 * stays small whatever the dump's size: at most ~1000 nodes a level. The
 * page's fixed parts are files in src/heapdump/leaks_page/, compiled in by
 * tools/embed.sh. */
#ifndef HEAP_LEAKS_HTML_H
#define HEAP_LEAKS_HTML_H

#include <stddef.h>

#include "../common/jp_error.h"
#include "../format/sink.h"
#include "heap_dominators.h"
#include "heap_graph.h"
#include "heap_leaks.h"

#define HEAP_LEAKS_HTML_MIN 0.001
#define HEAP_LEAKS_HTML_DEPTH 200u
#define HEAP_LEAKS_HTML_NODES 50000u

typedef struct heap_leaks_page {
    const char *path; /* the dump's name, for the title */
    const heap_graph *g;
    const heap_dominators *dm;
    const heap_dom_children *c;
    const heap_leaks *l;
    const heap_class_retained *rows; /* heap_dominators_classes's */
    size_t nrows;
    unsigned long top; /* class rows shown (0: all) */
    const char *const *paths; /* per suspect, its path from a GC root as text, or NULL (or paths NULL) */
} heap_leaks_page;

/* Writes the page to s. JP_ERR_NOMEM when out of memory; else the sink's status. */
jp_status heap_leaks_html_write(sink *s, const heap_leaks_page *p);

#endif
