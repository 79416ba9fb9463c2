/* options.c — option table, parser, validation and help text of the agent.
 * Every option HPROF had keeps its name and meaning; those whose feature is
 * not built yet are refused with a message saying so (never ignored). */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum opt_kind { OPT_BOOL, OPT_UINT, OPT_DOUBLE, OPT_ENUM, OPT_PATH, OPT_PREFIXES, OPT_SIZE, OPT_LATER } opt_kind;

typedef struct opt_def {
    const char *name;
    opt_kind kind;
    const char *values;      /* what is accepted, as shown in help and errors */
    const char *deflt;
    const char *what;
    unsigned long min, max;  /* OPT_UINT */
    size_t at;               /* OPT_BOOL / OPT_UINT: OPT_AT(field) it sets, 0 = handled by name */
} opt_def;

#define OPT_AT(field) (offsetof(agent_options, field) + 1)

static const opt_def options_table[] = {
    { "help", OPT_BOOL, "", "", "print this help and exit", 0, 0 },
    { "cpu", OPT_ENUM, "samples|times|y", "samples", "CPU usage: sampling, or exact times (instrumentation)", 0, 0 },
    { "monitor", OPT_BOOL, "y|n", "n", "contended monitors and waits", 0, 0, OPT_AT(monitor) },
    { "format", OPT_ENUM, "a|b", "a", "text (java.hprof.txt) or HPROF binary (java.hprof)", 0, 0 },
    { "file", OPT_PATH, "<file>", "java.hprof[.txt]", "write data to <file>; %p = process id, %n = heap dump number",
      0, 0, OPT_AT(file) },
    { "depth", OPT_UINT, "0..2048", "4", "stack trace depth", 0, 2048, OPT_AT(depth) },
    { "interval", OPT_UINT, "1..60000", "10", "sample interval in ms", 1, 60000, OPT_AT(interval_ms) },
    { "cutoff", OPT_DOUBLE, "0..1", "0.0001", "output cutoff point (share of the total)", 0, 0 },
    { "lineno", OPT_BOOL, "y|n", "y", "line numbers in traces?", 0, 0, OPT_AT(lineno) },
    { "thread", OPT_BOOL, "y|n", "n", "thread in traces?", 0, 0, OPT_AT(thread) },
    { "doe", OPT_BOOL, "y|n", "y", "dump on exit?", 0, 0, OPT_AT(doe) },
    { "force", OPT_BOOL, "y|n", "y", "run the program even if <file> cannot be written?", 0, 0, OPT_AT(force) },
    { "verbose", OPT_BOOL, "y|n", "y", "print messages about dumps to stderr", 0, 0, OPT_AT(verbose) },
    { "sampler", OPT_ENUM, "async|jvmti", "async", "cpu=samples: signal + AsyncGetCallTrace, or JVMTI", 0, 0 },
    { "wall", OPT_UINT, "1..60000", "off", "wall-clock sampling of all threads every N ms", 1, 60000,
      OPT_AT(wall_ms) },
    { "flame", OPT_PATH, "<file.html>", "none", "write an HTML flame graph of the samples", 0, 0, OPT_AT(flame) },
    { "collapsed", OPT_PATH, "<file>", "none", "write collapsed stacks (flamegraph.pl input)", 0, 0,
      OPT_AT(collapsed) },
    { "include", OPT_PREFIXES, "<prefixes>", "all", "cpu=times: only classes named a.b.*:c.D* ...", 0, 0,
      OPT_AT(include) },
    { "exclude", OPT_PREFIXES, "<prefixes>", "none", "cpu=times: never classes named a.b.*:c.D* ...", 0, 0,
      OPT_AT(exclude) },
    { "tiny", OPT_UINT, "0..65535", "12", "cpu=times: skip loop-free methods of <= N bytes", 0, 65535,
      OPT_AT(tiny) },
    { "heap", OPT_ENUM, "dump|sites|all", "off", "HPROF heap dump, allocation sites, or both (all)", 0, 0 },
    { "dumper", OPT_ENUM, "hotspot|jvmti", "hotspot",
      "heap=dump: HotSpot's dumper + jvmprof's check, or JVMTI's heap walk", 0, 0 },
    { "lifetimes", OPT_BOOL, "y|n", "n", "heap=sites: ages at death, leak suspects and churn", 0, 0,
      OPT_AT(lifetimes) },
    { "alloc_interval", OPT_SIZE, "0..1g (k, m, g: KiB, MiB, GiB)", "512k",
      "heap=sites: one sampled allocation per N bytes; 0 = every allocation", 0, 1ul << 30, OPT_AT(alloc_interval) },
    { "alloc_hook", OPT_ENUM, "sampler|bci", "sampler", "alloc_interval=0: JVMTI's sampler at 0, or bytecode instrumentation", 0, 0 },
    { "net", OPT_LATER, "<host>:<port>", "off", "send data over a socket (not built yet)", 0, 0 },
    { "msa", OPT_LATER, "y|n", "n", "Solaris micro state accounting (not supported)", 0, 0 },
};

