/* bci.c — the agent's side of bytecode instrumentation (see bci.h). The
 * method registry is a table of published records (src/common/pub_table) indexed by
 * method number: a loading thread fills the records of a class, rewrites it,
 * then publishes them with release stores before the class can run; the
 * agent thread reads with acquire loads. No lock on any path but the rare
 * one that adds a module defined after VM init. Records live as long as the
 * process (an unloaded class's methods still name old call paths).
 *
 * What a session chose (its options, the natives it binds, the alloc_count=
 * site counter, its counts of classes) is the session's part (JP_PART_BCI,
 * bci_state), which the ClassFileLoadHook reaches through bci_live; what
 * holds for the JVM's life (the Tracker class and its module, the modules
 * made to read it, the method numbers) stays global. */
#include "bci.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../classfile/classfile.h"
#include "../../classfile/selection.h"
#include "../../common/jp_log.h"
#include "../../common/pub_table.h"
#include "../core/agent_env.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../core/session_ctx.h"

#define BCI_MODULES_MAX 4096

/* The Tracker in this JVM: the bridge (tracker.h) handed over at load, and
 * what the first session that instrumented set up for the JVM's life (the
 * class found, its natives registered, every module made to read its
 * module); later sessions find it so. */
static struct {
    const cf_tracker *spec;
    const JNINativeMethod *natives;
    int native_count;
    jclass cls;                 /* global ref */
    jobject module;             /* global ref: the boot loader's unnamed module */
    /* modules made to read the tracker's module: append-only, count published last */
    pthread_mutex_t modules_lock;
    jobject modules[BCI_MODULES_MAX];
    atomic_uint nmodules;
} bci_jvm = { .modules_lock = PTHREAD_MUTEX_INITIALIZER };

void bci_set_tracker(const cf_tracker *spec, const JNINativeMethod *natives, int count)
{
    bci_jvm.spec = spec;
    bci_jvm.natives = natives;
    bci_jvm.native_count = count;
}

/* The method registry (up to 64M instrumented methods): global, its records live as long as the
 * process (see above), as the number each call carries. */
PUB_TABLE(bci_methods, BCI_IDS);
/* The next method number: global, as the registry, because the classes a
 * session instrumented keep calling with theirs after it ended (until they
 * are restored, or for good if they cannot be): a number is never given twice. */
static atomic_uint bci_next_id = 1;

/* The session's part (JP_PART_BCI): what its options and its collectors
 * chose, and its counts. */
typedef struct bci_state {
    const agent_options *opts;  /* the session's (kept for the JVM's life) */
    bool late;                  /* started after VM init: the classes loaded before get its calls too */
    const bci_alloc_counter *counter; /* alloc_count=site's (bci_use_alloc_counter), or NULL */
    /* the natives behind enter0, exit0, exitThrow0, enterThis0 (bci_use_calls); NULL: the table's */
    bci_call_fn calls[3];
    bci_this_fn call_this;
    bool receivers;
    cf_tracker tracker_this;    /* the tracker with enterThis, for receivers */
    _Atomic uint64_t seen, rewritten, failed, methods, counted, unchanged, ns, alloc_counts;
    uint64_t retransformed, retransform_failed, retransform_ns;
} bci_state;

/* The running session's part, for the ClassFileLoadHook (which no hook hands
 * the session): set when the first of its collectors starts instrumenting
 * (bci_vm_init), cleared when the first stops (bci_vm_death); non-NULL is
 * "rewriting". The hook passes the gate, so none is in flight by the end. */
static bci_state *_Atomic bci_live;

static bci_state *bci_part(jp_session *s)
{
    bci_state *b = session_part(s, JP_PART_BCI, sizeof *b);
    if (b) {
        b->opts = s->opts;
        b->late = !s->at_load;
    }
    return b;
}

/* cpu=times, trace=exec: entry and exit calls. heap=sites,alloc_interval=0,alloc_hook=bci:
 * a call at Object.<init> and after each array allocation, in every class. */
