/* main.c — the jvmprof command: reads the files the agent writes and prints
 * reports. It reuses the model and the writers, so a format is produced by one
 * piece of code whether the agent or this command writes it.
 * This file dispatches and prints the version and the agent's options; the
 * usage of every subcommand is in one table (cli_usage.c), printed whole by
 * --help and one at a time by `jvmprof SUBCOMMAND --help`. Each subcommand is
 * one file, cli_<name>.c (cli_commands.h), using the messages, argument
 * parser and output of cli_common.c. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../options/options.h"
#include "cli_commands.h"
#include "cli_common.h"
#include "cli_usage.h"

/* true if an argument after the subcommand asks for its usage */
static bool main_wants_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage_print_all(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || (strcmp(cmd, "help") == 0 && argc == 2)) {
        cli_usage_print_all(stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) { /* help SUBCOMMAND; help --help: help's own */
        const char *name = main_wants_help(argc, argv) ? "help" : argv[2];
        const cli_usage *u = cli_usage_of(name);
        if (!u) {
            char names[512];
            cli_usage_names(names, sizeof names);
            cli_error("help: unknown command '%s'; expected %s", name, names);
            return 2;
        }
        cli_usage_print(stdout, u);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0)
        cmd = "version";
    const cli_usage *u = cli_usage_of(cmd);
    if (u && main_wants_help(argc, argv)) {
        cli_usage_print(stdout, u);
        return 0;
    }
    if (strcmp(cmd, "version") == 0) {
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
    char names[512];
    cli_usage_names(names, sizeof names);
    cli_error("unknown command '%s'; expected %s (jvmprof --help says what each does)", cmd, names);
    return 2;
}
