/* cli_heap_shared.h — what the modes of `jvmprof heap` that read the
 * object graph (cli_heap_retained.c: --retained, --diff; cli_heap_paths.c:
 * --path, --path-class; cli_heap_leaks.c: --leaks; cli_heap_site.c: --site)
 * share: the progress line on stderr, printable names of objects, a path from
 * a GC root as text, and each mode's entry point for cli_heap.c. */
#ifndef CLI_HEAP_SHARED_H
#define CLI_HEAP_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../heapdump/heap_dominators.h"
#include "../heapdump/heap_graph.h"
#include "../heapdump/heap_paths.h"
#include "cli_common.h"

/* The progress line: on a terminal, one line redrawn (\r) once the run has
 * taken a second; elsewhere, after that second, a line per phase. */
typedef struct cli_heap_progress {
    double start, last;
    bool tty, shown;
    const char *phase;
    const char *what; /* "--retained", "--path" ... (NULL: --retained) */
} cli_heap_progress;

/* now, in seconds (CLOCK_MONOTONIC): a progress's start */
double cli_heap_now(void);
/* heap_progress_fn of a cli_heap_progress */
void cli_heap_progress_fn(void *ctx, const char *phase, uint64_t done, uint64_t total);
/* clears the redrawn line, if one was drawn */
void cli_heap_progress_end(cli_heap_progress *p);
/* name, from the file, made one printable field (no control characters, no tabs) in out */
const char *cli_heap_clean(const char *name, char *out, size_t len);
/* object i's class, "class NAME" for a class object */
const char *cli_heap_object_class(const heap_graph *g, uint32_t i, char *out, size_t len);
/* The reference from `from` to `to` on a path, as printed: "static HeapPaths.cache" for a class's static,
 * ".table" for a field, "[7]" for an element, "<class>", "<super>", "<loader>", ".referent (soft)" for the
 * referent of a Reference. */
void cli_heap_step(const heap_graph *g, const heap_paths *hp, uint32_t from, uint32_t to, char *out, size_t len);
/* The root line's words: "Java frame of thread "main" (serial 3)", "JNI global"; the thread's name in tname */
void cli_heap_root_words(const heap_graph *g, const heap_root *r, char *out, size_t len, char *tname, size_t tlen);
/* The path from a GC root to object i, lines each ending in a newline: "GC root: KIND", the root object,
 * then each step "  REFERENCE  CLASS 0xID"; the middle of a path longer than 40 steps left out. A malloc'ed
 * string, NULL when out of memory or i is unreachable. */
char *cli_heap_path_text(const heap_graph *g, const heap_paths *hp, uint32_t i);

/* The modes (a: the parsed arguments; each returns the exit code; order: --retained's class rows). */
int cli_heap_retained_run(const cli_args *a, bool ignore_weak, bool tsv, heap_class_order order);
int cli_heap_diff_run(const cli_args *a, const char *other, bool ignore_weak, bool tsv);
int cli_heap_paths_run(const cli_args *a, const char *want_id, const char *want_cls, bool tsv);
int cli_heap_leaks_run(const cli_args *a, bool ignore_weak, bool tsv, bool html, double threshold);
int cli_heap_site_run(const cli_args *a, const char *what, bool tsv);

#endif