static bool bci_calls_on(const bci_state *b)
{
    return b->opts->cpu == OPTIONS_CPU_TIMES || (b->opts->trace & OPTIONS_TRACE_ENTRY);
}
static bool bci_allocs_on(const bci_state *b) { return options_alloc_bci(b->opts); }

void bci_use_alloc_counter(jp_session *s, const bci_alloc_counter *c)
{
    bci_state *b = bci_part(s);
    if (b)
        b->counter = c;
}

jclass bci_tracker_class_ref(void) { return bci_jvm.cls; }

void bci_use_calls(jp_session *s, bci_call_fn enter, bci_call_fn exit, bci_call_fn exit_throw, bci_this_fn enter_this,
                   bool receivers)
{
    bci_state *b = bci_part(s);
    if (!b)
        return; /* bci_vm_init says it */
    b->calls[0] = enter;
    b->calls[1] = exit;
    b->calls[2] = exit_throw;
    b->call_this = enter_this;
    b->receivers = receivers && bci_jvm.spec;
    if (b->receivers) {
        b->tracker_this = *bci_jvm.spec;
        b->tracker_this.enter_this = "enterThis";
    }
}

static jp_status bci_bind_calls(const bci_state *b, JNIEnv *jni)
{
    if (!b->calls[0])
        return JP_OK;
    const JNINativeMethod calls[] = {
        { (char *)"enter0", (char *)CF_TRACKER_ID_DESC, (void *)b->calls[0] },
        { (char *)"exit0", (char *)CF_TRACKER_ID_DESC, (void *)b->calls[1] },
        { (char *)"exitThrow0", (char *)CF_TRACKER_ID_DESC, (void *)b->calls[2] },
        { (char *)"enterThis0", (char *)CF_TRACKER_THIS_DESC, (void *)b->call_this },
    };
    if ((*jni)->RegisterNatives(jni, bci_jvm.cls, calls, b->call_this ? 4 : 3) != 0) {
        (*jni)->ExceptionClear(jni);
        return jp_error(JP_ERR_JVMTI, "cannot bind jvmprof.Tracker's enter and exit natives");
    }
    return JP_OK;
}

const bci_method *bci_method_get(uint32_t id) { return id && id < BCI_IDS ? pub_get(&bci_methods, id) : NULL; }

static bool bci_publish(uint32_t id, bci_method *m) { return id && id < BCI_IDS && pub_put(&bci_methods, id, m); }

/* Keeps a global reference to a module that now reads the tracker's module,
 * so bci_module_reads finds it; the count is published after the entry. */
static void bci_remember_module(JNIEnv *jni, jobject module)
{
    pthread_mutex_lock(&bci_jvm.modules_lock);
    unsigned at = atomic_load(&bci_jvm.nmodules);
    if (at < BCI_MODULES_MAX && (bci_jvm.modules[at] = (*jni)->NewGlobalRef(jni, module)))
        atomic_store_explicit(&bci_jvm.nmodules, at + 1, memory_order_release);
    pthread_mutex_unlock(&bci_jvm.modules_lock);
}

/* The methods of the class being rewritten, numbered but not yet published. */
typedef struct bci_select_ctx {
    const bci_state *b;
    bool calls;                 /* entry/exit calls wanted in this class */
    const char *class_name;
    bci_class *cls;
    bci_method **pending;
    uint32_t *ids;
    uint32_t n, cap;
    bool oom;
    void *alloc_ctx;            /* alloc_count=site: the counter's context for this class */
} bci_select_ctx;

static uint32_t bci_alloc(void *vctx, const cf_alloc_view *a, cf_alloc_how *how)
{
    bci_select_ctx *ctx = vctx;
    return ctx->alloc_ctx ? ctx->b->counter->alloc(ctx->alloc_ctx, a, how) : 0;
}

