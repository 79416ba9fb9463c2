/* cli_heap_site.c — jvmprof heap FILE --site TRACE | --site REPORT [--top N]
 * [--tsv] [-o OUT]: what keeps alive the objects an allocation site made
 * (heap_site.h). A dump jvmprof took while heap=sites ran gives each live
 * sampled object its site's trace serial, the number the report shows; this
 * mode prints that trace's frames, the objects carrying it, and the paths
 * from the GC roots that hold them, merged where they pass the same fields
 * (the N largest groups, default 5). REPORT is a jvmprof ASCII report with
 * lifetimes=y's LEAK SUSPECT lines: each suspect's site (its trace and
 * class) is shown so. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/file_map.h"
#include "../format/sink.h"
#include "../heapdump/heap_dominators.h"
#include "../heapdump/heap_graph.h"
#include "../heapdump/heap_paths.h"
#include "../heapdump/heap_site.h"
#include "../heapdump/hprof_traces.h"
#include "cli_common.h"
#include "cli_heap_shared.h"

/* One site asked for: a trace serial and, from a report's LEAK SUSPECT line, a class and the line's site number. */
typedef struct hsite_want {
    uint32_t trace;
    unsigned site;      /* the report's site number; 0 when the trace was given */
    char cls[512];      /* Java style; "" for any class */
} hsite_want;

typedef struct hsite_out {
    const char *path;
    const heap_graph *g;
    const heap_paths *hp;
    const hprof_traces *tr;
    const hsite_want *want;
    const heap_site *sites;
    size_t nsites;
    unsigned long top_n;
    bool tsv;
} hsite_out;

static double hsite_pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0.0; }

static void hsite_frames(sink *s, const hsite_out *o, uint32_t trace)
{
    uint32_t nframes = 0, thread = 0;
    char text[1600];
    if (!hprof_traces_find(o->tr, trace, &nframes, &thread)) {
        if (!o->tsv)
            sink_printf(s, "allocated at: (the dump holds no TRACE %" PRIu32 ": it holds the traces of the sampled objects "
                           "alive when it was taken)\n",
                        trace);
        return;
    }
    if (!o->tsv)
        sink_printf(s, "allocated at:\n");
    for (uint32_t k = 0; k < nframes; k++) {
        hprof_trace_frame f;
        if (!hprof_traces_frame(o->tr, trace, k, &f))
            snprintf(text, sizeof text, "<frame missing from the dump>");
        else
            hprof_traces_frame_text(&f, text, sizeof text);
        char clean[1600];
        cli_heap_clean(text, clean, sizeof clean);
        if (o->tsv)
            sink_printf(s, "frame\t%" PRIu32 "\t%s\n", k, clean);
        else
            sink_printf(s, "    %s\n", clean);
    }
}

/* Group k's path: the root line, then each object on it; a step that is not the same object for every
 * member shows no id, an object array's element there "[*]". */
static void hsite_group(sink *s, const hsite_out *o, const heap_site *st, size_t k)
{
    const heap_graph *g = o->g;
    const heap_site_group *gr = &st->groups[k];
    char words[1400], tname[600], step[700], cname[1024];
    const heap_root *r = heap_paths_root(g, o->hp, gr->chain[0]);
    cli_heap_root_words(g, r, words, sizeof words, tname, sizeof tname);
    if (o->tsv) {
        sink_printf(s, "group\t%zu\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", k + 1, gr->objects, gr->shallow,
                    gr->retained, gr->weak ? "weak" : "strong");
        sink_printf(s, "root\t%zu\t%s\n", k + 1, words);
    } else {
        sink_printf(s, "\npath %zu: %" PRIu64 " objects (%.1f%%), %" PRIu64 " bytes, retaining %" PRIu64 "%s\n", k + 1,
                    gr->objects, hsite_pct(gr->objects, st->objects), gr->shallow, gr->retained,
                    gr->weak ? "; only through a weak, soft, phantom or final reference's referent" : "");
        sink_printf(s, "    GC root: %s\n", words);
    }
    for (size_t d = 0; d < gr->len; d++) {
        uint32_t x = gr->chain[d];
        step[0] = '\0';
        if (d) {
            cli_heap_step(g, o->hp, gr->chain[d - 1], x, step, sizeof step);
            if (step[0] == '[' && !gr->same[d])
                snprintf(step, sizeof step, "[*]");
        }
        cli_heap_object_class(g, x, cname, sizeof cname);
        bool last = d + 1 == gr->len;
        if (o->tsv) {
            if (gr->same[d] && !(last && gr->objects > 1))
                sink_printf(s, "step\t%zu\t%zu\t%s\t0x%" PRIx64 "\t%s\n", k + 1, d, d ? step : "-", g->ids[x], cname);
            else
                sink_printf(s, "step\t%zu\t%zu\t%s\t*\t%s\n", k + 1, d, d ? step : "-", cname);
            continue;
        }
        const char *indent = d ? "      " : "    ";
        if (last && gr->objects > 1)
            sink_printf(s, "%s%s  %" PRIu64 " objects %s\n", indent, step, gr->objects, cname);
        else if (gr->same[d])
            sink_printf(s, "%s%s%s0x%" PRIx64 " %s\n", indent, step, d ? "  " : "", g->ids[x], cname);
        else
            sink_printf(s, "%s%s  %s (not the same object for all; e.g. 0x%" PRIx64 ")\n", indent, step, cname,
                        g->ids[x]);
    }
}

