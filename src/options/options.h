/* options.h — jvmprof's options in HPROF's syntax
 * (`cpu=samples,interval=10,depth=8,file=out.txt`). One table (options_defs)
 * holds each option's name, kind, accepted values, default, help text, the
 * field it sets, its range and the collector or output it belongs to; the
 * parser, the defaults, `help` and `jvmprof options` all read it. Pure C: the
 * agent, the CLI and the unit tests link it. A bad option gives one line
 * naming it and what is accepted. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/jp_error.h"

#define OPTIONS_PATH_MAX 4096
#define OPTIONS_NET_MAX 300       /* net=HOST:PORT, NUL included */

typedef enum options_cpu { OPTIONS_CPU_OFF = 0, OPTIONS_CPU_SAMPLES, OPTIONS_CPU_TIMES } options_cpu;

#define OPTIONS_PREFIXES_MAX 1024

/* Who takes cpu=samples' stacks: a signal handler with AsyncGetCallTrace on
 * each thread's CPU timer (no safepoint bias), or JVMTI GetStackTrace. */
typedef enum options_sampler { OPTIONS_SAMPLER_ASYNC = 0, OPTIONS_SAMPLER_JVMTI } options_sampler;

/* cstack=: the frames of a sample besides Java's: native code (C/C++ of the
 * JVM, libc, JNI libraries) above the Java frames, and the kernel's on top */
typedef enum options_cstack { OPTIONS_CSTACK_MIXED = 0, OPTIONS_CSTACK_NATIVE, OPTIONS_CSTACK_JAVA } options_cstack;

#define OPTIONS_EVENT_MAX 64      /* event=NAME, NUL included */

/* trace=: the classes of events traced */
enum {
    OPTIONS_TRACE_ENTRY = 1,      /* exec, exec:light: method entries */
    OPTIONS_TRACE_EXIT = 2,       /* exec: and exits */
    OPTIONS_TRACE_THREAD = 4,     /* thread: starts and ends */
    OPTIONS_TRACE_USER = 8,       /* user: jvmprof.Control.userEvent */
    OPTIONS_TRACE_GC = 16,        /* mem, mem:light: collections */
    OPTIONS_TRACE_FREE = 32,      /* mem: and the deaths of the objects the trace named */
    OPTIONS_TRACE_ALLOC = 64,     /* alloc: every allocation */
    OPTIONS_TRACE_CLASS = 128,    /* class: loads and unloads */
    OPTIONS_TRACE_MONITOR = 256,  /* monitor: contention and waits */
    OPTIONS_TRACE_PROBE = 512,    /* probe: com.sun.tracing probes fired */
    OPTIONS_TRACE_ALL = 1023,
};

/* trigger=: what dumps record=y's recording by itself (triggers.h) */
enum {
    OPTIONS_TRIGGER_OOM = 1,      /* oom: the JVM threw OutOfMemoryError (JVMTI ResourceExhausted) */
    OPTIONS_TRIGGER_QUIT = 2,     /* quit: SIGQUIT (kill -QUIT), instead of the whole session's report */
    OPTIONS_TRIGGER_CPU = 4,      /* cpu: the process's CPU above cpu_above= for cpu_for= */
    OPTIONS_TRIGGER_SLOW = 8,     /* slow: a call of trace=exec slower than mintime= */
    OPTIONS_TRIGGER_ALL = 15,
};

/* Every option, in the order help lists them: the index of its row in
 * options_defs and its bit in agent_options.given. */