#define OPTIONS_COUNT (sizeof options_table / sizeof options_table[0])

void options_print_help(FILE *out)
{
    fprintf(out,
            "jvmprof: a profiler for the Java virtual machine, in HPROF's option syntax\n"
            "\n"
            "    java -agentpath:/path/to/libjvmprof.so=[help]|[<option>=<value>, ...]\n"
            "\n"
            "Option Name and Value  Description                                  Default\n"
            "---------------------  -----------                                  -------\n");
    for (size_t i = 0; i < OPTIONS_COUNT; i++) {
        const opt_def *d = &options_table[i];
        char nv[64];
        if (d->kind == OPT_BOOL && strcmp(d->name, "help") == 0)
            snprintf(nv, sizeof nv, "help");
        else
            snprintf(nv, sizeof nv, "%s=%s", d->name, d->values);
        fprintf(out, "%-22s %-44s %s\n", nv, d->what, d->deflt);
    }
    fprintf(out,
            "\n"
            "With no cpu=, wall= or monitor= option, cpu=samples is on; naming one turns the others off.\n"
            "cpu=samples samples each thread every interval= ms of its CPU time from a signal handler\n"
            "(AsyncGetCallTrace: no safepoint bias); sampler=jvmti takes JVMTI stacks at safepoints instead.\n"
            "wall=N samples every thread every N ms whatever it is doing, with its state (at most 16\n"
            "threads a period, taking turns, each sample weighted by the threads it stands for).\n"
            "flame= and collapsed= write the samples' full stacks (up to 2048 frames; depth= applies to\n"
            "the HPROF traces) as an HTML flame graph and as flamegraph.pl's collapsed format.\n"
            "monitor=y and cpu=times need format=a (the HPROF binary format has no record for them).\n"
            "cpu=times instruments classes loaded after VM init; it skips jvmprof's own classes,\n"
            "<clinit> of java.*/jdk.*/sun.*/com.sun.* classes, and loop-free methods of <= tiny= bytes of\n"
            "bytecode (and <= 32 bytes if they make no call); tiny=0 instruments every method.\n"
            "include=/exclude= narrow it by class-name prefix (exclude wins).\n"
            "heap=dump writes the live objects as an HPROF heap dump (format=b by default: for MAT and\n"
            "VisualVM; format=a: HPROF's ASCII HEAP DUMP) at exit, on SIGQUIT and from\n"
            "jvmprof.Control.dumpHeap(file); nothing runs before a dump. The first dump goes to file=,\n"
            "later ones to file=.1, .2 ... (or %%n in file= is the dump number). heap=dump is used alone.\n"
            "heap=sites samples an allocation every alloc_interval= bytes on average (JVMTI allocation\n"
            "sampling) and reports allocation sites (class + stack) with estimated allocated and live\n"
            "objects and bytes, HPROF's SITES table, and the number and time of garbage collections.\n"
            "alloc_interval=0 counts every allocation exactly instead (several times slower: each one\n"
            "costs a stack and a tag); alloc_hook=bci sees them through bytecode instrumentation instead\n"
            "of the sampler (slower, and blind to clone() once compiled and to multi-array rows).\n"
            "lifetimes=y adds ages at death, leak suspects and churn.\n"
            "heap=all = heap=sites + heap=dump: the SITES report, then the HEAP DUMP, in one ASCII file.\n"
            "Options are also read from the environment variable JVMPROF_OPTIONS (appended). Each option is\n"
            "given once, except heap= (heap=sites,heap=dump = heap=all); interval= is cpu=samples' period.\n"
            "Output is written at exit (doe=y) and whenever the JVM gets SIGQUIT (kill -QUIT <pid>).\n"
            "\n"
            "Examples:\n"
            "    java -agentpath:libjvmprof.so=cpu=samples,interval=10,depth=8,file=out.txt -jar app.jar\n"
            "    java -agentpath:libjvmprof.so=monitor=y,thread=y Main\n"
            "    java -agentpath:libjvmprof.so=cpu=times,include=com.example.,depth=6 Main\n"
            "    java -agentpath:libjvmprof.so=cpu=samples,format=b,file=app-%%p.hprof Main\n"
            "    java -agentpath:libjvmprof.so=cpu=samples,flame=cpu.html Main\n"
            "    java -agentpath:libjvmprof.so=wall=20,collapsed=wall.txt,flame=wall.html Main\n"
            "    java -agentpath:libjvmprof.so=heap=dump,doe=n,file=app-%%p-%%n.hprof Main   (kill -QUIT to dump)\n"
            "    java -agentpath:libjvmprof.so=heap=sites,alloc_interval=64k,depth=8 Main\n"
            "    java -agentpath:libjvmprof.so=heap=sites,alloc_interval=0,lifetimes=y Main   (exact)\n");
}