static uint32_t bci_select(void *vctx, const cf_method_view *m)
{
    bci_select_ctx *ctx = vctx;
    const agent_options *o = ctx->b->opts;
    /* trace=exec: every method's entry and exit. cpu=times, and trace=exec
     * with mintime=: the small straight-line leaves are counted, not timed
     * (their time is their callers', bounded by their length), unless tiny=0;
     * tiny=N also counts the loop-free methods of at most N bytes, and a slow
     * callee of one is still timed. With mintime= the counted ones are not
     * traced, nor those without loops, calls or a lock, which cannot last long */
    bool tracing = o->trace & OPTIONS_TRACE_ENTRY, latency = tracing && o->mintime_ns;
    bool tiny_given = options_given(o, OPTIONS_ID_TINY), rules = !tracing || latency;
    unsigned shape = (m->calls ? CF_CODE_CALLS : 0) | (m->loops ? CF_CODE_LOOPS : 0) |
                     (m->newarray ? CF_CODE_NEWARRAY : 0) | (m->locks || (m->access & 0x0020) ? CF_CODE_LOCKS : 0);
    cf_method_rule rule = ctx->calls ? cf_method_rule_of(ctx->class_name, m->name, m->code_length, shape,
                                                         rules && (!tiny_given || o->tiny),
                                                         rules && tiny_given ? o->tiny : 0)
                                     : CF_METHOD_SKIP;
    if (latency && (rule == CF_METHOD_COUNT || (!m->loops && !m->calls && !(m->access & 0x0020))))
        rule = CF_METHOD_SKIP;
    if (rule == CF_METHOD_SKIP)
        return 0;
    if (ctx->n == ctx->cap) {
        uint32_t cap = ctx->cap ? ctx->cap * 2 : 16;
        bci_method **p = realloc(ctx->pending, cap * sizeof *p);
        if (p)
            ctx->pending = p;
        uint32_t *ids = p ? realloc(ctx->ids, cap * sizeof *ids) : NULL;
        if (!ids) {
            ctx->oom = true;
            return 0;
        }
        ctx->ids = ids;
        ctx->cap = cap;
    }
    bci_method *me = calloc(1, sizeof *me);
    if (me) {
        me->cls = ctx->cls;
        me->name = strdup(m->name);
        me->sig = strdup(m->desc);
        me->access = m->access;
    }
    if (!me || !me->name || !me->sig) {
        if (me) {
            free(me->name);
            free(me->sig);
        }
        free(me);
        ctx->oom = true;
        return 0;
    }
    uint32_t id = atomic_fetch_add_explicit(&bci_next_id, 1, memory_order_relaxed);
    ctx->pending[ctx->n] = me;
    ctx->ids[ctx->n++] = id;
    return rule == CF_METHOD_COUNT ? id | CF_SELECT_COUNT_ONLY : id;
}

static void bci_select_free(bci_select_ctx *ctx, bool keep_methods)
{
    for (uint32_t i = 0; !keep_methods && i < ctx->n; i++) {
        free(ctx->pending[i]->name);
        free(ctx->pending[i]->sig);
        free(ctx->pending[i]);
    }
    free(ctx->pending);
    free(ctx->ids);
    if (!keep_methods && ctx->cls) {
        free(ctx->cls->name);
        free(ctx->cls->source_file);
        free(ctx->cls);
    }
}

/* A class in a named module calls into the tracker's (unnamed) module only if
 * its module reads it. Modules that existed at VM init were handled then;
 * this adds one defined later (a new module layer). */
static bool bci_module_reads(JNIEnv *jni, jobject loader, const char *class_name)
{
    char pkg[1024];
    const char *slash = strrchr(class_name, '/');
    size_t n = slash ? (size_t)(slash - class_name) : 0;
    if (n >= sizeof pkg)
        return false;
    memcpy(pkg, class_name, n);
    pkg[n] = 0;
    jobject module = NULL;
    if ((*agent_jvmti)->GetNamedModule(agent_jvmti, loader, pkg, &module) != JVMTI_ERROR_NONE)
        return false;
    if (!module)
        return true; /* unnamed modules read every module */
    unsigned k = atomic_load_explicit(&bci_jvm.nmodules, memory_order_acquire);
    for (unsigned i = 0; i < k; i++)
        if ((*jni)->IsSameObject(jni, module, bci_jvm.modules[i])) {
            (*jni)->DeleteLocalRef(jni, module);
            return true;
        }
    bool ok = (*agent_jvmti)->AddModuleReads(agent_jvmti, module, bci_jvm.module) == JVMTI_ERROR_NONE;
    if (ok)
        bci_remember_module(jni, module);
    (*jni)->DeleteLocalRef(jni, module);
    return ok;
}

