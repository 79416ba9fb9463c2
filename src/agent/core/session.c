/* session.c — the profiling session and the agent's life around it (see
 * session.h): the JVMTI callbacks of the agent's core (VM init starts the
 * session given at load; thread start and end register threads and tell the
 * collectors; SIGQUIT asks for a report; VM death stops the session and
 * writes its last report), and a session's start and stop at run time.
 *
 * Starting and stopping are serialized by session_all.lock (Control calls from
 * any thread, VM death); no callback takes it. A stop turns the collectors'
 * events off, closes the gate until the callbacks in flight have left, stops
 * the agent thread, writes the report and has each collector free what the
 * session gathered (collector.h's end), then opens the gate again. A
 * session's options stay allocated for the JVM's life (a few KB each): a
 * Tracker call of a stopped session may still read them. */
#include "session.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/jp_log.h"
#include "../../common/out_file.h"
#include "../../format/sink.h"
#include "agent_env.h"
#include "collectors.h"
#include "gate.h"
#include "../heap/heap_dump.h"
#include "../heap/heap_dump_sites.h"
#include "jvmti_util.h"
#include "../remote/net_stream.h"
#include "outputs.h"
#include "profiler.h"
#include "thread_registry.h"
#include "triggers.h"
#include "../tracing/trace_vm_events.h"
#include "vthreads.h"

/* The agent's sessions, one at a time, for the JVM's life: global because JVMTI's callbacks (VM
 * init and death, data dump requests), the control API and the attach commands all reach them
 * without a session in hand. Starting and stopping take lock; no callback does. */
static struct {
    pthread_mutex_t lock;
    bool loaded;                /* the agent is active: the session given at load passed its checks */
    atomic_bool live;           /* a session runs */
    bool vm_started;            /* VM init has run: sessions start at once */
    bool dead;                  /* VM death has begun: no session starts any more */
    uint64_t count;             /* sessions started so far */
    _Atomic uint64_t live_number; /* the running session's number (1, 2, ...); 0: none */
    jp_session *cur;            /* the session being prepared or running, or the last one (its options
                                 * are kept: a late Tracker call may read them) */
    void *retired[JP_PARTS];    /* the parts of the session that ended before the last (session_free_parts) */
} session_all = { .lock = PTHREAD_MUTEX_INITIALIZER };

void *session_part(jp_session *s, jp_part slot, size_t size)
{
    void *p = atomic_load_explicit(&s->part[slot], memory_order_acquire);
    if (p)
        return p;
    void *mine = calloc(1, size ? size : 1);
    if (!mine)
        return NULL;
    if (!atomic_compare_exchange_strong_explicit(&s->part[slot], &p, mine, memory_order_acq_rel, memory_order_acquire)) {
        free(mine); /* another thread made it first */
        return p;
    }
    return mine;
}

/* After the collectors' end hooks: the session's parts are retired, and those retired by the session
 * before are freed. A hot path that gets no session (an injected native, a callback that passes no
 * gate) loads its collector's pointer to its part, which the collector clears at its stop or end; a
 * thread that loaded it just before and was descheduled then may still read the part while the
 * session stops. Its block stays allocated until the next session's end, so such a read never
 * touches freed memory (the blocks are small; what they point to their collector frees at end,
 * after its hot paths stopped). Its options stay too (see session_all.cur). */
static void session_free_parts(jp_session *s)
{
    for (int i = 0; i < JP_PARTS; i++) {
        free(session_all.retired[i]);
        session_all.retired[i] = atomic_exchange(&s->part[i], NULL);
    }
}

/* A new session of options o (kept for the JVM's life, as the session object itself: a few hundred
 * bytes each), made the current one. NULL: out of memory. */
static jp_session *session_new(const agent_options *o, const char *text, bool at_load)
{
    jp_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->opts = o;
    snprintf(s->text, sizeof s->text, "%s", text ? text : "");
    s->at_load = at_load;
    session_all.cur = s;
    return s;
}

bool session_running(void) { return atomic_load(&session_all.live); }

uint64_t session_number(void) { return atomic_load(&session_all.live_number); }

const agent_options *session_options(void) { return session_all.cur ? session_all.cur->opts : NULL; }

#define SESSION_SITES_WAIT_MS 30000 /* for the agent thread to list the sampled objects (it may be writing a report) */

