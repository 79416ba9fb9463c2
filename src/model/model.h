/* model.h — what the profiler has learned, as interned tables with small
 * 1-based ids: strings, classes, methods, frames (method + line), traces
 * (frames + thread), threads (by serial), monitors (trace + class), and the
 * counters hung on them (CPU samples per trace, monitor time per monitor).
 * Pure C: no JVMTI types. Single writer (the agent thread, or the CLI);
 * writers read it through the accessors below. */
#ifndef MODEL_H
#define MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/arena.h"
#include "../common/intern.h"

typedef struct { uint32_t v; } str_id;
typedef struct { uint32_t v; } class_id;
typedef struct { uint32_t v; } method_id;
typedef struct { uint32_t v; } frame_id;
typedef struct { uint32_t v; } trace_id;
typedef struct { uint32_t v; } monitor_id;
typedef struct { uint32_t v; } stack_id;
typedef struct { uint32_t v; } site_id;

/* HPROF's line-number codes for a frame. */
enum {
    FRAME_LINE_UNKNOWN = -1,
    FRAME_LINE_COMPILED = -2,
    FRAME_LINE_NATIVE = -3,
};

/* What a class stands for: a Java class, or the code of a native library
 * (its frames are C/C++ functions named from ELF symbols), or the kernel. */
enum { MODEL_CODE_JAVA = 0, MODEL_CODE_NATIVE = 1, MODEL_CODE_KERNEL = 2 };

typedef struct model_class {
    str_id name;          /* dotted: java.lang.String; a library's file name: libc.so.6, "kernel" */
    str_id source_file;   /* 0 if unknown; a library: its name; the kernel: "vmlinux" */
    uint8_t code;         /* MODEL_CODE_* */
    str_id path;          /* a library's full path (0: unknown); the kernel: "[kernel.kallsyms]" */
    str_id build_id;      /* a library's GNU build id in hex (0: unknown) */
} model_class;

typedef struct model_method {
    class_id cls;
    str_id name, sig;
} model_method;

typedef struct model_frame {
    method_id method;
    int32_t line;         /* > 0, or FRAME_LINE_* */
} model_frame;

typedef struct model_trace {
    uint32_t thread;      /* thread serial, 0 when traces are not per thread */
    uint32_t nframes;
    const frame_id *frames;   /* top of stack first */
} model_trace;

/* How a frame of a sampled stack was running. */
typedef enum frame_kind {
    FRAME_KIND_UNKNOWN = 0,       /* a Java frame whose kind was not recorded (e.g. read from HPROF) */
    FRAME_KIND_INTERPRETED = 1,
    FRAME_KIND_JIT = 2,           /* compiled code of that method */
    FRAME_KIND_INLINED = 3,       /* inlined into its caller's compiled code */
    FRAME_KIND_NATIVE = 4,        /* a native method */
    FRAME_KIND_CPP = 5,           /* native code of a library (C/C++: the JVM's own, libc, a JNI library);
                                   * its method's class is the library (model_class_intern_lib) */
    FRAME_KIND_KERNEL = 6,        /* kernel code (a perf_events callchain); its class is the "kernel" one */
} frame_kind;
#define FRAME_KIND_BITS 3u

/* What a thread was doing when it was sampled: cpu samples are all RUNNING;
 * wall= samples threads in every state. */
typedef enum sample_state {
    SAMPLE_RUNNING = 0,           /* running Java code or the VM on a CPU */
    SAMPLE_NATIVE,                /* in native code (JNI, I/O) */
    SAMPLE_SLEEPING,              /* Thread.sleep */
    SAMPLE_WAITING,               /* Object.wait, LockSupport.park, join */
    SAMPLE_BLOCKED,               /* waiting to enter a monitor */
    SAMPLE_STATES
} sample_state;
extern const char *const sample_state_names[SAMPLE_STATES];  /* "running", "native", ... */

/* A sampled stack at full depth, for flame graphs and collapsed stacks: its
 * frames are methods (no line: a flame graph merges them) with their kind,
 * each packed as (method id << FRAME_KIND_BITS) | frame_kind. */