static void bci_rewrite(bci_state *b, jvmtiEnv *jv, JNIEnv *jni, jclass redefined, jobject loader, const char *name,
                        jint len, const unsigned char *data, jint *new_len, unsigned char **new_data)
{
    if (len <= 0 || (redefined && !bci_allocs_on(b) && !b->counter && !b->late))
        return;
    char cname[1024];
    if (!name) {
        if (cf_class_name(data, (size_t)len, cname, sizeof cname) != JP_OK)
            return;
        name = cname;
    }
    atomic_fetch_add_explicit(&b->seen, 1, memory_order_relaxed);
    /* retransformed classes (loaded before VM init) get the allocation calls only, but for a session
     * started late, which instruments the classes loaded before it */
    bool calls = bci_calls_on(b) && (!redefined || b->late) && cf_class_selected(name, b->opts->include, b->opts->exclude);
    bool allocs = bci_allocs_on(b) && strncmp(name, "jvmprof/", 8) != 0;
    bool counts = b->counter && strncmp(name, "jvmprof/", 8) != 0;
    if (!(calls || allocs || counts) || !bci_module_reads(jni, loader, name))
        return;
    bci_class *rec = calloc(1, sizeof *rec);
    if (!rec)
        return;
    bci_select_ctx ctx = { b, calls, name, rec, NULL, NULL, 0, 0, false, NULL };
    if (counts && !(ctx.alloc_ctx = b->counter->class_begin(name)))
        counts = false;
    cf_inject_spec spec = { b->receivers && bci_jvm.spec ? &b->tracker_this : bci_jvm.spec,
                            (calls ? CF_INJECT_CALLS : 0u) | (allocs ? CF_INJECT_NEWARRAY | CF_INJECT_OBJINIT : 0u) |
                                (counts ? CF_INJECT_ALLOCS : 0u),
                            bci_select, &ctx, counts ? b->counter->tracker : NULL, counts ? bci_alloc : NULL,
                            counts ? b->counter->calls : NULL };
    cf_result r;
    uint64_t t0 = agent_now_ns();
    jp_status st = cf_rewrite(data, (size_t)len, &spec, &r);
    atomic_fetch_add_explicit(&b->ns, agent_now_ns() - t0, memory_order_relaxed);
    if (counts)
        b->counter->class_end(ctx.alloc_ctx, st == JP_OK && !ctx.oom && r.bytes ? r.source_file : NULL);
    if (st != JP_OK || ctx.oom) {
        atomic_fetch_add_explicit(&b->failed, 1, memory_order_relaxed);
        jp_log_debug("class %s left as it was: %s", name, st != JP_OK ? r.why : "out of memory");
        free(r.bytes);
        bci_select_free(&ctx, false);
        return;
    }
    if (r.methods_unchanged) {
        atomic_fetch_add_explicit(&b->unchanged, r.methods_unchanged, memory_order_relaxed);
        jp_log_debug("%s", r.why);
    }
    unsigned char *out = NULL;
    if (!r.bytes || (*jv)->Allocate(jv, (jlong)r.len, &out) != JVMTI_ERROR_NONE) {
        free(r.bytes);
        bci_select_free(&ctx, false);
        return;
    }
    memcpy(out, r.bytes, r.len);
    free(r.bytes);
    rec->name = strdup(name);
    rec->source_file = r.source_file[0] ? strdup(r.source_file) : NULL;
    if (!rec->name) {
        (*jv)->Deallocate(jv, out);
        bci_select_free(&ctx, false);
        return;
    }
    for (char *c = rec->name; *c; c++) /* dotted: java/util/Map$Entry -> java.util.Map$Entry */
        if (*c == '/')
            *c = '.';
    /* published before the class can run: its calls always find a name */
    for (uint32_t i = 0; i < ctx.n; i++)
        if (!bci_publish(ctx.ids[i], ctx.pending[i])) {
            while (i--)
                bci_publish(ctx.ids[i], NULL); /* into chunks that exist: cannot fail */
            (*jv)->Deallocate(jv, out);
            bci_select_free(&ctx, false);
            return;
        }
    bci_select_free(&ctx, true);
    atomic_fetch_add_explicit(&b->rewritten, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->methods, r.methods_rewritten - r.counts, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->counted, r.counts, memory_order_relaxed);
    atomic_fetch_add_explicit(&b->alloc_counts, r.alloc_counts, memory_order_relaxed);
    *new_len = (jint)r.len;
    *new_data = out;
}

