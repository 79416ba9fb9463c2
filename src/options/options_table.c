/* options_table.c — the table of jvmprof's options: one row per option with
 * its name, kind, accepted values, default (text, parsed like the user's),
 * help text, the agent_options field it sets, its range and the collector or
 * output it belongs to. The only place a default is spelled; also the help
 * text printed from it. Every option HPROF had keeps its name and meaning;
 * those whose feature is not built are refused with a message (never ignored). */
#include "options.h"

#include <string.h>

#define OPTIONS_TABLE_AT(field) .at = offsetof(agent_options, field) + 1, .size = sizeof ((agent_options *)0)->field

static const options_choice options_table_cpu[] = {
    { "samples", OPTIONS_CPU_SAMPLES, NULL },
    { "times", OPTIONS_CPU_TIMES, NULL },
    { "y", OPTIONS_CPU_SAMPLES, NULL },
    { "old", 0, "HPROF's caller/callee timing is not available in jvmprof; accepted: cpu=samples, cpu=times" },
    { NULL, 0, NULL },
};
static const options_choice options_table_format[] = { { "a", 'a', NULL }, { "b", 'b', NULL }, { NULL, 0, NULL } };
static const options_choice options_table_sampler[] = {
    { "async", OPTIONS_SAMPLER_ASYNC, NULL }, { "jvmti", OPTIONS_SAMPLER_JVMTI, NULL }, { NULL, 0, NULL },
};
enum { OPTIONS_TABLE_HEAP_DUMP = 1, OPTIONS_TABLE_HEAP_SITES = 2 };
static const options_choice options_table_heap[] = {
    { "dump", OPTIONS_TABLE_HEAP_DUMP, NULL },
    { "sites", OPTIONS_TABLE_HEAP_SITES, NULL },
    { "all", OPTIONS_TABLE_HEAP_DUMP | OPTIONS_TABLE_HEAP_SITES, NULL },
    { NULL, 0, NULL },
};
static const options_choice options_table_dumper[] = { { "hotspot", 'h', NULL }, { "jvmti", 'j', NULL }, { NULL, 0, NULL } };
static const options_choice options_table_alloc_count[] = {
    { "sampled", 's', NULL }, { "site", 'c', NULL }, { NULL, 0, NULL },
};
static const options_choice options_table_cstack[] = {
    { "mixed", OPTIONS_CSTACK_MIXED, NULL }, { "native", OPTIONS_CSTACK_NATIVE, NULL }, { "java", OPTIONS_CSTACK_JAVA, NULL },
    { "y", OPTIONS_CSTACK_MIXED, NULL }, { "n", OPTIONS_CSTACK_JAVA, NULL }, { NULL, 0, NULL },
};
static const options_choice options_table_threads[] = { { "java", 0, NULL }, { "all", 1, NULL }, { NULL, 0, NULL } };
static const options_choice options_table_alloc_hook[] = {
    { "sampler", 's', NULL }, { "bci", 'b', NULL }, { NULL, 0, NULL },
};

/* trigger=: its words, '+'-separated (the values add up as bits) */
static const options_choice options_table_triggers[] = {
    { "oom", OPTIONS_TRIGGER_OOM, NULL },   { "quit", OPTIONS_TRIGGER_QUIT, NULL }, { "cpu", OPTIONS_TRIGGER_CPU, NULL },
    { "slow", OPTIONS_TRIGGER_SLOW, NULL }, { "all", OPTIONS_TRIGGER_ALL, NULL },   { NULL, 0, NULL },
};

/* heap= sets two fields, and its values add up (heap=sites,heap=dump = heap=all). */
static void options_table_store_heap(agent_options *o, int value)
{
    if (value & OPTIONS_TABLE_HEAP_DUMP)
        o->heap_dump = true;
    if (value & OPTIONS_TABLE_HEAP_SITES)
        o->heap_sites = true;
}