typedef struct model_stack {
    uint32_t thread;              /* thread serial, 0 when stacks are not per thread */
    sample_state state;
    uint32_t nframes;
    const uint32_t *frames;       /* top of stack first */
} model_stack;

static inline uint32_t stack_frame_pack(method_id m, frame_kind k) { return (m.v << FRAME_KIND_BITS) | (uint32_t)k; }
static inline method_id stack_frame_method(uint32_t f) { return (method_id){ f >> FRAME_KIND_BITS }; }
static inline frame_kind stack_frame_kind(uint32_t f) { return (frame_kind)(f & ((1u << FRAME_KIND_BITS) - 1)); }

typedef struct model_thread {
    bool known;           /* a start record was seen */
    uint64_t object_id;
    str_id name, group, parent_group;
    bool virtual_thread;  /* a virtual thread (JDK 21+) */
    uint32_t carrier;     /* a virtual thread's: the serial of the carrier it ran on then; 0: none */
    bool jvm_internal;    /* a thread of the JVM with no java.lang.Thread (GC, compiler, VM thread): no
                           * object id; its name is the OS name (/proc/self/task/TID/comm, 15 chars) */
} model_thread;

/* What a thread is, for the share of samples each kind took (thread_kinds.c). */
typedef enum thread_kind {
    THREAD_KIND_JAVA = 0,         /* a java.lang.Thread (any thread not jvm_internal) */
    THREAD_KIND_GC,               /* "GC Thread#0", "G1 Conc#0", "G1 Refine#0", "G1 Main Marker", "ZWorker#0", ... */
    THREAD_KIND_COMPILER,         /* "C1 CompilerThre", "C2 CompilerThre", "Sweeper thread" */
    THREAD_KIND_VM,               /* "VM Thread", "VM Periodic Tas" */
    THREAD_KIND_JVM_OTHER,        /* any other thread of the JVM's own */
    THREAD_KINDS
} thread_kind;
extern const char *const thread_kind_names[THREAD_KINDS]; /* "java", "gc", "compiler", "vm", "jvm other" */

typedef enum model_thread_event_kind { MODEL_THREAD_START, MODEL_THREAD_END } model_thread_event_kind;
typedef struct model_thread_event {
    model_thread_event_kind kind;
    uint32_t thread;
} model_thread_event;

/* What a thread was doing on a monitor or lock: blocked (entering a
 * contended monitor, acquiring a java.util.concurrent lock) or waiting for
 * something to happen (Object.wait, a Condition, any other park). */
typedef enum model_monitor_kind { MONITOR_BLOCKED, MONITOR_WAITING } model_monitor_kind;

typedef struct model_monitor {
    trace_id trace;
    str_id class_name;    /* dotted class name of the monitor or lock object */
    model_monitor_kind kind;
    uint64_t count;       /* contended enters, waits or parks */
    uint64_t time_ns;
} model_monitor;

/* Age-at-death buckets of lifetimes=y: garbage collections survived (0, 1,
 * 2-3, 4-7, 8+) and milliseconds (<1, <10, <100, <1000, <10000, more). */
#define LIFE_GC_BUCKETS 5
#define LIFE_MS_BUCKETS 6
extern const char *const life_gc_bucket_names[LIFE_GC_BUCKETS];
extern const char *const life_ms_bucket_names[LIFE_MS_BUCKETS];

/* An allocation site (heap=sites): counts are estimates when sampled. */
#define SITE_GC_SPANS 16

typedef struct model_site {
    trace_id trace;
    class_id cls;         /* named Java style: java.lang.String, int[] */
    bool is_array;
    bool counted;         /* alloc_count=site: counted exactly at its allocating frame (model_site_intern_counted) */
    double alloc_objs, alloc_bytes;
    double live_objs, live_bytes;
    /* lifetimes=y */
    double died_by_gcs[LIFE_GC_BUCKETS], died_by_ms[LIFE_MS_BUCKETS];
    /* lifetimes=y: the floor of the live objects after each garbage
     * collection (the fewest between it and the next, once its frees came
     * in), kept as the least and most of each of SITE_GC_SPANS spans of
     * 2^gc_shift consecutive collections */
    uint32_t gc_seen;
    uint32_t gc_shift;
    float gc_min[SITE_GC_SPANS], gc_max[SITE_GC_SPANS];
    double young_objs;    /* exact mode: live objects no collection has seen yet (its nursery) */
    double trough;        /* the fewest live objects since the last collection was noted (in exact
                           * mode, of those a collection has seen: live - young) */
    bool trough_on;       /* ... a collection was noted since the site's first allocation */
} model_site;