jp_status session_heap_dump(JNIEnv *jni, const char *path, char *err, size_t errlen)
{
    heap_dump_sites sites;
    heap_dump_sites_init(&sites);
    /* a session running heap=sites' sampler (alone, or beside alloc_count=site): its agent thread lists the
     * sampled objects alive now; the other sessions need not wait for it */
    const agent_options *o = session_options();
    if (session_running() && o && o->heap_sites && !options_alloc_exact(o) &&
        !profiler_dump_sites_and_wait(jni, &sites, SESSION_SITES_WAIT_MS))
        sites.given = false;
    heap_dump_sites_seal(&sites);
    jp_status st = heap_dump_write(jni, o, path, &sites, err, errlen);
    heap_dump_sites_free(&sites);
    return st;
}

/* ---- the core's callbacks ---- */

static void JNICALL session_cb_thread_start(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    if (!gate_enter())
        return;
    thread_registry_start(jni, thread, true);
    gate_leave();
}

static void JNICALL session_cb_thread_end(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv;
    if (!gate_enter())
        return;
    thread_registry_end(jni, thread);   /* and the collectors' thread_end */
    gate_leave();
}

static void JNICALL session_cb_data_dump(jvmtiEnv *jv)
{
    (void)jv;
    if (!gate_enter())
        return;
    if (!triggers_quit()) /* trigger=quit: a dump of the recording instead of the session's report */
        profiler_request_dump();
    gate_leave();
}

/* The session's collectors and the agent thread start; the threads running
 * now are registered (and announced to the new model) first. */
static void session_run(JNIEnv *jni)
{
    session_all.cur->since = (double)agent_now_ns() / 1e9;
    net_stream_start(session_all.cur); /* net=: the outputs streamed */
    collectors_admit_threads(); /* the session is prepared: what threads' own starts arm is ready */
    thread_registry_existing(jni);
    collectors_start(jni);
    vthreads_events(jni, collectors_want_vthreads());
    if (profiler_start(jni) != JP_OK) {
        jp_log_error("profiling disabled: the agent thread could not start");
        return;
    }
    atomic_store(&session_all.live_number, ++session_all.count);
    atomic_store(&session_all.live, true);
}

static void JNICALL session_cb_vm_init(jvmtiEnv *jv, JNIEnv *jni, jthread thread)
{
    (void)jv, (void)thread;
    jvmti_event(JVMTI_EVENT_THREAD_START, true);
    jvmti_event(JVMTI_EVENT_THREAD_END, true);
    jvmti_event(JVMTI_EVENT_DATA_DUMP_REQUEST, true);
    session_begin(jni);
}

static void JNICALL session_cb_vm_death(jvmtiEnv *jv, JNIEnv *jni)
{
    (void)jv;
    session_vm_death(jni);
}

/* The core's callbacks and those of the collectors chosen now. */
static jp_status session_set_callbacks(void)
{
    jvmti_vthreads_callbacks all; /* JDK 17's struct, and the two virtual-thread events' slots after it */
    memset(&all, 0, sizeof all);
    jvmtiEventCallbacks *cb = &all.base;
    cb->VMInit = session_cb_vm_init;
    cb->VMDeath = session_cb_vm_death;
    cb->ThreadStart = session_cb_thread_start;
    cb->ThreadEnd = session_cb_thread_end;
    cb->DataDumpRequest = session_cb_data_dump;
    collectors_callbacks(cb);
    vthreads_callbacks(&all);
    jint size = vthreads_supported() ? (jint)sizeof all : (jint)sizeof all.base;
    return jvmti_check((*agent_jvmti)->SetEventCallbacks(agent_jvmti, cb, size), "SetEventCallbacks");
}

/* ---- a session's checks and set-up, at load or at run time ---- */

/* Each output the options name, and the trace file, must be writable now
 * (out_file.h: not a directory, a directory that exists, a temporary can be
 * made beside it), so that a profile is not lost at exit. A name with %n (a
 * heap dump's file=, numbered reports) is checked under its first name
 * (%n = 1). The line names the option: "file=PATH: why". */