const options_def options_defs[OPTIONS_ID_COUNT] = {
    [OPTIONS_ID_HELP] = { "help", OPTIONS_KIND_WORD, "", NULL, "", "print this help and exit", OPTIONS_TABLE_AT(help),
                          .owner = OPTIONS_FOR_GENERAL, .flags = OPTIONS_REPEATS },
    [OPTIONS_ID_CPU] = { "cpu", OPTIONS_KIND_ENUM, "samples|times|y", "samples", NULL,
                         "CPU usage: sampling, or exact times (instrumentation)", OPTIONS_TABLE_AT(cpu),
                         .choices = options_table_cpu, .owner = OPTIONS_FOR_GENERAL, .flags = OPTIONS_MODE },
    [OPTIONS_ID_MONITOR] = { "monitor", OPTIONS_KIND_BOOL, "y|n", "n", NULL, "monitor and lock contention, and waits",
                             OPTIONS_TABLE_AT(monitor), .owner = OPTIONS_FOR_MONITOR, .flags = OPTIONS_MODE },
    [OPTIONS_ID_FORMAT] = { "format", OPTIONS_KIND_ENUM, "a|b", "a", NULL,
                            "text (java.hprof.txt) or HPROF binary (java.hprof)", OPTIONS_TABLE_AT(format),
                            .choices = options_table_format, .owner = OPTIONS_FOR_OUTPUT },
    /* no default value: java.hprof.txt or java.hprof, after format= (options_rules.c) */
    [OPTIONS_ID_FILE] = { "file", OPTIONS_KIND_PATH, "<file>", NULL, "java.hprof[.txt]",
                          "write data to <file>; %p = process id, %n = the report's or heap dump's number", OPTIONS_TABLE_AT(file),
                          .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_DEPTH] = { "depth", OPTIONS_KIND_UINT, "0..2048", "4", NULL, "stack trace depth",
                           OPTIONS_TABLE_AT(depth), 0, 2048, .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_INTERVAL] = { "interval", OPTIONS_KIND_UINT, "1..60000", "10", NULL,
                              "sample interval in ms (event=: in events, 1..1e9)", OPTIONS_TABLE_AT(interval_ms), 1, 1000000000, .owner = OPTIONS_FOR_CPU_SAMPLES },
    [OPTIONS_ID_CUTOFF] = { "cutoff", OPTIONS_KIND_DOUBLE, "0..1", "0.0001", NULL,
                            "output cutoff point (share of the total)", OPTIONS_TABLE_AT(cutoff),
                            .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_LINENO] = { "lineno", OPTIONS_KIND_BOOL, "y|n", "y", NULL, "line numbers in traces?",
                            OPTIONS_TABLE_AT(lineno), .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_THREAD] = { "thread", OPTIONS_KIND_BOOL, "y|n", "n", NULL, "thread in traces?",
                            OPTIONS_TABLE_AT(thread), .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_DOE] = { "doe", OPTIONS_KIND_BOOL, "y|n", "y", NULL, "dump on exit?", OPTIONS_TABLE_AT(doe),
                         .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_RESET] = { "reset", OPTIONS_KIND_BOOL, "y|n", "n", NULL,
                           "count afresh after each report? (needs %n in file=)",
                           OPTIONS_TABLE_AT(reset), .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_FORCE] = { "force", OPTIONS_KIND_BOOL, "y|n", "y", NULL,
                           "run the program even if <file> cannot be written?", OPTIONS_TABLE_AT(force),
                           .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_VERBOSE] = { "verbose", OPTIONS_KIND_BOOL, "y|n", "y", NULL, "print messages about dumps to stderr",
                             OPTIONS_TABLE_AT(verbose), .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_SAMPLER] = { "sampler", OPTIONS_KIND_ENUM, "async|jvmti", "async", NULL,
                             "cpu=samples: signal + AsyncGetCallTrace, or JVMTI", OPTIONS_TABLE_AT(sampler),
                             .choices = options_table_sampler, .owner = OPTIONS_FOR_CPU_SAMPLES },
    [OPTIONS_ID_WALL] = { "wall", OPTIONS_KIND_UINT, "1..60000", NULL, "off",
                          "wall-clock sampling of all threads every N ms", OPTIONS_TABLE_AT(wall_ms), 1, 60000,
                          .owner = OPTIONS_FOR_WALL, .flags = OPTIONS_MODE },
    [OPTIONS_ID_FLAME] = { "flame", OPTIONS_KIND_PATH, "<file.html>", NULL, "none",
                           "write an HTML flame graph (samples, or allocations)", OPTIONS_TABLE_AT(flame),
                           .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_COLLAPSED] = { "collapsed", OPTIONS_KIND_PATH, "<file>", NULL, "none",
                               "write collapsed stacks (flamegraph.pl input)", OPTIONS_TABLE_AT(collapsed),
                               .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_PPROF] = { "pprof", OPTIONS_KIND_PATH, "<file>", NULL, "none",
                           "also write the report as a pprof profile (gzipped profile.proto)", OPTIONS_TABLE_AT(pprof),
                           .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_JFR] = { "jfr", OPTIONS_KIND_PATH, "<file>", NULL, "none",
                         "also write the report as a JDK Flight Recorder file", OPTIONS_TABLE_AT(jfr),
                         .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_INCLUDE] = { "include", OPTIONS_KIND_PREFIXES, "<prefixes>", NULL, "all",
                             "cpu=times: only classes named a.b.*:c.D* ...", OPTIONS_TABLE_AT(include),
                             .owner = OPTIONS_FOR_TIMES },
    [OPTIONS_ID_EXCLUDE] = { "exclude", OPTIONS_KIND_PREFIXES, "<prefixes>", NULL, "none",
                             "cpu=times: never classes named a.b.*:c.D* ...", OPTIONS_TABLE_AT(exclude),
                             .owner = OPTIONS_FOR_TIMES },
    /* no default value: unset, only the straight-line leaves are counted (selection.h) */
    [OPTIONS_ID_TINY] = { "tiny", OPTIONS_KIND_UINT, "0..65535", NULL, "leaves",
                          "cpu=times: also count, not time, loop-free methods of <= N bytes", OPTIONS_TABLE_AT(tiny),
                          0, 65535, .owner = OPTIONS_FOR_TIMES },
    [OPTIONS_ID_HEAP] = { "heap", OPTIONS_KIND_ENUM, "dump|sites|all", NULL, "off",
                          "HPROF heap dump, allocation sites, or both (all)", .choices = options_table_heap,
                          .store = options_table_store_heap, .owner = OPTIONS_FOR_GENERAL,
                          .flags = OPTIONS_MODE | OPTIONS_REPEATS },
    [OPTIONS_ID_DUMPER] = { "dumper", OPTIONS_KIND_ENUM, "hotspot|jvmti", "hotspot", NULL,
                            "heap=dump: HotSpot's dumper + jvmprof's check, or JVMTI's heap walk",
                            OPTIONS_TABLE_AT(dumper), .choices = options_table_dumper,
                            .owner = OPTIONS_FOR_HEAP_DUMP },
    [OPTIONS_ID_LIFETIMES] = { "lifetimes", OPTIONS_KIND_BOOL, "y|n", "n", NULL,
                               "heap=sites: ages at death, leak suspects and churn", OPTIONS_TABLE_AT(lifetimes),
                               .owner = OPTIONS_FOR_ALLOC },
    [OPTIONS_ID_ALLOC_INTERVAL] = { "alloc_interval", OPTIONS_KIND_SIZE, "0..1g (k, m, g: KiB, MiB, GiB)", "512k",
                                    NULL, "heap=sites: one sampled allocation per N bytes; 0 = every allocation",
                                    OPTIONS_TABLE_AT(alloc_interval), 0, 1ul << 30, .owner = OPTIONS_FOR_ALLOC },
    [OPTIONS_ID_ALLOC_HOOK] = { "alloc_hook", OPTIONS_KIND_ENUM, "sampler|bci", "sampler", NULL,
                                "alloc_interval=0: JVMTI's sampler at 0, or bytecode instrumentation",
                                OPTIONS_TABLE_AT(alloc_hook), .choices = options_table_alloc_hook,
                                .owner = OPTIONS_FOR_ALLOC },
    [OPTIONS_ID_ALLOC_COUNT] = { "alloc_count", OPTIONS_KIND_ENUM, "sampled|site", "sampled", NULL,
                                 "heap=sites: site = exact counts per allocation site, callers sampled",
                                 OPTIONS_TABLE_AT(alloc_count), .choices = options_table_alloc_count,
                                 .owner = OPTIONS_FOR_ALLOC },
    [OPTIONS_ID_TRACE] = { "trace", OPTIONS_KIND_EVENTS,
                           "exec|exec:light|mem|mem:light|alloc|thread|class|monitor|user|probe|all", NULL, "off",
                           "events to tracefile=, e.g. exec+mem:light+user", OPTIONS_TABLE_AT(trace),
                           .owner = OPTIONS_FOR_TRACE, .flags = OPTIONS_MODE },
    [OPTIONS_ID_TRACEFILE] = { "tracefile", OPTIONS_KIND_PATH, "<file>", "java.trace", NULL,
                               "trace=: the trace file; %p = process id", OPTIONS_TABLE_AT(tracefile),
                               .owner = OPTIONS_FOR_TRACE },
    [OPTIONS_ID_TRACELIMIT] = { "tracelimit", OPTIONS_KIND_SIZE, "0..1024g (k, m, g: KiB, MiB, GiB)", "0", NULL,
                                "trace=: stop tracing before the file reaches N bytes; 0 = no limit",
                                OPTIONS_TABLE_AT(tracelimit), 0, 1ul << 40, .owner = OPTIONS_FOR_TRACE },
    [OPTIONS_ID_MINTIME] = { "mintime", OPTIONS_KIND_DURATION, "0..3600s (ns, us, ms, s)", "0ns", NULL,
                             "trace=exec: keep only calls at least this long; 0 = all", OPTIONS_TABLE_AT(mintime_ns), 0, 3600000000000ul,
                             .owner = OPTIONS_FOR_TRACE },
    [OPTIONS_ID_RECEIVERS] = { "receivers", OPTIONS_KIND_BOOL, "y|n", "y", NULL,
                               "trace=exec: name each instance method's receiver", OPTIONS_TABLE_AT(receivers),
                               .owner = OPTIONS_FOR_TRACE },
    [OPTIONS_ID_VTHREADS] = { "vthreads", OPTIONS_KIND_BOOL, "y|n", "y", NULL,
                              "trace=thread: virtual threads' starts and ends too (n: only platform threads')",
                              OPTIONS_TABLE_AT(vthreads), .owner = OPTIONS_FOR_TRACE },
    [OPTIONS_ID_PLUGIN] = { "plugin", OPTIONS_KIND_PATH, "<lib.so>[:<args>]", NULL, "none",
                            "trace=: a library that gets every event (include/jvmprof/plugin.h)",
                            OPTIONS_TABLE_AT(plugin), .owner = OPTIONS_FOR_TRACE },
    [OPTIONS_ID_NET] = { "net", OPTIONS_KIND_ENDPOINT, "<host>:<port>", NULL, "off",
                         "also stream the outputs (report, flame graph, trace) to a jvmprof serve there",
                         OPTIONS_TABLE_AT(net), .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_CSTACK] = { "cstack", OPTIONS_KIND_ENUM, "mixed|native|java", "native", NULL,
                            "samples: native (C/C++) frames too; mixed: and the kernel's (default with event=)",
                            OPTIONS_TABLE_AT(cstack), .choices = options_table_cstack, .owner = OPTIONS_FOR_CPU_SAMPLES },
    [OPTIONS_ID_THREADS] = { "threads", OPTIONS_KIND_ENUM, "java|all", "java", NULL,
                             "cpu=samples: Java threads, or the JVM's own too (GC, JIT, VM)",
                             OPTIONS_TABLE_AT(threads_all), .choices = options_table_threads,
                             .owner = OPTIONS_FOR_CPU_SAMPLES },
    [OPTIONS_ID_EVENT] = { "event", OPTIONS_KIND_NAME,
                           "cpu|<perf event>|<sys>:<tracepoint>|<function>",
                           "cpu", NULL, "cpu=samples: a sample every interval= such events",
                           OPTIONS_TABLE_AT(event), .owner = OPTIONS_FOR_CPU_SAMPLES },
    [OPTIONS_ID_RECORD] = { "record", OPTIONS_KIND_BOOL, "y|n", "n", NULL,
                            "keep recent samples, waits, allocations with their times (dump --last)",
                            OPTIONS_TABLE_AT(record), .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_MAXAGE] = { "maxage", OPTIONS_KIND_DURATION, "1s..24h (ns, us, ms, s, m, h)", "10m", NULL,
                            "record=y: how far back the recording reaches", OPTIONS_TABLE_AT(maxage_ns),
                            1000000000ul, 86400000000000ul, .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_MAXSIZE] = { "maxsize", OPTIONS_KIND_SIZE, "512k..64g (k, m, g: KiB, MiB, GiB)", "32m", NULL,
                             "record=y: the recording's memory at most", OPTIONS_TABLE_AT(maxsize),
                             512ul << 10, 64ul << 30, .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_TRIGGER] = { "trigger", OPTIONS_KIND_EVENTS, "oom|quit|cpu|slow|all", NULL, "off",
                             "record=y: dump the recording on OutOfMemoryError, SIGQUIT, CPU, slow calls",
                             OPTIONS_TABLE_AT(triggers), .choices = options_table_triggers,
                             .owner = OPTIONS_FOR_GENERAL },
    /* no default value: file='s name with -trigger-%n before its extension (options_rules.c) */
    [OPTIONS_ID_TRIGGER_FILE] = { "trigger_file", OPTIONS_KIND_PATH, "<file>", NULL, "from file=",
                                  "trigger=: each dump's file; %p = process id, %n = the dump's number",
                                  OPTIONS_TABLE_AT(trigger_file), .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_TRIGGER_INTERVAL] = { "trigger_interval", OPTIONS_KIND_DURATION, "1s..24h (ms, s, m, h)", "1m", NULL,
                                      "trigger=: at most one dump per trigger in this time",
                                      OPTIONS_TABLE_AT(trigger_interval_ns), 1000000000ul, 86400000000000ul,
                                      .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_CPU_ABOVE] = { "cpu_above", OPTIONS_KIND_PERCENT, "1..100000 (% of one core)", "80%", NULL,
                               "trigger=cpu: the process's CPU, in % of one core (200% = 2 cores)",
                               OPTIONS_TABLE_AT(cpu_above), 1, 100000, .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_CPU_FOR] = { "cpu_for", OPTIONS_KIND_DURATION, "1s..1h (ms, s, m, h)", "10s", NULL,
                             "trigger=cpu: for how long the CPU stays above cpu_above=", OPTIONS_TABLE_AT(cpu_for_ns),
                             1000000000ul, 3600000000000ul, .owner = OPTIONS_FOR_GENERAL },
    [OPTIONS_ID_UPLOAD] = { "upload", OPTIONS_KIND_URL, "http://<host>[:<port>][/<path>]", NULL, "off",
                            "a pprof profile per interval to Pyroscope (implies record=y)",
                            OPTIONS_TABLE_AT(upload), .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_UPLOAD_INTERVAL] = { "upload_interval", OPTIONS_KIND_DURATION, "1s..1h (ms, s, m, h)", "10s", NULL,
                                     "upload=: the interval each profile covers", OPTIONS_TABLE_AT(upload_interval_ns),
                                     1000000000ul, 3600000000000ul, .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_UPLOAD_APP] = { "upload_app", OPTIONS_KIND_APP, "<name>[{<key>=<value>+...}]", NULL, "main class",
                                "upload=: the application's name, with labels", OPTIONS_TABLE_AT(upload_app),
                                .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_UPLOAD_QUEUE] = { "upload_queue", OPTIONS_KIND_SIZE, "16k..1g (k, m, g: KiB, MiB, GiB)", "4m", NULL,
                                  "upload=: profiles waiting to be sent, at most (then the oldest go)",
                                  OPTIONS_TABLE_AT(upload_queue), 16ul << 10, 1ul << 30, .owner = OPTIONS_FOR_OUTPUT },
    [OPTIONS_ID_MSA] = { "msa", OPTIONS_KIND_LATER, "y|n", NULL, "n", "Solaris micro state accounting (not supported)",
                         .owner = OPTIONS_FOR_GENERAL },
};

