/* cli_heap.c — jvmprof heap FILE [--top N] [--text] [-o OUT] | FILE --fix: the
 * class histogram of an HPROF heap dump (ours or HotSpot's), the whole dump
 * as HPROF's ASCII HEAP DUMP (--text), or the dump made self-contained in
 * place (--fix); src/heapdump does the reading. */
#include "cli_commands.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/file_map.h"
#include "../format/sink.h"
#include "../heapdump/heap_histogram.h"
#include "../heapdump/hprof_heap_fixup.h"
#include "../heapdump/hprof_heap_text.h"
#include "cli_common.h"

typedef struct cli_heap_output {
    const char *path;
    const heap_histogram *h;
    unsigned long top;
} cli_heap_output;

static jp_status cli_heap_print(sink *s, const void *ctx)
{
    const cli_heap_output *o = ctx;
    const heap_histogram *h = o->h;
    sink_printf(s, "%s: HPROF %s heap dump, %u-byte ids: %" PRIu64 " instances, %" PRIu64 " bytes, %zu classes\n",
                o->path, h->version, h->idsize, h->instances, h->bytes, h->nrows);
    sink_printf(s, "%6s %12s %14s  %s\n", "rank", "instances", "bytes", "class");
    size_t n = o->top && o->top < h->nrows ? (size_t)o->top : h->nrows;
    for (size_t i = 0; i < n; i++)
        sink_printf(s, "%6zu %12" PRIu64 " %14" PRIu64 "  %s\n", i + 1, h->rows[i].instances, h->rows[i].bytes,
                    h->rows[i].name);
    if (n < h->nrows)
        sink_printf(s, "(%zu more classes; --top 0 shows all)\n", h->nrows - n);
    return JP_OK;
}

typedef struct cli_heap_text {
    const void *data;
    size_t len;
    jp_status st;
    char err[512];
} cli_heap_text;

static jp_status cli_heap_text_print(sink *s, const void *ctx)
{
    cli_heap_text *t = (cli_heap_text *)ctx;
    return t->st = hprof_heap_text_write(t->data, t->len, s, t->err, sizeof t->err);
}

/* jvmprof heap FILE --fix */
static int cli_heap_fix(const char *path)
{
    char err[600];
    size_t len = 0;
    uint8_t *data = file_map_writable(path, &len, err, sizeof err);
    if (!data) {
        cli_error("%s", err);
        return 1;
    }
    hprof_fixup_stats fs;
    jp_status st = hprof_heap_fixup(data, len, &fs, err, sizeof err);
    file_unmap(data, len);
    if (st != JP_OK) {
        cli_error("%s: %s (the file is unchanged)", path, err);
        return 1;
    }
    printf("%s: %" PRIu64 " of %" PRIu64 " references named objects the dump does not hold; set to null (%" PRIu64
           " of them GC roots); %" PRIu64 " objects and classes\n",
           path, fs.nulled, fs.references, fs.roots_nulled, fs.objects);
    return 0;
}

int cli_heap(int argc, char **argv)
{
    cli_args a;
    const char *usage = "FILE [--top N] [--text] [-o OUT] | FILE --fix";
    int rc = cli_parse("heap", usage, CLI_OPT_TOP | CLI_OPT_OUT | CLI_OPT_TEXT | CLI_OPT_FIX, argc, argv, &a);
    if (rc)
        return rc;
    if (a.fix && (a.text || a.out)) {
        cli_error("heap: --fix changes FILE in place and prints one line; it takes no %s",
                a.text ? "--text" : "-o");
        return 2;
    }
    if (a.fix)
        return cli_heap_fix(a.in);
    size_t len = 0;
    const void *data = cli_map_file(a.in, &len);
    if (!data)
        return 1;
    if (a.text) {
        cli_heap_text t = { data, len, JP_OK, "" };
        rc = cli_output(a.out, "HPROF ASCII heap dump", SINK_PRIVATE, cli_heap_text_print, &t);
        file_unmap(data, len);
        if (rc && t.st == JP_ERR_FORMAT && t.err[0]) /* the input's fault; an output failure was said */
            cli_error("%s: %s", a.in, t.err);
        return rc;
    }
    char err[512];
    heap_histogram h;
    bool ok = heap_histogram_read(data, len, &h, err, sizeof err);
    file_unmap(data, len);
    if (!ok) {
        cli_error("%s: %s", a.in, err);
        return 1;
    }
    cli_heap_output o = { a.in, &h, a.top };
    rc = cli_output(a.out, "heap histogram", 0, cli_heap_print, &o);
    heap_histogram_free(&h);
    return rc;
}