static jp_status session_check_outputs(const agent_options *o, const char **bad_option, char *err, size_t errlen)
{
    output outs[OUTPUTS_MAX];
    size_t nout = outputs_of(o, outs);
    for (size_t i = 0; i < nout; i++) {
        char why[1024], first_dump[OPTIONS_PATH_MAX + 16];
        const char *path = outs[i].path;
        if (!outs[i].format && !o->heap_dump)
            continue; /* trace= alone: no report (the trace collector checks its own file) */
        heap_dump_name(path, 1, first_dump, sizeof first_dump); /* %n: checked under its first name */
        path = first_dump;
        if (sink_check_writable(path, why, sizeof why) == JP_OK)
            continue;
        /* the path is said once, after the option's name */
        snprintf(err, errlen, "%s=%s: %s", outs[i].option, path, out_file_reason(why, path));
        if (bad_option)
            *bad_option = outs[i].option;
        return JP_ERR_ARG;
    }
    /* trigger=: its dumps' file, under its first name (an OutOfMemoryError is no time to learn it cannot be written) */
    char why[1024];
    if (o->triggers) {
        char first[OPTIONS_PATH_MAX + 16];
        outputs_name(o->trigger_file, 1, first, sizeof first);
        if (sink_check_writable(first, why, sizeof why) != JP_OK) {
            snprintf(err, errlen, "trigger_file=%s: %s", first, out_file_reason(why, first));
            if (bad_option)
                *bad_option = "trigger_file";
            return JP_ERR_ARG;
        }
    }
    /* the trace file (written in place as the trace goes; with plugin= only if tracefile= is given) */
    if (o->trace && (!o->plugin[0] || options_given(o, OPTIONS_ID_TRACEFILE)) &&
        sink_check_writable(o->tracefile, why, sizeof why) != JP_OK) {
        snprintf(err, errlen, "tracefile=%s: %s", o->tracefile, out_file_reason(why, o->tracefile));
        if (bad_option)
            *bad_option = "tracefile";
        return JP_ERR_ARG;
    }
    return JP_OK;
}

/* What the core asks of JVMTI for every session: line numbers and source files. */
static jvmtiCapabilities session_core_caps(void)
{
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_get_line_numbers = 1;
    caps.can_get_source_file_name = 1;
    return caps;
}

/* The collectors of o chosen, their capabilities added, the callbacks set,
 * their load run and a model made: everything but starting. */
static jp_status session_prepare(const agent_options *o, const char *text, bool at_load, char *err, size_t errlen)
{
    jp_session *s = session_new(o, text, at_load);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return JP_ERR_NOMEM;
    }
    collectors_choose(s);
    /* Retransformation is asked for by the collectors that rewrite classes (cpu=times, trace=exec,
     * the exact allocation counts), at start-up or later: HotSpot grants it in the live phase too.
     * Not for every session: while an environment holds it, HotSpot's compilers record for every
     * method they compile the dependencies that would let a redefinition deoptimize it. */
    jvmtiCapabilities caps = session_core_caps();
    if (collectors_want_vthreads())
        vthreads_capabilities(&caps); /* when the JVM offers it (JDK 21 and later) */
    if (collectors_capabilities(&caps) != JP_OK) {
        snprintf(err, errlen, "the JVM lacks what these options need (see the line above)");
        return JP_ERR_JVMTI;
    }
    /* JVMTI's allocation sampler, which one environment holds at a time: heap=sites takes it in the profile's,
     * trace=alloc in the trace's own; each gives it back at its session's end (another agent may hold it) */
    if ((caps.can_generate_sampled_object_alloc_events &&
         jvmti_sampler_check(agent_jvmti, "heap=sites", err, errlen) != JP_OK) ||
        ((o->trace & OPTIONS_TRACE_ALLOC) && trace_vm_events_sampler_check(err, errlen) != JP_OK)) {
        if (at_load) /* the JVM stops (as when it refuses a capability): the line says why */
            jp_log_error("%s", err);
        return JP_ERR_JVMTI;
    }
    jvmtiError e = (*agent_jvmti)->AddCapabilities(agent_jvmti, &caps);
    if (e == JVMTI_ERROR_NONE && caps.can_generate_sampled_object_alloc_events)
        jvmti_sampler_taken(agent_jvmti, "heap=sites");
    if (e != JVMTI_ERROR_NONE) {
        if (at_load)
            jvmti_check(e, "AddCapabilities");
        snprintf(err, errlen, "%s", at_load ? "the JVM refused the JVMTI capabilities these options need"
                                            : "the JVM grants the JVMTI capabilities these options need only at "
                                              "start-up: give them in -agentpath");
        return JP_ERR_JVMTI;
    }
    vthreads_granted();
    if (session_set_callbacks() != JP_OK) {
        snprintf(err, errlen, "these options could not be set up (see the line above)");
        return JP_ERR_JVMTI;
    }
    jp_status st = collectors_load(err, errlen);
    if (st != JP_OK) {
        if (err[0]) /* the collector's own line (an output that cannot be written: JP_ERR_ARG) */
            return st == JP_ERR_ARG ? st : JP_ERR_JVMTI;
        snprintf(err, errlen, "these options could not be set up (see the line above)");
        return JP_ERR_JVMTI;
    }
    if (profiler_init(s) != JP_OK) {
        snprintf(err, errlen, "out of memory");
        return JP_ERR_NOMEM;
    }
    return JP_OK;
}