void JNICALL bci_class_file_load_hook(jvmtiEnv *jv, JNIEnv *jni, jclass redefined, jobject loader, const char *name,
                                      jobject protection_domain, jint len, const unsigned char *data, jint *new_len,
                                      unsigned char **new_data)
{
    (void)protection_domain;
    if (!gate_enter())
        return;
    bci_state *b = atomic_load_explicit(&bci_live, memory_order_acquire);
    if (b)
        bci_rewrite(b, jv, jni, redefined, loader, name, len, data, new_len, new_data);
    gate_leave();
}

/* Whether a loaded class (its signature, Lpkg/Name;) would get calls: with
 * alloc_hook=bci every class does; else the ones include=/exclude= choose,
 * so that a later session retransforms only those (it took 0.5 s for all of
 * a small program's, on each Control.tracingBegin). */
static bool bci_worth_retransforming(const bci_state *b, const char *sig)
{
    if (b->opts->alloc_hook == 'b' || b->counter || sig[0] != 'L')
        return true;
    char name[1024];
    size_t n = strlen(sig + 1);
    if (n == 0 || n >= sizeof name)
        return true;
    memcpy(name, sig + 1, n - 1); /* without the ';' */
    name[n - 1] = '\0';
    return cf_class_selected(name, b->opts->include, b->opts->exclude);
}

/* The classes loaded so far get their calls now: alloc_hook=bci's at VM init
 * (java.lang.Object's first), and a later session's cpu=times (the classes
 * loaded before it started): in batches, and one by one where a batch fails. */
static void bci_retransform_loaded(bci_state *b, JNIEnv *jni)
{
    jvmtiEnv *jv = agent_jvmti;
    uint64_t t0 = agent_now_ns();
    jint n = 0;
    jclass *all = NULL;
    if (jvmti_check((*jv)->GetLoadedClasses(jv, &n, &all), "GetLoadedClasses") != JP_OK)
        return;
    jclass *pick = malloc(((size_t)n + 1) * sizeof *pick);
    jint k = 0;
    for (jint i = 0; pick && i < n; i++) {
        jboolean mod = JNI_FALSE, arr = JNI_FALSE;
        char *sig = NULL;
        if ((*jv)->IsModifiableClass(jv, all[i], &mod) == JVMTI_ERROR_NONE && mod &&
            (*jv)->IsArrayClass(jv, all[i], &arr) == JVMTI_ERROR_NONE && !arr &&
            (*jv)->GetClassSignature(jv, all[i], &sig, NULL) == JVMTI_ERROR_NONE && sig &&
            strncmp(sig, "Ljvmprof/", 9) != 0 && bci_worth_retransforming(b, sig))
            pick[k++] = all[i];
        jvmti_free(sig);
    }
    enum { BATCH = 64 };
    for (jint i = 0; i < k; i += BATCH) {
        jint m = k - i < BATCH ? k - i : BATCH;
        if ((*jv)->RetransformClasses(jv, m, pick + i) == JVMTI_ERROR_NONE) {
            b->retransformed += (uint64_t)m;
            continue;
        }
        for (jint j = 0; j < m; j++) {
            jvmtiError err = (*jv)->RetransformClasses(jv, 1, pick + i + j);
            if (err == JVMTI_ERROR_NONE) {
                b->retransformed++;
            } else {
                b->retransform_failed++;
                char *sig = NULL;
                (*jv)->GetClassSignature(jv, pick[i + j], &sig, NULL);
                jp_log_debug("class %s not retransformed (JVMTI error %d)", sig ? sig : "?", err);
                jvmti_free(sig);
            }
        }
    }
    if (!pick)
        jp_log_error("out of memory: the classes loaded so far are not instrumented");
    for (jint i = 0; i < n; i++)
        (*jni)->DeleteLocalRef(jni, all[i]);
    jvmti_free(all);
    free(pick);
    b->retransform_ns = agent_now_ns() - t0;
}

