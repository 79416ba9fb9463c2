/* main.c — the jvmprof command: reads the files the agent writes and prints
 * reports. It reuses the model and the writers, so a format is produced by one
 * piece of code whether the agent or this command writes it.
 *   jvmprof report FILE [--cutoff X] [-o OUT]   HPROF binary -> HPROF ASCII report
 *   jvmprof flame FILE [-o OUT] [--title T]     HPROF binary or collapsed stacks -> HTML flame graph
 *   jvmprof collapse FILE [-o OUT]              HPROF binary (or collapsed stacks) -> collapsed stacks
 *   jvmprof heap FILE [--top N] [--text] [-o OUT]  HPROF heap dump -> class histogram (or ASCII dump)
 *   jvmprof heap FILE --fix                      null the references to objects the dump left out
 *   jvmprof trace FILE [-o OUT] [filters]        trace file -> one event per line, in time order
 *   jvmprof options                             the agent's options (its help)
 *   jvmprof version | --help
 * This file dispatches and prints the usage, the version and the agent's
 * options; each subcommand is one file, cli_<name>.c (cli_commands.h), using
 * the messages, argument parser and output of cli_common.c. */
#include <stdio.h>
#include <string.h>

#include "../options/options.h"
#include "cli_commands.h"
#include "cli_common.h"

static void cli_usage(FILE *out)
{
    fprintf(out,
            "usage: jvmprof <command> [arguments]\n"
            "\n"
            "commands:\n"
            "  report FILE [--cutoff X] [-o OUT]   print the HPROF ASCII report of an HPROF binary file\n"
            "                                      (written by the agent with format=b); OUT defaults to stdout\n"
            "  flame FILE [-o OUT] [--title T]     an interactive flame graph (one self-contained HTML page) of\n"
            "                                      an HPROF binary file or of collapsed stacks (ours, async-\n"
            "                                      profiler's, flamegraph.pl input); OUT defaults to stdout\n"
            "  collapse FILE [-o OUT]              the collapsed stacks (\"root;...;leaf count\" lines, for\n"
            "                                      flamegraph.pl or speedscope) of an HPROF binary file\n"
            "  heap FILE [--top N] [-o OUT]        the class histogram (instances, shallow bytes) of an HPROF\n"
            "                                      heap dump (jcmd PID GC.heap_dump, ...); N rows, default 30,\n"
            "                                      0 = all. Shallow bytes: 16-byte header + fields as dumped;\n"
            "                                      arrays 20 + elements; rounded up to 8. --text: the whole dump\n"
            "                                      as HPROF's ASCII HEAP DUMP (ROOT/CLS/OBJ/ARR lines) instead\n"
            "  heap FILE --fix                     sets to null, in FILE itself, every reference to an object\n"
            "                                      the dump does not hold (JDK 17's own dumps leave out the\n"
            "                                      objects class data sharing archived, and keep ~800 such\n"
            "                                      references); prints how many it changed\n"
            "  trace FILE [-o OUT] [--chrome | --slowest N] [--thread N] [--type T,...] [--method S]\n"
            "        [--from SEC] [--to SEC]\n"
            "                                      a trace file (trace=) as text: one event per line, every\n"
            "                                      thread merged in time order, filtered by thread number, event\n"
            "                                      type, method name part and time window (seconds); --chrome:\n"
            "                                      Chrome's Trace Event Format (JSON) for Perfetto, speedscope;\n"
            "                                      --slowest N: the N slowest calls with their callers\n"
            "\n"
            "a running JVM (HotSpot's attach mechanism; the JVM's own user, also in a container):\n"
            "  list                                the JVMs here: pid, whether jvmprof is loaded or profiling,\n"
            "                                      main class or jar\n"
            "  start PID OPTIONS                   load the agent if needed and start profiling with OPTIONS\n"
            "                                      (the agent's options; relative output files are made\n"
            "                                      relative to this directory)\n"
            "  stop PID                            stop profiling and write the report\n"
            "  dump PID [FILE]                     write the report now (to FILE: only the report, there) and\n"
            "                                      go on profiling\n"
            "  reset PID                           discard what was collected so far\n"
            "  status PID                          what runs, since when, and the counts so far\n"
            "  heapdump PID FILE                   write a heap dump (HPROF binary)\n"
            "  collect PID -d SECONDS [OPTIONS]    start, wait SECONDS, stop (default: a report and a flame\n"
            "                                      graph, jvmprof-PID.txt and jvmprof-PID.html, here)\n"
            "  serve --listen [HOST:]PORT [--dir DIR] [--once]\n"
            "                                      the front end of the agent's net=HOST:PORT: writes what each\n"
            "                                      JVM streams into DIR/HOST-PID/ (HOST: 127.0.0.1 if not\n"
            "                                      given; --once: stop after the first JVM is done)\n"
            "\n"
            "  diff BEFORE AFTER [-o OUT] [--title T]\n"
            "                                      a differential flame graph: AFTER's stacks, each frame coloured\n"
            "                                      by how its share changed since BEFORE (red grew, blue shrank)\n"
            "  convert FILE --pprof|--jfr|--txt|--collapsed|--flame OUT\n"
            "                                      an HPROF binary report (format=b) or collapsed stacks in another\n"
            "                                      format: pprof (gzipped profile.proto), JFR, the HPROF ASCII\n"
            "                                      report, collapsed stacks, a flame graph; says what it drops;\n"
            "                                      a trace file (trace=) --jfr: its timed events\n"
            "  options                             the agent's options, values and defaults\n"
            "  version                             print the version\n"
            "  help, --help                        this text\n"
            "\n"
            "The agent itself is loaded by the JVM:\n"
            "  java -agentpath:/path/to/libjvmprof.so=cpu=samples,file=out.txt MyMain\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("jvmprof %s\n", JP_VERSION);
        return 0;
    }
    if (strcmp(cmd, "options") == 0) {
        options_print_help(stdout);
        return 0;
    }
    if (strcmp(cmd, "report") == 0)
        return cli_report(argc - 2, argv + 2);
    static const char *const attach_commands[] = { "start", "stop", "dump", "reset", "status", "heapdump" };
    for (size_t i = 0; i < sizeof attach_commands / sizeof attach_commands[0]; i++)
        if (strcmp(cmd, attach_commands[i]) == 0)
            return cli_attach(cmd, argc - 2, argv + 2);
    if (strcmp(cmd, "collect") == 0)
        return cli_collect(argc - 2, argv + 2);
    if (strcmp(cmd, "list") == 0)
        return cli_list(argc - 2, argv + 2);
    if (strcmp(cmd, "serve") == 0)
        return cli_serve(argc - 2, argv + 2);
    if (strcmp(cmd, "convert") == 0)
        return cli_convert(argc - 2, argv + 2);
    if (strcmp(cmd, "diff") == 0)
        return cli_diff(argc - 2, argv + 2);
    if (strcmp(cmd, "flame") == 0)
        return cli_flame(argc - 2, argv + 2);
    if (strcmp(cmd, "collapse") == 0)
        return cli_collapse(argc - 2, argv + 2);
    if (strcmp(cmd, "heap") == 0)
        return cli_heap(argc - 2, argv + 2);
    if (strcmp(cmd, "trace") == 0)
        return cli_trace(argc - 2, argv + 2);
    cli_error("unknown command '%s'; expected report, flame, collapse, heap, trace, options, version or help",
            cmd);
    return 2;
}
