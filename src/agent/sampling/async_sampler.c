/* async_sampler.c — the signal-driven sampler (see async_sampler.h).
 *
 * Hot path: asy_on_signal runs in a signal handler on the sampled thread. It
 * reads that thread's JNIEnv and serial from the thread's record
 * (thread_record.h: initial-exec TLS, set for every Java thread), claims a
 * slot of the ring with one CAS (a bounded multi-producer queue in the style
 * of D. Vyukov's: each slot carries a sequence number), lets
 * AsyncGetCallTrace write the frames straight into the slot and publishes
 * it. No lock, no malloc, no I/O; when the ring is full the sample is
 * counted as dropped. The agent thread is the only consumer.
 *
 * State: the session's part (asy_state, JP_PART_ASYNC_SAMPLER, made by
 * whichever of cpu=samples and wall= is prepared) holds what the hooks and
 * the agent thread keep; what the handler and the ClassPrepare callback
 * touch is one block with the ring (asy_hot) that the part owns and that
 * they reach through asy_live, one load. Only what outlives a session is
 * global (asy_proc: AsyncGetCallTrace, the timer kind, the handlers-inside
 * count, two jmethodIDs). */
#include "async_sampler.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <ucontext.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../common/buf.h"
#include "../../common/jp_log.h"
#include "../../common/proc_state.h"
#include "../../format/format.h"
#include "../../model/recording.h"
#include "../core/agent_env.h"
#include "../hotspot/code_kinds.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../core/symbols.h"
#include "../core/thread_record.h"
#include "../hotspot/vm_code.h"
#include "../hotspot/vmstructs.h"
#include "../core/thread_registry.h"
#include "../core/ticks.h"
#include "../tracing/trace_session.h"
#include "jvm_threads.h"
#include "native_frames.h"
#include "sampler_vthreads.h"
#include "../core/vthreads.h"
#include "../../native/perf_spec.h"
#include "../../native/perf_thread.h"

/* AsyncGetCallTrace's interface, as HotSpot exports it (forte.cpp). */
typedef struct {
    jint lineno;              /* bytecode index; -3 for a native method */
    jmethodID method_id;
} asy_call_frame;
typedef struct {
    JNIEnv *env_id;
    jint num_frames;          /* > 0 frames written, <= 0 a reason it failed */
    asy_call_frame *frames;
} asy_call_trace;
typedef void (*asy_agct_fn)(asy_call_trace *trace, jint depth, void *ucontext);

/* The failure codes of AsyncGetCallTrace (num_frames <= 0), by -code. */
#define ASY_AGCT_CODES 12
static const char *const asy_agct_names[ASY_AGCT_CODES] = {
    "no Java frame", "no class load", "GC active", "unknown not Java", "not walkable not Java",
    "unknown Java", "not walkable Java", "unknown state", "thread exit", "deopt", "safepoint",
    "JVM leaf", /* jvmprof's own: a leaf call into libjvm.so it could not walk out of */
};
#define ASY_JVM_LEAF (-11)

#define ASY_SIGNAL SIGPROF
/* si_value of a wall= signal: tag << 24 | weight << 8 | state, with ASY_WALL_ON_CPU
 * in the state's byte when the kernel had the thread running (a carrier: JVMTI
 * calls one that runs a virtual thread waiting, whatever that thread does) */
#define ASY_WALL_TAG 0x6a
#define ASY_WALL_ON_CPU 0x80
#define ASY_WALL_WEIGHT_MAX 0xffff
/* wall= signals at most this many threads each period, taking turns; each
 * sample then counts for the threads it stands for, so totals still cover
 * every thread while 200 idle threads do not cost 200 signals a period */
#define ASY_WALL_THREADS_PER_TICK 16
/* ... and at most this many unmounted virtual threads (JVMTI GetStackTrace
 * on each from the agent thread), taking turns in the same way */
#define ASY_WALL_VTHREADS_PER_TICK 16
#define ASY_MAX_DEPTH 2048u             /* frames kept for flame graphs */
/* cstack=: the kernel's frames and the native ones kept per sample */
#define ASY_KERNEL_FRAMES 48u
#define ASY_NATIVE_FRAMES 256u /* with the markers of the Java frames between (native_frames.h) */
/* The least interval= (ms) at which CPU samples without kernel frames take POSIX CPU timers rather than a
 * perf_event task clock. A POSIX timer is checked at the scheduler's tick (4 ms at 250 Hz), which comes anyway;
 * a task clock runs a timer interrupt of its own for each sample: measured on a 2-core VM (bench/timer_cost.sh),
 * about 38 us of CPU a sample against 17 for a POSIX timer's (the signal's delivery, common to both). Below
 * this interval the perf_event clock gives the stacks at the interval asked for, where POSIX timers would give
 * one a tick, standing for several samples. */
#define ASY_POSIX_MIN_INTERVAL_MS 10u
/* perf events by file descriptor, for the handler (the signal carries its fd) */
#define ASY_PERF_FDS 65536u

typedef struct asy_slot {
    _Atomic uint64_t seq;
    uint32_t serial;
    uint32_t weight;
    int32_t nframes;
    uint8_t state;
    uint64_t ticks;            /* when it was taken (ticks.h): a trace= of the same run places it */
    bool virt;                 /* a virtual thread's sample (serial is then its serial, from vthreads.h), */
    uint32_t carrier;          /* taken on this carrier (0: unmounted, wall=), its record (vthreads_at) */
    uint32_t vindex;           /* and Thread.threadId() */
    uint64_t vjava_id;
    bool jvm;                  /* threads=all: a thread of the JVM's own (serial from jvm_threads.h), no Java frames */
    uint16_t nkernel, nnative; /* cstack=: kernel frames, then native frames, at asy_hot.cpcs_off (leaf first) */
    asy_call_frame frames[];   /* asy_hot.depth of them */
} asy_slot;

/* Samples the ring had no room for, by thread and state, so that they still
 * count (under <unknown frame>.ring_full): an open-addressed table a handler
 * claims an entry of with one CAS on its key (serial << 8 | state, plus 1),
 * and adds to; entries are never freed during a session. The extra last entry
 * takes whatever finds the table full, under no thread. */
#define ASY_DROP_SLOTS 256u
typedef struct asy_drop {
    _Atomic uint64_t key, weight;
} asy_drop;

/* What the signal handler and the ClassPrepare callback touch: one block with
 * the ring's slots after it (slots), made by a session's init and owned by its
 * part (asy_state.ring), freed at its end once no handler is inside (kept for
 * good if one is stuck there, so that it never writes into freed memory). */
typedef struct asy_hot {
    unsigned char *slots;      /* the ring: mask + 1 slots of slot_size bytes each */
    size_t slot_size;
    uint64_t mask;
    uint32_t depth;            /* frames captured per sample */
    size_t cpcs_off;           /* cstack=: where a slot's kernel and native pcs are (0: none) */
    bool native, kernel;       /* cstack=: walk the native frames; read the kernel's */
    bool jvm_threads;          /* threads=all */
    atomic_bool active;        /* samples are recorded: from the session's start to its stop */
    _Atomic uint64_t enqueue;
    /* counters the handler bumps (relaxed atomics are lock-free here) */
    _Atomic uint64_t signals, dropped, no_env, foreign;
    /* what sampling costs on the program's threads: the time of the handlers timed (asy_on_signal) and the time
     * inside the ClassPrepare callback (clock_gettime is async-signal-safe) */
    _Atomic uint64_t handler_ns, prepare_ns, prepared;
    _Atomic uint64_t handlers_timed;   /* handlers whose time is in handler_ns (asy_switches) */
    /* the walks jvmprof took where AsyncGetCallTrace alone would not */
    _Atomic uint64_t recovered, recovered_top, recovered_interp, recovered_vm, in_other_handler, from_leaf;
    _Atomic uint64_t jvm_samples, native_walks;
    asy_drop drops[ASY_DROP_SLOTS + 1];
} asy_hot;

/* ---- CPU timers, one per Java thread, kept by serial (see asy_timer_slot) */
#define ASY_TIMER_CHUNK 1024u
#define ASY_TIMER_CHUNKS 1024u   /* serials up to about a million */

/* The engine's part of the session (JP_PART_ASYNC_SAMPLER), made by whichever
 * of cpu=samples and wall= comes first (they never run together) and used by
 * both: what the session's hooks and the agent thread keep. */
typedef struct asy_state {
    const agent_options *opts;  /* the session's */
    asy_hot *ring;              /* the handler's block, asy_live while the session samples */
    atomic_bool cpu_timers;     /* cpu=samples: each thread's CPU timer */
    _Atomic uint64_t perf_fallbacks; /* threads given a POSIX timer all the same */
    _Atomic uint64_t timer_failed;   /* threads without a CPU timer */
    atomic_uint not_ours;       /* timers not armed: the handler was not ours */
    bool want_stacks;           /* flame= / collapsed=: full stacks in the model */
    bool code_kinds;            /* CompiledMethodLoad events on (code_kinds.h) */
    int debug_flag_was;         /* DebugNonSafepoints before the session: 1, 0, -1 unknown */
    frame_id *scratch_frames;   /* agent thread: one sample's trace, depth long */
    buf trace_text;             /* agent thread: a sample's stack for trace= */
    uint32_t *scratch_kframes;  /* agent thread: one sample's stack, depth long */
    frame_id *scratch_cframes;  /* agent thread: one sample's kernel and native frames, */
    uint32_t *scratch_cpacked;  /* ... as stacks keep them, */
    uint32_t *scratch_cat;      /* ... and the Java frame each goes above (asy_place) */
    uint64_t dequeue;           /* agent thread only */
    /* the agent thread's own tallies */
    uint64_t recorded, stacks, failed[ASY_AGCT_CODES + 1], wall_signals, wall_failed;
    uint64_t dropped_samples;   /* agent thread: dropped samples recorded */
    asy_slot *vslot;            /* the agent thread's: one unmounted virtual thread's sample */
    jvmtiFrameInfo *vframes;    /* ... its frames from JVMTI, depth of them */
    uint64_t vthread_samples;   /* unmounted virtual threads' stacks taken (their weight: recorded) */
    uint32_t wall_turn;         /* wall=: where the previous period stopped */
    perf_spec spec;             /* event=: what the threads' perf events count */
    uint64_t period;            /* ... every so many (ns for a clock) */
    bool event_other;           /* event= other than cpu: weight per sample, the report's header */
    bool event_off;             /* event= this machine cannot count: no timers */
    native_frames_names *names; /* cstack=: the native frames' names in the model */
    uint32_t *java_tids;        /* threads=all: the Java threads' OS ids, each scan */
    uint32_t java_tids_cap;
    uint64_t kernel_samples, native_samples, unnamed_samples; /* samples with kernel, native, unnamed frames */
    uint64_t unnamed_symtab_samples; /* ... with a frame unnamed in a library that has a full symbol table */
    uint64_t unplaced_samples;  /* ... with native frames left out: no place among the Java frames (asy_place) */
    /* the threads' CPU timers, by serial: chunks made as serials come, freed at the end */
    _Atomic(_Atomic uintptr_t *) timer_chunks[ASY_TIMER_CHUNKS];
} asy_state;

/* The running session's handler block, for the signal handler and the
 * ClassPrepare callback (which get no session): set by the session's init,
 * cleared at its end before the block is freed. One load per signal. */
static asy_hot *_Atomic asy_live;

/* Process-lifetime, not a session's: the JVM's AsyncGetCallTrace (looked up
 * once, for the handler installed for the JVM's life), the kind of CPU timer
 * this kernel gives (probed at a cpu=samples session's init; the handler reads
 * it), the count of handlers running, which a session's end waits on before it
 * frees the block they write to (so it cannot live in that block), and two
 * jmethodIDs looked up once (valid for the JVM's life). */
static struct {
    asy_agct_fn agct;
    bool perf_timers;           /* a perf_event task clock, not a POSIX CPU timer */
    char perf_refused[96];      /* why not: perf_event_open's error */
    int kernel_refused;         /* errno of the kernel's refusal of kernel callchains (0: given) */
    bool kernel_said;
    _Atomic(perf_thread *) by_fd[ASY_PERF_FDS]; /* Java threads' perf events, for the handler */
    _Atomic uint64_t trap_addr;  /* event=<function>: the breakpoint's address (asy_on_trap) */
    _Atomic uint64_t stray_traps; /* SIGTRAPs of it returned from */
    struct sigaction trap_old;  /* SIGTRAP's handler before ours */
    bool trap_installed;
    atomic_int in_handler;      /* handlers running now */
    jmethodID enter_special;    /* Continuation.enterSpecial: where a mounted virtual thread's frames end */
    bool enter_special_looked;
    jmethodID vthread_sleep;    /* VirtualThread.sleepNanos: a virtual thread in Thread.sleep */
    bool vthread_sleep_looked;
} asy_proc;

static asy_state *asy_of(jp_session *session) { return session_part_if(session, JP_PART_ASYNC_SAMPLER); }

#define ASY_PERIOD_MIN_MS 20u
#define ASY_PERIOD_MAX_MS 100u

unsigned async_sampler_period_ms(jp_session *session)
{
    asy_state *as = asy_of(session);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!as || !as->ring || !options_event_is_cpu(as->opts) || cpus < 1)
        return ASY_PERIOD_MIN_MS;
    uint64_t fits = (as->ring->mask + 1) / 4 * (uint64_t)(as->opts->interval_ms ? as->opts->interval_ms : 1) /
                    (uint64_t)cpus;
    return fits < ASY_PERIOD_MIN_MS ? ASY_PERIOD_MIN_MS : fits > ASY_PERIOD_MAX_MS ? ASY_PERIOD_MAX_MS : (unsigned)fits;
}

