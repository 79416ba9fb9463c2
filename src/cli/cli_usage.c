/* cli_usage.c — the table of the jvmprof command's subcommands: name,
 * arguments, and what each does, printed by `jvmprof --help` (all of them)
 * and `jvmprof SUBCOMMAND --help` (one). */
#include "cli_usage.h"

#include <string.h>

static const cli_usage cu_table[] = {
    { "report", "FILE [--cutoff X] [-o OUT] [--methods [--top N] [--prefix CLASS-PREFIX]]",
      "the HPROF ASCII report of an HPROF binary file (written by the agent with format=b);\n"
      "OUT defaults to stdout. --cutoff X: leave out rows under X of the total (the agent's\n"
      "cutoff=). --methods: the CPU or wall samples (or cpu=times' time) by method instead (self\n"
      "and total), N rows (default 30, 0 = all), only the classes whose name starts with\n"
      "CLASS-PREFIX\n" },
    { "flame", "FILE [-o OUT] [--title T] [--from T] [--to T]",
      "an interactive flame graph (one self-contained HTML page) of an HPROF binary file or of\n"
      "collapsed stacks (ours, async-profiler's, flamegraph.pl input); OUT defaults to stdout.\n"
      "A file of record=y (format=b) carries its samples' times: the page has a timeline (drag a\n"
      "range on it), and --from/--to keep the samples of that window (times after the profile's\n"
      "start: a number with ms, s, m or h, bare = seconds). A trace file (trace=) is drawn by\n"
      "jvmprof trace FILE --flame\n" },
    { "collapse", "FILE [-o OUT] [--from T] [--to T]",
      "the collapsed stacks (\"root;...;leaf count\" lines, for flamegraph.pl or speedscope) of\n"
      "an HPROF binary file; --from/--to: the samples of that window, as jvmprof flame\n" },
    { "diff", "BEFORE AFTER [-o OUT] [--title T]",
      "a differential flame graph: AFTER's stacks, each frame coloured by how its share changed\n"
      "since BEFORE (red grew, blue shrank); each of the two is a file jvmprof flame reads\n" },
    { "convert", "FILE --pprof|--jfr|--txt|--collapsed|--flame OUT",
      "an HPROF binary report (format=b) or collapsed stacks in another format: pprof (gzipped\n"
      "profile.proto), JFR, the HPROF ASCII report, collapsed stacks, a flame graph; says what\n"
      "it drops. A trace file (trace=) converts to --jfr: its timed events\n" },
    { "heap", "FILE [--top N] [--text] [-o OUT] | FILE --fix\n"
      "        | FILE --retained [--sort retained|shallow|instances] [--ignore-weak] [--tsv] [--top N]\n"
      "          [-o OUT]\n"
      "        | A --diff B [--ignore-weak] [--tsv] [--top N] [-o OUT]\n"
      "        | FILE --path ID [--tsv] [-o OUT] | FILE --path-class CLASS [--top N] [--tsv] [-o OUT]\n"
      "        | FILE --leaks [--threshold PCT] [--ignore-weak] [--tsv | --html] [--top N] [-o OUT]\n"
      "        | FILE --site TRACE|REPORT [--top N] [--tsv] [-o OUT]",
      "the class histogram (instances, shallow bytes) of an HPROF heap dump (ours, or jcmd PID\n"
      "GC.heap_dump's); N rows, default 30, 0 = all. Shallow bytes: 16-byte header + fields as\n"
      "dumped; arrays 20 + elements; rounded up to 8. --text: the whole dump as HPROF's ASCII\n"
      "HEAP DUMP (ROOT/CLS/OBJ/ARR lines) instead. --fix: sets to null, in FILE itself, every\n"
      "reference to an object the dump does not hold (JDK 17's own dumps leave out the objects\n"
      "class data sharing archived); prints how many it changed. --retained: retained sizes (what\n"
      "freeing an object would free, from the dominator tree of the GC roots): the top N classes\n"
      "(a class: its instances no other instance of it retains, as MAT counts; by retained size,\n"
      "or --sort shallow (bytes) or instances, ties by retained size, then name) and the top N\n"
      "objects (by retained size); every reference retains, unless --ignore-weak (a weak, soft,\n"
      "phantom or final reference's referent then retains nothing); --tsv: class and object\n"
      "rows, tab-separated.\n"
      "--diff B: each class's instances, shallow and retained bytes in A and in B and the\n"
      "change, sorted by the growth of its retained size (the leak view over time).\n"
      "--path ID (hex 0x... or decimal, as --retained prints ids): the shortest path of strong\n"
      "references from a GC root to that object: the root's kind (and thread), then each object\n"
      "on the way, its shallow and retained bytes, and the field, static or [index] to the next;\n"
      "an object reached only through a weak, soft, phantom or final reference's referent is said\n"
      "so, with that path. --path-class CLASS: the same for the N instances of CLASS that retain\n"
      "the most (default 5, 0 = all); --tsv: path, root and step rows, tab-separated.\n"
      "--leaks: leak suspects, as MAT finds them: the objects retaining more than PCT% of the\n"
      "heap (default 10; the top-most of a branch), each with its accumulation point (where the\n"
      "dominator tree spreads: a collection's array) and its path from a GC root; the classes\n"
      "whose instances retain that much together; the top N classes by retained size. --html:\n"
      "the same as one self-contained page, the dominator tree an icicle chart (click to zoom).\n"
      "--site TRACE: in a dump jvmprof took while heap=sites ran (its live sampled objects carry\n"
      "their site's trace serial, as the report numbers it), that trace's frames, its objects, and\n"
      "the paths from the GC roots holding them, merged where they pass the same fields (the N\n"
      "that hold the most, default 5); --site REPORT: each LEAK SUSPECT line of a lifetimes=y report\n" },
    { "trace",
      "FILE [-o OUT] [--chrome | --slowest N | --flame | --collapsed] [--thread N] [--type T,...]\n"
      "        [--method S] [--from SEC] [--to SEC]",
      "a trace file (trace=) as text: one event per line, every thread merged in time order,\n"
      "filtered by thread number, event type, method name part and time window (seconds since\n"
      "the trace began). --chrome: Chrome's Trace Event Format (JSON) for Perfetto and\n"
      "speedscope; --slowest N: the N slowest calls with their callers; --flame: the exact call\n"
      "tree as an HTML flame graph (time in ns); --collapsed: the same as collapsed stacks\n" },
    { "list", "",
      "the JVMs here (also in containers): pid, whether jvmprof is loaded or profiling, main\n"
      "class or jar\n" },
    { "start", "PID OPTIONS",
      "load the agent into the running JVM PID if needed and start profiling with OPTIONS (the\n"
      "agent's options, as in -agentpath:...=OPTIONS; relative output files are made relative\n"
      "to this directory). Attaches as HotSpot's attach mechanism does: as the JVM's own user\n"
      "or root\n" },
    { "stop", "PID", "stop profiling in JVM PID and write the report\n" },
    { "dump", "PID [--last D | --from T [--to T]] [FILE]",
      "write JVM PID's report now (to FILE: only the report, there) and go on profiling; with\n"
      "record=y, --last D or --from T --to T: only that window of the recording (the last D, or\n"
      "T after the session's start; times with ms, s, m or h, a bare number is seconds)\n" },
    { "reset", "PID", "discard what JVM PID's session collected so far\n" },
    { "status", "PID", "what runs in JVM PID, since when, and the counts so far\n" },
    { "heapdump", "PID FILE", "write a heap dump of JVM PID (HPROF binary) to FILE\n" },
    { "collect", "PID -d SECONDS [OPTIONS]",
      "start profiling JVM PID, wait SECONDS, stop (default OPTIONS: a report and a flame graph,\n"
      "jvmprof-PID.txt and jvmprof-PID.html, here)\n" },
    { "serve", "--listen [HOST:]PORT [--dir DIR] [--once] [--timeout SECONDS] [--max-conns N] [--max-per-peer N]",
      "the front end of the agent's net=HOST:PORT: writes what each JVM streams into a directory\n"
      "of its own under DIR (HOST: 127.0.0.1 if not given; --once: stop after the first JVM is\n"
      "done). A connection silent for SECONDS (default 30) is closed; at most N connections\n"
      "(default 256), and N from one address (default 64). See docs/attach-and-remote.md\n"
      "for its security\n" },
    { "options", "", "the agent's options, their values and defaults\n" },
    { "version", "", "print the version\n" },
    { "help", "[SUBCOMMAND]", "this text, or one subcommand's (also: jvmprof SUBCOMMAND --help)\n" },
};