/* A named count a collector adds to the report ("thread starts 12"); the
 * name is a string with static lifetime. */
#define MODEL_COUNTS_MAX 32
typedef struct model_count {
    const char *name;
    uint64_t value;
} model_count;

/* jfr=: one sample (or wall= sample standing for weight threads) and the real time it was taken */
typedef struct model_sample_time {
    uint64_t wall_ns;             /* ns since the epoch */
    uint32_t trace;               /* its trace id */
    uint16_t weight;
    uint8_t state;                /* sample_state */
} model_sample_time;

typedef struct model {
    arena keys;
    intern_table strings, classes, methods, frames, traces, monitors, stacks, sites;
    model_site *site_info;        /* [site id - 1] */
    uint32_t site_info_cap;
    uint64_t alloc_interval;      /* heap=sites: sites are estimates from samples every N bytes (0 = no sites) */
    bool sites_exact;             /* heap=sites,alloc_interval=0: sites are exact counts, from the agent */
    bool sites_counted;           /* heap=sites,alloc_count=site: the counted sites are exact per site; the
                                   * sampled ones (estimates, whole stacks) are their callers */
    uint64_t gc_count, gc_ns;     /* garbage collections and the time between their start and finish */
    bool lifetimes;               /* lifetimes=y: ages at death are recorded */
    bool sites_young;             /* the sites' young_objs are kept (exact mode's nursery): the floors
                                   * behind leak suspects are of the objects a collection has seen */
    model_class *class_info;      /* [class id - 1] */
    uint64_t *trace_samples;      /* [trace id - 1] */
    uint32_t trace_samples_cap;
    uint32_t class_info_cap;
    uint64_t total_samples;
    uint64_t *trace_state_samples; /* [(trace id - 1) * SAMPLE_STATES + state]: wall= samples by state */
    uint32_t trace_states_cap;     /* in traces */
    uint64_t *trace_time_ns;      /* [trace id - 1]: cpu=times self time */
    uint64_t *trace_calls;        /* [trace id - 1]: cpu=times calls */
    uint32_t trace_times_cap;
    uint64_t *trace_wait_ns;      /* [trace id - 1]: cpu=times time waiting, apart from the self time */
    uint32_t trace_wait_cap;
    uint64_t total_time_ns;
    uint64_t *method_counted;     /* [method id - 1]: cpu=times calls of a method counted, not timed */
    uint32_t method_counted_cap;
    uint64_t total_counted;
    uint64_t total_wait_ns;       /* cpu=times: the time waiting, all traces */
    uint64_t *stack_samples;      /* [stack id - 1] */
    uint32_t stack_samples_cap;
    uint64_t total_stack_samples;
    bool stacks_alloc;            /* the stacks are allocation sites (site_stacks_build): a stack's top
                                   * frame packs the allocated class's id, its count is bytes allocated */
    bool wall;                    /* samples are wall-clock samples (wall=), not CPU samples */
    bool stacks_ns;               /* a stack's count is exact nanoseconds of its top frame's own time (a trace's
                                   * call tree: jvmprof trace --flame), not samples */
    uint32_t interval_us;         /* time one sample stands for (0 = unknown) */
    char sample_event[64];        /* event=: what a sample stands for ("": CPU or wall time), */
    uint64_t event_period;        /* ... one sample every so many of them */
    model_sample_time *sample_times; /* jfr=: the samples' times, in the order taken, at most sample_times_max */
    uint32_t sample_times_len, sample_times_cap, sample_times_max; /* max 0: not kept */
    uint64_t sample_times_dropped; /* samples past sample_times_max: the JFR file spreads them evenly */
    uint32_t *sample_stacks;      /* [i]: the stack id of sample_times[i] when known (a recording's window; a file's
                                   * SAMPLE TIMES once trace_stacks_build ran), 0 not; NULL: none known (jfr=) */
    uint32_t sample_stacks_cap;
    model_monitor *monitor_info;  /* [monitor id - 1] */
    uint32_t monitor_info_cap;
    model_thread *threads;        /* [serial - 1] */
    uint32_t threads_cap;         /* also the highest serial + 1 seen */
    model_thread_event *thread_events;
    uint32_t thread_events_len, thread_events_cap;
    uint64_t start_time_ms;       /* wall clock when profiling started (ms since epoch) */
    uint64_t dump_time_ms;        /* wall clock of the snapshot being written */
    uint32_t depth;               /* stack depth traces were captured with */
    bool oom;                     /* an insert failed for lack of memory */
    model_count counts[MODEL_COUNTS_MAX]; /* printed at the end of the ASCII report, in this order */
    uint32_t ncounts;
    struct recording *recording;  /* record=y: the session's recent events with their times (recording.h); freed
                                   * with the model */
    /* a window of a recording (recording_window.c): what it holds, and how far back the recording reached
     * (wall clock, ms since the epoch; all 0 in any other model) */
    uint64_t window_from_ms, window_to_ms, recorded_from_ms;
    char trigger[384];            /* a trigger's dump of the window (trigger=): what fired it ("" otherwise) */
} model;