typedef enum options_id {
    OPTIONS_ID_HELP,
    OPTIONS_ID_CPU,
    OPTIONS_ID_MONITOR,
    OPTIONS_ID_FORMAT,
    OPTIONS_ID_FILE,
    OPTIONS_ID_DEPTH,
    OPTIONS_ID_INTERVAL,
    OPTIONS_ID_CUTOFF,
    OPTIONS_ID_LINENO,
    OPTIONS_ID_THREAD,
    OPTIONS_ID_DOE,
    OPTIONS_ID_RESET,
    OPTIONS_ID_FORCE,
    OPTIONS_ID_VERBOSE,
    OPTIONS_ID_SAMPLER,
    OPTIONS_ID_WALL,
    OPTIONS_ID_FLAME,
    OPTIONS_ID_COLLAPSED,
    OPTIONS_ID_PPROF,
    OPTIONS_ID_JFR,
    OPTIONS_ID_INCLUDE,
    OPTIONS_ID_EXCLUDE,
    OPTIONS_ID_TINY,
    OPTIONS_ID_HEAP,
    OPTIONS_ID_DUMPER,
    OPTIONS_ID_LIFETIMES,
    OPTIONS_ID_ALLOC_INTERVAL,
    OPTIONS_ID_ALLOC_HOOK,
    OPTIONS_ID_ALLOC_COUNT,
    OPTIONS_ID_TRACE,
    OPTIONS_ID_TRACEFILE,
    OPTIONS_ID_TRACELIMIT,
    OPTIONS_ID_MINTIME,
    OPTIONS_ID_RECEIVERS,
    OPTIONS_ID_VTHREADS,
    OPTIONS_ID_PLUGIN,
    OPTIONS_ID_NET,
    OPTIONS_ID_CSTACK,
    OPTIONS_ID_THREADS,
    OPTIONS_ID_EVENT,
    OPTIONS_ID_RECORD,
    OPTIONS_ID_MAXAGE,
    OPTIONS_ID_MAXSIZE,
    OPTIONS_ID_TRIGGER,
    OPTIONS_ID_TRIGGER_FILE,
    OPTIONS_ID_TRIGGER_INTERVAL,
    OPTIONS_ID_CPU_ABOVE,
    OPTIONS_ID_CPU_FOR,
    OPTIONS_ID_MSA,
    OPTIONS_ID_COUNT
} options_id;