#define CU_COUNT (sizeof cu_table / sizeof cu_table[0])

const cli_usage *cli_usage_of(const char *name)
{
    for (size_t i = 0; i < CU_COUNT; i++)
        if (strcmp(cu_table[i].name, name) == 0)
            return &cu_table[i];
    return NULL;
}

/* TEXT with each line indented by INDENT spaces */
static void cu_indented(FILE *out, const char *text, int indent)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(out, "%*s%.*s\n", indent, "", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

void cli_usage_print(FILE *out, const cli_usage *u)
{
    fprintf(out, "usage: jvmprof %s%s%s\n\n", u->name, *u->synopsis ? " " : "", u->synopsis);
    cu_indented(out, u->text, 0);
}

void cli_usage_print_all(FILE *out)
{
    fprintf(out, "usage: jvmprof <command> [arguments]      (jvmprof <command> --help: that command alone)\n");
    for (size_t i = 0; i < CU_COUNT; i++) {
        const cli_usage *u = &cu_table[i];
        if (strcmp(u->name, "report") == 0)
            fprintf(out, "\nfiles the agent wrote:\n");
        else if (strcmp(u->name, "list") == 0)
            fprintf(out, "\na running JVM (HotSpot's attach mechanism; as the JVM's own user or root, also in a "
                         "container):\n");
        else if (strcmp(u->name, "options") == 0)
            fprintf(out, "\n");
        fprintf(out, "  %s%s%s\n", u->name, *u->synopsis ? " " : "", u->synopsis);
        cu_indented(out, u->text, 6);
    }
    fprintf(out, "\nThe agent itself is loaded by the JVM:\n"
                 "  java -agentpath:/path/to/libjvmprof.so=cpu=samples,file=out.txt MyMain\n");
}

void cli_usage_names(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < CU_COUNT && used < cap; i++) {
        const char *sep = i == 0 ? "" : i + 1 == CU_COUNT ? " or " : ", ";
        int n = snprintf(buf + used, cap - used, "%s%s", sep, cu_table[i].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