static uint64_t asy_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The handlers' own cost is timed on one handler in ASY_TIMED_EVERY of each thread: by the monotonic clock (the
 * vDSO's, no system call) from its start to its end, kept only when the thread's count of context switches did
 * not change in between (read with getrusage before the end, after the start, so that a switch at the first
 * call's return is seen): a wall clock without the check would hold the time the thread waited. The thread's
 * CPU clock would take two system calls in every handler. The total is the kept handlers' time scaled to all
 * signals. */
#define ASY_TIMED_EVERY 8u
static __thread unsigned asy_timing_tick __attribute__((tls_model("initial-exec")));

static uint64_t asy_switches(void)
{
    struct rusage ru;
    if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
        return UINT64_MAX;
    return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

static void asy_count_drop(asy_hot *r, uint32_t serial, uint8_t state, uint32_t weight)
{
    uint64_t key = ((uint64_t)serial << 8 | state) + 1;
    uint32_t h = (serial * 2654435761u) ^ state;
    for (uint32_t i = 0; i < ASY_DROP_SLOTS; i++) {
        asy_drop *d = &r->drops[(h + i) & (ASY_DROP_SLOTS - 1)];
        uint64_t k = atomic_load_explicit(&d->key, memory_order_acquire);
        if (k == 0 && atomic_compare_exchange_strong_explicit(&d->key, &k, key, memory_order_acq_rel,
                                                              memory_order_acquire))
            k = key;
        if (k == key) {
            atomic_fetch_add_explicit(&d->weight, weight, memory_order_relaxed);
            return;
        }
    }
    asy_drop *full = &r->drops[ASY_DROP_SLOTS];
    uint64_t none = 0;
    atomic_compare_exchange_strong_explicit(&full->key, &none, (uint64_t)state + 1, memory_order_acq_rel,
                                            memory_order_acquire);
    atomic_fetch_add_explicit(&full->weight, weight, memory_order_relaxed);
}

static asy_slot *asy_slot_at(const asy_hot *r, uint64_t pos)
{
    return (asy_slot *)(r->slots + (size_t)(pos & r->mask) * r->slot_size);
}

static void asy_sample(asy_hot *r, siginfo_t *si, void *ucontext);
static void asy_timers_for_running(asy_state *as, JNIEnv *jni);
static void asy_choose_timer(asy_state *as);
static jp_status asy_event_init(asy_state *as);

#define ASY_UNKNOWN_NOT_JAVA (-3)
#define ASY_NOT_WALKABLE_NOT_JAVA (-4)
#define ASY_UNKNOWN_JAVA (-5)
#define ASY_NOT_WALKABLE_JAVA (-6)

/* AsyncGetCallTrace gives up ("unknown Java") when the thread was stopped
 * where its top frame cannot be walked: the first or last instructions of a
 * compiled method, while its frame is not complete, the interpreter at a
 * method's entry, or a frameless stub such as an array copy. The walk is
 * then tried once more as if the thread were at the call in the caller:
 * from the return address (minus one: see below) found at ret_at, with the
 * stack pointer just above it and, when fp is not 0, that frame pointer;
 * the JVM checks the frame it gets (safe_for_sender) as it does any other. */
static bool asy_retry_from_caller_sp(asy_call_trace *trace, void *ucontext, uint32_t depth, uintptr_t ret_at,
                                     uintptr_t fp, uintptr_t caller_sp)
{
#if defined(__x86_64__)
    ucontext_t uc = *(ucontext_t *)ucontext;
    greg_t *r = uc.uc_mcontext.gregs;
    uintptr_t ret = 0, sp = (uintptr_t)r[REG_RSP];
    if (ret_at == 0 || (ret_at & 7) != 0)
        return false;
    /* the two words at the stack pointer are the thread's own stack: readable
     * without process_vm_readv (which a seccomp profile may refuse) */
    if (!vm_code_word(ret_at, &ret) && ret_at >= sp && ret_at <= sp + sizeof(uintptr_t))
        ret = *(const uintptr_t *)ret_at;
    if (ret < 4096)
        return false;
    /* one byte back, inside the call instruction: HotSpot names a compiled frame
     * at a pc that is not a call's by the first debug information after it,
     * and at the return address itself that is whatever follows the call (a
     * method inlined there); just before it, it is the call's own */
    r[REG_RIP] = (greg_t)(ret - 1);
    r[REG_RSP] = (greg_t)(caller_sp ? caller_sp : ret_at + sizeof(uintptr_t));
    if (fp)
        r[REG_RBP] = (greg_t)fp;
    trace->num_frames = 0;
    asy_proc.agct(trace, (jint)depth, &uc);
    return trace->num_frames > 0;
#else
    (void)trace, (void)ucontext, (void)depth, (void)ret_at, (void)fp, (void)caller_sp;
    return false;
#endif
}

static bool asy_retry_from_caller(asy_call_trace *trace, void *ucontext, uint32_t depth, uintptr_t ret_at, uintptr_t fp)
{
    return asy_retry_from_caller_sp(trace, ucontext, depth, ret_at, fp, 0);
}

/* The caller of the interpreted frame at fp: its return address is above
 * the saved rbp; its stack pointer is the one the interpreted frame saved
 * (frame::interpreter_frame_sender_sp_offset, one word below fp), which
 * differs from the top of the interpreted frame when an adapter extended
 * a compiled caller's stack; its rbp is the saved one, a frame pointer only
 * for an interpreted caller. */
static bool asy_retry_from_interpreted(asy_call_trace *trace, void *ucontext, uint32_t depth, uintptr_t sp,
                                       uintptr_t fp)
{
    uintptr_t caller_fp = 0, sender_sp = 0;
    if (fp < sp || fp - sp >= (256u << 10) || (fp & 7) != 0 || !vm_code_word(fp, &caller_fp) ||
        !vm_code_word(fp - sizeof(uintptr_t), &sender_sp))
        return false;
    uintptr_t above = fp + 2 * sizeof(uintptr_t);
    if (sender_sp >= above && sender_sp - above < (64u << 10) && (sender_sp & 7) == 0 &&
        asy_retry_from_caller_sp(trace, ucontext, depth, fp + sizeof(uintptr_t), caller_fp, sender_sp))
        return true;
    return asy_retry_from_caller(trace, ucontext, depth, fp + sizeof(uintptr_t), caller_fp);
}

/* A stub's caller, from the stub's frame size in the code cache (return
 * address included; from vm_code_at): where the caller's return address is
 * (*ret_at) above the stub's stack pointer sp, and the rbp the stub saved
 * just below it (*saved_fp). False for a frameless stub, an implausible
 * size or a word that cannot be read. */
static bool asy_stub_caller(uintptr_t sp, uint32_t frame_words, uintptr_t *ret_at, uintptr_t *saved_fp)
{
    if (frame_words < 2 || frame_words >= 4096)
        return false;
    *ret_at = sp + (frame_words - 1) * sizeof(uintptr_t);
    return vm_code_word(*ret_at - sizeof(uintptr_t), saved_fp);
}

/* A stub that called into the JVM while the thread is still in Java (the
 * exception forwarding stub calls
 * SharedRuntime::exception_handler_for_return_address, C1's exception stubs
 * Runtime1::exception_handler_for_pc) is not walked through by the JVM from
 * there. Its caller's return address is at the top of its frame when the
 * code cache knows the stub's frame size (C1's stubs save every register),
 * else, for a frameless stub, at the stub's stack pointer or one word up
 * (where the call into the JVM aligned the stack): the walk is taken from
 * the first of those that leads into a compiled method or the interpreter.
 * ret: the return address into the stub; stub_sp: its stack pointer at the
 * call; fp: the rbp it had. */
static bool asy_retry_above_stub(asy_call_trace *trace, void *ucontext, uint32_t depth, uintptr_t ret,
                                 uintptr_t stub_sp, uintptr_t fp)
{
    jmethodID method;
    uint32_t frame_words = 0;
    bool complete;
    if (vm_code_at(ret, 0, 0, false, &method, &frame_words, &complete) != VM_CODE_STUB)
        return false;
    uintptr_t ret_at = 0, saved_fp = 0;
    if (asy_stub_caller(stub_sp, frame_words, &ret_at, &saved_fp) &&
        asy_retry_from_caller(trace, ucontext, depth, ret_at, saved_fp))
        return true;
    for (uint32_t k = 0; k < 2; k++) {
        uintptr_t at = stub_sp + k * sizeof(uintptr_t), caller = 0;
        if (!vm_code_word(at, &caller))
            return false;
        vm_code_kind kind = vm_code_at(caller, 0, 0, false, &method, &frame_words, &complete);
        if ((kind == VM_CODE_COMPILED || kind == VM_CODE_INTERPRETER) &&
            asy_retry_from_caller(trace, ucontext, depth, at, fp))
            return true;
    }
    return false;
}

/* The pc is outside the code cache while the thread runs Java: native code
 * Java called without leaving the Java state (HotSpot's leaf runtime
 * calls, the clock). Its C frames keep frame pointers (HotSpot is built
 * so): up their chain to the first return address into the code cache,
 * and the walk goes on from there. Every return address before that must
 * be into libjvm.so: anything else (the sigreturn trampoline of a signal
 * handler, as when JFR's sampler holds the thread in its suspend handler)
 * means the chain left the native code Java called, and the rbp found
 * beyond it is not a frame of this stack. */
static bool asy_retry_from_native(asy_call_trace *trace, void *ucontext, uint32_t depth, uintptr_t sp, uintptr_t fp)
{
    for (int i = 0; i < 16 && fp > sp && fp - sp < (1u << 20) && (fp & 7) == 0; i++) {
        uintptr_t next = 0, ret = 0;
        if (!vm_code_word(fp, &next) || !vm_code_word(fp + sizeof(uintptr_t), &ret))
            return false;
        if (vm_code_in_code_cache(ret)) /* the JVM checks the frame it gets there */
            return asy_retry_from_caller(trace, ucontext, depth, fp + sizeof(uintptr_t), next) ||
                   asy_retry_above_stub(trace, ucontext, depth, ret, fp + 2 * sizeof(uintptr_t), next);
        if (!vm_code_in_jvm(ret))
            return false;
        if (next <= fp)
            return false;
        fp = next;
    }
    return false;
}

/* Names the method the pc is in, when HotSpot's code cache can tell, on top
 * of the stack walked from the caller; in a stub, or when it cannot tell,
 * the sample names the caller at its call. For "unknown Java" (interpreted
 * false) the return address is looked for where a method's entry,
 * prologue or epilogue leaves it: at sp (a method's first or last
 * instruction, a frameless stub), one word up (a saved rbp above it), above
 * the frame pointer of a stub that keeps one (an array copy), at the top
 * of a compiled method's frame (its stack pointer moved, the frame not yet
 * complete), or, in native code, up its frame pointers. For "not walkable Java"
 * (not_walkable true: the JVM found the top frame but would not walk it): in
 * the interpreter, the frame's own method is named and the walk goes on from
 * its frame pointer's caller; in a compiled method, whose frame is complete,
 * from the return address at the top of its frame; in native code, up its
 * frame pointers. */
static void asy_recover(asy_hot *hot, asy_call_trace *trace, void *ucontext, bool not_walkable)
{
#if defined(__x86_64__)
    const greg_t *r = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;
    uintptr_t sp = (uintptr_t)r[REG_RSP], fp = (uintptr_t)r[REG_RBP];
    jmethodID top = NULL;
    uint32_t frame_words = 0;
    bool complete = false;
    /* in a frame the JVM found, its own method first (then rbx: the frame
     * may be half built at a method's entry) */
    vm_code_kind kind =
        vm_code_at((uintptr_t)r[REG_RIP], (uintptr_t)r[REG_RBX], fp, not_walkable, &top, &frame_words, &complete);
    bool interpreted = not_walkable && kind == VM_CODE_INTERPRETER;
    if (kind != VM_CODE_COMPILED && kind != VM_CODE_INTERPRETER)
        top = NULL;
    uint32_t skip = top && hot->depth > 1 ? 1 : 0;
    asy_call_trace rest = { trace->env_id, 0, trace->frames + skip };
    uint32_t depth = hot->depth - skip;
    bool ok;
    if (interpreted) {
        ok = top && asy_retry_from_interpreted(&rest, ucontext, depth, sp, fp);
    } else if (not_walkable) {
        ok = (top && kind == VM_CODE_COMPILED && frame_words > 1 &&
              asy_retry_from_caller(&rest, ucontext, depth, sp + (frame_words - 1) * sizeof(uintptr_t), 0)) ||
             (kind == VM_CODE_UNKNOWN && asy_retry_from_native(&rest, ucontext, depth, sp, fp));
    } else {
        uintptr_t caller_fp = 0;
        /* where a compiled method's return address is once its frame is set up */
        uintptr_t frame_top =
            kind == VM_CODE_COMPILED && frame_words > 2 ? sp + (frame_words - 1) * sizeof(uintptr_t) : 0;
        /* with the frame set up at the pc, that one first (a word at sp is then one of
         * its slots, which may hold a stale return address); the others for its
         * epilogue, where sp has moved up */
        bool frame_first = frame_top && complete;
        ok = (frame_first && asy_retry_from_caller(&rest, ucontext, depth, frame_top, 0)) ||
             asy_retry_from_caller(&rest, ucontext, depth, sp, 0) ||
             asy_retry_from_caller(&rest, ucontext, depth, sp + sizeof(uintptr_t), 0) ||
             /* a stub that keeps a frame pointer (the array copies, C1's
              * barrier stubs); the rbp it saved is the caller's, whatever
              * the caller uses it for */
             (kind == VM_CODE_STUB && fp > sp && fp - sp < 4096 && (fp & 7) == 0 && vm_code_word(fp, &caller_fp) &&
              asy_retry_from_caller(&rest, ucontext, depth, fp + sizeof(uintptr_t), caller_fp)) ||
             (frame_top && !frame_first && asy_retry_from_caller(&rest, ucontext, depth, frame_top, 0)) ||
             (kind == VM_CODE_UNKNOWN && asy_retry_from_native(&rest, ucontext, depth, sp, fp));
    }
    if (!ok)
        return;
    if (skip) {
        trace->frames[0].lineno = -1; /* where in the method is not known */
        trace->frames[0].method_id = top;
        atomic_fetch_add_explicit(&hot->recovered_top, 1, memory_order_relaxed);
    }
    trace->num_frames = rest.num_frames + (jint)skip;
    atomic_fetch_add_explicit(not_walkable ? &hot->recovered_interp : &hot->recovered, 1, memory_order_relaxed);
#else
    (void)hot, (void)trace, (void)ucontext, (void)not_walkable;
#endif
}

/* "Unknown not Java" and "not walkable not Java" for a thread in the VM:
 * AsyncGetCallTrace walks from the thread's Java frame anchor, and refuses
 * one the JVM left without its pc (the interpreter's calls into the VM do)
 * or one that names a runtime stub whose frame it will not walk through
 * (C1's counter_overflow and exception stubs never mark their frames
 * complete). The anchor is set for a moment to what the JVM itself would
 * make of it: the pc just below its sp, or the stub's caller (the stub's
 * frame size says where its return address and saved rbp are); the walk
 * runs; the anchor is put back. Only in the VM (or on the way out of it):
 * no other thread walks or changes this thread's anchor then. */
static bool asy_walk_anchor(asy_hot *r, asy_call_trace *trace, JNIEnv *jni, void *ucontext, const vm_code_anchor *walk,
                            const vm_code_anchor *was)
{
    asy_call_trace again = { trace->env_id, 0, trace->frames };
    vm_code_anchor_set(jni, walk);
    asy_proc.agct(&again, (jint)r->depth, ucontext);
    vm_code_anchor_set(jni, was);
    if (again.num_frames <= 0)
        return false;
    trace->num_frames = again.num_frames;
    atomic_fetch_add_explicit(&r->recovered_vm, 1, memory_order_relaxed);
    return true;
}

static void asy_recover_in_vm(asy_hot *r, asy_call_trace *trace, JNIEnv *jni, void *ucontext)
{
    vm_code_anchor was, walk;
    if (!vm_code_anchor_get(jni, &was) || !was.sp || (was.sp & 7) != 0)
        return;
    walk = was;
    if (!walk.pc && (!vm_code_word(walk.sp - sizeof(uintptr_t), &walk.pc) || !walk.pc))
        return;
    if (walk.pc != was.pc && asy_walk_anchor(r, trace, jni, ucontext, &walk, &was))
        return;
    jmethodID method;
    uint32_t frame_words = 0;
    bool complete;
    uintptr_t ret_at = 0;
    if (vm_code_at(walk.pc, 0, 0, false, &method, &frame_words, &complete) != VM_CODE_STUB ||
        !asy_stub_caller(walk.sp, frame_words, &ret_at, &walk.fp) || !vm_code_word(ret_at, &walk.pc) || !walk.pc)
        return;
    walk.sp = ret_at + sizeof(uintptr_t);
    asy_walk_anchor(r, trace, jni, ucontext, &walk, &was);
}

/* A thread stopped inside another signal handler (JFR's sampler holds
 * the threads it walks in its suspend handler; another profiler's handler):
 * its pc is in the C library or in the JVM, and AsyncGetCallTrace, finding
 * no code blob there, follows the frame pointers across the signal frame
 * into whatever frame rbp held when that signal came, naming a caller of
 * the code that ran (on H2 with JFR on, 5% of the samples named the
 * workers' outer loop). Up the frame pointers, a return address at the
 * sigreturn trampoline is the signal frame: the interrupted context is the
 * kernel's ucontext just above it, and the walk is taken from there. NULL
 * when the pc is in the code cache, the thread is out of Java code (the
 * walk then starts from its anchor, whatever the context) or no signal
 * frame is found. */
static void *asy_interrupted_context(JNIEnv *jni, void *ucontext)
{
#if defined(__x86_64__)
    const greg_t *r = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;
    uintptr_t pc = (uintptr_t)r[REG_RIP], sp = (uintptr_t)r[REG_RSP], fp = (uintptr_t)r[REG_RBP];
    if (vm_code_in_code_cache(pc) || !vm_code_in_java(jni))
        return NULL;
    /* at a handler's first instruction (two signals delivered at once: the
     * other handler's frame was set up, then this one's), the trampoline's
     * address is at sp itself */
    uintptr_t at_sp = 0;
    if (vm_code_word(sp, &at_sp) && !vm_code_in_jvm(at_sp) && !vm_code_in_code_cache(at_sp) &&
        vm_code_is_sigreturn(at_sp))
        fp = sp - sizeof(uintptr_t);
    for (int i = 0; i < 16 && fp + sizeof(uintptr_t) >= sp && fp + sizeof(uintptr_t) - sp < (1u << 20) && (fp & 7) == 0;
         i++) {
        uintptr_t next = 0, ret = 0;
        if (!vm_code_word(fp + sizeof(uintptr_t), &ret))
            return NULL;
        if (vm_code_in_code_cache(ret))
            return NULL;
        if (!vm_code_in_jvm(ret) && vm_code_is_sigreturn(ret)) {
            /* the kernel's frame: the trampoline's address, then the ucontext */
            ucontext_t *inner = (ucontext_t *)(fp + 2 * sizeof(uintptr_t));
            uintptr_t check = 0;
            return vm_code_word((uintptr_t)&inner->uc_mcontext.gregs[REG_RIP], &check) && check ? inner : NULL;
        }
        if (!vm_code_word(fp, &next) || next <= fp)
            return NULL;
        fp = next;
    }
#else
    (void)jni, (void)ucontext;
#endif
    return NULL;
}

/* A thread in the Java state with its pc in libjvm.so: a leaf call from
 * compiled code into the JVM (JFR's clock, a math routine) that keeps no
 * frame pointer. rbp then still holds whatever the Java code left in it,
 * and AsyncGetCallTrace, following it as a frame pointer, names a frame
 * far up the stack as the top (on H2 with JFR on, 5% of the samples named
 * the workers' outer loop). Unless rbp is a frame just above sp whose
 * return address leads into the code cache or the JVM (a leaf that keeps
 * a frame: AsyncGetCallTrace's own walk is right), the return address into
 * the compiled caller is looked for in the first words above sp, and the
 * walk is taken from there; when none is found the sample counts under
 * <unknown frame>.JVM_leaf. True when it decided the walk. */
static bool asy_walk_from_leaf(asy_hot *hot, asy_call_trace *trace, JNIEnv *jni, void *ucontext)
{
#if defined(__x86_64__)
    const greg_t *r = ((const ucontext_t *)ucontext)->uc_mcontext.gregs;
    uintptr_t pc = (uintptr_t)r[REG_RIP], sp = (uintptr_t)r[REG_RSP], fp = (uintptr_t)r[REG_RBP], ret = 0;
    if (!vm_code_in_jvm(pc) || !vm_code_in_java(jni))
        return false;
    if (fp > sp && fp - sp < 512 && vm_code_word(fp + sizeof(uintptr_t), &ret) &&
        (vm_code_in_code_cache(ret) || vm_code_in_jvm(ret)))
        return false;
    for (uint32_t k = 0; k < 64; k++) {
        uintptr_t at = sp + k * sizeof(uintptr_t);
        if (!vm_code_word(at, &ret))
            break;
        if (vm_code_in_code_cache(ret) && asy_retry_from_caller(trace, ucontext, hot->depth, at, 0)) {
            atomic_fetch_add_explicit(&hot->from_leaf, 1, memory_order_relaxed);
            return true;
        }
    }
    /* not the walk AsyncGetCallTrace would take from rbp: an honest unknown */
    trace->num_frames = ASY_JVM_LEAF;
    return true;
#else
    (void)hot, (void)trace, (void)jni, (void)ucontext;
#endif
    return false;
}

/* The walk, named by the instruction that ran last. The signal interrupts
 * the thread before the instruction at its pc; HotSpot names a compiled
 * frame by the first debug information after that pc, which describes the
 * instruction at the pc (not yet run) and, where that instruction belongs to
 * another inlined method than the one before it, charges the wrong one (a
 * load stalled in an inlined getter was charged to its caller). From one
 * byte back, the debug information found is the one that ends at the pc:
 * the instruction just run. A pc at the very start of its code has nothing
 * before it of the same code: when that walk fails, the pc itself. */
static void asy_walk_at_previous(const asy_hot *r, asy_call_trace *trace, void *ucontext)
{
#if defined(__x86_64__)
    ucontext_t uc = *(ucontext_t *)ucontext;
    uc.uc_mcontext.gregs[REG_RIP] -= 1;
    asy_proc.agct(trace, (jint)r->depth, &uc);
    if (trace->num_frames > 0)
        return;
    trace->num_frames = 0;
#endif
    asy_proc.agct(trace, (jint)r->depth, ucontext);
}

/* The handler: counted in asy_proc.in_handler (a session's end waits for none
 * before it frees the block), then the session's block from asy_live (both
 * sequentially consistent: the end either sees the handler counted or the
 * handler sees the block gone). No session: the signal is ignored. */
static void asy_on_signal(int sig, siginfo_t *si, void *ucontext)
{
    (void)sig;
    int saved_errno = errno;
    atomic_fetch_add(&asy_proc.in_handler, 1);
    asy_hot *r = atomic_load(&asy_live);
    if (r && ++asy_timing_tick % ASY_TIMED_EVERY != 0) {
        asy_sample(r, si, ucontext);
    } else if (r) {
        uint64_t t0 = asy_now_ns(), cs0 = asy_switches();
        asy_sample(r, si, ucontext);
        uint64_t t1 = asy_now_ns();
        if (cs0 != UINT64_MAX && asy_switches() == cs0) {
            atomic_fetch_add_explicit(&r->handler_ns, t1 - t0, memory_order_relaxed);
            atomic_fetch_add_explicit(&r->handlers_timed, 1, memory_order_relaxed);
        }
    }
    atomic_fetch_sub(&asy_proc.in_handler, 1);
    errno = saved_errno;
}

/* A slot of the ring for a sample (NULL: the ring is full, the sample counted as dropped), at *pos. */
static asy_slot *asy_claim(asy_hot *r, uint32_t serial, uint8_t state, uint32_t weight, uint64_t *pos_out)
{
    uint64_t pos = atomic_load_explicit(&r->enqueue, memory_order_relaxed);
    for (;;) {
        asy_slot *slot = asy_slot_at(r, pos);
        uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&r->enqueue, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *pos_out = pos;
                return slot;
            }
        } else if (dif < 0) {
            atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
            asy_count_drop(r, serial, state, weight);
            return NULL;
        } else {
            pos = atomic_load_explicit(&r->enqueue, memory_order_relaxed);
        }
    }
}