typedef struct agent_options {
    bool help;
    options_cpu cpu;
    bool monitor;
    unsigned interval_ms;
    unsigned depth;
    char format;                      /* 'a' or 'b' */
    bool heap_dump;                   /* heap=dump: HPROF heap dumps to file= (%n: dump sequence number) */
    bool heap_sites;                  /* heap=sites: allocation sites, sampled */
    char dumper;                      /* heap=dump: 'h' HotSpot's dumper + fix-up (default), 'j' JVMTI's heap walk */
    bool dumper_named;                /* = options_given(o, OPTIONS_ID_DUMPER), kept for heap_dump*.c */
    uint64_t alloc_interval;          /* heap=sites: mean bytes between sampled allocations */
    bool lifetimes;                   /* heap=sites: ages at death, leak suspects, churn */
    char alloc_hook;                  /* alloc_interval=0: 's' JVMTI's sampler at 0, 'b' bytecode instrumentation */
    char alloc_count;                 /* heap=sites: 's' sampled (estimates), 'c' exact per site (counted in bytecode) */
    double cutoff;
    bool lineno, thread, doe, verbose, force;
    bool reset;                       /* each report holds what was counted since the one before */
    char file[OPTIONS_PATH_MAX];      /* %p expanded */
    /* cpu=times: ':'-separated dotted class-name prefixes to instrument only /
     * never ("" = no rule); '/' in the option is taken as '.' */
    char include[OPTIONS_PREFIXES_MAX], exclude[OPTIONS_PREFIXES_MAX];
    unsigned tiny;                    /* cpu=times: loop-free methods of <= tiny bytes are skipped */
    options_sampler sampler;
    unsigned wall_ms;                 /* wall-clock sampling period, 0 = off */
    char flame[OPTIONS_PATH_MAX];     /* HTML flame graph written with each dump ("" = none) */
    char collapsed[OPTIONS_PATH_MAX]; /* collapsed stacks written with each dump ("" = none) */
    char pprof[OPTIONS_PATH_MAX];     /* the report as a gzipped pprof profile, with each dump ("" = none) */
    char jfr[OPTIONS_PATH_MAX];       /* the report as a JDK Flight Recorder file, with each dump ("" = none) */
    unsigned trace;                   /* trace=: OPTIONS_TRACE_* */
    char tracefile[OPTIONS_PATH_MAX]; /* trace=: the trace file, %p expanded */
    uint64_t tracelimit;              /* trace=: stop writing before this many bytes (0: no limit) */
    uint64_t mintime_ns;              /* trace=exec: keep only calls at least this long, as whole calls (0: all) */
    bool receivers;                   /* trace=exec: an instance method's entry names its receiver */
    bool vthreads;                    /* trace=thread: virtual threads' starts and ends too */
    char plugin[OPTIONS_PATH_MAX];    /* trace=: PATH[:ARGS] of a plugin library ("" = none) */
    char net[OPTIONS_NET_MAX];        /* net=: HOST:PORT of a jvmprof serve to stream the outputs to ("" = none) */
    options_cstack cstack;            /* cpu=samples, wall=: native and kernel frames (mixed), native only, or Java only */
    bool threads_all;                 /* threads=all: cpu=samples also samples the JVM's own threads (GC, compilers, VM) */
    char event[OPTIONS_EVENT_MAX];    /* event=: what cpu=samples samples on ("cpu": each thread's CPU clock) */
    bool record;                      /* record=y: recent events with their times in a ring (recording.h) */
    uint64_t maxage_ns;               /* record=y: keep events this long */
    uint64_t maxsize;                 /* record=y: the ring's memory at most */
    unsigned triggers;                /* trigger=: OPTIONS_TRIGGER_* (0: none) */
    char trigger_file[OPTIONS_PATH_MAX]; /* trigger=: each dump's file, %p expanded, %n its number */
    uint64_t trigger_interval_ns;     /* trigger=: at most one dump per trigger in this time */
    unsigned cpu_above;               /* trigger=cpu: percent of one core (250 = two cores and a half) */
    uint64_t cpu_for_ns;              /* trigger=cpu: how long the CPU stays above cpu_above= */
    uint64_t given;                   /* bit 1 << options_id: the option was named (not defaulted) */
} agent_options;

/* What kind of value an option takes; each kind has one parser. */
typedef enum options_kind {
    OPTIONS_KIND_WORD,     /* a bare word without a value (help) */
    OPTIONS_KIND_BOOL,     /* y|n */
    OPTIONS_KIND_UINT,     /* a decimal integer min..max */
    OPTIONS_KIND_DOUBLE,   /* a number 0..1 */
    OPTIONS_KIND_ENUM,     /* one of choices[] */
    OPTIONS_KIND_PATH,     /* a file name; %p = process id, %% = % */
    OPTIONS_KIND_PREFIXES, /* ':'-separated class-name prefixes */
    OPTIONS_KIND_SIZE,     /* bytes min..max, with k, m, g */
    OPTIONS_KIND_DURATION, /* a time min..max in ns, with ns, us, ms or s */
    OPTIONS_KIND_EVENTS,   /* trace=, trigger=: '+'-separated words (trigger=: of choices[]) */
    OPTIONS_KIND_PERCENT,  /* an integer min..max, '%' after it or not (cpu_above=) */
    OPTIONS_KIND_ENDPOINT, /* HOST:PORT ([IPv6]:PORT) */
    OPTIONS_KIND_NAME,     /* a name: letters, digits and _ : . - (event=) */
    OPTIONS_KIND_LATER     /* an HPROF option jvmprof does not have: refused with a message */
} options_kind;

/* The collector or output an option belongs to (the collector table answers
 * to these). GENERAL: the profile as a whole (what runs, stack shape). */
