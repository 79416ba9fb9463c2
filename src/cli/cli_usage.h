/* cli_usage.h — the usage of the jvmprof command and of each subcommand, in
 * one table (cli_usage.c): `jvmprof --help` prints them all, `jvmprof
 * SUBCOMMAND --help` (or -h, or `jvmprof help SUBCOMMAND`) one, and the
 * unknown-command message names them all. */
#ifndef CLI_USAGE_H
#define CLI_USAGE_H

#include <stdio.h>

typedef struct cli_usage {
    const char *name;     /* "trace" */
    const char *synopsis; /* its arguments: "FILE [-o OUT] ..." ("" for none) */
    const char *text;     /* what it does, lines of at most 80 columns, each ending in '\n' */
} cli_usage;

/* The usage of subcommand NAME, or NULL if there is no such subcommand. */
const cli_usage *cli_usage_of(const char *name);

/* "usage: jvmprof NAME SYNOPSIS", then its text, to OUT. */
void cli_usage_print(FILE *out, const cli_usage *u);

/* The whole usage: every subcommand, its synopsis and its text. */
void cli_usage_print_all(FILE *out);

/* Writes "report, flame, ..., version or help" (every subcommand) into BUF. */
void cli_usage_names(char *buf, size_t cap);

#endif