/* A signal not recorded still empties its perf event's ring, which would
 * otherwise fill and leave later samples without their kernel frames. */
static void asy_drain_ring(const asy_hot *r, perf_thread *pt)
{
    uint64_t none[ASY_KERNEL_FRAMES];
    if (pt && r->kernel)
        perf_thread_kernel_frames(pt, none, (int)ASY_KERNEL_FRAMES);
}

/* The handler's work; returns early when there is nothing to record. */
static void asy_sample(asy_hot *r, siginfo_t *si, void *ucontext)
{
    uint8_t state = SAMPLE_RUNNING;
    uint32_t weight = 1;
    perf_thread *pt = NULL;
    uint32_t jvm_serial = 0;
    if (si->si_code == SI_QUEUE && ((unsigned)si->si_value.sival_int >> 24) == ASY_WALL_TAG) {
        state = (uint8_t)(si->si_value.sival_int & 0xff & ~ASY_WALL_ON_CPU);
        weight = ((unsigned)si->si_value.sival_int >> 8) & ASY_WALL_WEIGHT_MAX;
        if (state >= SAMPLE_STATES || weight == 0) {
            atomic_fetch_add_explicit(&r->foreign, 1, memory_order_relaxed);
            return;
        }
        /* a carrier running a virtual thread: running if the kernel had it running, else waiting */
        if (vthreads_mounted())
            state = (si->si_value.sival_int & ASY_WALL_ON_CPU) ? SAMPLE_RUNNING : SAMPLE_WAITING;
    } else if ((si->si_code == POLL_IN || si->si_code == POLL_HUP) && asy_proc.perf_timers) {
        /* a perf event's overflow: one interval of the thread's CPU time (or interval= events) */
        if (si->si_fd >= 0 && (unsigned)si->si_fd < ASY_PERF_FDS)
            pt = atomic_load_explicit(&asy_proc.by_fd[si->si_fd], memory_order_acquire);
        if (!pt && r->jvm_threads)
            jvm_serial = jvm_threads_of_signal(si, &pt);
    } else if (si->si_code == SI_TIMER) {
        /* timer expirations that came while the signal was pending */
        weight += si->si_overrun > 0 && si->si_overrun < 1000000 ? (uint32_t)si->si_overrun : 0;
        if (r->jvm_threads)
            jvm_serial = jvm_threads_of_signal(si, &pt);
    } else {
        atomic_fetch_add_explicit(&r->foreign, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&r->signals, 1, memory_order_relaxed);
    JNIEnv *jni = thread_record_self.jni;
    if (!jni && thread_record_adopt()) /* a thread registered from outside, signalled for the first time */
        jni = thread_record_self.jni;
    if (jvm_serial && jni) {
        /* a Java thread's signal from a JVM thread's timer (taken for one before it registered): not a sample */
        atomic_fetch_add_explicit(&r->foreign, 1, memory_order_relaxed);
        asy_drain_ring(r, pt);
        return;
    }
    if ((!jni && !jvm_serial) || !atomic_load_explicit(&r->active, memory_order_acquire)) {
        atomic_fetch_add_explicit(&r->no_env, 1, memory_order_relaxed);
        asy_drain_ring(r, pt);
        return;
    }
    uint64_t pos;
    asy_slot *slot = asy_claim(r, jvm_serial ? jvm_serial : thread_record_self.serial, state, weight, &pos);
    if (!slot) {
        asy_drain_ring(r, pt);
        return;
    }
    slot->nkernel = slot->nnative = 0;
    slot->jvm = jvm_serial != 0;
    if (r->cpcs_off) {
        uint64_t *cp = (uint64_t *)((unsigned char *)slot + r->cpcs_off);
        if (pt && r->kernel)
            slot->nkernel = (uint16_t)perf_thread_kernel_frames(pt, cp, (int)ASY_KERNEL_FRAMES);
        if (r->native) {
            slot->nnative = (uint16_t)native_frames_walk(ucontext, jvm_serial == 0, r->depth, cp + slot->nkernel,
                                                         ASY_NATIVE_FRAMES);
            atomic_fetch_add_explicit(&r->native_walks, 1, memory_order_relaxed);
        }
    }
    if (jvm_serial) {
        slot->serial = jvm_serial;
        slot->carrier = 0;
        slot->virt = false;
        slot->weight = weight;
        slot->state = state;
        slot->ticks = ticks_now();
        slot->nframes = 0;
        atomic_fetch_add_explicit(&r->jvm_samples, 1, memory_order_relaxed);
        atomic_store_explicit(&slot->seq, pos + 1, memory_order_release);
        return;
    }
    /* a carrier: the sample is the virtual thread's, mounted on it now */
    vthread *v = vthreads_mounted();
    slot->serial = thread_record_self.serial;
    slot->carrier = 0;
    slot->virt = v != NULL;
    if (v) {
        slot->carrier = thread_record_self.serial;
        slot->serial = atomic_load_explicit(&v->serial, memory_order_relaxed);
        slot->vindex = v->index;
        slot->vjava_id = v->java_id;
    }
    slot->weight = weight;
    slot->state = state;
    slot->ticks = ticks_now();
    asy_call_trace trace = { jni, 0, slot->frames };
    void *inner = asy_interrupted_context(jni, ucontext);
    if (inner) {
        ucontext = inner;
        atomic_fetch_add_explicit(&r->in_other_handler, 1, memory_order_relaxed);
    }
    if (!asy_walk_from_leaf(r, &trace, jni, ucontext))
        asy_walk_at_previous(r, &trace, ucontext);
    if (trace.num_frames == ASY_UNKNOWN_NOT_JAVA && vm_code_has_java_frame(jni) == 0)
        trace.num_frames = 0; /* a thread that runs only the JVM's own code: no Java frame, not an unknown one */
    else if (trace.num_frames == ASY_UNKNOWN_NOT_JAVA || trace.num_frames == ASY_NOT_WALKABLE_NOT_JAVA)
        asy_recover_in_vm(r, &trace, jni, ucontext);
    else if (trace.num_frames == ASY_UNKNOWN_JAVA)
        asy_recover(r, &trace, ucontext, false);
    else if (trace.num_frames == ASY_NOT_WALKABLE_JAVA)
        asy_recover(r, &trace, ucontext, true);
    slot->nframes = trace.num_frames;
    atomic_store_explicit(&slot->seq, pos + 1, memory_order_release);
}

jp_status async_sampler_init(jp_session *session, jvmtiCapabilities *caps)
{
    asy_proc.agct = (asy_agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    if (!asy_proc.agct)
        return jp_error(JP_ERR_JVMTI, "this JVM does not export AsyncGetCallTrace; use sampler=jvmti");
    asy_state *as = session_part(session, JP_PART_ASYNC_SAMPLER, sizeof *as);
    if (!as)
        return jp_error(JP_ERR_NOMEM, "out of memory at start");
    as->opts = session->opts;
    as->cpu_timers = false; /* no timer is armed before the handler is installed, below */
    as->want_stacks = as->opts->flame[0] || as->opts->collapsed[0];
    uint32_t depth = as->opts->depth ? as->opts->depth : 1;
    if (as->want_stacks && depth < ASY_MAX_DEPTH)
        depth = ASY_MAX_DEPTH;
    bool cstack = as->opts->cstack != OPTIONS_CSTACK_JAVA;
    size_t cpcs_off = (sizeof(asy_slot) + (size_t)depth * sizeof(asy_call_frame) + 7) & ~(size_t)7;
    size_t slot_size = cpcs_off + (cstack ? (ASY_KERNEL_FRAMES + ASY_NATIVE_FRAMES) * sizeof(uint64_t) : 0);
    slot_size = (slot_size + 63) & ~(size_t)63;
    /* room for about 64 MiB at most, and at least 64 samples */
    size_t slots = 4096;
    while (slots > 64 && slots * slot_size > ((size_t)64 << 20))
        slots /= 2;
    /* a smaller ring on request: how the tests make samples drop */
    const char *ring = getenv("JVMPROF_SAMPLE_RING");
    if (ring && *ring) {
        char *end;
        unsigned long want = strtoul(ring, &end, 10);
        if (*end || want < 2 || want > slots || (want & (want - 1)))
            return jp_error(JP_ERR_ARG, "JVMPROF_SAMPLE_RING=%s: expected a power of two from 2 to %zu", ring,
                            slots);
        slots = want;
    }
    /* the handler's block, its slots from the first 64-byte boundary after it */
    size_t head = (sizeof(asy_hot) + 63) & ~(size_t)63;
    asy_hot *r = aligned_alloc(64, head + slots * slot_size);
    as->ring = r;
    /* a sample's frames: its Java ones, its native and kernel ones, and one that says why the Java ones are missing */
    size_t room = (size_t)depth + ASY_KERNEL_FRAMES + ASY_NATIVE_FRAMES + 1;
    as->scratch_frames = calloc(room, sizeof *as->scratch_frames);
    as->scratch_kframes = calloc(room, sizeof *as->scratch_kframes);
    as->scratch_cframes = calloc(ASY_KERNEL_FRAMES + ASY_NATIVE_FRAMES, sizeof *as->scratch_cframes);
    as->scratch_cpacked = calloc(ASY_KERNEL_FRAMES + ASY_NATIVE_FRAMES, sizeof *as->scratch_cpacked);
    as->scratch_cat = calloc(ASY_KERNEL_FRAMES + ASY_NATIVE_FRAMES, sizeof *as->scratch_cat);
    if (!r || !as->scratch_frames || !as->scratch_kframes || !as->scratch_cframes || !as->scratch_cpacked ||
        !as->scratch_cat)
        return jp_error(JP_ERR_NOMEM, "out of memory for the sample ring (%zu bytes)", slots * slot_size);
    memset(r, 0, head + slots * slot_size);
    r->slots = (unsigned char *)r + head;
    r->slot_size = slot_size;
    r->depth = depth;
    r->mask = slots - 1;
    r->cpcs_off = cstack ? cpcs_off : 0;
    r->native = cstack;
    r->jvm_threads = as->opts->threads_all;
    if (cstack && !(as->names = native_frames_names_new()))
        return jp_error(JP_ERR_NOMEM, "out of memory at start");
    jp_status est = asy_event_init(as);
    if (est != JP_OK)
        return est;
    for (uint64_t i = 0; i < slots; i++)
        atomic_store_explicit(&asy_slot_at(r, i)->seq, i, memory_order_relaxed);
    atomic_store(&asy_live, r);
    /* HotSpot must record debug information at every pc of the code it
     * compiles, not only at calls and safepoints, so that a sample names the
     * method, inlined or not, whose code it landed in, not the next one that
     * has a call. -XX:+DebugNonSafepoints does that, set here in HotSpot's
     * flag table; CompiledMethodLoad events on do it too, and flame= and
     * collapsed= need them anyway for the frame kinds. The events cost more
     * (HotSpot builds each compiled method's address map and inlining
     * records for them: 0.9 s of CPU on a 22 s javac run), so they are on
     * only for those outputs, or where the flag cannot be set. */
    as->debug_flag_was = vmstructs_flag_bool("DebugNonSafepoints");
    as->code_kinds = as->want_stacks || as->debug_flag_was < 0 ||
                     !vmstructs_flag_set_bool("DebugNonSafepoints", true);
    if (as->code_kinds && code_kinds_init(caps) != JP_OK)
        return JP_ERR_JVMTI;

    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = asy_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(ASY_SIGNAL, &sa, &old) != 0)
        return jp_error(JP_ERR_IO, "cannot install the SIGPROF handler: %s", strerror(errno));
    if ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != NULL && old.sa_sigaction != asy_on_signal
                                    : (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
        jp_log_info("a SIGPROF handler was already installed; jvmprof's sampler replaces it");
    /* only now, with the handler in place: the probe of the perf_event clock arms one for a moment */
    if (as->opts->wall_ms == 0 && as->event_off) {
        as->cpu_timers = false;
        return JP_OK;
    }
    if (as->opts->wall_ms == 0) {
        asy_choose_timer(as);
        if (as->event_other && !asy_proc.perf_timers) {
            jp_log_error("event=%s: perf_events refused (%s): cpu=samples is off; the program runs on",
                         as->spec.name, asy_proc.perf_refused);
            as->cpu_timers = false;
            return JP_OK;
        }
        r->kernel = as->opts->cstack == OPTIONS_CSTACK_MIXED && asy_proc.perf_timers;
        if (as->opts->cstack == OPTIONS_CSTACK_MIXED && !asy_proc.perf_timers)
            jp_log_info("cstack=mixed: no kernel frames: they come with perf_events, which this process may not "
                        "use (%s; kernel.perf_event_paranoid, CAP_PERFMON)", asy_proc.perf_refused);
    }
    as->cpu_timers = as->opts->wall_ms == 0;
    return JP_OK;
}

/* event=<function>: a virtual machine's kernel may send a SIGTRAP for a
 * hit of the breakpoint (about once in 100,000 here), whose default action
 * ends the process. The handler returns from those (the instruction runs
 * again, and the hit is counted then) and hands every other SIGTRAP to the
 * handler that was there before, or to the default. Installed once, for the
 * JVM's life; asy_proc.trap_addr says which address is ours. */
static void asy_on_trap(int sig, siginfo_t *si, void *uc)
{
    perf_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.type = PERF_TYPE_BREAKPOINT;
    spec.bp_addr = atomic_load_explicit(&asy_proc.trap_addr, memory_order_relaxed);
    if (spec.bp_addr && perf_spec_stray_trap(&spec, sig, si)) {
        atomic_fetch_add_explicit(&asy_proc.stray_traps, 1, memory_order_relaxed);
        return;
    }
    if (asy_proc.trap_old.sa_flags & SA_SIGINFO) {
        if (asy_proc.trap_old.sa_sigaction)
            asy_proc.trap_old.sa_sigaction(sig, si, uc);
        return;
    }
    if (asy_proc.trap_old.sa_handler != SIG_DFL && asy_proc.trap_old.sa_handler != SIG_IGN) {
        asy_proc.trap_old.sa_handler(sig);
        return;
    }
    if (asy_proc.trap_old.sa_handler == SIG_IGN)
        return;
    /* the default: end the process as SIGTRAP would */
    signal(SIGTRAP, SIG_DFL);
    raise(SIGTRAP);
}

static void asy_trap_install(const perf_spec *spec)
{
    atomic_store(&asy_proc.trap_addr, spec->bp_addr);
    if (asy_proc.trap_installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = asy_on_trap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    asy_proc.trap_installed = sigaction(SIGTRAP, &sa, &asy_proc.trap_old) == 0;
}

/* event=: what each thread's perf event counts and how often; an event the
 * machine cannot count stops the session's start with one line. */
static jp_status asy_event_init(asy_state *as)
{
    char err[256];
    const char *ev = as->opts->event[0] ? as->opts->event : "cpu";
    int rc = perf_spec_parse(ev, &as->spec, err, sizeof err);
    if (rc < 0)
        return jp_error(JP_ERR_ARG, "%s", err);
    if (rc > 0) {
        /* a function: a hardware breakpoint at its address */
        native_frames_refresh();
        uint64_t addr = native_frames_function(ev);
        if (!addr)
            return jp_error(JP_ERR_ARG, "event=%s: no such event, and no function of that name in the process's "
                            "libraries; accepted: cpu, cycles, instructions, cache-misses, cache-references, "
                            "branch-misses, branches, page-faults, minor-faults, major-faults, context-switches, "
                            "cpu-migrations, SYS:TRACEPOINT, or a native function's name", ev);
        perf_spec_breakpoint(&as->spec, ev, addr);
        asy_trap_install(&as->spec);
    }
    as->event_other = !as->spec.time_based;
    unsigned iv = as->opts->interval_ms;
    if (as->spec.time_based) {
        as->period = (uint64_t)iv * 1000000u;
    } else if (options_given(as->opts, OPTIONS_ID_INTERVAL)) {
        as->period = iv;
    } else {
        as->period = perf_spec_default_period(&as->spec);
    }
    if (as->event_other) {
        char why[256];
        if (!perf_spec_probe(&as->spec, why, sizeof why)) {
            /* the machine cannot count it: said once, and the program runs on unsampled */
            jp_log_error("%s; cpu=samples takes no samples, the program runs on", why);
            as->event_off = true;
        }
    }
    return JP_OK;
}

/* jmethodIDs are created lazily by the JVM; AsyncGetCallTrace can only name
 * a method whose jmethodID exists, so each class's are made up front. */
static void asy_class_prepare(asy_hot *r, jclass klass)
{
    uint64_t t0 = asy_now_ns();
    jint n = 0;
    jmethodID *methods = NULL;
    if ((*agent_jvmti)->GetClassMethods(agent_jvmti, klass, &n, &methods) == JVMTI_ERROR_NONE)
        jvmti_free(methods);
    if (!r)
        return;
    atomic_fetch_add_explicit(&r->prepared, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->prepare_ns, asy_now_ns() - t0, memory_order_relaxed);
}

/* One line for the verbose log: the time the handler and the ClassPrepare
 * callback took on the program's threads. */
static void asy_cost(const asy_hot *r, char *out, size_t len)
{
    uint64_t sig = atomic_load(&r->signals) + atomic_load(&r->foreign), timed = atomic_load(&r->handlers_timed);
    double each_us = timed ? (double)atomic_load(&r->handler_ns) / 1e3 / (double)timed : 0.0;
    double h_ms = each_us * (double)sig / 1e3, p_ms = (double)atomic_load(&r->prepare_ns) / 1e6;
    snprintf(out, len, "sampler cost: signal handlers %.1f ms in %llu signals (%.1f us each, timed on %llu); "
             "class-prepare callbacks %.1f ms for %llu classes", h_ms, (unsigned long long)sig, each_us,
             (unsigned long long)timed, p_ms, (unsigned long long)atomic_load(&r->prepared));
}

/* AsyncGetCallTrace works only while ClassLoad events are enabled. */
static void JNICALL asy_cb_ClassLoad(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jv, (void)jni, (void)thread, (void)klass;
}

static void JNICALL asy_cb_ClassPrepare(jvmtiEnv *jv, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)jv, (void)jni, (void)thread;
    if (!gate_enter())
        return;
    asy_class_prepare(atomic_load_explicit(&asy_live, memory_order_acquire), klass);
    gate_leave();
}

static void JNICALL asy_cb_CompiledMethodLoad(jvmtiEnv *jv, jmethodID method, jint code_size,
                                              const void *code_addr, jint map_length, const jvmtiAddrLocationMap *map,
                                              const void *compile_info)
{
    if (!gate_enter())
        return;
    code_kinds_compiled_method_load(jv, method, code_size, code_addr, map_length, map, compile_info);
    gate_leave();
}

static void JNICALL asy_cb_CompiledMethodUnload(jvmtiEnv *jv, jmethodID method, const void *code_addr)
{
    if (!gate_enter())
        return;
    code_kinds_compiled_method_unload(jv, method, code_addr);
    gate_leave();
}

void async_sampler_callbacks(jvmtiEventCallbacks *cb)
{
    cb->ClassLoad = asy_cb_ClassLoad;
    cb->ClassPrepare = asy_cb_ClassPrepare;
    cb->CompiledMethodLoad = asy_cb_CompiledMethodLoad;
    cb->CompiledMethodUnload = asy_cb_CompiledMethodUnload;
}

static void asy_describe(const asy_state *as, char *out, size_t len);

void async_sampler_log(jp_session *session)
{
    asy_state *as = asy_of(session);
    if (!as || !as->ring || as->event_off) /* event= this machine cannot count: said once, at the start */
        return;
    char line[1024];
    asy_describe(as, line, sizeof line);
    jp_log_info("%s", line);
    asy_cost(as->ring, line, sizeof line);
    jp_log_info("%s", line);
    if (as->names) {
        uint64_t named = 0, unnamed = 0;
        native_frames_counts(as->names, &named, &unnamed);
        char jvm[96] = "";
        if (as->opts->threads_all) {
            uint32_t seen = 0, armed = 0;
            jvm_threads_counts(&seen, &armed);
            snprintf(jvm, sizeof jvm, "; JVM threads seen %u, sampled now %u", seen, armed);
        }
        jp_log_info("native frames: %llu addresses named, %llu without a symbol; samples with native frames %llu, "
                    "with kernel frames %llu, with an unnamed frame %llu (%llu in a library with a full symbol "
                    "table)%s", (unsigned long long)named, (unsigned long long)unnamed,
                    (unsigned long long)as->native_samples, (unsigned long long)as->kernel_samples,
                    (unsigned long long)as->unnamed_samples, (unsigned long long)as->unnamed_symtab_samples, jvm);
    }
}

jp_status async_sampler_vm_init(jp_session *session, JNIEnv *jni)
{
    asy_state *as = asy_of(session);
    if (!as || !as->ring)
        return JP_ERR_NOMEM;
    jvmti_event(JVMTI_EVENT_CLASS_LOAD, true);
    jvmti_event(JVMTI_EVENT_CLASS_PREPARE, true);
    jint n = 0;
    jclass *classes = NULL;
    if (jvmti_check((*agent_jvmti)->GetLoadedClasses(agent_jvmti, &n, &classes), "GetLoadedClasses") == JP_OK) {
        for (jint i = 0; i < n; i++) {
            asy_class_prepare(as->ring, classes[i]);
            (*jni)->DeleteLocalRef(jni, classes[i]);
        }
        jvmti_free(classes);
    }
    if (as->code_kinds)
        code_kinds_vm_init();
    vm_code_init();
    if (as->cpu_timers) /* threads running already: a late session's, and those started before VM init */
        asy_timers_for_running(as, jni);
    if (as->cpu_timers && as->opts->threads_all)
        jvm_threads_begin(&as->spec, as->period, asy_proc.perf_timers, as->ring->kernel, ASY_SIGNAL,
                          as->opts->interval_ms);
    atomic_store_explicit(&as->ring->active, true, memory_order_release);
    return JP_OK;
}

/* ---- CPU timers, one per Java thread, kept by serial ----
 * A thread's timer is made on the thread itself as it starts, or, for a
 * session started late, by the starting thread for each thread running then
 * (on that thread's CPU clock, by its OS thread id). Whoever takes a slot's
 * timer out (the thread as it ends, the session's end) deletes it, so each
 * timer is deleted once; no lock. The chunks of slots are the session's
 * (asy_state.timer_chunks), freed at its end. */
static _Atomic uintptr_t *asy_timer_slot(asy_state *as, uint32_t serial)
{
    uint32_t c = serial / ASY_TIMER_CHUNK;
    if (serial == 0 || c >= ASY_TIMER_CHUNKS)
        return NULL;
    _Atomic uintptr_t *chunk = atomic_load(&as->timer_chunks[c]);
    if (!chunk) {
        _Atomic uintptr_t *fresh = calloc(ASY_TIMER_CHUNK, sizeof *fresh);
        if (!fresh)
            return NULL;
        if (!atomic_compare_exchange_strong(&as->timer_chunks[c], &chunk, fresh))
            free(fresh);   /* another thread's chunk: chunk holds it */
        else
            chunk = fresh;
    }
    return &chunk[serial % ASY_TIMER_CHUNK];
}

/* A slot holds (timer << 1) | 1 (a timer_t may be 0), or a perf event's
 * (fd << 2) | 2. */

/* A perf event on OS thread tid (a task clock every interval= ms of its CPU
 * time, or every interval= events of event=) that sends it ASY_SIGNAL, with
 * a ring the handler reads the kernel's frames from (cstack=mixed): a
 * perf_thread, or NULL with *err (-errno). The kernel counts the thread's
 * time with a high-resolution timer, so the signals come at the interval
 * asked for. A POSIX CPU timer is checked at the scheduler tick only (every 4
 * ms on a 250 Hz kernel): interval=1 then gives one signal per tick standing
 * for the expirations since (its overruns), four times fewer samples with
 * four times the weight each. */
static perf_thread *asy_perf_open(const asy_state *as, pid_t tid, int *err)
{
    perf_thread *pt = calloc(1, sizeof *pt);
    if (!pt) {
        *err = -ENOMEM;
        return NULL;
    }
    int refused = 0;
    bool kernel = as->opts->cstack == OPTIONS_CSTACK_MIXED;
    int rc = perf_thread_open(pt, tid, &as->spec, as->period, ASY_SIGNAL, kernel, &refused);
    if (rc != 0) {
        free(pt);
        *err = rc;
        return NULL;
    }
    if (refused && !asy_proc.kernel_refused)
        asy_proc.kernel_refused = refused;
    if ((unsigned)pt->fd < ASY_PERF_FDS)
        atomic_store_explicit(&asy_proc.by_fd[pt->fd], pt, memory_order_release);
    return pt;
}

/* A perf event taken out of its slot: no handler finds it any more, it sends no more signals, and it is
 * closed (its ring unmapped) once no handler can be reading it: now when on its own thread (thread end),
 * else after the session's end waited for the handlers inside (asy_perf_later). */
static void asy_perf_close(perf_thread *pt)
{
    if ((unsigned)pt->fd < ASY_PERF_FDS)
        atomic_store_explicit(&asy_proc.by_fd[pt->fd], NULL, memory_order_release);
    perf_thread_close(pt);
    free(pt);
}

/* A slot's timer deleted: a POSIX timer, or a perf event closed now (on its
 * own thread) or, with later, stopped now and kept in *later (n of them) to
 * be closed once no handler is inside. */
static void asy_timer_delete_word(uintptr_t w, perf_thread ***later, size_t *n, size_t *cap)
{
    if (w & 1) {
        timer_delete((timer_t)(w >> 1));
        return;
    }
    perf_thread *pt = (perf_thread *)(w & ~(uintptr_t)3);
    if (!(w & 2) || !pt)
        return;
    if (!later) {
        asy_perf_close(pt);
        return;
    }
    if ((unsigned)pt->fd < ASY_PERF_FDS)
        atomic_store_explicit(&asy_proc.by_fd[pt->fd], NULL, memory_order_release);
    ioctl(pt->fd, PERF_EVENT_IOC_DISABLE, 0);
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        perf_thread **grown = realloc(*later, ncap * sizeof *grown);
        if (!grown) {
            close(pt->fd); /* no more signals; the ring is left mapped rather than unmapped under a handler */
            return;
        }
        *later = grown;
        *cap = ncap;
    }
    (*later)[(*n)++] = pt;
}

/* Whether the session's CPU samples need what only the perf_event clock gives: the kernel's frames
 * (cstack=mixed), another event=, or signals at an interval below the scheduler's tick; if not, they take
 * POSIX CPU timers. */
static bool asy_needs_perf_clock(const asy_state *as)
{
    return as->event_other || as->opts->cstack == OPTIONS_CSTACK_MIXED ||
           as->opts->interval_ms < ASY_POSIX_MIN_INTERVAL_MS;
}

/* The clock of the session's CPU samples: POSIX CPU timers where it needs no perf_event clock; else perf
 * events, where they can be used here: one must open (not for an unprivileged user under
 * kernel.perf_event_paranoid >= 2 with Debian's 3, nor under a seccomp profile that refuses the call). */
static void asy_choose_timer(asy_state *as)
{
    if (!asy_needs_perf_clock(as)) {
        asy_proc.perf_timers = false;
        return;
    }
    int err = 0;
    perf_thread *pt = asy_perf_open(as, (pid_t)syscall(SYS_gettid), &err);
    asy_proc.perf_timers = pt != NULL;
    if (pt)
        asy_perf_close(pt);
    else
        snprintf(asy_proc.perf_refused, sizeof asy_proc.perf_refused, "%s", strerror(-err));
    if (pt && asy_proc.kernel_refused && as->opts->cstack == OPTIONS_CSTACK_MIXED && !asy_proc.kernel_said) {
        asy_proc.kernel_said = true;
        jp_log_info("cstack=mixed: no kernel frames: the kernel refuses this process its callchains (%s; root, "
                    "kernel.perf_event_paranoid <= 1 or CAP_PERFMON gives them); native and Java frames are kept",
                    strerror(asy_proc.kernel_refused));
    }
}

/* Whether ASY_SIGNAL's disposition is our handler now. A timer's signal
 * under any other (the default one terminates the process) must never be
 * sent: no timer is armed unless this holds. */
static bool asy_handler_installed(void)
{
    struct sigaction cur;
    return sigaction(ASY_SIGNAL, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == asy_on_signal;
}

/* A CPU timer for OS thread tid, every interval= ms, kept under serial: a
 * perf_event task clock, or a POSIX timer on clock. */
static void asy_timer_arm(asy_state *as, uint32_t serial, pid_t tid, clockid_t clock)
{
    _Atomic uintptr_t *slot = asy_timer_slot(as, serial);
    if (!slot || atomic_load(slot) || !as->cpu_timers)
        return;
    if (!asy_handler_installed()) {
        if (atomic_fetch_add_explicit(&as->not_ours, 1, memory_order_relaxed) == 0)
            jp_log_error("the SIGPROF handler is no longer jvmprof's: threads are not sampled");
        return;
    }
    if (asy_proc.perf_timers) {
        int err = 0;
        perf_thread *pt = asy_perf_open(as, tid, &err);
        uintptr_t none = 0;
        if (pt) {
            if (!atomic_compare_exchange_strong(slot, &none, (uintptr_t)pt | 2))
                asy_perf_close(pt);   /* the thread made its own meanwhile (no signal of this one yet) */
            return;
        }
        if (as->event_other) {
            if (atomic_fetch_add_explicit(&as->timer_failed, 1, memory_order_relaxed) == 0)
                jp_log_error("event=%s: cannot open it for a thread (%s); that thread is not sampled", as->spec.name,
                             strerror(-err));
            return;
        }
        /* out of file descriptors, say: this thread gets a POSIX timer */
        if (atomic_fetch_add_explicit(&as->perf_fallbacks, 1, memory_order_relaxed) == 0)
            jp_log_info("cannot open a perf_event CPU clock for a thread (%s): it gets a POSIX CPU timer",
                        strerror(-err));
    }
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = ASY_SIGNAL;
    sev._sigev_un._tid = tid; /* sigev_notify_thread_id */
    timer_t t;
    if (timer_create(clock, &sev, &t) != 0) {
        if (atomic_fetch_add_explicit(&as->timer_failed, 1, memory_order_relaxed) == 0)
            jp_log_error("cannot create a CPU timer for a thread: %s; that thread is not sampled", strerror(errno));
        return;
    }
    unsigned ms = as->opts->interval_ms;
    struct itimerspec its;
    its.it_interval.tv_sec = ms / 1000;
    its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000L;
    its.it_value = its.it_interval;
    uintptr_t none = 0, w = ((uintptr_t)t << 1) | 1;
    if (timer_settime(t, 0, &its, NULL) != 0) {
        timer_delete(t);
        atomic_fetch_add_explicit(&as->timer_failed, 1, memory_order_relaxed);
    } else if (!atomic_compare_exchange_strong(slot, &none, w)) {
        timer_delete(t);   /* the thread made its own meanwhile */
    }
}

void async_sampler_thread_start(jp_session *session, JNIEnv *jni, uint32_t serial)
{
    (void)jni;
    asy_state *as = asy_of(session);
    if (as && as->cpu_timers)
        asy_timer_arm(as, serial, (pid_t)thread_record_self.tid, CLOCK_THREAD_CPUTIME_ID);
}

void async_sampler_thread_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    asy_state *as = asy_of(session);
    _Atomic uintptr_t *slot = as ? asy_timer_slot(as, thread_record_self.serial) : NULL;
    if (slot)
        asy_timer_delete_word(atomic_exchange(slot, 0), NULL, NULL, NULL);
}

/* A timer for each Java thread running now whose OS thread id is known and
 * that has none yet: at a late session's start, every thread; at VM init,
 * those registered from outside (thread_registry.c) and not the VMInit thread,
 * which made its own. */
static void asy_timers_for_running(asy_state *as, JNIEnv *jni)
{
    jint n = 0;
    jthread *threads = NULL;
    if (jvmti_check((*agent_jvmti)->GetAllThreads(agent_jvmti, &n, &threads), "GetAllThreads") != JP_OK)
        return;
    for (jint i = 0; i < n; i++) {
        uint32_t serial = thread_registry_serial(threads[i]), tid = thread_registry_tid(threads[i]);
        if (serial && tid && !agent_is_own_thread(jni, threads[i])) /* the thread's CPU clock (glibc's pthread_getcpuclockid) */
            asy_timer_arm(as, serial, (pid_t)tid, (clockid_t)((~(clockid_t)tid << 3) | 6));
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    jvmti_free(threads);
}

/* The session's end: every timer deleted, no handler left inside, then what
 * the part points to freed (the session frees the part, and the counts in it). */
void async_sampler_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    asy_state *as = asy_of(session);
    if (!as)
        return;
    as->cpu_timers = false; /* the handler stays: a signal sent before its timer went is taken, not fatal */
    perf_thread **later = NULL;
    size_t nlater = 0, caplater = 0;
    if (as->opts->threads_all)
        jvm_threads_stop();
    for (uint32_t c = 0; c < ASY_TIMER_CHUNKS; c++) {
        _Atomic uintptr_t *chunk = atomic_exchange(&as->timer_chunks[c], NULL);
        for (uint32_t i = 0; chunk && i < ASY_TIMER_CHUNK; i++)
            asy_timer_delete_word(atomic_exchange(&chunk[i], 0), &later, &nlater, &caplater);
        free(chunk);
    }
    free(as->scratch_frames);
    free(as->scratch_kframes);
    free(as->scratch_cframes);
    free(as->scratch_cpacked);
    free(as->scratch_cat);
    free(as->vslot);
    free(as->vframes);
    free(as->java_tids);
    as->java_tids = NULL;
    as->java_tids_cap = 0;
    native_frames_names_free(as->names);
    as->names = NULL;
    buf_free(&as->trace_text);
    as->scratch_frames = NULL;
    as->scratch_kframes = NULL;
    as->scratch_cframes = NULL;
    as->scratch_cpacked = NULL;
    as->scratch_cat = NULL;
    as->vslot = NULL;
    as->vframes = NULL;
    sampler_vthreads_end();
    asy_hot *r = as->ring;
    as->ring = NULL;
    /* no handler finds the block from now on; one inside may still write to it */
    if (r && atomic_load(&asy_live) == r)
        atomic_store(&asy_live, NULL);
    struct timespec ms = { 0, 1000000 };
    for (int waited = 0; atomic_load(&asy_proc.in_handler) != 0 && waited < 1000; waited++)
        nanosleep(&ms, NULL);
    bool stuck = atomic_load(&asy_proc.in_handler) != 0;
    for (size_t i = 0; i < nlater; i++) {
        if (stuck)
            close(later[i]->fd); /* the ring stays mapped: a handler may be reading it */
        else
            asy_perf_close(later[i]);
    }
    free(later);
    if (as->opts->threads_all && !stuck)
        jvm_threads_free();
    if (!r || stuck)
        return;   /* a handler stuck inside: the block stays (never seen again) */
    free(r);
    if (as->code_kinds)
        code_kinds_end();
    else if (as->debug_flag_was == 0)
        vmstructs_flag_set_bool("DebugNonSafepoints", false);
}

static sample_state asy_state_of(jint st)
{
    if (st & JVMTI_THREAD_STATE_SLEEPING)
        return SAMPLE_SLEEPING;
    if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)
        return SAMPLE_BLOCKED;
    if (st & JVMTI_THREAD_STATE_WAITING)
        return SAMPLE_WAITING;
    if (st & JVMTI_THREAD_STATE_IN_NATIVE)
        return SAMPLE_NATIVE;
    return SAMPLE_RUNNING;
}

