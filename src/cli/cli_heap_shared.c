/* cli_heap_shared.c — what the graph-reading modes of `jvmprof heap` share
 * (cli_heap_shared.h): the progress line, printable object names, paths
 * from a GC root as text. */
#include "cli_heap_shared.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/buf.h"


double cli_heap_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void cli_heap_progress_fn(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    cli_heap_progress *p = ctx;
    double now = cli_heap_now();
    bool same = p->phase == phase;
    if (now - p->start < 1.0 || (p->tty && same && now - p->last < 0.2) || (!p->tty && same))
        return;
    p->phase = phase;
    p->last = now;
    p->shown = true;
    const char *what = p->what ? p->what : "--retained";
    if (!p->tty) {
        fprintf(stderr, "jvmprof: heap %s: %s (%.0f s)\n", what, phase, now - p->start);
        return;
    }
    if (total)
        fprintf(stderr, "\rjvmprof: heap %s: %s %3.0f%%  (%.0f s)       ", what, phase,
                100.0 * (double)done / (double)total, now - p->start);
    else
        fprintf(stderr, "\rjvmprof: heap %s: %s  (%.0f s)            ", what, phase, now - p->start);
}

void cli_heap_progress_end(cli_heap_progress *p)
{
    if (p->tty && p->shown)
        fprintf(stderr, "\r%70s\r", "");
}

/* a name from the file, made one printable field (no control characters, no tabs) */
const char *cli_heap_clean(const char *name, char *out, size_t len)
{
    size_t i = 0;
    for (; name[i] && i + 1 < len; i++)
        out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
    out[i] = '\0';
    return out;
}

/* object i's class, "class NAME" for a class object */
const char *cli_heap_object_class(const heap_graph *g, uint32_t i, char *out, size_t len)
{
    const char *name;
    char tmp[1024];
    if (heap_graph_is_class(g, i, &name)) {
        snprintf(tmp, sizeof tmp, "class %s", name);
        return cli_heap_clean(tmp, out, len);
    }
    return cli_heap_clean(heap_graph_class_name(g, g->cls[i]), out, len);
}

/* The reference from chain[k] to chain[k + 1], as printed: "static HeapPaths.cache" for a class's static,
 * ".table" for a field, "[7]" for an element, "<class>", "<super>", "<loader>", ".referent (soft)" for the
 * referent of a Reference. */
void cli_heap_step(const heap_graph *g, const heap_paths *hp, uint32_t from, uint32_t to, char *out, size_t len)
{
    char step[512], name[600];
    const char *cname;
    if (!heap_paths_step_name(g, hp, from, to, step, sizeof step)) {
        snprintf(out, len, "?");
        return;
    }
    if (!strncmp(step, "static ", 7) && heap_graph_is_class(g, from, &cname))
        snprintf(name, sizeof name, "static %s.%s", cname, step + 7);
    else if (step[0] == '[' || step[0] == '<')
        snprintf(name, sizeof name, "%s", step);
    else if (hp->how[to] == HEAP_PATH_WEAK && hp->how[from] != HEAP_PATH_WEAK && !strcmp(step, "referent")) {
        const char *kind = heap_paths_reference_kind(g, from);
        snprintf(name, sizeof name, ".referent (%s)", kind ? kind : "reference");
    } else
        snprintf(name, sizeof name, ".%s", step);
    cli_heap_clean(name, out, len);
}

/* The root line's words: "Java frame of thread "main" (serial 3)", "JNI global" */
void cli_heap_root_words(const heap_graph *g, const heap_root *r, char *out, size_t len, char *tname,
                                size_t tlen)
{
    tname[0] = '\0';
    const char *kind = r ? heap_graph_root_kind(r->kind) : "?";
    if (!r || !r->thread) {
        snprintf(out, len, "%s", kind);
        return;
    }
    if (heap_paths_thread_name(g, r->thread, tname, tlen))
        snprintf(out, len, "%s of thread \"%s\" (serial %" PRIu32 ")", kind, tname, r->thread);
    else
        snprintf(out, len, "%s of thread serial %" PRIu32, kind, r->thread);
}

/* The path from a GC root to object i, lines each ending in a newline: "GC root: KIND", the root object,
 * then each step "  REFERENCE  CLASS 0xID"; the middle of a path longer than 40 steps left out. NULL when
 * out of memory or i is unreachable. */
char *cli_heap_path_text(const heap_graph *g, const heap_paths *hp, uint32_t i)
{
    uint32_t *chain = NULL;
    size_t n = 0;
    if (!heap_paths_chain(hp, i, &chain, &n) || !n) {
        free(chain);
        return NULL;
    }
    char words[1400], tname[600], step[700], cname[1024];
    buf b;
    buf_init(&b);
    cli_heap_root_words(g, heap_paths_root(g, hp, chain[0]), words, sizeof words, tname, sizeof tname);
    buf_printf(&b, "GC root: %s\n", words);
    for (size_t k = 0; k < n; k++) {
        if (n > 40 && k == 10) {
            buf_printf(&b, "  ... (%zu steps)\n", n - 30);
            k = n - 20;
        }
        step[0] = '\0';
        if (k)
            cli_heap_step(g, hp, chain[k - 1], chain[k], step, sizeof step);
        buf_printf(&b, "%s%s%s0x%" PRIx64 " %s\n", k ? "  " : "", step, k ? "  " : "", g->ids[chain[k]],
                   cli_heap_object_class(g, chain[k], cname, sizeof cname));
    }
    free(chain);
    buf_put(&b, "", 1);
    if (b.failed) {
        buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

