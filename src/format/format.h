/* format.h — the output formats, each one ops table over a pure function of
 * (model, report options, sink). Writers never call JVMTI and never open
 * files: the agent and the CLI both hand them a sink. Also the HPROF serial
 * number bases (user-visible numbers are computed at write time from ids). */
#ifndef FORMAT_H
#define FORMAT_H

#include <stdbool.h>

#include "../common/jp_error.h"
#include "../model/model.h"
#include "sink.h"

enum {
    HPROF_SERIAL_CLASS = 100000,
    HPROF_SERIAL_THREAD = 200000,
    HPROF_SERIAL_TRACE = 300000,
    HPROF_SERIAL_FRAME = 500000,
};

typedef struct report_opts {
    double cutoff;        /* rows whose share is below this fraction are not printed */
    bool cpu_samples;     /* write the CPU SAMPLES section */
    bool monitor;         /* write the MONITOR TIME section */
    bool cpu_times;       /* write the CPU TIME (ms) section (ASCII only, as in HPROF) */
    bool sites;           /* write the SITES section (heap=sites) and the GC line / ALLOC SITES record */
    const char *title;    /* flame graph title; NULL = "CPU samples" or "Wall-clock samples" */
} report_opts;

/* The kinds of record a report can hold. Each format declares those it can
 * carry (test_formats checks the declarations). Both HPROF formats carry all
 * of them (format=b in records of jvmprof's own where HPROF had none), so
 * format= never refuses a profile; the other outputs say what they draw. */
enum {
    FMT_CPU_SAMPLES = 1,    /* cpu=samples */
    FMT_WALL_SAMPLES = 2,   /* wall= */
    FMT_CPU_TIMES = 4,      /* cpu=times */
    FMT_MONITORS = 8,       /* monitor=y */
    FMT_SITES = 16,         /* heap=sites */
};

typedef struct jp_format_ops {
    const char *name;
    const char *option;       /* how the agent's options ask for it: "format=a", "flame=" */
    const char *description;  /* "the HPROF binary format", for messages */
    unsigned records;         /* FMT_* it can carry */
    jp_status (*write)(const model *m, const report_opts *o, sink *s);
    /* what a file it wrote of m holds, for the log: "flame graph of 12 samples in 3 stacks" */
    void (*summary)(const model *m, char *out, size_t len);
} jp_format_ops;

/* formats.c: the summary of both HPROF formats' reports. */
void hprof_summary(const model *m, char *out, size_t len);
/* formats.c: every output format, in the order messages list them. */
extern const jp_format_ops *const jp_formats[];
extern const size_t jp_format_count;

extern const jp_format_ops hprof_txt_format;   /* format=a: java.hprof.txt */
extern const jp_format_ops hprof_bin_format;   /* format=b: java.hprof, JAVA PROFILE 1.0.2 */
/* The sampled-stack table (model_stack_*), full depth: */
extern const jp_format_ops collapsed_format;   /* "root;...;leaf count" lines (flamegraph.pl, speedscope) */
extern const jp_format_ops flame_html_format;  /* one self-contained HTML page: an interactive flame graph */
/* flame_html.c: a differential flame graph (jvmprof diff): after's stacks drawn, each frame coloured by how
 * its share of the whole changed from before's same call path (red: grew, blue: shrank); title NULL: the
 * default. */
jp_status flame_html_write_diff(const model *after, const model *before, const char *title, sink *s);
/* The traces' counts (as the HPROF report has them): */
extern const jp_format_ops pprof_format;       /* profile.proto, gzipped (go tool pprof, Pyroscope, Parca) */
extern const jp_format_ops jfr_format;         /* a JDK Flight Recorder file (jfr, JDK Mission Control) */
/* A JFR file has an event for each CPU sample (JFR's samples carry no count): jfr_format refuses a model
 * of more (JP_ERR_ARG), as a report's counts, 4-byte numbers, could ask for billions of events. */
#define JFR_SAMPLES_MAX 10000000u
/* jfr.c: a trace file (trace=) as a JDK Flight Recorder file: its collections, thread starts and ends, CPU
 * samples, allocations and monitor waits, timed. JP_ERR_FORMAT (why) if data is no trace. */
jp_status jfr_write_trace(const void *data, size_t len, sink *s, char *why, size_t cap);

/* stack_walk.c: the frames a flame graph shows for a stack, root first: a
 * thread frame "[name]" when the stack is per thread, the stack's frames
 * outermost first, a state frame "[sleeping]" when samples are wall-clock;
 * a lone "<empty>" frame (a method frame with method id 0) when that leaves
 * nothing. Both flame graph writers use it, so they show the same frames. */
/* after the frame_kind values (0..6); 7 is the flame graph's root; CLASS: the
 * class an allocation stack's top frame allocated (ref: its class id) */
enum { COLLAPSED_KIND_CLASS = 8, COLLAPSED_KIND_THREAD = 9, COLLAPSED_KIND_STATE = 10 };
typedef struct collapsed_frame {
    uint32_t kind;        /* a frame_kind, or COLLAPSED_KIND_THREAD / _STATE */
    uint32_t ref;         /* method id, thread serial or sample_state */
} collapsed_frame;
/* Fills out[] (room for st->nframes + 2) and returns the count (>= 1). */
uint32_t collapsed_frames(const model *m, const model_stack *st, collapsed_frame *out);
/* stack_walk.c: calls fn for every stack with samples, with its frames as
 * collapsed_frames gives them (valid during the call) and its count; stops at
 * the first status fn returns that is not JP_OK, and returns it. */