static jp_status hsite_print(sink *s, const void *ctx)
{
    const hsite_out *o = ctx;
    const heap_graph *g = o->g;
    if (o->tsv)
        sink_printf(s, "rule\tignore-weak\n");
    else
        sink_printf(s, "%s: %" PRIu32 " objects; paths are the shortest from the GC roots, through strong references "
                       "(retained sizes: --ignore-weak's rule)\n",
                    o->path, g->n);
    for (size_t i = 0; i < o->nsites; i++) {
        const heap_site *st = &o->sites[i];
        const hsite_want *w = &o->want[i];
        if (o->tsv) {
            sink_printf(s, "site\t%" PRIu32 "\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", st->trace,
                        w->cls[0] ? w->cls : "*", st->objects, st->shallow, st->retained, st->unreachable);
        } else {
            sink_printf(s, "\n");
            if (w->site)
                sink_printf(s, "LEAK SUSPECT site %u: ", w->site);
            sink_printf(s, "trace %" PRIu32 "%s%s: %" PRIu64 " objects in the dump carry it, %" PRIu64
                           " bytes, retaining %" PRIu64 "\n",
                        st->trace, w->cls[0] ? ", " : "", w->cls, st->objects, st->shallow, st->retained);
        }
        hsite_frames(s, o, st->trace);
        if (!st->objects) {
            if (!o->tsv)
                sink_printf(s, "none of its sampled objects was alive when the dump was taken\n");
            continue;
        }
        if (!w->cls[0] || st->nclasses > 1) {
            for (size_t c = 0; c < st->nclasses; c++) {
                const char *name = heap_graph_class_name(g, st->classes[c].cls);
                if (o->tsv)
                    sink_printf(s, "class\t%s\t%" PRIu64 "\t%" PRIu64 "\n", name, st->classes[c].objects,
                                st->classes[c].shallow);
                else
                    sink_printf(s, "    %10" PRIu64 " %s (%" PRIu64 " bytes)\n", st->classes[c].objects, name,
                                st->classes[c].shallow);
            }
        }
        if (!o->tsv)
            sink_printf(s, "held through %zu path%s (objects whose paths pass the same fields are one path)%s\n",
                        st->ngroups, st->ngroups == 1 ? "" : "s",
                        st->unreachable ? "; some are unreachable (below)" : "");
        size_t n = o->top_n && o->top_n < st->ngroups ? o->top_n : st->ngroups;
        for (size_t k = 0; k < n; k++)
            hsite_group(s, o, st, k);
        if (!o->tsv && n < st->ngroups) {
            uint64_t rest = 0;
            for (size_t k = n; k < st->ngroups; k++)
                rest += st->groups[k].objects;
            sink_printf(s, "(%zu more paths, %" PRIu64 " objects; --top 0 shows all)\n", st->ngroups - n, rest);
        }
        if (!o->tsv && st->unreachable)
            sink_printf(s, "%" PRIu64 " of the objects are unreachable: no GC root leads to them (garbage the dump "
                           "still held)\n",
                        st->unreachable);
    }
    return JP_OK;
}

/* A report's class name as the dump's reader spells it: java/lang/String or [I made java.lang.String, int[]. */
static void hsite_java_name(const char *in, char *out, size_t len)
{
    static const char *const prims = "ZCFDBSIJ";
    static const char *const pnames[] = { "boolean", "char", "float", "double", "byte", "short", "int", "long" };
    size_t dims = 0;
    while (in[dims] == '[')
        dims++;
    char base[512];
    const char *p = in + dims;
    if (dims && *p == 'L') {
        snprintf(base, sizeof base, "%s", p + 1);
        size_t bl = strlen(base);
        if (bl && base[bl - 1] == ';')
            base[bl - 1] = '\0';
    } else if (dims && p[0] && !p[1] && strchr(prims, p[0])) {
        snprintf(base, sizeof base, "%s", pnames[strchr(prims, p[0]) - prims]);
    } else {
        snprintf(base, sizeof base, "%s", p);
    }
    for (char *c = base; *c; c++)
        if (*c == '/')
            *c = '.';
    size_t w = (size_t)snprintf(out, len, "%s", base);
    for (size_t d = 0; d < dims && w + 2 < len; d++, w += 2)
        memcpy(out + w, "[]", 3);
}

