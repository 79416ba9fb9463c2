/* cf_roundtrip.c — rewrites real class files with src/classfile and checks
 * each result with an independent reader (cf_walk.h): per method, the
 * injected enter/exit/newArray calls counted in the output equal what the
 * original bytes call for (one entry, one exit per *return, one newArray per
 * array allocation), every other instruction is the original one, and every
 * branch, switch, exception, line, local-variable and stack-map offset lands
 * on the instruction it did before, every stack map frame keeps its type
 * state (frames the rewriter adds stand only after widened branches and at
 * its catch-all handler). The constant pool only grows, fields and
 * class attributes are byte-identical, and the output can be rewritten again.
 *
 *   cf_roundtrip [--sample N] [--seed S] [--out DIR] [-v] PATH...
 *
 * PATH is a .class file or a directory searched recursively (sorted, so runs
 * are repeatable). --sample N keeps every k-th file (k = total / N, starting
 * at seed mod k). --out DIR writes each rewritten class (the original if
 * nothing was injected; java/lang/Object with objectInit too) to
 * DIR/<internal name>.class. Prints one summary line;
 * exits 1 on any mismatch (the first few are printed), 2 on bad usage. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "classfile/classfile.h"
#include "cf_walk.h"

#define MAX_REPORTED 10

static struct {
    char **v;
    size_t n, cap;
} files;

static unsigned long n_failures;
static bool verbose;

static void failure(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failure(const char *file, const char *fmt, ...)
{
    if (++n_failures <= MAX_REPORTED) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "MISMATCH %s: ", file);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    } else if (n_failures == MAX_REPORTED + 1) {
        fprintf(stderr, "(further mismatches not shown)\n");
    }
}

static void add_file(const char *p)
{
    if (files.n == files.cap) {
        files.cap = files.cap ? files.cap * 2 : 1024;
        files.v = realloc(files.v, files.cap * sizeof *files.v);
        if (!files.v) {
            perror("cf_roundtrip");
            exit(2);
        }
    }
    files.v[files.n++] = strdup(p);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void collect(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "cf_roundtrip: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        add_file(path);
        return;
    }
    struct dirent **ents;
    int n = scandir(path, &ents, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "cf_roundtrip: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    for (int i = 0; i < n; i++) {
        const char *nm = ents[i]->d_name;
        if (strcmp(nm, ".") && strcmp(nm, "..")) {
            char *sub;
            if (asprintf(&sub, "%s/%s", path, nm) < 0)
                exit(2);
            struct stat s2;
            if (stat(sub, &s2) == 0 && (S_ISDIR(s2.st_mode) || ends_with(nm, ".class")))
                collect(sub);
            free(sub);
        }
        free(ents[i]);
    }
    free(ents);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, k;
    unsigned char *d = malloc(cap);
    while (d && (k = fread(d + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            unsigned char *e = realloc(d, cap *= 2);
            if (!e) {
                free(d);
                d = NULL;
            }
            d = e;
        }
    }
    fclose(f);
    *len = n;
    return d;
}

static int mkdirs(char *path) /* creates the directories leading to the file path */
{
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        int r = mkdir(path, 0755);
        *s = '/';
        if (r != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

typedef struct totals {
    unsigned long classes, rejected, methods, rewritten, entries, exits, newarrays, objinits, widened, handlers,
        frames_added, unchanged;
    double us;
    unsigned long timed;
} totals;

static totals tot;

static size_t insn_count(const cw_method *m, bool (*pred)(uint8_t))
{
    size_t n = 0;
    for (uint32_t pc = 0; pc < m->code_len;) {
        uint32_t k = cw_insn_len(m->bytecode, m->code_len, pc);
        if (!k)
            return SIZE_MAX;
        n += pred(m->bytecode[pc]);
        pc += k;
    }
    return n;
}

/* Checks one rewrite of in (parsed as oc) against its result r. Returns false
 * on a mismatch (already reported). objinit: the spec included OBJINIT. */
static bool check(const char *file, const cw_class *oc, uint32_t base, const cf_result *r, bool objinit,
                  bool count)
{
    cw_class nc;
    char err[256];
    bool ok = false, is_object = cw_utf8_is(oc, cw_cp_u2(oc, oc->this_class, 7, 0), "java/lang/Object");
    unsigned long code_methods = 0, unchanged = 0, entries = 0, exits = 0, newarrays = 0, objinits = 0, widened = 0,
                  handlers = 0, frames_added = 0;
    for (uint16_t i = 0; i < oc->nmethods; i++)
        code_methods += oc->m[i].code >= 0;
    if (r->methods != code_methods) {
        failure(file, "cf_result.methods %u, the class has %lu methods with code", r->methods, code_methods);
        return false;
    }
    if (!r->bytes) {
        if (code_methods)
            failure(file, "no output although %lu methods have code", code_methods);
        return code_methods == 0;
    }
    if (!cw_parse(&nc, r->bytes, r->len)) {
        failure(file, "output does not parse: %s", nc.err);
        cw_free(&nc);
        return false;
    }
#define BAD(...)                                                                                                  \
    do {                                                                                                          \
        failure(file, __VA_ARGS__);                                                                               \
        goto out;                                                                                                 \
    } while (0)
    if (nc.major != oc->major || nc.minor != oc->minor)
        BAD("version changed");
    if (nc.cp_count <= oc->cp_count)
        BAD("constant pool did not grow (%u -> %u)", oc->cp_count, nc.cp_count);
    if (memcmp(oc->b + 10, nc.b + 10, oc->cp_end - 10))
        BAD("original constant pool entries changed");
    if (oc->methods_off - oc->cp_end != nc.methods_off - nc.cp_end ||
        memcmp(oc->b + oc->cp_end, nc.b + nc.cp_end, oc->methods_off - oc->cp_end))
        BAD("access flags, super class, interfaces or fields changed");
    if (oc->n - oc->attrs_off != nc.n - nc.attrs_off ||
        memcmp(oc->b + oc->attrs_off, nc.b + nc.attrs_off, oc->n - oc->attrs_off))
        BAD("class attributes changed");
    if (nc.nmethods != oc->nmethods)
        BAD("method count changed");
    for (uint16_t i = 0; i < oc->nmethods; i++) {
        const cw_method *om = &oc->m[i], *nm = &nc.m[i];
        char mname[300];
        cw_str(oc, om->name, mname, sizeof mname);
        if (om->access != nm->access || om->name != nm->name || om->desc != nm->desc || om->nattrs != nm->nattrs ||
            om->code != nm->code)
            BAD("method %u (%s): header changed", i, mname);
        for (uint16_t k = 0; k < om->nattrs; k++)
            if ((int)k != om->code &&
                (om->attrs[k].len != nm->attrs[k].len || memcmp(om->attrs[k].p, nm->attrs[k].p, om->attrs[k].len)))
                BAD("method %u (%s): attribute %u changed", i, mname, k);
        if (om->code < 0)
            continue;
        const cw_attr *oa = &om->attrs[om->code], *na = &nm->attrs[nm->code];
        if (oa->len == na->len && !memcmp(oa->p, na->p, oa->len)) {
            unchanged++;
            if (verbose)
                fprintf(stderr, "unchanged %s: method %u %s\n", file, i, mname);
            continue;
        }
        cw_map map;
        if (!cw_check_method(oc, om, &nc, nm, &map, err, sizeof err)) {
            cw_map_free(&map);
            BAD("method %u (%s): %s", i, mname, err);
        }
        bool want_obj = objinit && is_object && !strcmp(mname, "<init>") && cw_utf8_is(oc, om->desc, "()V");
        size_t want_exits = insn_count(om, cw_is_return), want_arrays = insn_count(om, cw_is_newarray);
        /* a catch-all handler everywhere but in constructors (uninitialized this) */
        unsigned want_handler = strcmp(mname, "<init>") != 0;
        if (map.entries != 1 || map.exits != want_exits || map.newarrays != want_arrays ||
            map.objinits != (want_obj ? 1u : 0u) || map.handlers != want_handler) {
            cw_map_free(&map);
            BAD("method %u (%s): %u entries, %u exits, %u newArrays, %u objectInits, %u handlers; expected 1, %zu, "
                "%zu, %d, %u",
                i, mname, map.entries, map.exits, map.newarrays, map.objinits, map.handlers, want_exits, want_arrays,
                want_obj, want_handler);
        }
        if (map.id != (int64_t)base + i + 1) {
            cw_map_free(&map);
            BAD("method %u (%s): enter(%lld), expected id %u", i, mname, (long long)map.id, base + i + 1);
        }
        entries += map.entries;
        exits += map.exits;
        newarrays += map.newarrays;
        objinits += map.objinits;
        widened += map.widened;
        handlers += map.handlers;
        frames_added += map.frames_added;
        cw_map_free(&map);
    }
    if (r->methods_unchanged != unchanged || r->methods_rewritten != code_methods - unchanged || r->entries != entries ||
        r->exits != exits || r->newarrays != newarrays || r->objinits != objinits || r->widened != widened ||
        r->handlers != handlers || r->frames_added != frames_added)
        BAD("cf_result says rewritten %u unchanged %u entries %u exits %u newarrays %u objinits %u widened %u "
            "handlers %u frames_added %u; the output has %lu %lu %lu %lu %lu %lu %lu %lu %lu",
            r->methods_rewritten, r->methods_unchanged, r->entries, r->exits, r->newarrays, r->objinits, r->widened,
            r->handlers, r->frames_added, code_methods - unchanged, unchanged, entries, exits, newarrays, objinits,
            widened, handlers, frames_added);
    if (unchanged && verbose)
        fprintf(stderr, "  why: %s\n", r->why);
    if (count) {
        tot.methods += code_methods;
        tot.rewritten += code_methods - unchanged;
        tot.unchanged += unchanged;
        tot.entries += entries;
        tot.exits += exits;
        tot.newarrays += newarrays;
        tot.widened += widened;
        tot.handlers += handlers;
        tot.frames_added += frames_added;
    }
    tot.objinits += objinits;
    ok = true;
out:
#undef BAD
    cw_free(&nc);
    return ok;
}

static uint32_t select_id(void *ctx, const cf_method_view *m)
{
    return *(const uint32_t *)ctx + m->index + 1u;
}

static void one(const char *file, unsigned idx, unsigned long seed, const char *outdir)
{
    size_t len;
    unsigned char *in = slurp(file, &len);
    if (!in) {
        failure(file, "cannot read: %s", strerror(errno));
        return;
    }
    tot.classes++;
    cw_class oc;
    bool parses = cw_parse(&oc, in, len);
    /* class numbers over 32767 make the rewriter push them with ldc_w */
    /* method ids base + index + 1: over 32767 for some classes, so the rewriter pushes them with ldc_w */
    uint32_t base = (uint32_t)((seed * 7919 + idx * 131u) % 70000);
    static const cf_tracker tracker = { "jvmprof/Tracker", "enter", "exit", "count", "exitThrow", "objectInit", "newArray" };
    cf_inject_spec spec = {.tracker = &tracker, .what = CF_INJECT_CALLS | CF_INJECT_NEWARRAY,
                           .select = select_id, .ctx = &base};
    cf_result r, r2;
    double t0 = now_us();
    jp_status st = cf_rewrite(in, len, &spec, &r);
    tot.us += now_us() - t0;
    tot.timed++;
    if (!parses) {
        if (st == JP_OK)
            failure(file, "accepted, but the independent reader says: %s", oc.err);
        else
            tot.rejected++;
        goto done;
    }
    if (st != JP_OK) {
        failure(file, "cf_rewrite: %s", r.why);
        goto done;
    }
    bool ok = check(file, &oc, base, &r, false, true);
    if (ok && r.bytes) {
        jp_status s2 = cf_rewrite(r.bytes, r.len, &spec, &r2);
        if (s2 != JP_OK)
            failure(file, "rewriting the output again failed: %s", r2.why);
        else if (r2.methods != r.methods)
            failure(file, "second rewrite sees %u methods, first %u", r2.methods, r.methods);
        free(r2.bytes);
    }
    /* java/lang/Object: once more with objectInit; that version is the one --out writes */
    cf_result obj = {0};
    if (cw_utf8_is(&oc, cw_cp_u2(&oc, oc.this_class, 7, 0), "java/lang/Object")) {
        cf_inject_spec all = spec;
        all.what |= CF_INJECT_OBJINIT;
        if (cf_rewrite(in, len, &all, &obj) != JP_OK)
            failure(file, "cf_rewrite with CF_INJECT_OBJINIT: %s", obj.why);
        else if (check(file, &oc, base, &obj, true, false) && obj.objinits != 1)
            failure(file, "%u objectInit calls in java/lang/Object", obj.objinits);
    }
    char name[1024];
    if (ok && outdir && cf_class_name(in, len, name, sizeof name) == JP_OK && strcmp(name, "module-info") != 0) {
        char *path;
        if (asprintf(&path, "%s/%s.class", outdir, name) < 0 || mkdirs(path) != 0) {
            failure(file, "cannot create the directory for %s", name);
        } else {
            const cf_result *w = obj.bytes ? &obj : &r;
            FILE *f = fopen(path, "wb");
            const unsigned char *b = w->bytes ? w->bytes : in;
            size_t n = w->bytes ? w->len : len;
            if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0)
                failure(file, "cannot write %s", path);
        }
        free(path);
    }
    free(obj.bytes);
    free(r.bytes);
done:
    cw_free(&oc);
    free(in);
}

static void usage(void)
{
    fprintf(stderr, "usage: cf_roundtrip [--sample N] [--seed S] [--out DIR] [-v] PATH...\n");
    exit(2);
}

int main(int argc, char **argv)
{
    unsigned long sample = 0, seed = 0;
    const char *outdir = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--sample") && i + 1 < argc)
            sample = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            outdir = argv[++i];
        else if (!strcmp(argv[i], "-v"))
            verbose = true;
        else
            usage();
    }
    if (i == argc)
        usage();
    for (; i < argc; i++)
        collect(argv[i]);
    size_t k = sample && files.n > sample ? files.n / sample : 1;
    for (size_t f = 0; f < files.n; f++) {
        if (f % k == seed % k)
            one(files.v[f], (unsigned)f, seed, outdir);
        free(files.v[f]);
    }
    free(files.v);
    printf("cf_roundtrip: classes %lu, methods %lu, entries %lu, exits %lu, handlers %lu, newarrays %lu, "
           "widened %lu, frames_added %lu, unchanged %lu, rejected %lu, failures %lu, rewrite %.1f us/class\n",
           tot.classes, tot.methods, tot.entries, tot.exits, tot.handlers, tot.newarrays, tot.widened,
           tot.frames_added, tot.unchanged,
           tot.rejected, n_failures, tot.timed ? tot.us / tot.timed : 0.0);
    return n_failures ? 1 : 0;
}