static void asy_wall_vthreads(jp_session *session, asy_state *as, JNIEnv *jni);

void async_sampler_wall_tick(jp_session *session, JNIEnv *jni)
{
    asy_state *as = asy_of(session);
    if (!as || !as->ring)
        return;
    jvmtiEnv *jv = agent_jvmti;
    jthread *threads = NULL;
    jint n = 0;
    if ((*jni)->PushLocalFrame(jni, 16) != 0)
        return;
    if ((*jv)->GetAllThreads(jv, &n, &threads) != JVMTI_ERROR_NONE) {
        as->wall_failed++;
        (*jni)->PopLocalFrame(jni, NULL);
        return;
    }
    /* the threads that can be signalled, with their state */
    uint32_t *tids = malloc((size_t)n * sizeof *tids + 1);
    uint8_t *states = malloc((size_t)n + 1);
    uint32_t live = 0;
    for (jint i = 0; tids && states && i < n; i++) {
        jint st = 0;
        uint32_t tid = thread_registry_tid(threads[i]);
        if (tid == 0 || (*jv)->GetThreadState(jv, threads[i], &st) != JVMTI_ERROR_NONE ||
            !(st & JVMTI_THREAD_STATE_ALIVE) || (st & JVMTI_THREAD_STATE_SUSPENDED))
            continue;
        tids[live] = tid;
        states[live++] = (uint8_t)asy_state_of(st);
    }
    uint32_t take = live < ASY_WALL_THREADS_PER_TICK ? live : ASY_WALL_THREADS_PER_TICK;
    pid_t pid = getpid();
    uid_t uid = getuid();
    for (uint32_t k = 0; k < take; k++) {
        uint32_t i = (as->wall_turn + k) % live;
        /* live threads shared out over the take samples: each stands for 1 or more */
        uint32_t weight = live / take + (k < live % take ? 1 : 0);
        if (weight > ASY_WALL_WEIGHT_MAX)
            weight = ASY_WALL_WEIGHT_MAX;
        siginfo_t si;
        memset(&si, 0, sizeof si);
        si.si_signo = ASY_SIGNAL;
        si.si_code = SI_QUEUE;
        si.si_pid = pid;
        si.si_uid = uid;
        /* runnable to JVMTI (not in native code) is not running if the kernel has the thread asleep: blocked
         * inside the JVM (Reference Handler's wait for the pending list, a safepoint) or in the kernel */
        uint8_t state = states[i];
        if (state == SAMPLE_RUNNING && proc_state_running(proc_thread_state(tids[i])) == 0)
            state = SAMPLE_WAITING;
        /* a carrier with a virtual thread mounted is waiting to JVMTI: the handler, which knows
         * whether one is, takes running from the kernel's state */
        else if (state == SAMPLE_WAITING && vthreads_supported() &&
                 proc_state_running(proc_thread_state(tids[i])) == 1)
            state |= ASY_WALL_ON_CPU;
        si.si_value.sival_int = (int)((uint32_t)ASY_WALL_TAG << 24 | weight << 8 | state);
        if (syscall(SYS_rt_tgsigqueueinfo, pid, (pid_t)tids[i], ASY_SIGNAL, &si) == 0)
            as->wall_signals++;
        else
            as->wall_failed++;
    }
    if (live)
        as->wall_turn = (as->wall_turn + take) % live;
    free(tids);
    free(states);
    for (jint i = 0; i < n; i++)
        (*jni)->DeleteLocalRef(jni, threads[i]);
    jvmti_free(threads);
    (*jni)->PopLocalFrame(jni, NULL);
    if (vthreads_supported())
        asy_wall_vthreads(session, as, jni);
}