/* The LEAK SUSPECT lines of a report: "LEAK SUSPECT: site K (trace T, CLASS): ..." */
static int hsite_read_report(const char *path, hsite_want **out, size_t *nout)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error("heap: --site %s: not a trace serial (digits), and cannot read it as a report: %s", path,
                  strerror(errno));
        return 2;
    }
    char line[4096];
    size_t n = 0, cap = 0;
    hsite_want *w = NULL;
    while (fgets(line, sizeof line, f)) {
        unsigned site, trace;
        int off = 0;
        if (sscanf(line, "LEAK SUSPECT: site %u (trace %u, %n", &site, &trace, &off) != 2 || !off)
            continue;
        const char *cls = line + off, *end = strstr(cls, "): ");
        if (!end)
            continue;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 8;
            hsite_want *nw = realloc(w, ncap * sizeof *nw);
            if (!nw) {
                free(w);
                fclose(f);
                cli_error("heap: out of memory");
                return 1;
            }
            w = nw;
            cap = ncap;
        }
        char raw[512];
        snprintf(raw, sizeof raw, "%.*s", (int)(end - cls), cls);
        w[n].trace = trace;
        w[n].site = site;
        hsite_java_name(raw, w[n].cls, sizeof w[n].cls);
        n++;
    }
    fclose(f);
    if (!n) {
        free(w);
        cli_error("heap: --site %s: no \"LEAK SUSPECT: site K (trace T, CLASS)\" line in it; --site takes a trace "
                  "serial or a jvmprof ASCII report of heap=sites,lifetimes=y",
                  path);
        return 2;
    }
    *out = w;
    *nout = n;
    return 0;
}

static bool hsite_is_number(const char *v)
{
    if (!*v)
        return false;
    for (const char *c = v; *c; c++)
        if (!isdigit((unsigned char)*c))
            return false;
    return true;
}

int cli_heap_site_run(const cli_args *a, const char *what, bool tsv)
{
    hsite_want *want = NULL;
    size_t nwant = 0;
    if (hsite_is_number(what)) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(what, &end, 10);
        if (errno || v > UINT32_MAX || v == 0) {
            cli_error("heap: --site %s: a trace serial is a number from 1 to 4294967295, as the report's TRACE lines "
                      "and SITES rows show it",
                      what);
            return 2;
        }
        want = calloc(1, sizeof *want);
        if (!want) {
            cli_error("heap: out of memory");
            return 1;
        }
        want->trace = (uint32_t)v;
        nwant = 1;
    } else {
        int rc = hsite_read_report(what, &want, &nwant);
        if (rc)
            return rc;
    }
    size_t len = 0;
    const void *data = cli_map_file(a->in, &len);
    if (!data) {
        free(want);
        return 1;
    }
    cli_heap_progress p = { .start = cli_heap_now(), .tty = isatty(2) != 0, .what = "--site" };
    char err[512];
    heap_graph g;
    heap_dominators dm = { 0 };
    heap_paths hp = { 0 };
    hprof_traces tr = { 0 };
    heap_site *sites = calloc(nwant, sizeof *sites);
    int rc = 1;
    bool ok = sites != NULL;
    if (!ok)
        snprintf(err, sizeof err, "out of memory");
    ok = ok && heap_graph_build(&g, data, len, HEAP_GRAPH_IGNORE_WEAK, cli_heap_progress_fn, &p, err, sizeof err);
    bool built = ok;
    if (ok && !heap_site_any_traced(&g)) {
        cli_heap_progress_end(&p);
        cli_error("%s: no object carries an allocation trace (all have trace 1): --site needs a dump jvmprof took "
                  "while heap=sites ran (Control.dumpHeap, jvmprof heapdump, heap=all), not HotSpot's or jcmd's "
                  "(docs/heap-dumps.md, Allocation sites in the dump)",
                  a->in);
        goto out;
    }
    ok = ok && hprof_traces_read(&tr, data, len, err, sizeof err);
    ok = ok && heap_dominators_compute(&g, &dm, cli_heap_progress_fn, &p, err, sizeof err);
    if (ok) {
        cli_heap_progress_fn(&p, "paths from the GC roots", 0, 0);
        ok = heap_paths_compute(&g, &hp, err, sizeof err);
    }
    for (size_t k = 0; ok && k < nwant; k++) {
        cli_heap_progress_fn(&p, "the site's objects", 0, 0);
        ok = heap_site_find(&g, &dm, &hp, want[k].trace, want[k].cls[0] ? want[k].cls : NULL, &sites[k]);
        if (!ok)
            snprintf(err, sizeof err, "out of memory grouping the site's objects");
    }
    cli_heap_progress_end(&p);
    if (!ok) {
        cli_error("%s: %s", a->in, err);
        goto out;
    }
    hsite_out o = { a->in, &g, &hp, &tr, want, sites, nwant, a->given & CLI_OPT_TOP ? a->top : 5, tsv };
    rc = cli_output(a->out, "site report", 0, hsite_print, &o);
out:
    for (size_t k = 0; sites && k < nwant; k++)
        heap_site_free(&sites[k]);
    free(sites);
    free(want);
    hprof_traces_free(&tr);
    heap_paths_free(&hp);
    heap_dominators_free(&dm);
    if (built)
        heap_graph_free(&g);
    file_unmap(data, len);
    return rc;
}
