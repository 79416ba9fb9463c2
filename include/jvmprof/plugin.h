/* jvmprof/plugin.h — the C interface of a jvmprof plugin, version 2 (a
 * plugin built for version 1 still loads: version 2 only adds fields at the
 * ends of structs, see "Virtual threads" below).
 *
 * A plugin is a shared library the agent loads with plugin=PATH[:ARGS]
 * (-agentpath:libjvmprof.so=trace=exec+mem,plugin=./libcount.so:verbose).
 * It receives every event of trace=, one call per event, as the trace file
 * does; the file is written too when tracefile= is given.
 *
 * What a plugin exports (C linkage, default visibility):
 *   const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;   required
 *   int  jvmprof_plugin_startup(const char *args, const jvmprof_support *s);  required: 0 = ready,
 *        anything else refuses the plugin (the agent says so and profiles without it)
 *   void jvmprof_plugin_event(const jvmprof_event *e);                    required
 *   void jvmprof_plugin_begin(unsigned flags);                            optional: tracing begins
 *        (flags: the JVMPROF_TRACE_* of the session)
 *   void jvmprof_plugin_end(void);                                        optional: tracing ends
 *   void jvmprof_plugin_shutdown(void);                                   optional: the JVM exits
 * startup runs once, when the agent loads (before any Java code); begin and
 * end around each tracing session; shutdown once, as the JVM ends, after
 * the last end.
 *
 * Threads. Events are delivered synchronously, on the thread where they
 * happen, possibly on many threads at once: the plugin must be thread-safe
 * and quick (its time is the program's). By type:
 *   enter, exit, exit-throw, call, alloc, class-load, monitor, thread-start,
 *   thread-end, user, probe, references, object, reference, object-end:
 *       on the Java thread they belong to (e->thread); the support functions
 *       may be called
 *   gc-start, gc-end: in the JVM's collector with every Java thread stopped:
 *       no support function, no lock another thread may hold, no allocation
 *       through the JVM, nothing slow
 *   gc: (what a collection was) on the JVM's notification thread, later;
 *       for the last collections, at the end of tracing (what never came
 *       is then JVMPROF_GC_UNKNOWN / JVMPROF_GC_USED_UNKNOWN)
 *   free, class-unload: on whichever thread the JVM reports them from
 *       (often its service thread): no support function
 *   sample: on the agent's thread (e->thread names the sampled thread): no
 *       support function
 * Virtual threads (JDK 21 and later; version 2). A virtual thread is a
 * thread of its own: its events have its number as e->thread (numbered as
 * platform threads are) and, as e->carrier, the platform thread it ran on
 * (0 for a platform thread's events); its entries and exits pair up on its
 * own depths wherever it runs. Its thread-start (trace=thread, vthreads=y)
 * has u.thread.is_virtual set and u.thread.java_id its Thread.threadId().
 * The support functions called from its events see it (current_thread
 * gives its name). A plugin built for version 1 reads neither field and
 * sees the same events.
 * Names are pointer + length, in the JVM's (modified) UTF-8, not
 * NUL-terminated, valid only during the call: copy what you keep.
 */
#ifndef JVMPROF_PLUGIN_H
#define JVMPROF_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JVMPROF_PLUGIN_API_VERSION 2 /* the agent loads plugins of version 1 or 2 */

/* The classes of events (trace=, and the flags begin gets) */
enum {
    JVMPROF_TRACE_EXEC = 1 | 2,      /* exec: entries and exits */
    JVMPROF_TRACE_EXEC_LIGHT = 1,    /* exec:light: entries */
    JVMPROF_TRACE_THREAD = 4,
    JVMPROF_TRACE_USER = 8,
    JVMPROF_TRACE_MEM_LIGHT = 16,    /* collections */
    JVMPROF_TRACE_MEM = 16 | 32,     /* and deaths */
    JVMPROF_TRACE_ALLOC = 64,
    JVMPROF_TRACE_CLASS = 128,
    JVMPROF_TRACE_MONITOR = 256,
    JVMPROF_TRACE_PROBE = 512,       /* com.sun.tracing probes fired */
};

/* The event types (the numbers of the trace file, docs/trace-format.md) */
typedef enum jvmprof_event_type {
    JVMPROF_EV_GC_INFO = 5,          /* u.gc_info */
    JVMPROF_EV_ENTER = 16,           /* u.enter */
    JVMPROF_EV_EXIT = 17,            /* u.exit */
    JVMPROF_EV_EXIT_THROW = 18,      /* u.exit (thrown = 1) */
    JVMPROF_EV_ALLOC = 19,           /* u.alloc */
    JVMPROF_EV_FREE = 20,            /* u.free */
    JVMPROF_EV_GC_START = 21,        /* u.gc */
    JVMPROF_EV_GC_END = 22,          /* u.gc */
    JVMPROF_EV_THREAD_START = 23,    /* u.thread */
    JVMPROF_EV_THREAD_END = 24,      /* u.thread */
    JVMPROF_EV_CLASS_LOAD = 25,      /* u.class_event */
    JVMPROF_EV_CLASS_UNLOAD = 26,    /* u.class_event */
    JVMPROF_EV_MONITOR = 27,         /* u.monitor */
    JVMPROF_EV_USER = 28,            /* u.user */
    JVMPROF_EV_CALL = 30,            /* u.call (mintime=: a whole call, at its end) */
    JVMPROF_EV_REFERENCES = 31,      /* u.references: an object-reference report begins */
    JVMPROF_EV_OBJECT = 32,          /* u.object */
    JVMPROF_EV_REFERENCE = 33,       /* u.reference: a reference the last object holds */
    JVMPROF_EV_OBJECT_END = 34,      /* (none) */
    JVMPROF_EV_SAMPLE = 36,          /* u.sample */
    JVMPROF_EV_PROBE = 37,           /* u.probe: a com.sun.tracing probe fired (trace=probe) */
} jvmprof_event_type;