jp_status session_load(agent_options *o, const char *text, char *err, size_t errlen)
{
    const char *bad = NULL;
    jp_status st;
    /* force=y: a flame graph or collapsed stacks that cannot be written are left out, not the profile */
    while ((st = session_check_outputs(o, &bad, err, errlen)) != JP_OK && o->force && bad &&
           (strcmp(bad, "flame") == 0 || strcmp(bad, "collapsed") == 0)) {
        fprintf(stderr, "jvmprof: %s; it is not written, the rest of the profile is (force=y)\n", err);
        (strcmp(bad, "flame") == 0 ? o->flame : o->collapsed)[0] = '\0';
    }
    if (st != JP_OK)
        return st;
    st = session_prepare(o, text, true, err, errlen);
    if (st != JP_OK)
        return st;
    st = jvmti_event(JVMTI_EVENT_VM_INIT, true);
    if (st == JP_OK)
        st = jvmti_event(JVMTI_EVENT_VM_DEATH, true);
    if (st != JP_OK) {
        snprintf(err, errlen, "cannot enable the VM init and death events");
        return st;
    }
    session_all.loaded = true;
    return JP_OK;
}

void session_begin(JNIEnv *jni)
{
    pthread_mutex_lock(&session_all.lock);
    session_all.vm_started = true;
    session_run(jni);
    pthread_mutex_unlock(&session_all.lock);
}

jp_status session_start(JNIEnv *jni, const char *text, char *err, size_t errlen)
{
    return session_start_numbered(jni, text, NULL, err, errlen);
}

jp_status session_start_numbered(JNIEnv *jni, const char *text, uint64_t *number, char *err, size_t errlen)
{
    pthread_mutex_lock(&session_all.lock);
    jp_status st = JP_ERR_JVMTI; /* the state does not allow it; JP_ERR_ARG: the options do not */
    agent_options *o = NULL;
    const collector *once = NULL;
    if (!session_all.loaded || !agent_jvmti) {
        snprintf(err, errlen, "the jvmprof agent is not active (it could not start; see its message at start-up)");
    } else if (session_all.dead || !session_all.vm_started) {
        snprintf(err, errlen, "the JVM is %s", session_all.dead ? "shutting down" : "not started yet");
    } else if (atomic_load(&session_all.live)) {
        snprintf(err, errlen,
                 "a profiling session is running; stop it first (jvmprof.Control.stop() in the program, or "
                 "jvmprof stop PID)");
    } else if (!(o = malloc(sizeof *o))) {
        snprintf(err, errlen, "out of memory");
        st = JP_ERR_NOMEM;
    } else if ((st = options_parse(text ? text : "", (long)getpid(), o, err, errlen)) != JP_OK) {
        /* err says which option and what is accepted */
    } else if (o->help) {
        snprintf(err, errlen, "help: the options are listed by -agentpath:libjvmprof.so=help and in docs/options.md");
        st = JP_ERR_ARG;
    } else if ((once = collectors_at_load_only(o)) != NULL) {
        snprintf(err, errlen, "%s can only run from start-up (give it in -agentpath): %s", once->name,
                 once->at_load_only);
        st = JP_ERR_ARG;
    } else if ((st = session_check_outputs(o, NULL, err, errlen)) == JP_OK) {
        if (o->cpu == OPTIONS_CPU_TIMES || o->trace)
            agent_add_jar(); /* the Tracker, GcEvents */
        jp_session *before_s = session_all.cur;
        agent_late_start = true;
        agent_set_log_level(o);
        st = session_prepare(o, text, false, err, errlen);
        if (st == JP_OK) {
            session_run(jni);
            if (!atomic_load(&session_all.live)) {
                snprintf(err, errlen, "the agent thread could not start");
                st = JP_ERR_JVMTI;
            }
        } else {
            collectors_end(jni);
            if (session_all.cur != before_s) { /* made, and refused: the one before is the last again */
                session_free_parts(session_all.cur);
                free(session_all.cur);
                session_all.cur = before_s;
            }
        }
    }
    if (st != JP_OK)
        free(o);
    if (number)
        *number = st == JP_OK ? atomic_load(&session_all.live_number) : 0;
    pthread_mutex_unlock(&session_all.lock);
    return st;
}

bool session_stop(JNIEnv *jni, char *err, size_t errlen) { return session_stop_numbered(jni, 0, err, errlen); }