static jp_status bci_engage(JNIEnv *jni, jboolean on)
{
    jfieldID f = (*jni)->GetStaticFieldID(jni, bci_jvm.cls, "engaged", "Z");
    if (!f) {
        (*jni)->ExceptionClear(jni);
        return jp_error(JP_ERR_JVMTI, "jvmprof.Tracker has no engaged field: jvmprof.jar does not match the agent");
    }
    (*jni)->SetStaticBooleanField(jni, bci_jvm.cls, f, on);
    return JP_OK;
}

/* The option that instrumentation serves, for messages. */
static const char *bci_user(const bci_state *b)
{
    if (bci_calls_on(b))
        return b->opts->cpu == OPTIONS_CPU_TIMES ? "cpu=times" : "trace=exec";
    return b->counter ? "alloc_count=site" : "alloc_hook=bci";
}

/* Once per JVM: the Tracker class found, its natives registered, and every
 * module made to read its module. */
static jp_status bci_setup_tracker(const bci_state *b, JNIEnv *jni)
{
    jclass c = bci_jvm.spec ? (*jni)->FindClass(jni, bci_jvm.spec->cls) : NULL;
    if (!c) {
        (*jni)->ExceptionClear(jni);
        return jp_error(JP_ERR_JVMTI, "%s needs jvmprof.jar beside libjvmprof.so; class jvmprof.Tracker not found",
                        bci_user(b));
    }
    bci_jvm.cls = (*jni)->NewGlobalRef(jni, c);
    if (!bci_jvm.spec || (*jni)->RegisterNatives(jni, c, bci_jvm.natives, bci_jvm.native_count) != 0) {
        (*jni)->ExceptionClear(jni);
        return jp_error(JP_ERR_JVMTI, "cannot register jvmprof.Tracker's natives");
    }
    jobject mod = (*jni)->GetModule(jni, c);
    bci_jvm.module = mod ? (*jni)->NewGlobalRef(jni, mod) : NULL;
    if (!bci_jvm.module)
        return jp_error(JP_ERR_JVMTI, "cannot find jvmprof.Tracker's module");
    /* Tracker.count's atomic add, before the Tracker first runs (GetStaticFieldID initializes it) */
    jobject base = NULL;
    if (getenv("JVMPROF_TRACKER_NO_UNSAFE")) /* tests: the Tracker's counting without it */
        jp_log_debug("JVMPROF_TRACKER_NO_UNSAFE: jdk.internal.misc not opened to jvmprof.Tracker");
    else if ((*agent_jvmti)->GetNamedModule(agent_jvmti, NULL, "java/lang", &base) != JVMTI_ERROR_NONE || !base ||
        (*agent_jvmti)->AddModuleExports(agent_jvmti, base, "jdk.internal.misc", bci_jvm.module) !=
            JVMTI_ERROR_NONE)
        jp_log_info("cpu=times: jdk.internal.misc cannot be opened to jvmprof.Tracker: counted calls take a lock");
    if (base)
        (*jni)->DeleteLocalRef(jni, base);
    jint n = 0;
    jobject *mods = NULL;
    if (jvmti_check((*agent_jvmti)->GetAllModules(agent_jvmti, &n, &mods), "GetAllModules") == JP_OK) {
        for (jint i = 0; i < n; i++) {
            if ((*agent_jvmti)->AddModuleReads(agent_jvmti, mods[i], bci_jvm.module) == JVMTI_ERROR_NONE)
                bci_remember_module(jni, mods[i]);
            (*jni)->DeleteLocalRef(jni, mods[i]);
        }
        jvmti_free(mods);
    }
    return JP_OK;
}