model *model_new(void);
void model_free(model *m);
/* reset=y, after a report: the counts of what happened (samples, stacks,
 * cpu=times' time and calls, monitor time, allocations and deaths per site)
 * start again from 0; what is (live objects, the floors behind leak
 * suspects, threads, names, COUNTS, the GC line) stays. */
void model_interval_reset(model *m);
/* jfr=: keeps a sample's time (sample_times_max set), or counts it dropped once that many are kept; s its
 * stack when known (0: not; the stacks take room only once one is known). */
void model_sample_time_add(model *m, trace_id t, stack_id s, sample_state st, uint32_t weight, uint64_t wall_ns);
/* The stack of sample_times[i] (0: not known); setting it false when out of memory. */
static inline uint32_t model_sample_time_stack(const model *m, uint32_t i)
{
    return m->sample_stacks && i < m->sample_stacks_cap ? m->sample_stacks[i] : 0;
}
bool model_sample_time_set_stack(model *m, uint32_t i, stack_id s);
/* jvmprof flame --from/--to: the traces' samples become those of the sample times in from_ns <= time <
 * to_ns (wall clock), by state too when the samples are wall= ones; the other sample times go. */
void model_sample_times_keep(model *m, uint64_t from_ns, uint64_t to_ns);
/* Sets the count `name` (static storage) to value, adding it the first time;
 * false when MODEL_COUNTS_MAX counts are there already. */
bool model_count_set(model *m, const char *name, uint64_t value);

/* strings.c */
str_id model_string(model *m, const char *s, size_t len);
str_id model_cstring(model *m, const char *s);
const char *model_string_get(const model *m, str_id id, size_t *len);
static inline uint32_t model_string_count(const model *m) { return intern_count(&m->strings); }

/* classes.c, methods.c, frames.c */
class_id model_class_intern(model *m, str_id name, str_id source_file);
/* A library (code MODEL_CODE_NATIVE: name its file name, "libc.so.6") or the
 * kernel (MODEL_CODE_KERNEL: name "kernel"), as the class of its native
 * frames: source_file is the name ("vmlinux" for the kernel), path and
 * build_id as given (0: unknown; the kernel's path, if 0, "[kernel.kallsyms]").
 * Keyed by name like any class: a class of that name interned before gets
 * the library's code, path and build id. A native frame is then
 * model_frame_intern(model_method_intern(lib, symbol, empty sig), FRAME_LINE_NATIVE)
 * and is CPP or KERNEL in stacks; a frame with no symbol is named
 * "<library name>+0x<offset in hex>" ("libfoo.so+0x1a2b"), see
 * model_native_unnamed. */
class_id model_class_intern_lib(model *m, str_id name, uint8_t code, str_id path, str_id build_id);
/* Whether a native frame's method name is of the unnamed form "lib+0x<hex>". */
bool model_native_unnamed(const char *name, size_t len);
/* The code of a method's class (MODEL_CODE_JAVA if unknown), and the kind its
 * frames have in stacks when it is native (FRAME_KIND_CPP / _KERNEL), else
 * FRAME_KIND_UNKNOWN. */
