/* triggers.c — the trigger collector (trigger=, see triggers.h): what fires
 * each trigger, and each dump's number, interval and line. The callbacks
 * (ResourceExhausted, SIGQUIT's DataDumpRequest, a slow call's exit) set a
 * bit in trig_fired and wake the agent thread; its poll takes the bits, reads
 * the process's CPU time for trigger=cpu, and writes the dumps. An
 * OutOfMemoryError leaves the Java heap full, not the C heap: the callback
 * copies its text into a buffer made at load and allocates nothing; the dump
 * is made by the agent thread in native memory, like any window. */
#include "triggers.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../common/jp_log.h"
#include "../hotspot/vm_dcmd.h"
#include "../instrument/bci.h"
#include "agent_env.h"
#include "collector.h"
#include "gate.h"
#include "jvmti_util.h"
#include "outputs.h"
#include "profiler.h"
#include "thread_record.h"

enum { TRIG_OOM, TRIG_QUIT, TRIG_CPU, TRIG_SLOW, TRIG_KINDS };

static const char *const trig_names[TRIG_KINDS] = { "oom", "quit", "cpu", "slow" };

#define TRIG_CPU_STEP_NS 1000000000ull /* trigger=cpu measures the process's CPU over steps of 1 s */
#define TRIG_SLOW_PAD_MS 1000u         /* trigger=slow's window starts this long before the call */

/* What fired, and the few words each callback leaves for the agent thread: global because the callbacks
 * (a JVMTI event on any thread, SIGQUIT's, an instrumented method's exit) have no session in hand. The
 * session is set at the collector's start and cleared at its end; a bit of fired is taken by the agent
 * thread (or triggers_flush). The OutOfMemoryError's and the slow call's words are written by the one
 * callback that claims them (oom_claimed, slow_claimed) and read by the agent thread before it lets go. */
static struct {
    jp_session *_Atomic session;
    atomic_uint fired;             /* 1 << TRIG_*: fired, not yet taken */
    atomic_bool oom_claimed;
    char oom_what[256];            /* the JVM's description of the first OutOfMemoryError not yet taken */
    atomic_uint oom_seen;          /* OutOfMemoryErrors since the agent thread last took one */
    atomic_bool slow_claimed;
    uint32_t slow_method, slow_thread;
    uint64_t slow_start_ns, slow_took_ns;
    atomic_uint slow_seen;         /* slow calls since the agent thread last took one */
} trig_fired;

/* The collector's part of its session (JP_PART_TRIGGERS): the agent thread's alone. */
typedef struct trig_part {
    unsigned dumps;                      /* trigger dumps written: %n of trigger_file= */
    uint64_t last_ns[TRIG_KINDS];        /* each trigger's last dump (agent_now_ns); 0: none yet */
    unsigned fired[TRIG_KINDS], skipped[TRIG_KINDS];
    bool skip_said[TRIG_KINDS];          /* a skipped one was said since the last dump */
    /* trigger=cpu: the last step's end, the process's CPU time then, and since when it is above */
    uint64_t cpu_at_ns, cpu_used_ns, above_since_ns, above_used_ns;
} trig_part;

static trig_part *trig_part_of(jp_session *s) { return session_part(s, JP_PART_TRIGGERS, sizeof(trig_part)); }

static bool trig_wanted(const agent_options *o) { return o->triggers != 0; }

static void trig_fire(unsigned kind)
{
    atomic_fetch_or(&trig_fired.fired, 1u << kind);
    profiler_wake();
}

static jp_status trig_capabilities(jp_session *s, jvmtiCapabilities *caps)
{
    if (s->opts->triggers & OPTIONS_TRIGGER_OOM) {
        caps->can_generate_resource_exhaustion_heap_events = 1;
        caps->can_generate_resource_exhaustion_threads_events = 1;
    }
    return JP_OK;
}