static const opt_def *options_find(const char *name, size_t len)
{
    for (size_t i = 0; i < OPTIONS_COUNT; i++)
        if (strlen(options_table[i].name) == len && strncmp(options_table[i].name, name, len) == 0)
            return &options_table[i];
    return NULL;
}

static void options_accepted_names(char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < OPTIONS_COUNT && used < len; i++) {
        if (options_table[i].kind == OPT_LATER)
            continue;
        int n = snprintf(out + used, len - used, "%s%s", used ? ", " : "", options_table[i].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static jp_status options_bad(char *err, size_t errlen, const opt_def *d, const char *value)
{
    snprintf(err, errlen, "%s=%s: bad value; expected %s%s", d->name, value, d->values,
             d->kind == OPT_UINT ? " (an integer)" : d->kind == OPT_DOUBLE ? " (a number)" : "");
    return JP_ERR_ARG;
}

static jp_status options_expand_file(const char *name, const char *value, long pid, char *out, size_t outlen,
                                     char *err, size_t errlen)
{
    size_t used = 0;
    for (const char *p = value; *p; p++) {
        char piece[32];
        const char *add = piece;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(piece, sizeof piece, "%ld", pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            strcpy(piece, "%");
            p++;
        } else {
            piece[0] = *p;
            piece[1] = '\0';
        }
        size_t n = strlen(add);
        if (used + n + 1 > outlen) {
            snprintf(err, errlen, "%s=: path too long (at most %zu bytes)", name, outlen - 1);
            return JP_ERR_ARG;
        }
        memcpy(out + used, add, n);
        used += n;
    }
    out[used] = '\0';
    return JP_OK;
}

static jp_status options_set(agent_options *o, const opt_def *d, const char *value, long pid, char *err,
                             size_t errlen, bool *cpu_or_monitor_named)
{
    switch (d->kind) {
    case OPT_LATER:
        snprintf(err, errlen, "%s=%s: not available in this version of jvmprof (%s); available now: cpu=samples, "
                 "cpu=times, wall=<ms>, monitor=y, heap=dump", d->name, value, d->what);
        return JP_ERR_ARG;
    case OPT_BOOL: {
        bool v;
        if (strcmp(value, "y") == 0)
            v = true;
        else if (strcmp(value, "n") == 0)
            v = false;
        else
            return options_bad(err, errlen, d, value);
        if (d->at == 0)
            return options_bad(err, errlen, d, value);
        *(bool *)((char *)o + d->at - 1) = v;
        if (strcmp(d->name, "monitor") == 0)
            *cpu_or_monitor_named = true;
        return JP_OK;
    }
    case OPT_UINT: {
        if (!isdigit((unsigned char)*value)) /* strtoul would take " 5", "-5", "+5" */
            return options_bad(err, errlen, d, value);
        char *end;
        errno = 0;
        unsigned long v = strtoul(value, &end, 10);
        if (errno || *end || v < d->min || v > d->max)
            return options_bad(err, errlen, d, value);
        *(unsigned *)((char *)o + d->at - 1) = (unsigned)v;
        if (strcmp(d->name, "tiny") == 0)
            o->tiny_named = true;
        if (strcmp(d->name, "wall") == 0)
            *cpu_or_monitor_named = true;
        return JP_OK;
    }
    case OPT_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        if ((!isdigit((unsigned char)*value) && *value != '.') || errno || *end || !(v >= 0.0 && v <= 1.0))
            return options_bad(err, errlen, d, value);
        o->cutoff = v;
        return JP_OK;
    }
    case OPT_ENUM:
        if (strcmp(d->name, "format") == 0) {
            if (strcmp(value, "a") != 0 && strcmp(value, "b") != 0)
                return options_bad(err, errlen, d, value);
            o->format = value[0];
            o->format_named = true;
            return JP_OK;
        }
        if (strcmp(d->name, "alloc_hook") == 0) {
            if (strcmp(value, "sampler") == 0)
                o->alloc_hook = 's';
            else if (strcmp(value, "bci") == 0)
                o->alloc_hook = 'b';
            else
                return options_bad(err, errlen, d, value);
            o->alloc_hook_named = true;
            return JP_OK;
        }
        if (strcmp(d->name, "dumper") == 0) {
            if (strcmp(value, "jvmti") == 0)
                o->dumper = 'j';
            else if (strcmp(value, "hotspot") == 0)
                o->dumper = 'h';
            else
                return options_bad(err, errlen, d, value);
            o->dumper_named = true;
            return JP_OK;
        }
        if (strcmp(d->name, "sampler") == 0) {
            if (strcmp(value, "async") == 0)
                o->sampler = OPTIONS_SAMPLER_ASYNC;
            else if (strcmp(value, "jvmti") == 0)
                o->sampler = OPTIONS_SAMPLER_JVMTI;
            else
                return options_bad(err, errlen, d, value);
            o->sampler_named = true;
            return JP_OK;
        }
        if (strcmp(d->name, "heap") == 0) {
            if (strcmp(value, "dump") == 0) {
                o->heap_dump = true;
                *cpu_or_monitor_named = true;
                return JP_OK;
            }
            if (strcmp(value, "sites") == 0) {
                o->heap_sites = true;
                *cpu_or_monitor_named = true;
                return JP_OK;
            }
            if (strcmp(value, "all") == 0) {
                o->heap_sites = o->heap_dump = true;
                *cpu_or_monitor_named = true;
                return JP_OK;
            }
            return options_bad(err, errlen, d, value);
        }
        /* cpu */
        if (strcmp(value, "samples") == 0 || strcmp(value, "y") == 0) {
            o->cpu = OPTIONS_CPU_SAMPLES;
            *cpu_or_monitor_named = true;
            return JP_OK;
        }
        if (strcmp(value, "times") == 0) {
            o->cpu = OPTIONS_CPU_TIMES;
            *cpu_or_monitor_named = true;
            return JP_OK;
        }
        if (strcmp(value, "old") == 0) {
            snprintf(err, errlen, "cpu=old: HPROF's caller/callee timing is not available in jvmprof; accepted: "
                     "cpu=samples, cpu=times");
            return JP_ERR_ARG;
        }
        return options_bad(err, errlen, d, value);
    case OPT_PREFIXES: {
        char *dst = (char *)o + d->at - 1;
        size_t n = strlen(value);
        if (n == 0 || n >= OPTIONS_PREFIXES_MAX) {
            snprintf(err, errlen, "%s=%s: expected %s=%s (class-name prefixes such as com.example.:org.foo.Bar, "
                     "separated by ':', at most %d characters)", d->name, value, d->name, d->values, OPTIONS_PREFIXES_MAX - 1);
            return JP_ERR_ARG;
        }
        for (size_t i = 0; i < n; i++) {
            char c = value[i];
            bool empty_item = c == ':' && (i == 0 || value[i - 1] == ':' || i + 1 == n);

            if (empty_item) {
                snprintf(err, errlen, "%s=%s: empty prefix at position %zu; expected %s=%s (class-name prefixes "
                         "separated by ':', such as com.example.:org.foo.Bar)", d->name, value, i + 1, d->name,
                         d->values);
                return JP_ERR_ARG;
            }
            if (!(isalnum((unsigned char)c) || c == '.' || c == '/' || c == '_' || c == '$' ||
                                c == ':' || (unsigned char)c >= 0x80)) {
                snprintf(err, errlen, "%s=%s: '%c' at position %zu is not allowed; expected %s=%s (class-name "
                         "prefixes such as com.example.:org.foo.Bar)", d->name, value, c, i + 1, d->name, d->values);
                return JP_ERR_ARG;
            }
            dst[i] = c == '/' ? '.' : c;
        }
        dst[n] = '\0';
        return JP_OK;
    }
    case OPT_SIZE: {
        if (!isdigit((unsigned char)*value))
            return options_bad(err, errlen, d, value);
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        unsigned shift = 0;
        if (*end == 'k' || *end == 'K')
            shift = 10;
        else if (*end == 'm' || *end == 'M')
            shift = 20;
        else if (*end == 'g' || *end == 'G')
            shift = 30;
        if (shift)
            end++;
        if (errno || *end || v > (d->max >> shift) || (v << shift) < d->min)
            return options_bad(err, errlen, d, value);
        *(uint64_t *)((char *)o + d->at - 1) = (uint64_t)v << shift;
        if (strcmp(d->name, "alloc_interval") == 0)
            o->alloc_interval_named = true;
        return JP_OK;
    }
    case OPT_PATH:
        if (!*value) {
            snprintf(err, errlen, "%s=: empty file name; expected %s=<path>", d->name, d->name);
            return JP_ERR_ARG;
        }
        return options_expand_file(d->name, value, pid, (char *)o + d->at - 1, OPTIONS_PATH_MAX, err, errlen);
    }
    return JP_ERR_ARG;
}

/* Where each option was given in the text (NULL = not given): what an option
 * given twice quotes, and which options were named at all. */
typedef struct options_seen {
    const char *at[OPTIONS_COUNT];
    size_t len[OPTIONS_COUNT];
} options_seen;

static bool options_named(const options_seen *seen, const char *name)
{
    const opt_def *d = options_find(name, strlen(name));
    return d && seen->at[d - options_table] != NULL;
}

/* The modes turned on, for a message: "wall=,cpu=times,monitor=y,heap=sites". */
static void options_modes(const agent_options *o, char *out, size_t len)
{
    const char *modes[5];
    size_t n = 0;
    if (o->wall_ms)
        modes[n++] = "wall=";
    if (o->cpu == OPTIONS_CPU_SAMPLES || o->cpu == OPTIONS_CPU_TIMES)
        modes[n++] = o->cpu == OPTIONS_CPU_SAMPLES ? "cpu=samples" : "cpu=times";
    if (o->monitor)
        modes[n++] = "monitor=y";
    if (o->heap_sites || o->heap_dump)
        modes[n++] = o->heap_sites && o->heap_dump ? "heap=all" : o->heap_sites ? "heap=sites" : "heap=dump";
    out[0] = '\0';
    for (size_t i = 0, used = 0; i < n && used < len; i++) {
        int k = snprintf(out + used, len - used, "%s%s", i ? "," : "", modes[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* Options a heap dump alone has no use for, and why (the dump is the only
 * output: see heap_dump.c; its thread stacks have a fixed depth). */
static const struct { const char *name, *why; } options_not_for_dump[] = {
    { "depth", "it writes each thread's whole stack" },
    { "lineno", "its frames always carry line numbers" },
    { "thread", "each of its stack traces is one thread's already" },
    { "cutoff", "it holds every object, with no table to cut" },
};

static jp_status options_parse_list(const char *text, long pid, agent_options *o, char *err, size_t errlen)
{
    options_seen seen;
    memset(&seen, 0, sizeof seen);
    memset(o, 0, sizeof *o);
    o->interval_ms = 10;
    o->depth = 4;
    o->format = 'a';
    o->cutoff = 0.0001;
    o->lineno = o->doe = o->force = o->verbose = true;
    o->tiny = 12;
    o->alloc_interval = 512u * 1024u;
    o->alloc_hook = 's';
    o->dumper = 'h';
    bool named = false;
    err[0] = '\0';

    const char *p = text ? text : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0) {
            if (!end)
                break;
            p = end + 1;
            continue;
        }
        char item[OPTIONS_PATH_MAX + 64];
        if (len >= sizeof item) {
            size_t name = strcspn(p, "=,");
            snprintf(err, errlen, "%.*s: option too long (%zu bytes; at most %zu)", (int)(name < 32 ? name : 32), p,
                     len, sizeof item - 1);
            return JP_ERR_ARG;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq && strcmp(item, "help") == 0) {
            o->help = true;
        } else {
            const opt_def *d = options_find(item, eq ? (size_t)(eq - item) : len);
            if (d && strcmp(d->name, "help") == 0) {
                snprintf(err, errlen, "%s: help takes no value; write just help", item);
                return JP_ERR_ARG;
            }
            if (!d) {
                char names[512];
                options_accepted_names(names, sizeof names);
                snprintf(err, errlen, "unknown option '%s'; accepted: %s (see help)", item, names);
                return JP_ERR_ARG;
            }
            if (!eq && d->kind != OPT_LATER) {
                snprintf(err, errlen, "%s: missing value; expected %s=%s", item, d->name, d->values);
                return JP_ERR_ARG;
            }
            /* the last would win without a word; heap= adds up (heap=sites,heap=dump = heap=all) */
            size_t k = (size_t)(d - options_table);
            if (seen.at[k] && strcmp(d->name, "heap") != 0) {
                int first = (int)(seen.len[k] < 200 ? seen.len[k] : 200), again = (int)(len < 200 ? len : 200);
                snprintf(err, errlen, "%s= given twice (%.*s, then %.*s); give each option once (the -agentpath "
                         "options and JVMPROF_OPTIONS are read as one list)", d->name, first, seen.at[k], again, p);
                return JP_ERR_ARG;
            }
            seen.at[k] = p;
            seen.len[k] = len;
            jp_status st = options_set(o, d, eq ? eq + 1 : "", pid, err, errlen, &named);
            if (st != JP_OK)
                return st;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if (!named)
        o->cpu = OPTIONS_CPU_SAMPLES;      /* HPROF's default was heap=all; ours is the CPU profile */
    if (o->cpu == OPTIONS_CPU_OFF && !o->monitor && !o->wall_ms && !o->heap_dump && !o->heap_sites) {
        snprintf(err, errlen, "nothing to profile: cpu is off, wall is off, heap is off and monitor=n; use "
                 "cpu=samples, wall=<ms>, heap=dump|sites and/or monitor=y");
        return JP_ERR_ARG;
    }
    if (o->heap_dump && o->heap_sites && o->format == 'b') {
        snprintf(err, errlen, "heap=all (or heap=sites with heap=dump) with format=b: the allocation sites and the "
                 "heap dump go in one HPROF ASCII file (format=a); for binary, take heap=dump and heap=sites in "
                 "separate runs");
        return JP_ERR_ARG;
    }
    if (o->dumper_named && !o->heap_dump) {
        snprintf(err, errlen, "dumper= chooses how heap dumps are taken; add heap=dump (or heap=all) or drop dumper=");
        return JP_ERR_ARG;
    }
    if (o->lifetimes && !o->heap_sites) {
        snprintf(err, errlen, "lifetimes=y follows the objects heap=sites samples; add heap=sites");
        return JP_ERR_ARG;
    }
    if (o->alloc_hook_named && !options_alloc_exact(o)) {
        snprintf(err, errlen, "alloc_hook= chooses how exact counting sees every allocation; add heap=sites,"
                 "alloc_interval=0 or drop alloc_hook=");
        return JP_ERR_ARG;
    }
    if (o->alloc_interval_named && !o->heap_sites) {
        snprintf(err, errlen, "alloc_interval= applies to heap=sites; add heap=sites or drop alloc_interval=");
        return JP_ERR_ARG;
    }
    if (o->heap_dump && (o->cpu != OPTIONS_CPU_OFF || o->monitor || o->wall_ms)) {
        const char *which = o->cpu == OPTIONS_CPU_SAMPLES ? "cpu=samples" : o->cpu == OPTIONS_CPU_TIMES ? "cpu=times"
                            : o->monitor ? "monitor=y" : "wall=";
        snprintf(err, errlen, "heap=dump with %s: a heap dump is written to file= on its own; profile %s in a "
                 "separate run", which, which);
        return JP_ERR_ARG;
    }
    if (o->heap_dump && !o->heap_sites && !o->format_named)
        o->format = 'b';   /* a heap dump is for MAT and VisualVM: binary unless format=a is asked for */
    if (o->format == 'b' && o->monitor) {
        snprintf(err, errlen, "monitor=y with format=b: the HPROF binary format has no monitor record (as in "
                 "HPROF); use format=a with monitor=y");
        return JP_ERR_ARG;
    }
    if (o->format == 'b' && o->cpu == OPTIONS_CPU_TIMES) {
        snprintf(err, errlen, "cpu=times with format=b: the HPROF binary format has no CPU TIME record (as in "
                 "HPROF); use format=a with cpu=times");
        return JP_ERR_ARG;
    }
    if (o->cpu != OPTIONS_CPU_TIMES && (o->include[0] || o->exclude[0] || o->tiny_named)) {
        const char *which = o->include[0] ? "include" : o->exclude[0] ? "exclude" : "tiny";
        snprintf(err, errlen, "%s= applies to bytecode instrumentation, which only cpu=times turns on; add cpu=times "
                 "or drop %s=", which, which);
        return JP_ERR_ARG;
    }
    if (o->wall_ms && o->cpu == OPTIONS_CPU_SAMPLES) {
        snprintf(err, errlen, "wall= with cpu=samples: both fill the samples table; use one of them (wall= samples "
                 "threads in every state, cpu=samples only while they use CPU)");
        return JP_ERR_ARG;
    }
    if (o->wall_ms && o->format == 'b') {
        snprintf(err, errlen, "wall= with format=b: the HPROF binary format has no record for wall-clock samples; "
                 "use format=a, flame= or collapsed= with wall=");
        return JP_ERR_ARG;
    }
    if (o->sampler_named && o->cpu != OPTIONS_CPU_SAMPLES) {
        snprintf(err, errlen, "sampler= chooses how cpu=samples takes stacks; add cpu=samples or drop sampler=");
        return JP_ERR_ARG;
    }
    if (options_named(&seen, "interval") && o->cpu != OPTIONS_CPU_SAMPLES) {
        char modes[128];
        options_modes(o, modes, sizeof modes);
        if (o->wall_ms)
            snprintf(err, errlen, "interval= with %s: interval= is the period of cpu=samples, which is off, and "
                     "wall=<ms> is its own period; drop interval=", modes);
        else if (o->heap_dump)   /* cpu=samples would be refused with it */
            snprintf(err, errlen, "interval= with %s: interval= is the period of cpu=samples, which is off, and a "
                     "heap dump runs without it; drop interval=", modes);
        else
            snprintf(err, errlen, "interval= with %s: interval= is the period of cpu=samples, which is off; add "
                     "cpu=samples or drop interval=", modes);
        return JP_ERR_ARG;
    }
    if (o->heap_dump && !o->heap_sites) {
        /* nothing else can be on: heap=dump with cpu=, wall= or monitor=y was refused above */
        for (size_t i = 0; i < sizeof options_not_for_dump / sizeof options_not_for_dump[0]; i++) {
            const char *name = options_not_for_dump[i].name;
            if (!options_named(&seen, name))
                continue;
            snprintf(err, errlen, "%s= with heap=dump alone: the heap dump is all that is written, and %s; drop %s= "
                     "(or add heap=sites, whose report uses it)", name, options_not_for_dump[i].why, name);
            return JP_ERR_ARG;
        }
    }
    if ((o->flame[0] || o->collapsed[0]) && !options_async_sampling(o)) {
        const char *which = o->flame[0] ? "flame" : "collapsed";
        snprintf(err, errlen, "%s= draws the stacks of the async sampler; use it with cpu=samples (sampler=async, the "
                 "default) or with wall=<ms>", which);
        return JP_ERR_ARG;
    }
    if (!o->file[0])
        strcpy(o->file, o->format == 'b' ? "java.hprof" : "java.hprof.txt");
    return JP_OK;
}

bool options_async_sampling(const agent_options *o)
{
    return o->wall_ms > 0 || (o->cpu == OPTIONS_CPU_SAMPLES && o->sampler == OPTIONS_SAMPLER_ASYNC);
}

bool options_alloc_exact(const agent_options *o) { return o->heap_sites && o->alloc_interval == 0; }

bool options_alloc_bci(const agent_options *o) { return options_alloc_exact(o) && o->alloc_hook == 'b'; }

jp_status options_parse(const char *text, long pid, agent_options *o, char *err, size_t errlen)
{
    jp_status st = options_parse_list(text, pid, o, err, errlen);
    /* the message quotes what the user wrote: keep it on one line */
    for (char *c = err; st != JP_OK && errlen > 0 && *c; c++)
        if (iscntrl((unsigned char)*c))
            *c = '?';
    return st;
}