typedef struct jvmprof_name {
    const char *p;
    size_t len;
} jvmprof_name;

enum { JVMPROF_METHOD_STATIC = 1, JVMPROF_METHOD_NATIVE = 2, JVMPROF_METHOD_SYNCHRONIZED = 4 };

typedef struct jvmprof_method {
    uint32_t id;                 /* the method's number: the same for every event naming it */
    uint32_t flags;              /* JVMPROF_METHOD_* */
    jvmprof_name class_name;     /* dotted: java.util.HashMap (every class name a plugin gets is dotted) */
    jvmprof_name name, signature;
} jvmprof_method;

enum { JVMPROF_GC_UNKNOWN = 0, JVMPROF_GC_YOUNG = 1, JVMPROF_GC_FULL = 2 };
#define JVMPROF_GC_USED_UNKNOWN UINT64_MAX
enum { JVMPROF_MONITOR_CONTENDED = 1, JVMPROF_MONITOR_ENTERED = 2, JVMPROF_MONITOR_WAIT = 3,
       JVMPROF_MONITOR_WAITED = 4 };
enum { JVMPROF_OBJECT_PLAIN = 1, JVMPROF_OBJECT_ARRAY = 2, JVMPROF_OBJECT_CLASS = 3 };

/* A com.sun.tracing probe: the names DTrace would give it (module and
 * function empty when the program gave none) and its provider's interface
 * attributes ("provider=Evolving/Evolving/Common module=..."). */
typedef struct jvmprof_probe {
    uint32_t id;                 /* the same for every firing of this probe of this provider */
    uint32_t provider_id;        /* the same for every probe of one provider made by the program */
    jvmprof_name provider, module, function, name, attributes;
    uint32_t nargs;
} jvmprof_probe;

/* One argument of a firing. type is the parameter's Java type: 'Z' 'B' 'C'
 * 'S' 'I' 'J' (i: the value; a box counts as its primitive), 'F' 'D' (d:
 * the value, i: its bits), 's' a String (s: its UTF-8, s.p NULL for null,
 * cut at 1024 bytes), 'o' another object (no value). */
typedef struct jvmprof_probe_arg {
    char type;
    int64_t i;
    double d;
    jvmprof_name s;
} jvmprof_probe_arg;

typedef struct jvmprof_event {
    uint32_t type;               /* jvmprof_event_type */
    uint32_t thread;             /* the Java thread's number (1, 2, ...), 0 for none */
    uint64_t time_ns;            /* since the trace began, on one monotonic clock */
    union {
        struct { jvmprof_method method; uint32_t depth; uint64_t receiver; } enter;  /* receiver: the object's id
                                                                                     * (trace=exec, receivers=y), 0 if
                                                                                     * none: a static method (its class
                                                                                     * is method.class_name), <init> */
        struct { jvmprof_method method; uint32_t depth; int thrown; } exit;
        struct { jvmprof_method method; uint32_t depth; int thrown; uint64_t duration_ns; } call;
        struct { uint64_t object; jvmprof_name class_name; uint64_t size; int64_t length; } alloc; /* length -1: not an
                                                                                                  * array */
        struct { uint64_t object; } free;
        struct { uint64_t number; } gc;
        /* gc_info: what collection number was (JVMPROF_GC_*); what was not known when tracing ended: kind
         * JVMPROF_GC_UNKNOWN, collector or cause empty, used_* JVMPROF_GC_USED_UNKNOWN */
        struct { uint64_t number; int kind; jvmprof_name collector, cause; uint64_t used_before, used_after; } gc_info;
        /* thread-end: thread only (and, version 2, is_virtual and java_id of a virtual thread) */
        struct { uint32_t thread; jvmprof_name name, group; int priority; int daemon;
                 int is_virtual; uint64_t java_id; } thread;   /* version 2: is_virtual, java_id */
        struct { uint32_t class_id; jvmprof_name name; } class_event;
        struct { int kind; uint64_t object; jvmprof_name class_name; } monitor;
        struct { jvmprof_name message; } user;
        struct { uint64_t objects, references; } references;
        /* object: class_name empty if it could not be named (`jvmprof trace` shows <class 0>) */
        struct { uint64_t object; int kind; jvmprof_name class_name; uint64_t size; int64_t length; } object;
        struct { uint64_t object; int kind; uint32_t index; } reference; /* kind: JVMTI's jvmtiHeapReferenceKind */
        struct { jvmprof_name stack; } sample;  /* "pkg.Class.method;..." from the root */
        struct { const jvmprof_probe *probe; const jvmprof_probe_arg *args; } probe; /* args: probe->nargs */
    } u;
    uint32_t carrier;            /* version 2: a virtual thread's event: the platform thread it ran on; else 0 */
} jvmprof_event;

/* The support functions, given to startup; each returns 0 on success. */
typedef struct jvmprof_support {
    uint32_t version;            /* the agent's JVMPROF_PLUGIN_API_VERSION */
    /* The calling Java thread's name, group and priority (where the header allows support functions). */
    int (*current_thread)(jvmprof_name *name, jvmprof_name *group, int *priority);
    /* A method by its id (as events give it). */
    int (*method)(uint32_t id, jvmprof_method *out);
    /* A class's name by its id (class-load, class-unload). */
    int (*class_name)(uint32_t class_id, jvmprof_name *out);
    /* The calling Java thread's stack, innermost frame first: up to max frames into frames, *count set. */
    int (*current_stack)(jvmprof_method *frames, int max, int *count);
} jvmprof_support;

#ifdef __cplusplus
}
#endif

#endif