/* An OutOfMemoryError about to be thrown (or a resource the JVM lacks), on the thread that met it. */
static void JNICALL trig_cb_resource_exhausted(jvmtiEnv *jv, JNIEnv *jni, jint flags, const void *reserved,
                                               const char *description)
{
    (void)jv, (void)jni, (void)reserved;
    if (!gate_enter())
        return;
    jp_session *s = atomic_load(&trig_fired.session);
    if (s && (s->opts->triggers & OPTIONS_TRIGGER_OOM) && (flags & JVMTI_RESOURCE_EXHAUSTED_OOM_ERROR)) {
        atomic_fetch_add(&trig_fired.oom_seen, 1);
        if (!atomic_exchange(&trig_fired.oom_claimed, true))
            snprintf(trig_fired.oom_what, sizeof trig_fired.oom_what, "%s", description ? description : "?");
        trig_fire(TRIG_OOM);
    }
    gate_leave();
}

static void trig_callbacks(jvmtiEventCallbacks *cb) { cb->ResourceExhausted = trig_cb_resource_exhausted; }

/* HotSpot logs each ResourceExhausted event it posts ("[error][jvmti] Posting Resource Exhausted event") to
 * stdout by default: the program's stdout is not the agent's to change, so the [jvmti] tag set is turned off
 * there (other outputs, and every other tag, as they were). At the session's start, before the program runs on
 * (an OutOfMemoryError may come in its first milliseconds): it loads about 120 classes of jdk.management and
 * its library, once (measured: 12 ms more to run Hello, docs/recording.md). */
static void trig_log_quiet(JNIEnv *jni)
{
    char why[128];
    if (!vm_dcmd(jni, "VM.log output=stdout what=jvmti=off", why, sizeof why))
        jp_log_info("trigger=oom: HotSpot may print \"[error][jvmti] Posting Resource Exhausted event\" on the "
                    "program's stdout at each OutOfMemoryError (%s); -Xlog:jvmti=off leaves it out", why);
}

static jp_status trig_start(jp_session *s, JNIEnv *jni)
{
    trig_part *tp = trig_part_of(s);
    if (!tp)
        return JP_ERR_NOMEM;
    atomic_store(&trig_fired.fired, 0);
    atomic_store(&trig_fired.oom_claimed, false);
    atomic_store(&trig_fired.slow_claimed, false);
    atomic_store(&trig_fired.session, s);
    if (!(s->opts->triggers & OPTIONS_TRIGGER_OOM))
        return JP_OK;
    trig_log_quiet(jni);
    return jvmti_event(JVMTI_EVENT_RESOURCE_EXHAUSTED, true);
}

bool triggers_quit(void)
{
    jp_session *s = atomic_load(&trig_fired.session);
    if (!s || !(s->opts->triggers & OPTIONS_TRIGGER_QUIT))
        return false;
    trig_fire(TRIG_QUIT);
    return true;
}

void triggers_slow_call(uint32_t method, uint32_t thread, uint64_t start_ns, uint64_t took_ns)
{
    jp_session *s = atomic_load_explicit(&trig_fired.session, memory_order_relaxed);
    if (!s || !(s->opts->triggers & OPTIONS_TRIGGER_SLOW))
        return;
    atomic_fetch_add_explicit(&trig_fired.slow_seen, 1, memory_order_relaxed);
    if (atomic_exchange(&trig_fired.slow_claimed, true))
        return; /* one is waiting for the agent thread already */
    trig_fired.slow_method = method;
    trig_fired.slow_thread = thread;
    trig_fired.slow_start_ns = start_ns;
    trig_fired.slow_took_ns = took_ns;
    trig_fire(TRIG_SLOW);
}

