/* options_rules.c — what holds between options, in one place: the defaults
 * that follow from other options (the profile when none is named, format=
 * for a heap dump, file= after format=), then the rules, one function each,
 * tried in the order of options_rules_table; the first that refuses gives the
 * message. Three sorts of rule: what can run together, what an option needs
 * to have any use, and what a format cannot hold (heap=all is one ASCII
 * file). */
#include "options_internal.h"

#include <stdarg.h>
#include <string.h>

/* Writes the refusal into err; returns true (the rule refuses). */
static bool options_rules_refuse(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool options_rules_refuse(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return true;
}

/* The defaults that depend on other options. */
/* trigger_file='s default, from file='s name: its %n made "trigger-%n" (app-%n.txt: app-trigger-%n.txt), or
 * else "-trigger-%n" before the extension of its last component (java.hprof.txt: java-trigger-%n.hprof.txt). */
static void options_rules_trigger_file(const char *file, char *out, size_t len)
{
    const char *n = strstr(file, "%n");
    if (n) {
        snprintf(out, len, "%.*strigger-%s", (int)(n - file), file, n);
        return;
    }
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *dot = strchr(base[0] == '.' ? base + 1 : base, '.');
    size_t at = dot ? (size_t)(dot - file) : strlen(file);
    snprintf(out, len, "%.*s-trigger-%%n%s", (int)at, file, file + at);
}

static void options_rules_defaults(agent_options *o)
{
    /* naming cpu=, wall=, monitor= or heap= replaces the default cpu=samples by what is named
     * (HPROF's default was heap=all; ours is the CPU profile) */
    bool mode_named = false;
    for (size_t i = 0; i < OPTIONS_ID_COUNT; i++)
        if ((options_defs[i].flags & OPTIONS_MODE) && options_given(o, (options_id)i))
            mode_named = true;
    if (mode_named && !options_given(o, OPTIONS_ID_CPU))
        o->cpu = OPTIONS_CPU_OFF;
    /* a heap dump is for MAT and VisualVM: binary unless format=a is asked for */
    if (o->heap_dump && !o->heap_sites && !options_given(o, OPTIONS_ID_FORMAT))
        o->format = 'b';
    if (!options_given(o, OPTIONS_ID_FILE))
        strcpy(o->file, o->format == 'b' ? "java.hprof" : "java.hprof.txt");
    if (o->triggers && !options_given(o, OPTIONS_ID_TRIGGER_FILE))
        options_rules_trigger_file(o->file, o->trigger_file, sizeof o->trigger_file);
    /* kernel frames cost an interrupt of the perf_event clock a sample on event=cpu (bench/RESULTS.md,
     * 2026-12-03): on request there; another event= is a perf event already, and its callchain comes free */
    if (!options_given(o, OPTIONS_ID_CSTACK) && !options_event_is_cpu(o))
        o->cstack = OPTIONS_CSTACK_MIXED;
    /* upload= sends windows of the recording: it turns it on */
    if (o->upload[0] && !options_given(o, OPTIONS_ID_RECORD))
        o->record = true;
}

/* The modes turned on, for a message: "wall=,cpu=times,monitor=y,heap=sites". */
static void options_rules_modes(const agent_options *o, char *out, size_t len)
{
    const char *modes[6];
    size_t n = 0;
    if (o->trace)
        modes[n++] = "trace=";
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

typedef bool options_rule(const agent_options *o, char *err, size_t errlen);

/* --- what can run together --- */

static bool options_rules_something(const agent_options *o, char *err, size_t errlen)
{
    return o->cpu == OPTIONS_CPU_OFF && !o->monitor && !o->wall_ms && !o->heap_dump && !o->heap_sites &&
           !o->trace &&
           options_rules_refuse(err, errlen, "nothing to profile: cpu is off, wall is off, heap is off, trace is off "
                                "and monitor=n; use cpu=samples, wall=<ms>, heap=dump|sites, trace=... and/or "
                                "monitor=y");
}

static bool options_rules_dump_alone(const agent_options *o, char *err, size_t errlen)
{
    if (!o->heap_dump || (o->cpu == OPTIONS_CPU_OFF && !o->monitor && !o->wall_ms))
        return false;
    const char *which = o->cpu == OPTIONS_CPU_SAMPLES ? "cpu=samples" : o->cpu == OPTIONS_CPU_TIMES ? "cpu=times"
                        : o->monitor ? "monitor=y" : "wall=";
    return options_rules_refuse(err, errlen, "heap=dump with %s: a heap dump is written to file= on its own; "
                                "profile %s in a separate run", which, which);
}

static bool options_rules_wall_or_cpu(const agent_options *o, char *err, size_t errlen)
{
    return o->wall_ms && o->cpu == OPTIONS_CPU_SAMPLES &&
           options_rules_refuse(err, errlen, "wall= with cpu=samples: both fill the samples table; use one of them "
                                "(wall= samples threads in every state, cpu=samples only while they use CPU)");
}

/* --- what an option needs to have any use --- */

static bool options_rules_dumper(const agent_options *o, char *err, size_t errlen)
{
    return options_given(o, OPTIONS_ID_DUMPER) && !o->heap_dump &&
           options_rules_refuse(err, errlen, "dumper= chooses how heap dumps are taken; add heap=dump (or heap=all) "
                                "or drop dumper=");
}

static bool options_rules_lifetimes(const agent_options *o, char *err, size_t errlen)
{
    if (o->lifetimes && !o->heap_sites)
        return options_rules_refuse(err, errlen, "lifetimes=y follows the objects heap=sites samples; add heap=sites");
    /* the LIFETIMES section is one of the ASCII report's: the binary format has no record for it */
    return o->lifetimes && o->format == 'b' &&
           options_rules_refuse(err, errlen, "lifetimes=y with format=b: the HPROF binary format has no record for "
                                "ages at death, leak suspects and churn; use format=a (the ASCII report) with "
                                "lifetimes=y");
}

static bool options_rules_alloc_hook(const agent_options *o, char *err, size_t errlen)
{
    return options_given(o, OPTIONS_ID_ALLOC_HOOK) && !options_alloc_exact(o) &&
           options_rules_refuse(err, errlen, "alloc_hook= chooses how exact counting sees every allocation; add "
                                "heap=sites,alloc_interval=0 or drop alloc_hook=");
}

static bool options_rules_alloc_count(const agent_options *o, char *err, size_t errlen)
{
    if (!options_given(o, OPTIONS_ID_ALLOC_COUNT) || o->alloc_count != 'c')
        return false;
    if (!o->heap_sites)
        return options_rules_refuse(err, errlen, "alloc_count=site counts allocation sites; add heap=sites");
    if (o->alloc_interval == 0)
        return options_rules_refuse(err, errlen, "alloc_count=site samples the callers every alloc_interval= bytes, "
                                    "and alloc_interval=0 counts every stack exactly instead; choose one");
    return false;
}

static bool options_rules_alloc_interval(const agent_options *o, char *err, size_t errlen)
{
    return options_given(o, OPTIONS_ID_ALLOC_INTERVAL) && !o->heap_sites &&
           options_rules_refuse(err, errlen, "alloc_interval= applies to heap=sites; add heap=sites or drop "
                                "alloc_interval=");
}

static bool options_rules_instrumentation(const agent_options *o, char *err, size_t errlen)
{
    if (options_given(o, OPTIONS_ID_TINY) && o->cpu != OPTIONS_CPU_TIMES &&
        !((o->trace & OPTIONS_TRACE_EXIT) && o->mintime_ns))
        return options_rules_refuse(err, errlen, "tiny= applies to cpu=times and to trace=exec with mintime= (trace=exec "
                                    "alone traces every method); add one of them or drop tiny=");
    /* trace=: its exec, or the tracing API's EXECUTION_ON later (jvmprof.Control.tracingBegin) */
    if (o->cpu == OPTIONS_CPU_TIMES || o->trace || !(o->include[0] || o->exclude[0]))
        return false;
    const char *which = o->include[0] ? "include" : "exclude";
    return options_rules_refuse(err, errlen, "%s= applies to bytecode instrumentation, which only cpu=times and "
                                "trace= turn on; add one of them or drop %s=", which, which);
}

/* --- trace= --- */

static bool options_rules_trace_times(const agent_options *o, char *err, size_t errlen)
{
    return (o->trace & OPTIONS_TRACE_ENTRY) && o->cpu == OPTIONS_CPU_TIMES &&
           options_rules_refuse(err, errlen, "trace=exec with cpu=times: both take every call in the injected code, "
                                "and cannot run together yet; trace in one run and time in another");
}

static bool options_rules_trace_options(const agent_options *o, char *err, size_t errlen)
{
    if (o->trace)
        return false;
    const options_id ids[] = { OPTIONS_ID_TRACEFILE, OPTIONS_ID_TRACELIMIT, OPTIONS_ID_MINTIME, OPTIONS_ID_RECEIVERS,
                               OPTIONS_ID_VTHREADS, OPTIONS_ID_PLUGIN };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (options_given(o, ids[i]))
            return options_rules_refuse(err, errlen, "%s= applies to trace=, which is off; add trace=... (for example "
                                        "trace=exec+thread) or drop %s=", options_defs[ids[i]].name,
                                        options_defs[ids[i]].name);
    return false;
}

/* mintime= keeps whole calls: it needs the exits of trace=exec */
static bool options_rules_trace_mintime(const agent_options *o, char *err, size_t errlen)
{
    return o->trace && options_given(o, OPTIONS_ID_MINTIME) && !(o->trace & OPTIONS_TRACE_EXIT) &&
           options_rules_refuse(err, errlen, "mintime= keeps the calls of trace=exec that last at least that long; "
                                "trace=%s has no %s: add exec to trace= or drop mintime=",
                                o->trace & OPTIONS_TRACE_ENTRY ? "exec:light" : "...",
                                o->trace & OPTIONS_TRACE_ENTRY ? "exits to time calls by" : "method calls");
}

/* receivers= names the receivers of trace=exec's entries (not exec:light's, not mintime='s whole calls) */
static bool options_rules_trace_receivers(const agent_options *o, char *err, size_t errlen)
{
    return options_given(o, OPTIONS_ID_RECEIVERS) && (!(o->trace & OPTIONS_TRACE_EXIT) || o->mintime_ns) &&
           options_rules_refuse(err, errlen, "receivers= applies to the entries of trace=exec (without mintime=, "
                                "whose whole calls name no receiver); add trace=exec or drop receivers=");
}

/* JVMTI's allocation sampler (its sampled-allocation events) belongs to one JVMTI environment at a time:
 * trace=alloc takes it in the trace's own, heap=sites in the profile's (all but alloc_hook=bci's exact counts) */
static bool options_rules_trace_alloc(const agent_options *o, char *err, size_t errlen)
{
    return (o->trace & OPTIONS_TRACE_ALLOC) && o->heap_sites && !options_alloc_bci(o) &&
           options_rules_refuse(err, errlen, "trace=alloc with heap=sites%s: both need JVMTI's allocation sampler "
                                "(can_generate_sampled_object_alloc_events), which one JVMTI environment holds at a "
                                "time; add %salloc_hook=bci (exact counts through bytecode, no sampler) or trace in "
                                "another run", options_alloc_exact(o) ? ",alloc_interval=0" : "",
                                options_alloc_exact(o) ? "" : "alloc_interval=0,");
}

/* trace= alone writes the trace file and no report: the report's options have no use. */
static bool options_rules_trace_alone(const agent_options *o, char *err, size_t errlen)
{
    if (!o->trace || o->cpu != OPTIONS_CPU_OFF || o->monitor || o->wall_ms || o->heap_sites || o->heap_dump)
        return false;
    const options_id ids[] = { OPTIONS_ID_FILE, OPTIONS_ID_FORMAT, OPTIONS_ID_DEPTH, OPTIONS_ID_LINENO,
                               OPTIONS_ID_THREAD, OPTIONS_ID_CUTOFF, OPTIONS_ID_RESET, OPTIONS_ID_DOE };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (options_given(o, ids[i]))
            return options_rules_refuse(err, errlen, "%s= with trace= alone: the trace file (tracefile=) is all that "
                                        "is written, with no report for %s= to shape; drop %s= (or add a profile: "
                                        "cpu=samples, monitor=y, ...)", options_defs[ids[i]].name,
                                        options_defs[ids[i]].name, options_defs[ids[i]].name);
    /* pprof= and jfr= are made of each report's data: with none, they would never be written */
    const options_id made[] = { OPTIONS_ID_PPROF, OPTIONS_ID_JFR };
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        if (options_given(o, made[i]))
            return options_rules_refuse(err, errlen, "%s= with trace= alone: %s= is made from each report, and "
                                        "trace= alone writes no report, only the trace file (tracefile=); drop %s= "
                                        "(or add a profile: cpu=samples, heap=sites, ...)", options_defs[made[i]].name,
                                        options_defs[made[i]].name, options_defs[made[i]].name);
    return false;
}

static bool options_rules_sampler(const agent_options *o, char *err, size_t errlen)
{
    return options_given(o, OPTIONS_ID_SAMPLER) && o->cpu != OPTIONS_CPU_SAMPLES &&
           options_rules_refuse(err, errlen, "sampler= chooses how cpu=samples takes stacks; add cpu=samples or "
                                "drop sampler=");
}

static bool options_rules_interval(const agent_options *o, char *err, size_t errlen)
{
    if (!options_given(o, OPTIONS_ID_INTERVAL) || o->cpu == OPTIONS_CPU_SAMPLES)
        return false;
    char modes[128];
    options_rules_modes(o, modes, sizeof modes);
    if (o->wall_ms)
        return options_rules_refuse(err, errlen, "interval= with %s: interval= is the period of cpu=samples, which "
                                    "is off, and wall=<ms> is its own period; drop interval=", modes);
    if (o->heap_dump) /* cpu=samples would be refused with it */
        return options_rules_refuse(err, errlen, "interval= with %s: interval= is the period of cpu=samples, which "
                                    "is off, and a heap dump runs without it; drop interval=", modes);
    return options_rules_refuse(err, errlen, "interval= with %s: interval= is the period of cpu=samples, which is "
                                "off; add cpu=samples or drop interval=", modes);
}

/* interval= is in ms of CPU time for event=cpu (at most a minute), in
 * events for any other event=. */
static bool options_rules_interval_range(const agent_options *o, char *err, size_t errlen)
{
    if (options_event_is_cpu(o) && o->interval_ms > 60000)
        return options_rules_refuse(err, errlen, "interval=%u: with event=cpu the interval is in ms, 1..60000; "
                                    "interval= counts events only with another event=", o->interval_ms);
    return false;
}

/* cstack=, threads= and event= shape what the async sampler takes. */
static bool options_rules_native(const agent_options *o, char *err, size_t errlen)
{
    bool async_cpu = o->cpu == OPTIONS_CPU_SAMPLES && o->sampler == OPTIONS_SAMPLER_ASYNC;
    if (options_given(o, OPTIONS_ID_CSTACK) && !options_async_sampling(o))
        return options_rules_refuse(err, errlen, "cstack= chooses the frames the async sampler takes; it applies to "
                                    "cpu=samples (sampler=async) and wall=; add one or drop cstack=");
    if (o->threads_all && !async_cpu)
        return options_rules_refuse(err, errlen, "threads=all samples the JVM's own threads on their CPU clocks: it "
                                    "needs cpu=samples with sampler=async%s; add it or drop threads=",
                                    o->wall_ms ? " (wall= samples Java threads only)" : "");
    if (options_given(o, OPTIONS_ID_EVENT) && !async_cpu)
        return options_rules_refuse(err, errlen, "event= chooses what cpu=samples samples on; it needs cpu=samples "
                                    "with sampler=async%s; add it or drop event=",
                                    o->wall_ms ? " (wall= samples on the wall clock)" : "");
    return false;
}

/* Options a heap dump alone has no use for, and why (the dump is the only
 * output: see heap_dump.c; its thread stacks have a fixed depth). */
static const struct { options_id id; const char *why; } options_rules_not_for_dump[] = {
    { OPTIONS_ID_DEPTH, "it writes each thread's whole stack" },
    { OPTIONS_ID_LINENO, "its frames always carry line numbers" },
    { OPTIONS_ID_THREAD, "each of its stack traces is one thread's already" },
    { OPTIONS_ID_CUTOFF, "it holds every object, with no table to cut" },
    { OPTIONS_ID_RESET, "each dump holds the whole heap, with no counts to start again" },
    { OPTIONS_ID_PPROF, "a pprof profile is made from a report's samples and sites, of which it has none" },
    { OPTIONS_ID_JFR, "a JFR file is made from a report's samples and sites, of which it has none" },
};

static bool options_rules_report_only(const agent_options *o, char *err, size_t errlen)
{
    if (!o->heap_dump || o->heap_sites)
        return false;
    /* nothing else can be on: heap=dump with cpu=, wall= or monitor=y was refused before */
    for (size_t i = 0; i < sizeof options_rules_not_for_dump / sizeof options_rules_not_for_dump[0]; i++) {
        if (!options_given(o, options_rules_not_for_dump[i].id))
            continue;
        const char *name = options_defs[options_rules_not_for_dump[i].id].name;
        return options_rules_refuse(err, errlen, "%s= with heap=dump alone: the heap dump is all that is written, "
                                    "and %s; drop %s= (or add heap=sites, whose report uses it)", name,
                                    options_rules_not_for_dump[i].why, name);
    }
    return false;
}

/* reset=y: each report holds its interval only, so none may replace another. */
static bool options_rules_reset(const agent_options *o, char *err, size_t errlen)
{
    if (!o->reset || (o->heap_dump && !o->heap_sites))
        return false;
    const struct { const char *name, *path; } outs[] = { { "file", o->file }, { "flame", o->flame },
                                                         { "collapsed", o->collapsed }, { "pprof", o->pprof },
                                                         { "jfr", o->jfr } };
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        if (outs[i].path[0] && !strstr(outs[i].path, "%n"))
            return options_rules_refuse(err, errlen, "reset=y: each report holds only what came since the one "
                                        "before, and without %%n in %s= each would replace the one before; put %%n "
                                        "in it (%s=%s, %%n: the report's number)", outs[i].name, outs[i].name,
                                        i == 0 ? "java-%n.hprof.txt" : i == 1 ? "flame-%n.html" : i == 2 ? "stacks-%n.txt"
                                        : i == 3 ? "profile-%n.pb.gz" : "recording-%n.jfr");
    return false;
}

/* jfr=: JFR has no event for exact call times. */
static bool options_rules_jfr(const agent_options *o, char *err, size_t errlen)
{
    if (!o->jfr[0] || o->cpu != OPTIONS_CPU_TIMES)
        return false;
    return options_rules_refuse(err, errlen, "jfr= with cpu=times: a JFR file has no event for exact call times; "
                                "use pprof= (calls and nanoseconds) or the ASCII report for them");
}

static bool options_rules_stacks(const agent_options *o, char *err, size_t errlen)
{
    if (!(o->flame[0] || o->collapsed[0]) || options_async_sampling(o) || o->heap_sites)
        return false;
    const char *which = o->flame[0] ? "flame" : "collapsed";
    return options_rules_refuse(err, errlen, "%s= draws the stacks of the async sampler or the allocation sites; use "
                                "it with cpu=samples (sampler=async, the default), with wall=<ms> or with heap=sites",
                                which);
}

/* --- what a format cannot hold --- */

static bool options_rules_all_binary(const agent_options *o, char *err, size_t errlen)
{
    return o->heap_dump && o->heap_sites && o->format == 'b' &&
           options_rules_refuse(err, errlen, "heap=all (or heap=sites with heap=dump) with format=b: the allocation "
                                "sites and the heap dump go in one HPROF ASCII file (format=a); for binary, take "
                                "heap=dump and heap=sites in separate runs");
}

static bool options_rules_record(const agent_options *o, char *err, size_t errlen)
{
    if (!o->record && (options_given(o, OPTIONS_ID_MAXAGE) || options_given(o, OPTIONS_ID_MAXSIZE)))
        return options_rules_refuse(err, errlen, "%s bounds the recording of record=y; add record=y or drop it",
                                    options_given(o, OPTIONS_ID_MAXAGE) ? "maxage=" : "maxsize=");
    if (o->record && o->cpu == OPTIONS_CPU_SAMPLES && o->sampler == OPTIONS_SAMPLER_JVMTI)
        return options_rules_refuse(err, errlen, "record=y records the async sampler's samples, not sampler=jvmti's; "
                                    "drop sampler=jvmti");
    return o->record && o->cpu != OPTIONS_CPU_SAMPLES && !o->wall_ms && !o->monitor && !o->heap_sites &&
           options_rules_refuse(err, errlen, "record=y keeps samples, waits and allocations with their times; add "
                                "cpu=samples, wall=<ms>, monitor=y or heap=sites");
}

/* trigger=: dumps of record=y's recording, each to its numbered file; its options only with it */
static bool options_rules_trigger(const agent_options *o, char *err, size_t errlen)
{
    const options_id own[] = { OPTIONS_ID_TRIGGER_FILE, OPTIONS_ID_TRIGGER_INTERVAL };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (!o->triggers && options_given(o, own[i]))
            return options_rules_refuse(err, errlen, "%s= applies to the dumps of trigger=; add trigger=oom, quit, "
                                        "cpu or slow (joined by '+') or drop %s=", options_defs[own[i]].name,
                                        options_defs[own[i]].name);
    const options_id cpu[] = { OPTIONS_ID_CPU_ABOVE, OPTIONS_ID_CPU_FOR };
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++)
        if (!(o->triggers & OPTIONS_TRIGGER_CPU) && options_given(o, cpu[i]))
            return options_rules_refuse(err, errlen, "%s= shapes trigger=cpu; add cpu to trigger= or drop %s=",
                                        options_defs[cpu[i]].name, options_defs[cpu[i]].name);
    if (!o->triggers)
        return false;
    if (!o->record)
        return options_rules_refuse(err, errlen, "trigger= dumps the recording of record=y; add record=y (with "
                                    "cpu=samples, wall=, monitor=y or heap=sites)");
    if (!strstr(o->trigger_file, "%n"))
        return options_rules_refuse(err, errlen, "trigger_file=%s: each trigger's dump is numbered, and without %%n "
                                    "each would replace the one before; put %%n in it (trigger_file=dump-%%n.txt)",
                                    o->trigger_file);
    if ((o->triggers & OPTIONS_TRIGGER_SLOW) && !((o->trace & OPTIONS_TRACE_EXIT) && o->mintime_ns))
        return options_rules_refuse(err, errlen, "trigger=slow fires on a call of trace=exec slower than mintime=; "
                                    "add trace=exec and mintime= (e.g. trace=exec,mintime=100ms,include=com.example.)");
    return false;
}

static bool options_rules_upload(const agent_options *o, char *err, size_t errlen)
{
    static const options_id with_upload[] = { OPTIONS_ID_UPLOAD_INTERVAL, OPTIONS_ID_UPLOAD_APP,
                                              OPTIONS_ID_UPLOAD_QUEUE };
    for (size_t i = 0; !o->upload[0] && i < sizeof with_upload / sizeof with_upload[0]; i++)
        if (options_given(o, with_upload[i]))
            return options_rules_refuse(err, errlen, "%s= goes with upload=URL; add upload=http://HOST:PORT or drop it",
                                        options_defs[with_upload[i]].name);
    if (!o->upload[0])
        return false;
    if (!o->record)
        return options_rules_refuse(err, errlen, "upload= sends windows of the recording, and record=n turns it off; "
                                    "drop record=n (upload= turns record=y on)");
    if (o->cpu != OPTIONS_CPU_SAMPLES && !o->wall_ms && !o->monitor && !o->heap_sites)
        return options_rules_refuse(err, errlen, "upload= sends the recording's samples, waits and allocations; add "
                                    "cpu=samples, wall=<ms>, monitor=y or heap=sites");
    if (o->upload_interval_ns % 1000000000u)
        return options_rules_refuse(err, errlen, "upload_interval= is a whole number of seconds (Pyroscope's from and "
                                    "until are seconds), e.g. upload_interval=10s");
    if (o->upload_interval_ns > o->maxage_ns)
        return options_rules_refuse(err, errlen, "upload_interval= is longer than maxage= (how far back the recording "
                                    "reaches): raise maxage= or shorten upload_interval=");
    return false;
}

/* The order decides which message a text breaking two rules gets: keep it. */
static options_rule *const options_rules_table[] = {
    options_rules_something,
    options_rules_all_binary,
    options_rules_dumper,
    options_rules_lifetimes,
    options_rules_alloc_hook,
    options_rules_alloc_interval,
    options_rules_alloc_count,
    options_rules_dump_alone,
    options_rules_instrumentation,
    options_rules_trace_options,
    options_rules_trace_times,
    options_rules_trace_alone,
    options_rules_trace_mintime,
    options_rules_trace_receivers,
    options_rules_trace_alloc,
    options_rules_wall_or_cpu,
    options_rules_sampler,
    options_rules_interval,
    options_rules_interval_range,
    options_rules_native,
    options_rules_report_only,
    options_rules_stacks,
    options_rules_reset,
    options_rules_jfr,
    options_rules_upload,
    options_rules_record,
    options_rules_trigger,
};

jp_status options_rules_apply(agent_options *o, char *err, size_t errlen)
{
    options_rules_defaults(o);
    for (size_t i = 0; i < sizeof options_rules_table / sizeof options_rules_table[0]; i++)
        if (options_rules_table[i](o, err, errlen))
            return JP_ERR_ARG;
    return JP_OK;
}