uint8_t model_method_code(const model *m, method_id me);
frame_kind model_method_native_kind(const model *m, method_id me);
const model_class *model_class_get(const model *m, class_id id);
static inline uint32_t model_class_count(const model *m) { return intern_count(&m->classes); }
method_id model_method_intern(model *m, class_id cls, str_id name, str_id sig);
const model_method *model_method_get(const model *m, method_id id);
frame_id model_frame_intern(model *m, method_id method, int32_t line);
const model_frame *model_frame_get(const model *m, frame_id id);
static inline uint32_t model_frame_count(const model *m) { return intern_count(&m->frames); }

/* traces.c */
trace_id model_trace_intern(model *m, uint32_t thread, const frame_id *frames, uint32_t nframes);
model_trace model_trace_get(const model *m, trace_id id);
static inline uint32_t model_trace_count(const model *m) { return intern_count(&m->traces); }
void model_trace_add_samples(model *m, trace_id t, uint64_t n);
uint64_t model_trace_samples(const model *m, trace_id t);
/* Samples of a trace taken while its thread was in `state` (wall=). */
void model_trace_add_state_samples(model *m, trace_id t, sample_state state, uint64_t n);
uint64_t model_trace_state_samples(const model *m, trace_id t, sample_state state);
/* cpu=times: self time and calls of a trace (its top frame's method). */
void model_trace_add_time(model *m, trace_id t, uint64_t self_ns, uint64_t calls);
/* cpu=times: time the trace's top method spent waiting (blocked, in
 * Object.wait, parked or sleeping), which its self time does not hold. */
void model_trace_add_wait(model *m, trace_id t, uint64_t wait_ns);
uint64_t model_trace_wait_ns(const model *m, trace_id t);
uint64_t model_trace_time_ns(const model *m, trace_id t);
uint64_t model_trace_calls(const model *m, trace_id t);
/* cpu=times: calls of a method that is counted but not timed (its time is
 * its callers'), all threads and call paths together. */
void model_method_add_counted(model *m, method_id me, uint64_t calls);
uint64_t model_method_counted(const model *m, method_id me);
/* Zeroes every trace's time and calls, and the counted calls (before a
 * collector re-adds its totals). */
void model_times_reset(model *m);

/* stacks.c */
stack_id model_stack_intern(model *m, uint32_t thread, sample_state state, const uint32_t *frames, uint32_t nframes);
model_stack model_stack_get(const model *m, stack_id id);
static inline uint32_t model_stack_count(const model *m) { return intern_count(&m->stacks); }
void model_stack_add(model *m, stack_id id, uint64_t samples);
uint64_t model_stack_samples(const model *m, stack_id id);
/* Every stack's count back to 0 (the stacks stay interned). */
void model_stacks_reset(model *m);

/* threads.c */
void model_thread_start(model *m, uint32_t serial, uint64_t object_id, str_id name, str_id group,
                        str_id parent_group);
/* A thread of the JVM with no java.lang.Thread (GC, compiler, VM thread):
 * object id 0, group "jvm", jvm_internal set; name its OS name. */
void model_thread_start_jvm(model *m, uint32_t serial, str_id name);
/* Marks a started thread jvm_internal (a reader restoring it). */
void model_thread_set_jvm_internal(model *m, uint32_t serial);
void model_thread_end(model *m, uint32_t serial);
/* serial is a virtual thread's, as it ran on carrier (a platform thread's serial; 0: unmounted). */
void model_thread_set_virtual(model *m, uint32_t serial, uint32_t carrier);
const model_thread *model_thread_get(const model *m, uint32_t serial);
/* thread_kinds.c: the kind of a thread: JAVA unless jvm_internal, then by its
 * OS name; unknown serials are JAVA. thread_kind_of_name classifies a name. */
thread_kind model_thread_kind(const model *m, uint32_t serial);
thread_kind thread_kind_of_name(const char *name, size_t len);
/* The samples (CPU or wall) of each kind of thread, from the traces' (the
 * stacks' when there is no trace); true when any is of a jvm_internal thread. */