/* A dump for trigger kind, of window, unless its last was less than trigger_interval= ago. */
static void trig_dump(jp_session *s, JNIEnv *jni, unsigned kind, const profiler_window *window, const char *what)
{
    trig_part *tp = trig_part_of(s);
    if (!tp)
        return;
    const agent_options *o = s->opts;
    uint64_t now = agent_now_ns();
    if (tp->last_ns[kind] && now - tp->last_ns[kind] < o->trigger_interval_ns) {
        tp->skipped[kind]++;
        if (!tp->skip_said[kind]) /* once per interval: an OutOfMemoryError may come again and again */
            jp_log_info("trigger %s (%s): no dump, the last was %.1f s ago (trigger_interval=%.0f s)", trig_names[kind],
                        what, (double)(now - tp->last_ns[kind]) / 1e9, (double)o->trigger_interval_ns / 1e9);
        tp->skip_said[kind] = true;
        return;
    }
    tp->last_ns[kind] = now;
    tp->skip_said[kind] = false;
    tp->fired[kind]++;
    char path[OPTIONS_PATH_MAX + 16];
    outputs_name(o->trigger_file, ++tp->dumps, path, sizeof path);
    if (profiler_dump_trigger(jni, path, window, trig_names[kind], what) != JP_OK)
        jp_log_error("trigger %s (%s): %s could not be written (see the line above)", trig_names[kind], what, path);
}

/* The last maxage= of the recording: what the oom, quit and cpu triggers dump. */
static profiler_window trig_whole(const agent_options *o)
{
    return (profiler_window){ .set = true, .last_ms = o->maxage_ns / 1000000u };
}

/* trigger=cpu: at each step of 1 s, whether the process used cpu_above= of one core; cpu_for= of such
 * steps in a row fires it (the next needs cpu_for= more). */
static void trig_cpu_poll(jp_session *s, JNIEnv *jni, trig_part *tp)
{
    const agent_options *o = s->opts;
    uint64_t now = agent_now_ns();
    if (tp->cpu_at_ns && now - tp->cpu_at_ns < TRIG_CPU_STEP_NS)
        return; /* the process's clock (a sum over its threads) is read once a step */
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return;
    uint64_t used = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (!tp->cpu_at_ns) {
        tp->cpu_at_ns = now;
        tp->cpu_used_ns = used;
        return;
    }
    double pct = 100.0 * (double)(used - tp->cpu_used_ns) / (double)(now - tp->cpu_at_ns);
    if (pct < (double)o->cpu_above) {
        tp->above_since_ns = 0;
    } else if (!tp->above_since_ns) {
        tp->above_since_ns = tp->cpu_at_ns;
        tp->above_used_ns = tp->cpu_used_ns;
    }
    tp->cpu_at_ns = now;
    tp->cpu_used_ns = used;
    if (!tp->above_since_ns || now - tp->above_since_ns < o->cpu_for_ns)
        return;
    char what[160];
    snprintf(what, sizeof what, "the process used %.0f%% of one core for %.1f s; cpu_above=%u%% for cpu_for=%.0f s",
             100.0 * (double)(used - tp->above_used_ns) / (double)(now - tp->above_since_ns),
             (double)(now - tp->above_since_ns) / 1e9, o->cpu_above, (double)o->cpu_for_ns / 1e9);
    tp->above_since_ns = 0;
    profiler_window w = trig_whole(o);
    trig_dump(s, jni, TRIG_CPU, &w, what);
}