/* One sample's trace (its top depth= frames) and, for flame= and collapsed=,
 * its whole stack, counted with the sample's weight in its thread and state. */
static trace_id asy_add_trace(model *m, uint32_t weight, uint8_t state, uint32_t serial, const frame_id *frames,
                              uint32_t n)
{
    trace_id t = model_trace_intern(m, serial, frames, n);
    model_trace_add_samples(m, t, weight);
    model_trace_add_state_samples(m, t, (sample_state)state, weight);
    return t;
}

/* jfr=: the wall-clock time (ns since the epoch) of a sample stamped `ticks`, from how long ago that was */
static uint64_t asy_wall_ns_of(uint64_t ticks)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now_ticks = ticks_now(), wall_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    uint64_t ago = now_ticks > ticks ? (uint64_t)((double)(now_ticks - ticks) * ticks_ns_per_tick()) : 0;
    return wall_ns > ago ? wall_ns - ago : wall_ns;
}

static stack_id asy_add_stack(model *m, uint32_t weight, uint8_t state, uint32_t serial, const uint32_t *kframes,
                              uint32_t n)
{
    stack_id id = model_stack_intern(m, serial, (sample_state)state, kframes, n);
    model_stack_add(m, id, weight);
    return id;
}

/* record=y: a sample into the session's recording, with its time (wall_ns 0: now) and thread */
static void asy_note(model *m, uint64_t wall_ns, uint32_t thread, trace_id t, stack_id st, uint32_t weight,
                     uint8_t state)
{
    if (!m->recording)
        return;
    if (!wall_ns) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        wall_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    }
    recording_event e = { wall_ns, 0, thread, t.v, st.v, weight > UINT16_MAX ? UINT16_MAX : (uint16_t)weight,
                          m->wall ? RECORDING_WALL : RECORDING_CPU, state };
    recording_add(m->recording, &e);
}