jp_status bci_vm_init(jp_session *s, JNIEnv *jni)
{
    bci_state *b = bci_part(s);
    if (!b)
        return jp_error(JP_ERR_NOMEM, "out of memory");
    if (atomic_load_explicit(&bci_live, memory_order_acquire))
        return bci_bind_calls(b, jni); /* cpu=times (or trace=exec) and alloc_hook=bci both start it */
    /* the Tracker's natives and module reads once; a later session finds them set up, and instruments
     * the classes loaded so far afresh by its own options (until then they keep what an earlier
     * session injected, its calls switched off with the Tracker) */
    jp_status st = bci_jvm.cls ? JP_OK : bci_setup_tracker(b, jni);
    if (st == JP_OK) /* before the Tracker is engaged: no call reaches the last session's natives */
        st = bci_bind_calls(b, jni);
    if (st == JP_OK)
        st = bci_engage(jni, JNI_TRUE);
    if (st == JP_OK && b->counter && b->counter->ready)
        st = b->counter->ready(jni);
    if (st != JP_OK)
        return st;
    atomic_store_explicit(&bci_live, b, memory_order_release);
    st = jvmti_check((*agent_jvmti)->SetEventNotificationMode(agent_jvmti, JVMTI_ENABLE,
                                                              JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL),
                     "SetEventNotificationMode(ClassFileLoadHook)");
    if (st == JP_OK && (bci_allocs_on(b) || b->counter || b->late))
        bci_retransform_loaded(b, jni);
    return st;
}

void bci_vm_death(JNIEnv *jni)
{
    bci_state *b = atomic_exchange(&bci_live, NULL); /* the session's part: freed after its end */
    if (!b)
        return;
    (*agent_jvmti)->SetEventNotificationMode(agent_jvmti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
    bci_engage(jni, JNI_FALSE);
    /* A session stopped in a running JVM: its classes back to their own code
     * (retransformed with the hook doing nothing, the JVM gives each its
     * original bytes), so the program runs at full speed until the next
     * session; the injected calls, bigger methods, would keep the compiler
     * from inlining what it did (javac ran 1.5x slower after tracingEnd). */
    if (!__atomic_load_n(&agent_vm_dying, __ATOMIC_ACQUIRE) && !bci_allocs_on(b)) {
        uint64_t t0 = agent_now_ns();
        bci_retransform_loaded(b, jni);
        jp_log_debug("instrumented classes restored in %.1f ms", (double)(agent_now_ns() - t0) / 1e6);
    }
}

void bci_get_stats(jp_session *s, bci_stats *o)
{
    memset(o, 0, sizeof *o);
    bci_state *b = session_part_if(s, JP_PART_BCI);
    if (!b)
        return;
    o->classes_seen = atomic_load(&b->seen);
    o->classes_rewritten = atomic_load(&b->rewritten);
    o->classes_failed = atomic_load(&b->failed);
    o->methods_instrumented = atomic_load(&b->methods);
    o->methods_counted = atomic_load(&b->counted);
    o->methods_unchanged = atomic_load(&b->unchanged);
    o->rewrite_ns = atomic_load(&b->ns);
    o->alloc_counts = atomic_load(&b->alloc_counts);
    o->retransformed = b->retransformed;
    o->retransform_failed = b->retransform_failed;
    o->retransform_ns = b->retransform_ns;
}