/* trigger=slow: the call named, its window from a second before it began to now. */
static void trig_slow_take(jp_session *s, JNIEnv *jni)
{
    uint32_t method = trig_fired.slow_method, thread = trig_fired.slow_thread;
    uint64_t start = trig_fired.slow_start_ns, took = trig_fired.slow_took_ns;
    unsigned seen = atomic_exchange(&trig_fired.slow_seen, 0);
    atomic_store(&trig_fired.slow_claimed, false);
    const bci_method *bm = bci_method_get(method);
    char who[160] = "";
    const model_thread *t = s->model ? model_thread_get(s->model, thread) : NULL;
    const char *tname = t && t->known ? model_string_get(s->model, t->name, NULL) : NULL;
    if (tname)
        snprintf(who, sizeof who, "thread \"%s\"", tname);
    else
        snprintf(who, sizeof who, "thread %u", thread);
    char when[32];
    uint64_t wall_ms = agent_wall_ns_of(start) / 1000000u;
    time_t secs = (time_t)(wall_ms / 1000);
    struct tm tm;
    localtime_r(&secs, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    char what[640];
    snprintf(what, sizeof what, "%s%s%s took %.3f ms on %s, from %s.%03u; mintime=%.3f ms%s",
             bm ? bm->cls->name : "?", bm ? "." : "", bm ? bm->name : "?", (double)took / 1e6, who, when,
             (unsigned)(wall_ms % 1000), (double)s->opts->mintime_ns / 1e6, seen > 1 ? "; and others after it" : "");
    /* from a second before the call began (or the session's start) to now */
    uint64_t start_ms = s->model ? s->model->start_time_ms : 0;
    profiler_window w = { .set = true };
    w.from_ms = wall_ms > start_ms + TRIG_SLOW_PAD_MS ? wall_ms - start_ms - TRIG_SLOW_PAD_MS : 0;
    trig_dump(s, jni, TRIG_SLOW, &w, what);
}

/* What fired since the last look, each dumped (or skipped), and trigger=cpu's measure. */
static void trig_take(jp_session *s, JNIEnv *jni, bool cpu)
{
    trig_part *tp = trig_part_of(s);
    if (!tp)
        return;
    const agent_options *o = s->opts;
    unsigned fired = atomic_exchange(&trig_fired.fired, 0);
    profiler_window whole = trig_whole(o);
    if (fired & (1u << TRIG_OOM)) {
        char what[320];
        unsigned seen = atomic_exchange(&trig_fired.oom_seen, 0);
        snprintf(what, sizeof what, "OutOfMemoryError: %s%s", trig_fired.oom_what,
                 seen > 1 ? " (and more after it)" : "");
        atomic_store(&trig_fired.oom_claimed, false);
        trig_dump(s, jni, TRIG_OOM, &whole, what);
    }
    if (fired & (1u << TRIG_QUIT))
        trig_dump(s, jni, TRIG_QUIT, &whole, "SIGQUIT");
    if (fired & (1u << TRIG_SLOW))
        trig_slow_take(s, jni);
    if (cpu && (o->triggers & OPTIONS_TRIGGER_CPU))
        trig_cpu_poll(s, jni, tp);
}

static void trig_poll(jp_session *s, JNIEnv *jni) { trig_take(s, jni, true); }

void triggers_flush(JNIEnv *jni)
{
    jp_session *s = atomic_load(&trig_fired.session);
    if (s && s->model && atomic_load(&trig_fired.fired))
        trig_take(s, jni, false);
}

static void trig_stop(jp_session *s, JNIEnv *jni)
{
    (void)jni;
    if (s->opts->triggers & OPTIONS_TRIGGER_OOM)
        jvmti_event(JVMTI_EVENT_RESOURCE_EXHAUSTED, false);
}

static void trig_end(jp_session *s, JNIEnv *jni)
{
    (void)s, (void)jni;
    atomic_store(&trig_fired.session, NULL);
    atomic_store(&trig_fired.fired, 0);
}

static void trig_describe(jp_session *s)
{
    trig_part *tp = session_part_if(s, JP_PART_TRIGGERS);
    if (!tp)
        return;
    char line[256];
    size_t used = 0;
    line[0] = '\0';
    for (unsigned k = 0; k < TRIG_KINDS; k++) {
        if (!(s->opts->triggers & (1u << k)))
            continue;
        int n = snprintf(line + used, sizeof line - used, "%s%s %u dumped, %u skipped", used ? "; " : "",
                         trig_names[k], tp->fired[k], tp->skipped[k]);
        if (n < 0 || (size_t)n >= sizeof line - used)
            break;
        used += (size_t)n;
    }
    jp_log_info("triggers: %s (trigger_interval=%.0f s; files %s)", line, (double)s->opts->trigger_interval_ns / 1e9,
                s->opts->trigger_file);
}

const collector trigger_collector = {
    .name = "trigger=",
    .wanted = trig_wanted,
    .capabilities = trig_capabilities,
    .callbacks = trig_callbacks,
    .start = trig_start,
    .poll = trig_poll,
    .describe = trig_describe,
    .stop = trig_stop,
    .end = trig_end,
};