typedef enum options_owner {
    OPTIONS_FOR_GENERAL,
    OPTIONS_FOR_OUTPUT,
    OPTIONS_FOR_CPU_SAMPLES,
    OPTIONS_FOR_WALL,
    OPTIONS_FOR_MONITOR,
    OPTIONS_FOR_TIMES,
    OPTIONS_FOR_ALLOC,
    OPTIONS_FOR_HEAP_DUMP,
    OPTIONS_FOR_TRACE,
    OPTIONS_FOR_COUNT
} options_owner;

/* One accepted value of an ENUM option and what it stores; `refused` set =
 * a value HPROF had, refused with "name=value: <refused>". */
typedef struct options_choice {
    const char *text;
    int value;
    const char *refused;
} options_choice;

/* Row flags. MODE: turns a profile on, and naming any MODE option replaces
 * the default profile (cpu=samples) by what was named. REPEATS: may be given
 * more than once (heap= values add up; help). */
enum { OPTIONS_MODE = 1, OPTIONS_REPEATS = 2 };

typedef struct options_def {
    const char *name;
    options_kind kind;
    const char *values;              /* what is accepted, as shown in help and errors */
    const char *deflt;               /* the default, parsed like the user's text; NULL = none */
    const char *unset;               /* help's default column when deflt is NULL ("off", "none", ...) */
    const char *what;                /* help text */
    size_t at, size;                 /* the agent_options field it sets: offset + 1 (0 = none), size */
    unsigned long min, max;          /* UINT, SIZE */
    const options_choice *choices;   /* ENUM, ended by { NULL } */
    void (*store)(agent_options *o, int value); /* ENUM whose value is not one field (heap=) */
    options_owner owner;
    unsigned flags;                  /* OPTIONS_MODE | OPTIONS_REPEATS */
} options_def;

extern const options_def options_defs[OPTIONS_ID_COUNT];

/* The text help shows as d's default (its default value, or what "unset" means). */
const char *options_default_text(const options_def *d);
/* "general", "output", "cpu-samples", "wall", "monitor", "times", "alloc", "heap-dump". */
const char *options_owner_name(options_owner owner);
/* The row named name[0..len), or NULL. */
const options_def *options_find(const char *name, size_t len);

/* True when option id was named in the parsed text. */
bool options_given(const agent_options *o, options_id id);
/* True when stacks are sampled by the signal handler (cpu=samples with
 * sampler=async, or wall=). */
bool options_async_sampling(const agent_options *o);
/* True when cpu=samples samples on each thread's CPU clock (event=cpu, the default). */
bool options_event_is_cpu(const agent_options *o);
/* True for heap=sites,alloc_interval=0 (every allocation counted), and for
 * that with alloc_hook=bci (counted through the Tracker calls). */
bool options_alloc_exact(const agent_options *o);
bool options_alloc_bci(const agent_options *o);
/* True for heap=sites,alloc_count=site: exact counts per allocation site
 * (injected bytecode), the callers sampled. */
bool options_alloc_counted(const agent_options *o);

/* Parses `text` (may be NULL or empty) for process `pid`: the table's
 * defaults, then the text, then the cross-option rules. On error returns
 * JP_ERR_ARG and writes a one-line message (without "jvmprof: ") to err. */
jp_status options_parse(const char *text, long pid, agent_options *o, char *err, size_t errlen);
/* The one list the parser reads: the -agentpath options, then JVMPROF_OPTIONS
 * (either may be NULL or empty), joined by ',' when both have text. Returns
 * a malloc'ed string (the caller frees it), NULL when out of memory. */
char *options_join(const char *agentpath, const char *env);
void options_print_help(FILE *out);

/* The value parsers, shared with the CLI so that a value is judged by one
 * piece of code: a decimal integer min..max (no sign, no space), and a
 * number 0..1 (cutoff=, --cutoff). Return false when text is not one. */
bool options_parse_uint(const char *text, unsigned long min, unsigned long max, unsigned long *out);
bool options_parse_fraction(const char *text, double *out);

#endif