/* The model thread a sample counts in with thread=y (0 without): its thread's,
 * or for a virtual thread's, the one of that virtual thread on that carrier. */
static uint32_t asy_model_serial(const asy_state *as, model *m, JNIEnv *jni, const asy_slot *s)
{
    if (!as->opts->thread)
        return 0;
    if (!s->virt)
        return s->serial;
    sampler_vthread who = { s->serial, s->vindex, s->carrier, s->vjava_id };
    (void)jni;
    return sampler_vthreads_serial(m, &who, NULL);
}

/* The agent thread: the first method called `method` of class `cls` (a JVM name), or NULL. */
static jmethodID asy_method_named(JNIEnv *jni, const char *cls, const char *method)
{
    jclass c = (*jni)->FindClass(jni, cls);
    if (!c) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    jmethodID found = NULL;
    jint n = 0;
    jmethodID *ms = NULL;
    if ((*agent_jvmti)->GetClassMethods(agent_jvmti, c, &n, &ms) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n && !found; i++) {
            char *name = NULL;
            if ((*agent_jvmti)->GetMethodName(agent_jvmti, ms[i], &name, NULL, NULL) == JVMTI_ERROR_NONE &&
                strcmp(name, method) == 0)
                found = ms[i];
            jvmti_free(name);
        }
        jvmti_free(ms);
    }
    (*jni)->DeleteLocalRef(jni, c);
    return found;
}

/* Continuation.enterSpecial: where a mounted virtual thread's frames end and its carrier's begin */
static jmethodID asy_continuation_entry(JNIEnv *jni)
{
    if (!asy_proc.enter_special_looked)
        asy_proc.enter_special = asy_method_named(jni, "jdk/internal/vm/Continuation", "enterSpecial");
    asy_proc.enter_special_looked = true;
    return asy_proc.enter_special;
}

/* VirtualThread.sleepNanos: a virtual thread in Thread.sleep, which JVMTI calls parked (waiting) */
static bool asy_vthread_sleeping(JNIEnv *jni, const jvmtiFrameInfo *frames, jint n)
{
    if (!asy_proc.vthread_sleep_looked)
        asy_proc.vthread_sleep = asy_method_named(jni, "java/lang/VirtualThread", "sleepNanos");
    asy_proc.vthread_sleep_looked = true;
    for (jint i = 0; asy_proc.vthread_sleep && i < n && i < 8; i++)
        if (frames[i].method == asy_proc.vthread_sleep)
            return true;
    return false;
}

/* A mounted virtual thread's sample: its own frames, without the carrier's
 * below them (from Continuation.enterSpecial down), as an unmounted one's
 * (JVMTI's stack of a virtual thread) and as JFR shows it. */
static uint32_t asy_virtual_frames(JNIEnv *jni, const asy_slot *s, uint32_t n)
{
    if (!s->virt || !s->carrier)
        return n;
    jmethodID entry = asy_continuation_entry(jni);
    for (uint32_t k = 0; entry && k < n; k++)
        if (s->frames[k].method_id == entry)
            return k ? k : n;
    return n;
}

/* The frame that says why a sample's Java frames could not be had
 * ("<unknown frame>.not_walkable_Java", spaces of why as '_'), and its method
 * in *me; {0} when out of memory. */