_Static_assert(OPTIONS_ID_COUNT <= 64, "agent_options.given has one bit per option");

const char *options_default_text(const options_def *d) { return d->deflt ? d->deflt : d->unset; }

const char *options_owner_name(options_owner owner)
{
    static const char *const names[OPTIONS_FOR_COUNT] = {
        [OPTIONS_FOR_GENERAL] = "general",     [OPTIONS_FOR_OUTPUT] = "output",   [OPTIONS_FOR_CPU_SAMPLES] = "cpu-samples",
        [OPTIONS_FOR_WALL] = "wall",           [OPTIONS_FOR_MONITOR] = "monitor", [OPTIONS_FOR_TIMES] = "times",
        [OPTIONS_FOR_ALLOC] = "alloc",         [OPTIONS_FOR_HEAP_DUMP] = "heap-dump", [OPTIONS_FOR_TRACE] = "trace",
    };
    return (unsigned)owner < OPTIONS_FOR_COUNT ? names[owner] : "?";
}

const options_def *options_find(const char *name, size_t len)
{
    for (size_t i = 0; i < OPTIONS_ID_COUNT; i++)
        if (strlen(options_defs[i].name) == len && strncmp(options_defs[i].name, name, len) == 0)
            return &options_defs[i];
    return NULL;
}

