/* options.h — the agent's options in HPROF's syntax
 * (`cpu=samples,interval=10,depth=8,file=out.txt`): one table drives the
 * parser, the validation and the `help` text. Pure C (the CLI prints the
 * same help). A bad option gives one line naming it and what is accepted. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/jp_error.h"

#define OPTIONS_PATH_MAX 4096

typedef enum options_cpu { OPTIONS_CPU_OFF = 0, OPTIONS_CPU_SAMPLES, OPTIONS_CPU_TIMES } options_cpu;

#define OPTIONS_PREFIXES_MAX 1024

/* Who takes cpu=samples' stacks: a signal handler with AsyncGetCallTrace on
 * each thread's CPU timer (no safepoint bias), or JVMTI GetStackTrace. */
typedef enum options_sampler { OPTIONS_SAMPLER_ASYNC = 0, OPTIONS_SAMPLER_JVMTI } options_sampler;

typedef struct agent_options {
    bool help;
    options_cpu cpu;
    bool monitor;
    unsigned interval_ms;
    unsigned depth;
    char format;                      /* 'a' or 'b' */
    bool format_named;
    bool heap_dump;                   /* heap=dump: HPROF heap dumps to file= (%n: dump sequence number) */
    bool heap_sites;                  /* heap=sites: allocation sites, sampled */
    char dumper;                      /* heap=dump: 'h' HotSpot's dumper + fix-up (default), 'j' JVMTI's heap walk */
    bool dumper_named;
    uint64_t alloc_interval;          /* heap=sites: mean bytes between sampled allocations */
    bool alloc_interval_named;
    bool lifetimes;                   /* heap=sites: ages at death, leak suspects, churn */
    char alloc_hook;                  /* alloc_interval=0: 's' JVMTI's sampler at 0, 'b' bytecode instrumentation */
    bool alloc_hook_named;
    double cutoff;
    bool lineno, thread, doe, verbose, force;
    char file[OPTIONS_PATH_MAX];      /* %p expanded */
    /* cpu=times: ':'-separated dotted class-name prefixes to instrument only /
     * never ("" = no rule); '/' in the option is taken as '.' */
    char include[OPTIONS_PREFIXES_MAX], exclude[OPTIONS_PREFIXES_MAX];
    unsigned tiny;                    /* cpu=times: loop-free methods of <= tiny bytes are skipped */
    bool tiny_named;
    options_sampler sampler;
    bool sampler_named;
    unsigned wall_ms;                 /* wall-clock sampling period, 0 = off */
    char flame[OPTIONS_PATH_MAX];     /* HTML flame graph written with each dump ("" = none) */
    char collapsed[OPTIONS_PATH_MAX]; /* collapsed stacks written with each dump ("" = none) */
} agent_options;

/* True when stacks are sampled by the signal handler (cpu=samples with
 * sampler=async, or wall=). */
bool options_async_sampling(const agent_options *o);
/* True for heap=sites,alloc_interval=0 (every allocation counted), and for
 * that with alloc_hook=bci (counted through the Tracker calls). */
bool options_alloc_exact(const agent_options *o);
bool options_alloc_bci(const agent_options *o);

/* Parses `text` (may be NULL or empty) for process `pid`. On error returns
 * JP_ERR_ARG and writes a one-line message (without "jvmprof: ") to err. */
jp_status options_parse(const char *text, long pid, agent_options *o, char *err, size_t errlen);
void options_print_help(FILE *out);

#endif