static frame_id asy_unknown_frame(model *m, const char *why, method_id *me)
{
    char name[64];
    size_t i = 0;
    for (; why[i] && i + 1 < sizeof name; i++)
        name[i] = why[i] == ' ' ? '_' : why[i];
    name[i] = '\0';
    class_id c = model_class_intern(m, model_cstring(m, "<unknown frame>"), (str_id){ 0 });
    *me = model_method_intern(m, c, model_cstring(m, name), model_cstring(m, "()V"));
    return model_frame_intern(m, *me, FRAME_LINE_UNKNOWN);
}

/* cstack=: where each of a sample's native walk's words goes among its n
 * Java frames (AsyncGetCallTrace's, top first): at[i] = k puts word i
 * above Java frame k (n: below the last), ASY_NOWHERE leaves it out (a
 * marker, or a frame that could not be placed). The walk marks each compiled
 * or interpreted frame it went through with its method (native_frames.h):
 * each marker is matched, in order, to the next Java frame of its method
 * (the frames inlined into it come before it), and the native frames after
 * a marker go below its frame's last Java frame, if the next marker matched
 * too (or, for the frames below the last marker, if that frame was the
 * stack's last: the thread's start). A marker that matches nothing (a walk
 * that went wrong, frames AsyncGetCallTrace gave from elsewhere) leaves out
 * every native frame below it. full: n is every frame the sample has (not a
 * virtual thread's part of its carrier's stack). */
#define ASY_NOWHERE UINT32_MAX
static void asy_place(const asy_slot *s, const uint64_t *w, uint32_t nw, uint32_t n, bool full, uint32_t *at)
{
    uint32_t seg = 0, cursor = 0, pos = 0; /* the current run of native words starts at seg; goes above pos */
    jmethodID prev = NULL;
    bool any = false, ok = true;
    for (uint32_t i = 0; i < nw; i++) {
        if ((w[i] & ~(NATIVE_FRAMES_JAVA - 1)) != NATIVE_FRAMES_JAVA) {
            at[i] = ok ? pos : ASY_NOWHERE; /* provisional until the next marker */
            continue;
        }
        at[i] = ASY_NOWHERE;
        if (!ok)
            continue;
        uintptr_t method = (uintptr_t)(w[i] & (NATIVE_FRAMES_JAVA - 1));
        uint32_t j = cursor;
        while (method && j < n && vm_code_method_of(s->frames[j].method_id) != method)
            j++;
        if (!method || j >= n) {
            ok = false;
            for (uint32_t k = seg; k < i; k++)
                at[k] = ASY_NOWHERE;
            continue;
        }
        if (any) {
            /* the run since the previous marker goes below that frame: past the frames of the same method
             * up to this match (a method inlined into itself) */
            uint32_t below = pos;
            while (below < j && s->frames[below].method_id == prev)
                below++;
            for (uint32_t k = seg; k < i; k++)
                at[k] = below;
        }
        any = true;
        prev = s->frames[j].method_id;
        pos = j + 1;
        cursor = j + 1;
        seg = i + 1;
    }
    if (ok && any) {
        /* below the last marker: the thread's start, if that frame was the last Java frame */
        uint32_t below = pos;
        while (below < n && s->frames[below].method_id == prev)
            below++;
        for (uint32_t k = seg; k < nw; k++)
            at[k] = below == n && full ? n : ASY_NOWHERE;
    }
}

/* cstack=: a sample's kernel frames then its native frames, top first, as
 * frames (for its trace) and packed (for its stack), without jvmprof's own,
 * each with the Java frame it goes above in at[] (0 for all of them on a
 * sample without Java frames); how many. */
static uint32_t asy_cframes(asy_state *as, model *m, const asy_slot *s, uint32_t n, bool full, frame_id *frames,
                            uint32_t *packed, uint32_t *at)
{
    if (!as->ring->cpcs_off || !as->names)
        return 0;
    const uint64_t *cp = (const uint64_t *)((const unsigned char *)s + as->ring->cpcs_off);
    uint32_t *where = as->scratch_kframes; /* free until the stack is built */
    asy_place(s, cp + s->nkernel, s->nnative, n, full, where);
    uint32_t c = 0, all = (uint32_t)s->nkernel + s->nnative;
    bool any_unnamed = false, any_in_symbols = false, any_native = false, any_unplaced = false, leaf = true;
    for (uint32_t i = 0; i < all; i++) {
        bool kernel = i < s->nkernel, unnamed = false, in_symbols = false;
        if (i == s->nkernel)
            leaf = true;
        if (!kernel && where[i - s->nkernel] == ASY_NOWHERE) {
            any_unplaced |= (cp[i] & ~(NATIVE_FRAMES_JAVA - 1)) != NATIVE_FRAMES_JAVA;
            leaf = false;
            continue;
        }
        if (native_frames_frame(as->names, m, cp[i], leaf, kernel, &frames[c], &packed[c], &unnamed, &in_symbols))
            at[c++] = kernel ? 0 : where[i - s->nkernel];
        any_native |= !kernel;
        any_unnamed |= unnamed;
        any_in_symbols |= in_symbols;
        leaf = false;
    }
    as->kernel_samples += s->nkernel > 0;
    as->native_samples += any_native;
    as->unnamed_samples += any_unnamed;
    as->unnamed_symtab_samples += any_in_symbols;
    as->unplaced_samples += any_unplaced && full;
    return c;
}

/* A sample into the model: its native and kernel frames (cstack=) where
 * they were among its Java frames, or above the frame that says why the
 * Java frames could not be had (why: NULL when there are none to have, a
 * thread of the JVM's own or one with no Java frame yet). False when there
 * was nothing to record. */
static bool asy_record(asy_state *as, model *m, JNIEnv *jni, const asy_slot *s, const char *why)
{
    uint32_t depth = as->ring->depth;
    frame_id *frames = as->scratch_frames, *cf = as->scratch_cframes;
    uint32_t *kframes = as->scratch_kframes, *cpk = as->scratch_cpacked, *cat = as->scratch_cat;
    uint32_t n = s->nframes > 0 ? (uint32_t)s->nframes : 0;
    if (n > depth)
        n = depth;
    uint32_t all = n;
    n = asy_virtual_frames(jni, s, n);
    /* full: n is every frame of the stack (not a virtual thread's part of its carrier's, nor cut at depth) */
    bool full = n == all && s->nframes > 0 && (uint32_t)s->nframes == all && all < depth;
    uint32_t nc = asy_cframes(as, m, s, n, full, cf, cpk, cat);
    if (n == 0 && nc == 0)
        return false;
    uint32_t serial = asy_model_serial(as, m, jni, s);
    if (s->jvm) /* the JVM's own threads keep theirs, thread=n or not: THREAD KINDS counts by thread */
        serial = s->serial;
    method_id unknown_me = { 0 };
    frame_id unknown = { 0 };
    if (n == 0 && why) {
        /* the Java part that could not be walked, under the native frames */
        unknown = asy_unknown_frame(m, why, &unknown_me);
        if (unknown.v == 0)
            return true;
    }
    /* the trace: depth= Java frames, as HPROF's depth= counts them, with at most depth= native and kernel
     * frames among them (the top ones: where the CPU was), so that native frames never crowd the Java
     * ones out of a short trace; not the thread's start below the Java frames, the same in every trace
     * of the thread (flame graphs keep it) */
    uint32_t d = as->opts->depth, tn = 0, jn = 0, kn = 0, c = 0;
    for (uint32_t k = 0; k <= n && jn < d; k++) {
        for (; c < nc && cat[c] == k && (k < n || n == 0); c++)
            if (kn < d) {
                frames[tn++] = cf[c];
                kn++;
            }
        if (k == n)
            break;
        frames[tn] = symbols_frame(m, jni, s->frames[k].method_id, s->frames[k].lineno, as->opts->lineno);
        if (frames[tn].v == 0)
            return true;
        tn++;
        jn++;
    }
    if (unknown.v && d)
        frames[tn++] = unknown;
    trace_id t = asy_add_trace(m, s->weight, s->state, serial, frames, tn);
    uint64_t wall_ns = m->sample_times_max || m->recording ? asy_wall_ns_of(s->ticks) : 0;
    if (m->sample_times_max)
        model_sample_time_add(m, t, (stack_id){ 0 }, (sample_state)s->state, s->weight, wall_ns);
    if (!as->want_stacks) {
        asy_note(m, wall_ns, s->serial, t, (stack_id){ 0 }, s->weight, s->state);
        return true;
    }
    /* the stack: every frame in order, depth of them at most (flame=: 2048), from the top */
    uint32_t total = 0;
    c = 0;
    for (uint32_t k = 0; k <= n && total < depth; k++) {
        for (; c < nc && cat[c] == k && total < depth; c++)
            kframes[total++] = cpk[c];
        if (k == n || total == depth)
            break;
        frame_id f = symbols_frame(m, jni, s->frames[k].method_id, -1, false);
        const model_frame *mf = model_frame_get(m, f);
        if (!mf)
            return true;
        frame_kind kind = s->frames[k].lineno == -3 ? FRAME_KIND_NATIVE
                          : code_kinds_of(s->frames[k].method_id, k + 1 < n ? s->frames[k + 1].method_id : NULL);
        kframes[total++] = stack_frame_pack(mf->method, kind);
    }
    if (unknown.v && total < depth)
        kframes[total++] = stack_frame_pack(unknown_me, FRAME_KIND_UNKNOWN);
    asy_note(m, wall_ns, s->serial, t, asy_add_stack(m, s->weight, s->state, serial, kframes, total), s->weight,
             s->state);
    return true;
}

/* A walked sample, into a trace= of the same run: its thread, time and
 * stack ("pkg.Class.method;..." from the root), so `jvmprof trace
 * --slowest` shows what ran inside a slow call. */
static void asy_trace_sample(asy_state *as, model *m, JNIEnv *jni, const asy_slot *s)
{
    uint32_t depth = as->ring->depth;
    uint32_t n = (uint32_t)s->nframes < depth ? (uint32_t)s->nframes : depth;
    n = asy_virtual_frames(jni, s, n);
    buf_reset(&as->trace_text);
    for (uint32_t k = n; k-- > 0;) {
        frame_id f = symbols_frame(m, jni, s->frames[k].method_id, -1, false);
        const model_frame *mf = model_frame_get(m, f);
        if (!mf)
            return;
        if (k + 1 < n)
            buf_put(&as->trace_text, ";", 1);
        collapsed_frame_name(m, (collapsed_frame){ FRAME_KIND_JIT, mf->method.v }, &as->trace_text);
    }
    if (!as->trace_text.failed)
        trace_sample(s->serial, s->ticks, (const char *)as->trace_text.data, as->trace_text.len);
}

/* A sample whose stack could not be walked still counts, in its thread and
 * state, under one frame that says why ("<unknown frame>.not_walkable_Java"),
 * so the shares of the threads and states stay right. */
static void asy_record_unknown_in(const asy_state *as, model *m, uint32_t weight, uint8_t state, uint32_t serial,
                                  const char *why);

static void asy_record_unknown(const asy_state *as, model *m, uint32_t weight, uint8_t state, uint32_t serial,
                               const char *why)
{
    asy_record_unknown_in(as, m, weight, state, as->opts->thread ? serial : 0, why);
}

/* ... counted in model thread serial (0: not per thread) */
static void asy_record_unknown_in(const asy_state *as, model *m, uint32_t weight, uint8_t state, uint32_t serial,
                                  const char *why)
{
    method_id me;
    frame_id f = asy_unknown_frame(m, why, &me);
    if (f.v == 0)
        return;
    trace_id t = asy_add_trace(m, weight, state, serial, &f, as->opts->depth ? 1 : 0);
    uint32_t kf = stack_frame_pack(me, FRAME_KIND_UNKNOWN);
    stack_id st = { 0 };
    if (as->want_stacks)
        st = asy_add_stack(m, weight, state, serial, &kf, 1);
    asy_note(m, 0, serial, t, st, weight, state);
}

/* One taken sample into the model: its stack, or (no frames) its weight under <unknown frame>, named by
 * why the walk failed (code: AsyncGetCallTrace's, negated). */
static void asy_take(asy_state *as, model *m, JNIEnv *jni, const asy_slot *s, int code)
{
    if (s->nframes > 0 || s->jvm) {
        as->recorded += s->weight;
        as->stacks++;
        if (!asy_record(as, m, jni, s, NULL) && s->jvm)
            asy_record_unknown_in(as, m, s->weight, s->state, s->serial, "no native frame");
        if (s->nframes > 0 && trace_samples_wanted())
            asy_trace_sample(as, m, jni, s);
        return;
    }
    /* no Java frame: the native frames alone (a thread with none yet), or above the reason */
    if (s->nkernel + s->nnative > 0 &&
        asy_record(as, m, jni, s, code == 0 ? NULL : code < ASY_AGCT_CODES ? asy_agct_names[code] : "other")) {
        /* its Java part under <unknown frame>: counted as not walkable only, so that the verbose line's
         * recorded and not walkable samples are apart and add up to the report's total with the rest */
        if (code) {
            as->failed[code < ASY_AGCT_CODES ? code : ASY_AGCT_CODES] += s->weight;
        } else {
            as->recorded += s->weight;
            as->stacks++;
        }
        return;
    }
    as->failed[code < ASY_AGCT_CODES ? code : ASY_AGCT_CODES] += s->weight;
    asy_record_unknown_in(as, m, s->weight, s->state, asy_model_serial(as, m, jni, s),
                          code < ASY_AGCT_CODES ? asy_agct_names[code] : "other");
}

/* The samples the ring had no room for since the last drain, each thread's and
 * state's under <unknown frame>.ring_full. */