bool model_thread_kind_samples(const model *m, uint64_t out[THREAD_KINDS]);
/* Whether any thread is jvm_internal. */
bool model_has_jvm_threads(const model *m);

/* monitors.c */
monitor_id model_monitor_intern(model *m, trace_id trace, str_id class_name, model_monitor_kind kind);
void model_monitor_add(model *m, monitor_id id, uint64_t count, uint64_t time_ns);
const model_monitor *model_monitor_get(const model *m, monitor_id id);
static inline uint32_t model_monitor_count(const model *m) { return intern_count(&m->monitors); }
/* The time of every monitor row of that kind. */
uint64_t model_monitor_total_ns(const model *m, model_monitor_kind kind);

/* sites.c */
site_id model_site_intern(model *m, trace_id trace, class_id cls, bool is_array);
/* alloc_count=site: a site counted exactly where it allocates (its trace:
 * the allocating frame alone, or none for what the VM allocated itself), kept
 * apart from the sampled sites of the same trace and class. */
site_id model_site_intern_counted(model *m, trace_id trace, class_id cls, bool is_array);
/* Adds an allocation (objs, bytes: estimates); live = not known dead yet. */
void model_site_alloc(model *m, site_id id, double objs, double bytes, bool live);
/* Marks what an earlier allocation added as dead. */
void model_site_free(model *m, site_id id, double objs, double bytes);
/* Exact mode: objects of the site now in a nursery (not yet seen by a
 * collection) changed by delta; then, once every site's changes of a drain
 * are in, model_sites_floor notes each site's live objects a collection has
 * seen toward its floor. */
void model_site_young(model *m, site_id id, double delta);
void model_sites_floor(model *m);
const model_site *model_site_get(const model *m, site_id id);
/* alloc_count=site: for each site, the counted site it is a sampled caller
 * of (the same class, and the same top frame: method and line), or 0; a
 * sampled site no counted site has the frame of goes to the class's counted
 * site without a frame (what the VM allocated), if any. Returns a malloc'ed
 * array indexed by site id (0 unused), or NULL when out of memory. */
uint32_t *model_sites_callers(const model *m);
/* alloc_count=site: each counted site's live objects and bytes, estimated
 * from its sampled callers (the share of their allocations still live). */
void model_sites_counted_live(model *m);
/* lifetimes=y: a death at the given age (estimated objects). */
void model_site_died_at(model *m, site_id id, double objs, uint64_t gcs, uint64_t ms);
/* lifetimes=y: deaths already sorted into the age buckets. */
void model_site_died_counts(model *m, site_id id, const double by_gcs[LIFE_GC_BUCKETS],
                            const double by_ms[LIFE_MS_BUCKETS]);
/* The age buckets of a death after surviving gcs collections, or ms milliseconds. */
unsigned life_gc_bucket(uint64_t gcs);
unsigned life_ms_bucket(uint64_t ms);
/* lifetimes=y: a garbage collection was seen. Each site records the fewest
 * live objects it had since the previous one was noted: the floor after that
 * one, whenever the JVM delivered its frees (JDK 17 posts them from a
 * service thread, late under load). Then it watches from its count now. */
void model_sites_gc(model *m);
/* Leak suspect: at least 8 collections seen; split into quarters, the
 * fewest live objects after a collection rose from each quarter to the next,
 * to at least 1.5 times the first quarter's (objects allocated between
 * collections come and go and make the counts noisy; a leak's floor rises).
 * Churn: at least 90% of what was allocated died, most of it before
 * surviving a collection. */
bool model_site_leak_suspect(const model_site *s);
/* For a leak suspect's line: the fewest live objects after a collection in
 * the first and in the last quarter of the collections seen. */
void model_site_leak_floors(const model_site *s, double *first, double *last);
/* lifetimes=y: the objects seen dead (the sum of the age buckets). */
double model_site_died(const model_site *s);
bool model_site_churn(const model_site *s);
static inline uint32_t model_site_count(const model *m) { return intern_count(&m->sites); }

/* Grows a [id - 1]-indexed side array so index `need - 1` is valid; zero-fills. */
bool model_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);

#endif
