/* cli_heap.c — jvmprof heap: the arguments of every mode and the modes that
 * read records one by one: the class histogram of an HPROF heap dump (ours
 * or HotSpot's; FILE [--top N] [-o OUT]), the whole dump as HPROF's ASCII
 * HEAP DUMP (--text), the dump made self-contained in place (--fix). The
 * modes that build the object graph have a file each (cli_heap_shared.h):
 * --retained and --diff (cli_heap_retained.c), --path and --path-class
 * (cli_heap_paths.c), --leaks (cli_heap_leaks.c), --site (cli_heap_site.c).
 * src/heapdump does the reading. */
#include "cli_commands.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/file_map.h"
#include "../format/sink.h"
#include "../heapdump/heap_histogram.h"
#include "../heapdump/hprof_heap_fixup.h"
#include "../heapdump/hprof_heap_text.h"
#include "cli_common.h"
#include "cli_heap_shared.h"


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
    const char *usage =
        "FILE [--top N] [--text] [-o OUT] | FILE --fix | FILE --retained [--sort retained|shallow|instances] "
        "[--ignore-weak] [--tsv] [--top N] [-o OUT] | "
        "A --diff B [--ignore-weak] [--tsv] [--top N] [-o OUT] | FILE --path ID [--tsv] [-o OUT] | "
        "FILE --path-class CLASS [--top N] [--tsv] [-o OUT] | FILE --leaks [--threshold PCT] [--ignore-weak] "
        "[--tsv | --html] [--top N] [-o OUT] | FILE --site TRACE|REPORT [--top N] [--tsv] [-o OUT]";
    /* --retained and its flags, which only this command has, taken out before the common parser */
    bool retained = false, ignore_weak = false, tsv = false, leaks = false, html = false;
    const char *diff = NULL, *path_id = NULL, *path_cls = NULL, *threshold_arg = NULL, *site = NULL, *sort_arg = NULL;
    double threshold = 10.0;
    heap_class_order order = HEAP_CLASSES_BY_RETAINED;
    char **rest = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *rest);
    if (!rest) {
        cli_error("heap: out of memory");
        return 1;
    }
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--retained"))
            retained = true;
        else if (!strcmp(argv[i], "--ignore-weak"))
            ignore_weak = true;
        else if (!strcmp(argv[i], "--tsv"))
            tsv = true;
        else if (!strcmp(argv[i], "--leaks"))
            leaks = true;
        else if (!strcmp(argv[i], "--html"))
            leaks = html = true;
        else if (!strcmp(argv[i], "--threshold") && i + 1 < argc)
            threshold_arg = argv[++i];
        else if (!strcmp(argv[i], "--threshold")) {
            cli_error("heap: --threshold needs a percent of the heap: jvmprof heap FILE --leaks --threshold 10");
            free(rest);
            return 2;
        }
        else if (!strcmp(argv[i], "--sort") && i + 1 < argc)
            sort_arg = argv[++i];
        else if (!strcmp(argv[i], "--sort")) {
            cli_error("heap: --sort needs an order, retained, shallow or instances: jvmprof heap FILE --retained "
                      "--sort shallow");
            free(rest);
            return 2;
        }
        else if (!strcmp(argv[i], "--diff") && i + 1 < argc)
            diff = argv[++i];
        else if (!strcmp(argv[i], "--diff")) {
            cli_error("heap: --diff needs the second dump: jvmprof heap A.hprof --diff B.hprof");
            free(rest);
            return 2;
        } else if ((!strcmp(argv[i], "--path") || !strcmp(argv[i], "--path-class")) && i + 1 < argc) {
            const char **which = argv[i][6] ? &path_cls : &path_id;
            *which = argv[++i];
        } else if (!strcmp(argv[i], "--path") || !strcmp(argv[i], "--path-class")) {
            cli_error("heap: %s needs %s: jvmprof heap FILE --path 0x7ff812340, jvmprof heap FILE --path-class "
                      "java.util.HashMap [--top N]",
                      argv[i], argv[i][6] ? "a class name" : "an object id");
            free(rest);
            return 2;
        } else if (!strcmp(argv[i], "--site") && i + 1 < argc) {
            site = argv[++i];
        } else if (!strcmp(argv[i], "--site")) {
            cli_error("heap: --site needs a trace serial or a report: jvmprof heap FILE --site 300001, jvmprof heap "
                      "FILE --site report.txt (its LEAK SUSPECT lines)");
            free(rest);
            return 2;
        } else
            rest[nrest++] = argv[i];
        if (i + 1 < argc && (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--top"))) /* a value, whatever it is */
            rest[nrest++] = argv[++i];
    }
    int rc = cli_parse("heap", usage, CLI_OPT_TOP | CLI_OPT_OUT | CLI_OPT_TEXT | CLI_OPT_FIX, nrest, rest, &a);
    if (!rc && threshold_arg) {
        char *end = NULL;
        threshold = strtod(threshold_arg, &end);
        if (!*threshold_arg || *end || !(threshold > 0.0 && threshold <= 100.0)) {
            cli_error("heap: bad --threshold '%s': a percent of the heap above 0 and at most 100, such as 10 or 2.5",
                      threshold_arg);
            rc = 2;
        } else if (!leaks) {
            cli_error("heap: --threshold goes with --leaks: jvmprof heap FILE --leaks --threshold PCT");
            rc = 2;
        }
    }
    if (!rc && sort_arg) {
        if (!strcmp(sort_arg, "retained"))
            order = HEAP_CLASSES_BY_RETAINED;
        else if (!strcmp(sort_arg, "shallow"))
            order = HEAP_CLASSES_BY_SHALLOW;
        else if (!strcmp(sort_arg, "instances"))
            order = HEAP_CLASSES_BY_INSTANCES;
        else {
            cli_error("heap: bad --sort '%s': retained, shallow or instances", sort_arg);
            rc = 2;
        }
        if (!rc && !retained) {
            cli_error("heap: --sort orders the classes of --retained: jvmprof heap FILE --retained --sort "
                      "retained|shallow|instances");
            rc = 2;
        }
    }
    if (!rc && leaks && (retained || diff || a.text || a.fix)) {
        cli_error("heap: --leaks reports leak suspects; it takes no %s",
                  retained ? "--retained" : diff ? "--diff" : a.text ? "--text" : "--fix");
        rc = 2;
    }
    if (!rc && html && tsv) {
        cli_error("heap: --leaks writes text, --tsv or --html: one of them");
        rc = 2;
    }
    if (!rc && diff && (retained || a.text || a.fix)) {
        cli_error("heap: --diff compares two dumps' classes; it takes no %s",
                  retained ? "--retained" : a.text ? "--text" : "--fix");
        rc = 2;
    }
    bool paths = path_id || path_cls;
    if (!rc && paths && (leaks || retained || diff || a.text || a.fix || ignore_weak || (path_id && path_cls))) {
        cli_error("heap: %s prints paths from the GC roots (always of strong references); it takes no %s",
                  path_id ? "--path" : "--path-class",
                  path_id && path_cls ? "second --path or --path-class" : leaks ? "--leaks" : retained ? "--retained"
                  : diff ? "--diff" : a.text ? "--text" : a.fix ? "--fix" : "--ignore-weak");
        rc = 2;
    }
    if (!rc && site && (paths || leaks || retained || diff || a.text || a.fix || ignore_weak)) {
        cli_error("heap: --site prints what holds a site's objects (paths of strong references); it takes no %s",
                  paths ? "--path or --path-class" : leaks ? "--leaks" : retained ? "--retained" : diff ? "--diff"
                  : a.text ? "--text" : a.fix ? "--fix" : "--ignore-weak");
        rc = 2;
    }
    if (!rc && path_id && (a.given & CLI_OPT_TOP)) {
        cli_error("heap: --path prints one object's path; --top N goes with --path-class CLASS");
        rc = 2;
    }
    if (!rc && !paths && !site && (ignore_weak || tsv) && !retained && !diff && !leaks) {
        if (ignore_weak)
            cli_error("heap: --ignore-weak goes with --retained, --diff or --leaks: jvmprof heap FILE --retained "
                      "[--ignore-weak] [--tsv] [--top N], jvmprof heap A --diff B [--ignore-weak] [--tsv] [--top N], "
                      "jvmprof heap FILE --leaks [--ignore-weak]");
        else
            cli_error("heap: --tsv goes with --retained, --diff, --leaks, --path, --path-class or --site: jvmprof heap "
                      "FILE --retained [--tsv] [--top N], jvmprof heap A --diff B [--tsv], jvmprof heap FILE --leaks "
                      "--tsv, jvmprof heap FILE --path ID [--tsv], jvmprof heap FILE --path-class CLASS [--tsv], "
                      "jvmprof heap FILE --site TRACE [--tsv]");
        rc = 2;
    }
    if (!rc && retained && (a.text || a.fix)) {
        cli_error("heap: --retained prints retained sizes; it takes no %s", a.text ? "--text" : "--fix");
        rc = 2;
    }
    free(rest);
    if (rc)
        return rc;
    if (leaks)
        return cli_heap_leaks_run(&a, ignore_weak, tsv, html, threshold);
    if (site)
        return cli_heap_site_run(&a, site, tsv);
    if (paths)
        return cli_heap_paths_run(&a, path_id, path_cls, tsv);
    if (retained)
        return cli_heap_retained_run(&a, ignore_weak, tsv, order);
    if (diff)
        return cli_heap_diff_run(&a, diff, ignore_weak, tsv);
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