typedef jp_status (*stack_walk_fn)(const collapsed_frame *frames, uint32_t n, uint64_t samples, void *ctx);
jp_status stack_walk(const model *m, stack_walk_fn fn, void *ctx);
/* collapsed.c: appends the frame's name without kind suffix: "pkg.Class.method" (just
 * "method" when the class name is empty; a native frame, CPP or KERNEL: the bare
 * symbol, its library not named), "[thread name]" ("[thread N]" when
 * the thread is unknown), "[state]". ';' and line breaks become '_'. */
void collapsed_frame_name(const model *m, collapsed_frame f, buf *out);
/* "_[j]" (JIT), "_[i]" (inlined), "_[0]" (interpreted), "_[n]" (native method), "_[k]" (kernel),
 * "" otherwise (C/C++ frames too, as flamegraph.pl and async-profiler write them). */
const char *collapsed_kind_suffix(uint32_t kind);

/* collapsed_read.c: parses collapsed stacks (ours, async-profiler's,
 * flamegraph.pl input) into a fresh model's stack table: "[x]" root frames
 * become threads, known "[state]" leaf frames states (and set m->wall), kind
 * suffixes frame kinds. On error returns NULL and fills errbuf with a
 * one-line reason naming the line. */
model *collapsed_read(const void *data, size_t len, char *errbuf, size_t errlen);

/* trace_stacks.c: fills the (empty) stack table of a model read from HPROF
 * from its traces and their CPU samples, so HPROF files get flame graphs. */
jp_status trace_stacks_build(model *m);
/* site_stacks.c: replaces the counts of the model's stack table with its
 * allocation sites: each site's trace (cut to depth=) under its allocated
 * class, counted in bytes allocated (estimates when sampled); the model's
 * stacks_alloc is set, and flame graphs and collapsed stacks draw them. */
jp_status site_stacks_build(model *m);

/* site_rows.c: the allocation sites by live bytes, then allocated bytes,
 * those whose share of either reaches the cutoff. rows has room for
 * model_site_count(m); returns how many were kept; *total gets the sums
 * over all sites. */
typedef struct site_row { uint32_t site; double live_bytes, alloc_bytes; } site_row;
typedef struct site_totals { double live_bytes, alloc_bytes, live_objs, alloc_objs; } site_totals;
uint32_t site_rows(const model *m, double cutoff, site_row *rows, site_totals *total);
/* The same, of the sampled sites only: alloc_count=site's callers, whose
 * objects lifetimes=y follows (the counted sites know no deaths). */
uint32_t site_rows_sampled(const model *m, double cutoff, site_row *rows, site_totals *total);
/* alloc_count=site: each row's sampled callers (model_sites_callers), by
 * their share of the row's sampled bytes, largest first, those of at least
 * cutoff; NULL when out of memory. */
typedef struct site_caller { site_id site; double share; /* percent */ } site_caller;
typedef struct site_callers { uint32_t n; site_caller *at; } site_callers;
site_callers *site_callers_of(const model *m, const site_row *rows, uint32_t n, double cutoff);
void site_callers_free(site_callers *c, uint32_t n);
/* A site's count (an estimate with sampling) as the whole number reports print. */
static inline unsigned long long site_count(double v) { return v <= 0 ? 0ull : (unsigned long long)(v + 0.5); }

/* method_rows.c: the per-method view: for each method in a trace with a
 * count, its self (the traces it tops) and total (every trace it is in,
 * once each), of the CPU or wall samples, or with times of cpu=times' time
 * in ns (and calls: those of the traces it tops). rows has room for the
 * model's methods; returns how many, by self then total, largest first, or
 * UINT32_MAX when out of memory. */
typedef struct method_row { uint32_t method; uint64_t self, total, calls; } method_row;
uint32_t method_rows(const model *m, bool times, method_row *rows);
/* The METHODS section of the ASCII report (and of jvmprof report --methods):
 * the rows whose self or total share reaches cutoff, ranked by self, at most
 * top (0: all), of classes whose dotted name starts with prefix (NULL: any).
 * The accum column adds every method's self share up to the row, shown or
 * not. */
typedef struct method_filter {
    double cutoff;
    unsigned long top;
    const char *prefix;
} method_filter;
jp_status method_rows_write(const model *m, bool times, const method_filter *f, const char *when, sink *s);
/* The CALLS COUNTED section: cpu=times' methods counted but not timed, by
 * calls, those whose share of all counted calls reaches cutoff (same
 * filter); a method is named with its descriptor (bridges share names). */
jp_status counted_rows_write(const model *m, const method_filter *f, const char *when, sink *s);
/* hprof_txt.c: a time (ms since the epoch) as the ASCII report prints it: "Mon Nov 23 22:24:57 2026". */
void hprof_txt_time(uint64_t ms, char out[64]);

/* hprof_bin_read.c: parses an HPROF binary file into a fresh model. Fills
 * *o with what the file holds (cpu_samples when it had a CPU SAMPLES record).
 * On error returns NULL and fills errbuf with a one-line reason. */
model *hprof_bin_read(const void *data, size_t len, report_opts *o, char *errbuf, size_t errlen);

#endif