bool session_stop_numbered(JNIEnv *jni, uint64_t number, char *err, size_t errlen)
{
    pthread_mutex_lock(&session_all.lock);
    if (!atomic_load(&session_all.live) || (number && atomic_load(&session_all.live_number) != number)) {
        snprintf(err, errlen, !session_all.loaded ? "the jvmprof agent is not active (it could not start; see its message "
                                                "at start-up)"
                              : atomic_load(&session_all.live) ? "the session meant has stopped already; another runs"
                                                           : "no profiling session is running");
        pthread_mutex_unlock(&session_all.lock);
        return false;
    }
    atomic_store(&session_all.live, false);
    atomic_store(&session_all.live_number, 0);
    collectors_stop(jni, true);
    profiler_drain_and_wait(jni, 2000);
    collectors_stop(jni, false);
    vthreads_events(jni, false);
    bool quiet = gate_close(5000);
    bool stopped = profiler_stop(jni), ok = stopped;
    if (stopped) {
        triggers_flush(jni);
        profiler_final_request();
        ok = profiler_dump(jni) == JP_OK;
        if (!ok)
            snprintf(err, errlen, "the report could not be written (see the line above)");
        net_stream_stop(3000);
    } else {
        snprintf(err, errlen, "the agent thread did not stop; no report");
    }
    if (quiet && stopped) {
        collectors_end(jni);
        profiler_end();
        session_all.cur->model = NULL;
        session_free_parts(session_all.cur);
    } else {
        /* a callback still in flight, or an agent thread still running, may use the session's state */
        jp_log_error("the stopped session's state is kept (%s); no new session can start in this JVM",
                     quiet ? "the agent thread did not stop" : "callbacks still running after 5 s");
        session_all.loaded = false;
    }
    gate_reopen();
    pthread_mutex_unlock(&session_all.lock);
    return ok;
}

void session_vm_death(JNIEnv *jni)
{
    pthread_mutex_lock(&session_all.lock);
    session_all.dead = true;
    __atomic_store_n(&agent_vm_dying, true, __ATOMIC_RELEASE);
    bool live = atomic_exchange(&session_all.live, false);
    atomic_store(&session_all.live_number, 0);
    if (live) {
        collectors_stop(jni, true);
        profiler_drain_and_wait(jni, 2000);
        collectors_stop(jni, false);
    }
    vthreads_events(jni, false);
    jvmti_event(JVMTI_EVENT_DATA_DUMP_REQUEST, false);
    jvmti_event(JVMTI_EVENT_THREAD_START, false);
    jvmti_event(JVMTI_EVENT_THREAD_END, false);
    if (!gate_close(5000))
        jp_log_error("callbacks still running at VM death after 5 s");
    /* the final report (doe=y), or one asked for just before exit that the agent thread did not take */
    if (live && profiler_stop(jni)) {
        triggers_flush(jni); /* an OutOfMemoryError that ends the program: its dump before the last report */
        bool asked = profiler_final_request();
        if (session_all.cur->opts->doe || asked)
            profiler_dump(jni);
    }
    if (live)
        net_stream_stop(3000);
    pthread_mutex_unlock(&session_all.lock);
}

bool session_attach(char *err, size_t errlen)
{
    pthread_mutex_lock(&session_all.lock);
    bool ok = session_all.loaded;
    if (!ok) {
        jvmtiCapabilities caps = session_core_caps(); /* the collectors add what they need as they start */
        (*agent_jvmti)->AddCapabilities(agent_jvmti, &caps);
        ok = session_set_callbacks() == JP_OK && jvmti_event(JVMTI_EVENT_VM_DEATH, true) == JP_OK &&
             jvmti_event(JVMTI_EVENT_THREAD_START, true) == JP_OK && jvmti_event(JVMTI_EVENT_THREAD_END, true) == JP_OK &&
             jvmti_event(JVMTI_EVENT_DATA_DUMP_REQUEST, true) == JP_OK;
        if (ok)
            session_all.loaded = session_all.vm_started = true;
        else
            snprintf(err, errlen, "the JVM refused the agent's JVMTI events");
    }
    pthread_mutex_unlock(&session_all.lock);
    return ok;
}

bool session_describe(char *options, size_t cap, double *seconds)
{
    pthread_mutex_lock(&session_all.lock);
    bool live = atomic_load(&session_all.live);
    snprintf(options, cap, "%s", live ? session_all.cur->text : "");
    *seconds = live ? (double)agent_now_ns() / 1e9 - session_all.cur->since : 0;
    pthread_mutex_unlock(&session_all.lock);
    return live;
}
