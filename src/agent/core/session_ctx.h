/* session_ctx.h — what a session hands its collectors: its options, its
 * model and a part of its own for each collector and engine (jp_session).
 *
 * session.c makes one from the parsed options when a session is prepared,
 * every collector hook (collector.h) gets it, and it is taken apart when the
 * session ends: each part is made zeroed at its first session_part call and
 * freed after the collectors' end hooks have run. A collector keeps what it
 * gathers for a session in its part, so the next session starts from a
 * fresh one. What a hot path needs without a hook to hand it the session (a
 * signal handler, a JVMTI callback, an injected native) is reached through
 * one documented pointer that the collector sets at its start and clears at
 * its end. */
#ifndef SESSION_CTX_H
#define SESSION_CTX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../model/model.h"
#include "../../options/options.h"

/* One slot per collector and per engine that keeps session state. */
typedef enum jp_part {
    JP_PART_SAMPLED_VTHREADS,
    JP_PART_CPU_JVMTI,
    JP_PART_MONITOR,
    JP_PART_ALLOC_SAMPLED,
    JP_PART_ALLOC_EXACT,
    JP_PART_ALLOC_COUNTS,
    JP_PART_TIMES,
    JP_PART_TRACE,
    JP_PART_ASYNC_SAMPLER,    /* sampling/async_sampler.c: the engine of cpu=samples and wall= */
    JP_PART_BCI,              /* instrument/bci.c: cpu=times and trace=exec */
    JP_PART_TRACE_SESSION,    /* tracing/trace_session.c: the trace file, the stream, plugins */
    JP_PART_VM_ALLOCS,        /* alloc/vm_allocs.c */
    JP_PART_NET,              /* remote/net_stream.c: net= */
    JP_PART_PROFILER,         /* core/profiler.c: the agent thread's own */
    JP_PART_TRIGGERS,         /* core/triggers.c: trigger= */
    JP_PARTS
} jp_part;

typedef struct jp_session {
    const agent_options *opts; /* its options, as parsed (kept for the JVM's life: a late Tracker call may read them) */
    model *model;              /* its model (profiler.c), from its preparation to its end */
    bool at_load;              /* the session given at load (-agentpath, JVMPROF_OPTIONS) */
    char text[1024];           /* its options as given ("" for the defaults) */
    double since;              /* when it started (agent_now_ns, in s) */
    void *_Atomic part[JP_PARTS]; /* session_part's */
} jp_session;

/* The session's part for slot: size bytes, zeroed, made at the first call (on the session's own
 * thread or the agent thread, never on a hot path) and the same block at every later call; freed
 * when the session ends, after the collectors' end hooks. NULL: out of memory. */
void *session_part(jp_session *s, jp_part slot, size_t size);
/* The part if it was made, else NULL (never makes one). */
static inline void *session_part_if(jp_session *s, jp_part slot)
{
    return s ? atomic_load_explicit(&s->part[slot], memory_order_acquire) : NULL;
}

#endif
