/* cli_commands.h — the subcommands of the jvmprof command, one file each
 * (cli_<name>.c); main.c dispatches to them. Each takes the arguments after
 * its name and returns the exit code: 0, 1 when the input or the output
 * failed, 2 for a usage error, each failure said in one line on stderr. */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

int cli_report(int argc, char **argv);   /* cli_report.c: HPROF binary -> HPROF ASCII report */
int cli_flame(int argc, char **argv);    /* cli_flame.c: HPROF binary or collapsed stacks -> HTML flame graph */
int cli_collapse(int argc, char **argv); /* cli_flame.c: HPROF binary (or collapsed stacks) -> collapsed stacks */
int cli_diff(int argc, char **argv);     /* cli_flame.c: two of those -> a differential HTML flame graph */
int cli_heap(int argc, char **argv);     /* cli_heap.c: HPROF heap dump -> class histogram, ASCII dump, --fix */
int cli_trace(int argc, char **argv);    /* cli_trace.c: trace file -> one event per line, in time order */
/* cli_attach.c: a running JVM's agent: start, stop, dump, reset, status, heapdump (command), collect, list */
int cli_attach(const char *command, int argc, char **argv);
int cli_collect(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_convert(int argc, char **argv);  /* cli_convert.c: HPROF binary -> pprof */    /* cli_serve.c: the front end of the agent's net= */

#endif