static void asy_record_drops(asy_state *as, model *m)
{
    asy_hot *r = as->ring;
    for (uint32_t i = 0; i <= ASY_DROP_SLOTS; i++) {
        asy_drop *d = &r->drops[i];
        uint64_t key = atomic_load_explicit(&d->key, memory_order_acquire);
        uint64_t w = key ? atomic_exchange_explicit(&d->weight, 0, memory_order_relaxed) : 0;
        for (; w; w -= w > UINT32_MAX ? UINT32_MAX : w) {
            uint32_t part = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
            as->dropped_samples += part;
            asy_record_unknown(as, m, part, (uint8_t)((key - 1) & 0xff), (uint32_t)((key - 1) >> 8), "ring full");
        }
    }
}

/* The samples lost, by cause, in the report's COUNTS. */
static void asy_count_losses(const asy_state *as, model *m)
{
    uint64_t unwalkable = 0;
    for (int i = 0; i <= ASY_AGCT_CODES; i++)
        unwalkable += as->failed[i];
    model_count_set(m, "samples not walkable (counted under <unknown frame>)", unwalkable);
    /* and by cause, the frame each is counted under */
    static const char *const by_cause[ASY_AGCT_CODES + 1] = {
        "  of which <unknown frame>.no_Java_frame", "  of which <unknown frame>.no_class_load",
        "  of which <unknown frame>.GC_active", "  of which <unknown frame>.unknown_not_Java",
        "  of which <unknown frame>.not_walkable_not_Java", "  of which <unknown frame>.unknown_Java",
        "  of which <unknown frame>.not_walkable_Java", "  of which <unknown frame>.unknown_state",
        "  of which <unknown frame>.thread_exit", "  of which <unknown frame>.deopt",
        "  of which <unknown frame>.safepoint", "  of which <unknown frame>.JVM_leaf",
        "  of which <unknown frame>.other",
    };
    for (int i = 0; i <= ASY_AGCT_CODES; i++)
        if (as->failed[i])
            model_count_set(m, by_cause[i], as->failed[i]);
    model_count_set(m, "samples dropped (ring full; counted under <unknown frame>.ring_full)", as->dropped_samples);
    if (as->ring->cpcs_off) {
        model_count_set(m, "samples with native frames (cstack=)", as->native_samples);
        model_count_set(m, "samples with kernel frames (cstack=mixed)", as->kernel_samples);
        model_count_set(m, "samples with a native frame without a symbol", as->unnamed_samples);
        model_count_set(m, "  of which in a library with a full symbol table", as->unnamed_symtab_samples);
        model_count_set(m, "samples with native frames left out (no place among the Java frames)",
                        as->unplaced_samples);
    }
    if (as->opts->threads_all)
        model_count_set(m, "samples of the JVM's own threads (threads=all)",
                        atomic_load_explicit(&as->ring->jvm_samples, memory_order_relaxed));
    model_count_set(m, "samples on threads not sampled", atomic_load_explicit(&as->ring->no_env, memory_order_relaxed));
    if (!as->opts->wall_ms)
        model_count_set(m, "threads without a CPU timer", atomic_load_explicit(&as->timer_failed, memory_order_relaxed));
    else
        model_count_set(m, "wall signals that could not be sent", as->wall_failed);
}

/* wall=: the virtual threads unmounted now (waiting for I/O, a lock, a
 * sleep, or for a carrier), which no signal can reach: at most
 * ASY_WALL_VTHREADS_PER_TICK of them each period, taking turns, their
 * stacks from JVMTI GetStackTrace (it takes an unmounted virtual thread's)
 * and state from GetThreadState (runnable but unmounted: waiting for a
 * carrier, so waiting). Each stands for live / taken of them, so the
 * period's weight is the number that were unmounted, as wall= does for
 * platform threads. A mounted one is its carrier's sample. */
static void asy_wall_vthreads(jp_session *session, asy_state *as, JNIEnv *jni)
{
    model *m = session->model;
    uint32_t depth = as->ring->depth;
    enum { MAX = ASY_WALL_VTHREADS_PER_TICK };
    jthread refs[MAX];
    sampler_vthread who[MAX];
    uint32_t live = 0;
    if (!as->vslot) {
        as->vslot = calloc(1, as->ring->slot_size);
        as->vframes = calloc(depth, sizeof *as->vframes);
        if (!as->vslot || !as->vframes) {
            free(as->vslot);
            free(as->vframes);
            as->vslot = NULL;
            as->vframes = NULL;
            return;
        }
    }
    if ((*jni)->PushLocalFrame(jni, MAX + 8) != 0)
        return;
    uint32_t taken = sampler_vthreads_unmounted(session, jni, MAX, refs, who, &live);
    jvmtiEnv *jv = agent_jvmti;
    for (uint32_t k = 0; k < taken; k++) {
        jint st = 0, n = 0;
        asy_slot *s = as->vslot;
        if ((*jv)->GetThreadState(jv, refs[k], &st) != JVMTI_ERROR_NONE || !(st & JVMTI_THREAD_STATE_ALIVE) ||
            (*jv)->GetStackTrace(jv, refs[k], 0, (jint)depth, as->vframes, &n) != JVMTI_ERROR_NONE)
            continue;
        sample_state state = asy_state_of(st);
        if (state == SAMPLE_RUNNING)
            state = SAMPLE_WAITING;   /* runnable, unmounted: waiting for a carrier */
        else if (state == SAMPLE_WAITING && asy_vthread_sleeping(jni, as->vframes, n))
            state = SAMPLE_SLEEPING;  /* Thread.sleep, as a platform thread's */
        s->state = (uint8_t)state;
        s->weight = live / taken + (k < live % taken ? 1 : 0);
        if (s->weight > ASY_WALL_WEIGHT_MAX)
            s->weight = ASY_WALL_WEIGHT_MAX;
        s->serial = who[k].serial;
        s->virt = true;
        s->carrier = 0;
        s->vindex = who[k].index;
        s->vjava_id = who[k].java_id;
        s->ticks = ticks_now();
        s->nframes = n;
        for (jint i = 0; i < n; i++) {
            s->frames[i].method_id = as->vframes[i].method;
            s->frames[i].lineno = as->vframes[i].location < 0 ? -3 : (jint)as->vframes[i].location;
        }
        as->vthread_samples++;
        asy_take(as, m, jni, s, 0);
    }
    (*jni)->PopLocalFrame(jni, NULL);
}

/* threads=all: the Java threads' OS ids now, sorted, for jvm_threads_scan */
static int asy_cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void asy_scan_jvm_threads(asy_state *as, model *m, JNIEnv *jni)
{
    jint n = 0;
    jthread *threads = NULL;
    if (jvmti_check((*agent_jvmti)->GetAllThreads(agent_jvmti, &n, &threads), "GetAllThreads") != JP_OK)
        return;
    if ((uint32_t)n > as->java_tids_cap) {
        uint32_t *grown = realloc(as->java_tids, (size_t)n * 2 * sizeof *grown);
        if (!grown) {
            jvmti_free(threads);
            return;
        }
        as->java_tids = grown;
        as->java_tids_cap = (uint32_t)n * 2;
    }
    uint32_t k = 0;
    for (jint i = 0; i < n; i++) {
        uint32_t tid = thread_registry_tid(threads[i]);
        if (tid)
            as->java_tids[k++] = tid;
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    jvmti_free(threads);
    qsort(as->java_tids, k, sizeof *as->java_tids, asy_cmp_u32);
    jvm_threads_scan(m, as->java_tids, k);
}

void async_sampler_drain(jp_session *session, JNIEnv *jni)
{
    model *m = session->model;
    asy_state *as = asy_of(session);
    asy_hot *r = as ? as->ring : NULL;
    if (!r)
        return;
    if ((*jni)->PushLocalFrame(jni, 64) != 0)
        return;
    if (r->native)
        native_frames_refresh();
    if (r->jvm_threads && as->cpu_timers && jvm_threads_due())
        asy_scan_jvm_threads(as, m, jni);
    for (;;) {
        asy_slot *s = asy_slot_at(r, as->dequeue);
        uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (seq != as->dequeue + 1)
            break;
        asy_take(as, m, jni, s, -s->nframes);
        atomic_store_explicit(&s->seq, as->dequeue + r->mask + 1, memory_order_release);
        as->dequeue++;
    }
    asy_record_drops(as, m);
    (*jni)->PopLocalFrame(jni, NULL);
    asy_count_losses(as, m);
}

void async_sampler_stop(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    asy_state *as = asy_of(session);
    if (as && as->ring)
        atomic_store_explicit(&as->ring->active, false, memory_order_release);
}

void async_sampler_unload(void)
{
    if (!asy_proc.agct)
        return;   /* never installed */
    /* threads' CPU timers may still fire while the JVM shuts down; nothing
     * may jump into this library once it could be unmapped */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(ASY_SIGNAL, &sa, NULL);
    if (asy_proc.trap_installed) /* SIGTRAP's handler back to what it was */
        sigaction(SIGTRAP, &asy_proc.trap_old, NULL);
}

/* Appends to out (len bytes, *used so far); stops quietly when full. */
static void asy_appendf(char *out, size_t len, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void asy_appendf(char *out, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *used, len - *used, fmt, ap);
    va_end(ap);
    *used = w > 0 && (size_t)w < len - *used ? *used + (size_t)w : len;
}

/* One line for the verbose log: samples taken, and every failure by reason. */
static void asy_describe(const asy_state *as, char *out, size_t len)
{
    const asy_hot *r = as->ring;
    size_t used = 0;
    if (len)
        out[0] = '\0';
    /* each signal is a stack recorded, one that could not be walked, one dropped or one on a thread
     * not sampled (or one still in the ring); a stack stands for one sample or more (the timer's
     * overruns; wall=: the threads a signal stands for) */
    char per_event[128];
    snprintf(per_event, sizeof per_event, ", one per %llu %s events (perf_event)", (unsigned long long)as->period,
             as->spec.name);
    asy_appendf(out, len, &used, "%s sampler: %llu signals: %llu stacks recorded (%llu samples%s)",
               as->opts->wall_ms ? "wall" : "cpu", (unsigned long long)atomic_load(&r->signals),
               (unsigned long long)as->stacks, (unsigned long long)as->recorded,
               as->opts->wall_ms   ? ", each stack standing for the threads it was taken for"
               : as->event_other   ? per_event
               : asy_proc.perf_timers     ? ", one per signal of a perf_event task clock"
                                     : ", with the overruns of POSIX CPU timers");
    if (!as->opts->wall_ms && asy_proc.perf_timers && atomic_load(&as->perf_fallbacks))
        asy_appendf(out, len, &used, ", %llu threads on POSIX CPU timers (no perf_event clock could be opened for them)",
                    (unsigned long long)atomic_load(&as->perf_fallbacks));
    if (!as->opts->wall_ms && !asy_needs_perf_clock(as))
        asy_appendf(out, len, &used, ", chosen: cstack=%s at interval=%u needs no perf_event clock (kernel frames and "
                    "intervals below %u ms do), and they cost less a sample", as->opts->cstack == OPTIONS_CSTACK_JAVA ? "java"
                    : "native", as->opts->interval_ms, ASY_POSIX_MIN_INTERVAL_MS);
    else if (!as->opts->wall_ms && !asy_proc.perf_timers)
        asy_appendf(out, len, &used, ", perf_event_open refused (%s): POSIX timers are checked at the scheduler "
                    "tick, so an interval below it gives fewer stacks, each standing for several samples",
                    asy_proc.perf_refused);
    for (int i = 0; i <= ASY_AGCT_CODES; i++)
        if (as->failed[i])
            asy_appendf(out, len, &used, ", %llu samples not walkable (%s)", (unsigned long long)as->failed[i],
                       i < ASY_AGCT_CODES ? asy_agct_names[i] : "other");
    uint64_t extra[4] = { atomic_load(&r->dropped), atomic_load(&r->no_env), atomic_load(&r->foreign),
                          atomic_load(&as->timer_failed) };
    static const char *const what[4] = { "signals dropped (ring full)", "on threads not sampled", "foreign SIGPROF ignored",
                                         "threads without a CPU timer" };
    for (int i = 0; i < 4; i++)
        if (extra[i])
            asy_appendf(out, len, &used, ", %llu %s", (unsigned long long)extra[i], what[i]);
    if (extra[0])
        asy_appendf(out, len, &used, " (%llu samples, counted under <unknown frame>.ring_full)",
                    (unsigned long long)as->dropped_samples);
    /* the walks jvmprof took where AsyncGetCallTrace alone would not */
    uint64_t walked[4] = { atomic_load(&r->in_other_handler), atomic_load(&r->from_leaf),
                           atomic_load(&r->recovered_vm), atomic_load(&r->recovered_interp) };
    static const char *const how[4] = {
        "taken in another signal handler (walked from the context it interrupted)",
        "in a leaf call into the JVM (walked from its compiled caller)",
        "walked from a Java frame anchor made walkable (in the VM)",
        "walked from the top frame's caller (not walkable Java)",
    };
    for (int i = 0; i < 4; i++)
        if (walked[i])
            asy_appendf(out, len, &used, ", %llu %s", (unsigned long long)walked[i], how[i]);
    uint64_t rec = atomic_load(&r->recovered), top = atomic_load(&r->recovered_top);
    if (rec)
        asy_appendf(out, len, &used, ", %llu walked from the caller (unknown Java at the top; %llu of them named the "
                    "method at the pc from the code cache)", (unsigned long long)rec, (unsigned long long)top);
    if (as->opts->wall_ms)
        asy_appendf(out, len, &used, "; %llu wall signals sent, %llu failed", (unsigned long long)as->wall_signals,
                   (unsigned long long)as->wall_failed);
    if (as->opts->wall_ms && as->vthread_samples)
        asy_appendf(out, len, &used, "; %llu stacks of unmounted virtual threads (JVMTI)",
                    (unsigned long long)as->vthread_samples);
}