void options_print_help(FILE *out)
{
    fprintf(out,
            "jvmprof: a profiler for the Java virtual machine, in HPROF's option syntax\n"
            "\n"
            "    java -agentpath:/path/to/libjvmprof.so=[help]|[<option>=<value>, ...]\n"
            "\n"
            "Option Name and Value  Description                                  Default\n"
            "---------------------  -----------                                  -------\n");
    for (size_t i = 0; i < OPTIONS_ID_COUNT; i++) {
        const options_def *d = &options_defs[i];
        char nv[64];
        if (d->kind == OPTIONS_KIND_WORD)
            snprintf(nv, sizeof nv, "%s", d->name);
        else
            snprintf(nv, sizeof nv, "%s=%s", d->name, d->values);
        fprintf(out, "%-22s %-44s %s\n", nv, d->what, options_default_text(d));
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
            "format=b carries wall=, cpu=times and monitor=y in records of jvmprof's own (HPROF's binary\n"
            "format had none for them); jvmprof report and jvmprof convert read them.\n"
            "cpu=times instruments classes loaded after VM init; it skips jvmprof's own classes and\n"
            "<clinit> of java.*/jdk.*/sun.*/com.sun.* classes. Straight-line leaves of <= 80 bytes of\n"
            "bytecode (no call, loop, switch, array allocation or lock: each call's time is bounded by\n"
            "their length) are counted exactly but not timed (their time is their callers'): CALLS\n"
            "COUNTED. tiny=N also counts the loop-free methods of <= N bytes that make calls (their time\n"
            "and their counted callees' go to the caller, without a bound: a recursion of them\n"
            "disappears into its caller); tiny=0 times every method.\n"
            "include=/exclude= narrow it by class-name prefix (exclude wins).\n"
            "trace= writes events one by one, in time order, to tracefile= (read it with jvmprof trace):\n"
            "exec (every entry and exit of the instrumented methods; exec:light: entries), mem (garbage\n"
            "collections, young or full, with the heap used, and the deaths of the objects the trace\n"
            "named; mem:light: collections), alloc (every allocation), thread, class (loads, unloads),\n"
            "monitor (contention, waits), user (jvmprof.Control.userEvent), probe (com.sun.tracing probes\n"
            "fired), all; joined by '+'.\n"
            "include=/exclude= apply to exec; mintime=10ms keeps only calls of at least 10 ms, each as one\n"
            "whole-call event. Alone, trace= writes no report.\n"
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
            "alloc_count=site counts every allocation exactly per site (method and line, class) with a\n"
            "count injected after each allocating instruction (javac ran 1.06x as long), and samples\n"
            "the callers of each site every alloc_interval= bytes.\n"
            "lifetimes=y adds ages at death, leak suspects and churn.\n"
            "heap=all = heap=sites + heap=dump: the SITES report, then the HEAP DUMP, in one ASCII file.\n"
            "Options are also read from the environment variable JVMPROF_OPTIONS (appended). Each option is\n"
            "given once, except heap= (heap=sites,heap=dump = heap=all); interval= is cpu=samples' period.\n"
            "Output is written at exit (doe=y) and whenever the JVM gets SIGQUIT (kill -QUIT <pid>).\n"
            "record=y keeps the last maxage= of samples with their times; trigger= dumps them by itself to\n"
            "trigger_file= (numbered by %%n) on OutOfMemoryError (oom), SIGQUIT (quit: instead of the\n"
            "session's report), the process's CPU above cpu_above= (%% of one core) for cpu_for= (cpu), or a\n"
            "call slower than trace=exec's mintime= (slow); joined by '+', at most one dump per trigger\n"
            "per trigger_interval=, each with one line on stderr.\n"
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
            "    java -agentpath:libjvmprof.so=heap=sites,alloc_interval=0,lifetimes=y Main   (exact)\n"
            "    java -agentpath:libjvmprof.so=heap=sites,alloc_count=site,depth=8 Main   (exact per site)\n"
            "    java -agentpath:libjvmprof.so=cpu=samples,heap=sites,record=y,trigger=oom+cpu,cpu_above=150%% Main\n");
}
