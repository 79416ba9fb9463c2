/* trace_plugin.c — plugin=PATH[:ARGS]: a user's shared library that
 * receives every event of trace= (include/jvmprof/plugin.h). Loading checks
 * its API version and the functions it must export, then calls its
 * startup; a refusal is one line naming the library and why. While a
 * session traces, the library is trace_session's consumer: each event is
 * turned into a jvmprof_event (names looked up by id: methods from the
 * rewriter's records, classes from the session's names) and handed to it
 * on the thread where it happened. The support functions answer about the
 * calling thread through JVMTI. */
#include "trace_plugin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../../include/jvmprof/plugin.h"
#include "../../common/jp_log.h"
#include "../../trace/trace_file.h"
#include "../core/agent_env.h"
#include "../instrument/bci.h"
#include "probes.h"
#include "trace_session.h"
#include "../core/vthreads.h"

typedef int (*tpl_startup_fn)(const char *args, const jvmprof_support *support);
typedef void (*tpl_event_fn)(const jvmprof_event *e);
typedef void (*tpl_begin_fn)(unsigned flags);
typedef void (*tpl_void_fn)(void);

/* The plugin, for the JVM's life: one library per JVM, loaded by the first
 * session (or jvmprof.Control.tracingStartup) that names it and kept mapped
 * (a thread may still be inside it); its begin and end bracket each trace
 * session, its shutdown comes at VM death (or tracingShutdown), after which
 * a later load starts it again. */
static struct {
    void *lib;
    char path[OPTIONS_PATH_MAX];
    tpl_event_fn event;                 /* NULL: none loaded, or shut down */
    tpl_begin_fn begin;
    tpl_void_fn end, shutdown;
    bool begun;                         /* its begin called, its end not yet */
    atomic_bool live;                   /* events go to the plugin (between its begin and its end) */
    _Atomic unsigned inflight;          /* deliveries under way: its end waits for them */
    pthread_key_t scratch_key;          /* each thread's tpl_scratch */
    bool scratch_ready;
} tpl_all;
/* Each thread's room for the names it hands the plugin (valid during a
 * call): made at its first use, freed when the thread ends (a pthread key,
 * not thread-local storage, of which a library loaded late has little). */
#define TPL_FRAMES 128
typedef struct tpl_scratch {
    char names[2][256];                 /* current_thread */
    char cls[1024], cls2[1024];         /* an event's class; class_name */
    char s1[256], s2[256];              /* gc_info's collector and cause */
    char frames[TPL_FRAMES][3][128];    /* current_stack */
} tpl_scratch;

static tpl_scratch *tpl_room(void)
{
    tpl_scratch *r = tpl_all.scratch_ready ? pthread_getspecific(tpl_all.scratch_key) : NULL;
    if (!r && tpl_all.scratch_ready && (r = malloc(sizeof *r)) && pthread_setspecific(tpl_all.scratch_key, r) != 0) {
        free(r);
        r = NULL;
    }
    return r;
}


/* ---- names ---- */

static jvmprof_name tpl_name(const char *p, size_t n) { return (jvmprof_name){ p, n }; }

static jvmprof_name tpl_cstr(const char *p) { return p ? tpl_name(p, strlen(p)) : tpl_name("", 0); }

/* s copied into buf (cap bytes at most, '/' as '.' when dotted) */
static jvmprof_name tpl_copy(char *buf, size_t cap, const char *s, size_t n, bool dotted)
{
    n = n < cap ? n : cap;
    for (size_t i = 0; i < n; i++)
        buf[i] = dotted && s[i] == '/' ? '.' : s[i];
    return tpl_name(buf, n);
}

/* JVM access flags (ACC_*) as JVMPROF_METHOD_* */
static uint32_t tpl_flags(unsigned access)
{
    return (access & 0x0008 ? JVMPROF_METHOD_STATIC : 0u) | (access & 0x0100 ? JVMPROF_METHOD_NATIVE : 0u) |
           (access & 0x0020 ? JVMPROF_METHOD_SYNCHRONIZED : 0u);
}

/* A method by its id (the rewriter's record); false if unknown. The class's
 * name is the record's, dotted (java.util.HashMap). */
static bool tpl_method(uint32_t id, jvmprof_method *out)
{
    const bci_method *m = bci_method_get(id);
    if (!m)
        return false;
    out->id = id;
    out->flags = tpl_flags(m->access);
    out->class_name = tpl_cstr(m->cls ? m->cls->name : NULL);
    out->name = tpl_cstr(m->name);
    out->signature = tpl_cstr(m->sig);
    return true;
}

/* A class's name by the session's id, dotted into buf (the JVM's internal form otherwise). */
static jvmprof_name tpl_class(uint64_t id, char *buf, size_t cap)
{
    const char *p;
    size_t n;
    return trace_session_class_name((uint32_t)id, &p, &n) ? tpl_copy(buf, cap, p, n, true) : tpl_name("", 0);
}

/* ---- the support functions (plugin.h) ---- */

static void tpl_delete_local(jobject o)
{
    JNIEnv *jni = NULL;
    if ((*agent_vm)->GetEnv(agent_vm, (void **)&jni, JNI_VERSION_1_6) == JNI_OK && jni)
        (*jni)->DeleteLocalRef(jni, o);
}

/* The calling thread's name, group, priority and daemon flag (each out may be NULL). */
static int tpl_thread_info(jvmprof_name *name, jvmprof_name *group, int *priority, int *daemon)
{
    tpl_scratch *r = tpl_room();
    if (!r)
        return -1;
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*agent_jvmti)->GetThreadInfo(agent_jvmti, NULL, &info) != JVMTI_ERROR_NONE)
        return -1;
    jvmtiThreadGroupInfo g;
    memset(&g, 0, sizeof g);
    if (info.thread_group && (*agent_jvmti)->GetThreadGroupInfo(agent_jvmti, info.thread_group, &g) != JVMTI_ERROR_NONE)
        memset(&g, 0, sizeof g);
    if (name)
        *name = tpl_copy(r->names[0], sizeof r->names[0], info.name ? info.name : "", info.name ? strlen(info.name) : 0, false);
    if (group)
        *group = tpl_copy(r->names[1], sizeof r->names[1], g.name ? g.name : "", g.name ? strlen(g.name) : 0, false);
    if (priority)
        *priority = info.priority;
    if (daemon)
        *daemon = info.is_daemon != 0;
    (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)info.name);
    (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)g.name);
    if (g.parent)
        tpl_delete_local(g.parent);
    if (info.thread_group)
        tpl_delete_local(info.thread_group);
    if (info.context_class_loader)
        tpl_delete_local(info.context_class_loader);
    return 0;
}

static int tpl_current_thread(jvmprof_name *name, jvmprof_name *group, int *priority)
{
    return tpl_thread_info(name, group, priority, NULL);
}

static int tpl_support_method(uint32_t id, jvmprof_method *out) { return out && tpl_method(id, out) ? 0 : -1; }

static int tpl_support_class(uint32_t class_id, jvmprof_name *out)
{
    tpl_scratch *r = tpl_room();
    if (!out || !r)
        return -1;
    *out = tpl_class(class_id, r->cls2, sizeof r->cls2);
    return out->len ? 0 : -1;
}

/* The calling thread's stack, innermost first, without jvmprof's own frames
 * (the Tracker's, which report entries and exits). A frame's names are
 * JVMTI's, copied into the thread's room. */
static int tpl_current_stack(jvmprof_method *frames, int max, int *count)
{
    tpl_scratch *r = tpl_room();
    jvmtiFrameInfo info[TPL_FRAMES + 4];
    jint n = 0;
    if (!frames || max <= 0 || !count || !r)
        return -1;
    if ((*agent_jvmti)->GetStackTrace(agent_jvmti, NULL, 0, TPL_FRAMES + 4, info, &n) != JVMTI_ERROR_NONE)
        return -1;
    int out = 0;
    for (jint i = 0; i < n && out < max && out < TPL_FRAMES; i++) {
        char *name = NULL, *sig = NULL, *csig = NULL;
        jclass decl = NULL;
        jint mods = 0;
        if ((*agent_jvmti)->GetMethodDeclaringClass(agent_jvmti, info[i].method, &decl) == JVMTI_ERROR_NONE && decl)
            (*agent_jvmti)->GetClassSignature(agent_jvmti, decl, &csig, NULL);
        if (decl)
            tpl_delete_local(decl);
        if (csig && out == 0 && strcmp(csig, "Ljvmprof/Tracker;") == 0) {
            (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)csig);
            continue; /* the agent's own frames on top */
        }
        (*agent_jvmti)->GetMethodName(agent_jvmti, info[i].method, &name, &sig, NULL);
        (*agent_jvmti)->GetMethodModifiers(agent_jvmti, info[i].method, &mods);
        jvmprof_method *f = &frames[out];
        memset(f, 0, sizeof *f);
        /* Ljava/util/HashMap; -> java.util.HashMap */
        size_t cn = csig ? strlen(csig) : 0;
        bool ref = cn >= 2 && csig[0] == 'L' && csig[cn - 1] == ';';
        f->class_name = tpl_copy(r->frames[out][0], sizeof r->frames[out][0], ref ? csig + 1 : csig ? csig : "",
                                 ref ? cn - 2 : cn, true);
        f->name = tpl_copy(r->frames[out][1], sizeof r->frames[out][1], name ? name : "", name ? strlen(name) : 0, false);
        f->signature = tpl_copy(r->frames[out][2], sizeof r->frames[out][2], sig ? sig : "", sig ? strlen(sig) : 0,
                                false);
        f->flags = tpl_flags((unsigned)mods);
        out++;
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)name);
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)sig);
        (*agent_jvmti)->Deallocate(agent_jvmti, (unsigned char *)csig);
    }
    *count = out;
    return 0;
}

static const jvmprof_support tpl_support = {
    JVMPROF_PLUGIN_API_VERSION, tpl_current_thread, tpl_support_method, tpl_support_class, tpl_current_stack,
};

/* ---- events ---- */

/* A probe firing's probe (by its key) and arguments, for the plugin. */
static bool tpl_probe(uint64_t key, const char *text, size_t len, jvmprof_probe *probe, jvmprof_probe_arg *args)
{
    probe_info info;
    probe_arg a[PROBE_ARGS_MAX];
    if (!probes_info(key, &info) || !probe_args_decode(info.kinds, (const uint8_t *)text, len, a))
        return false;
    *probe = (jvmprof_probe){ (uint32_t)info.id, info.provider_id, tpl_cstr(info.provider),
                              tpl_cstr(info.module),
                              tpl_cstr(info.function), tpl_cstr(info.name),
                              tpl_cstr(info.attributes), (uint32_t)strlen(info.kinds) };
    for (uint32_t i = 0; i < probe->nargs; i++)
        args[i] = (jvmprof_probe_arg){ a[i].kind, a[i].i, a[i].d, { a[i].s, a[i].len } };
    return true;
}

/* trace_session's consumer: one event, as a jvmprof_event, to the plugin. */
static void tpl_consume(uint32_t thread, unsigned type, uint64_t time_ns, const uint64_t *f, const char *text,
                        size_t text_len)
{
    atomic_fetch_add_explicit(&tpl_all.inflight, 1, memory_order_acq_rel);
    if (!atomic_load_explicit(&tpl_all.live, memory_order_acquire)) {
        atomic_fetch_sub_explicit(&tpl_all.inflight, 1, memory_order_release);
        return;
    }
    tpl_scratch *r = tpl_room();
    if (!r) {
        atomic_fetch_sub_explicit(&tpl_all.inflight, 1, memory_order_release);
        return;
    }
    char *cls = r->cls, *s1 = r->s1, *s2 = r->s2;
    jvmprof_event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.thread = thread;
    e.time_ns = time_ns;
    /* a virtual thread's event, on its carrier (the samples' come from the agent thread: none mounted) */
    vthread *vt = vthreads_mounted();
    if (vt && thread && thread != thread_record_self.serial)
        e.carrier = thread_record_self.serial;
    size_t n1 = 0, n2 = 0;
    jvmprof_probe probe;
    jvmprof_probe_arg args[PROBE_ARGS_MAX];
    switch (type) {
    case TRACE_EV_ENTER:
        tpl_method((uint32_t)f[0], &e.u.enter.method);
        e.u.enter.depth = (uint32_t)f[1];
        e.u.enter.receiver = f[2];
        break;
    case TRACE_EV_EXIT:
    case TRACE_EV_EXIT_THROW:
        tpl_method((uint32_t)f[0], &e.u.exit.method);
        e.u.exit.depth = (uint32_t)f[1];
        e.u.exit.thrown = type == TRACE_EV_EXIT_THROW;
        break;
    case TRACE_EV_CALL:
        tpl_method((uint32_t)f[0], &e.u.call.method);
        e.u.call.depth = (uint32_t)f[1];
        e.u.call.duration_ns = f[2];
        e.u.call.thrown = f[3] != 0;
        break;
    case TRACE_EV_ALLOC:
        e.u.alloc.object = f[0];
        e.u.alloc.class_name = tpl_class(f[1], cls, sizeof r->cls);
        e.u.alloc.size = f[2];
        e.u.alloc.length = (int64_t)f[3] - 1;
        break;
    case TRACE_EV_FREE:
        e.u.free.object = f[0];
        break;
    case TRACE_EV_GC_START:
    case TRACE_EV_GC_END:
        e.u.gc.number = f[0];
        break;
    case TRACE_EV_GC:
        e.type = JVMPROF_EV_GC_INFO;
        e.u.gc_info.number = f[0];
        e.u.gc_info.kind = (int)f[1];
        if (trace_session_string((uint32_t)f[2], s1, sizeof r->s1, &n1))
            e.u.gc_info.collector = tpl_name(s1, n1);
        if (trace_session_string((uint32_t)f[3], s2, sizeof r->s2, &n2))
            e.u.gc_info.cause = tpl_name(s2, n2);
        e.u.gc_info.used_before = f[4];
        e.u.gc_info.used_after = f[5];
        break;
    case TRACE_EV_THREAD_START:
    case TRACE_EV_THREAD_END:
        e.u.thread.thread = (uint32_t)f[0];
        if (type == TRACE_EV_THREAD_START) /* on the thread itself */
            tpl_thread_info(&e.u.thread.name, &e.u.thread.group, &e.u.thread.priority, &e.u.thread.daemon);
        if (e.carrier && vt && (uint32_t)f[0] == thread) {
            e.u.thread.is_virtual = 1;
            e.u.thread.java_id = vt->java_id;
        }
        break;
    case TRACE_EV_CLASS_LOAD:
    case TRACE_EV_CLASS_UNLOAD:
        e.u.class_event.class_id = (uint32_t)f[0];
        e.u.class_event.name = tpl_class(f[0], cls, sizeof r->cls);
        break;
    case TRACE_EV_MONITOR:
        e.u.monitor.kind = (int)f[0];
        e.u.monitor.object = f[1];
        e.u.monitor.class_name = tpl_class(f[2], cls, sizeof r->cls);
        break;
    case TRACE_EV_USER:
        e.u.user.message = tpl_name(text, text_len);
        break;
    case TRACE_EV_REFERENCES:
        e.u.references.objects = f[0];
        e.u.references.references = f[1];
        break;
    case TRACE_EV_OBJECT:
        e.u.object.object = f[0];
        e.u.object.kind = (int)f[1];
        e.u.object.class_name = tpl_class(f[2], cls, sizeof r->cls);
        e.u.object.size = f[3];
        e.u.object.length = (int64_t)f[4] - 1;
        break;
    case TRACE_EV_REFERENCE:
        e.u.reference.object = f[0];
        e.u.reference.kind = (int)f[1];
        e.u.reference.index = (uint32_t)f[2];
        break;
    case TRACE_EV_OBJECT_END:
        break;
    case TRACE_EV_SAMPLE:
        e.thread = (uint32_t)f[0];
        e.u.sample.stack = tpl_name(text, text_len);
        break;
    case TRACE_EV_PROBE:
        if (!tpl_probe(f[1], text, text_len, &probe, args)) {
            atomic_fetch_sub_explicit(&tpl_all.inflight, 1, memory_order_release);
            return;
        }
        e.u.probe.probe = &probe;
        e.u.probe.args = args;
        break;
    default:
        atomic_fetch_sub_explicit(&tpl_all.inflight, 1, memory_order_release);
        return;
    }
    tpl_all.event(&e);
    atomic_fetch_sub_explicit(&tpl_all.inflight, 1, memory_order_release);
}

/* ---- life ---- */

/* A refusal: "plugin=PATH: why" into the caller's buffer err; the library unloaded. */
static jp_status tpl_refuse(char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "plugin=%s: %s", tpl_all.path, why);
    if (tpl_all.lib)
        dlclose(tpl_all.lib);
    tpl_all.lib = NULL;
    tpl_all.event = NULL;
    return JP_ERR_ARG;
}

jp_status trace_plugin_load(const char *spec, char *err, size_t errlen)
{
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    const char *args = colon ? colon + 1 : "";
    if (tpl_all.lib) { /* one per JVM: a later session keeps it; after its shutdown, a startup starts it again */
        if (strlen(tpl_all.path) != n || strncmp(tpl_all.path, spec, n) != 0) {
            snprintf(err, errlen, "plugin=%.*s: the plugin %s is loaded already, and a JVM has one", (int)n, spec,
                     tpl_all.path);
            return JP_ERR_ARG;
        }
        if (tpl_all.event)
            return JP_OK;
    } else {
        if (!tpl_all.scratch_ready)
            tpl_all.scratch_ready = pthread_key_create(&tpl_all.scratch_key, free) == 0;
        snprintf(tpl_all.path, sizeof tpl_all.path, "%.*s", (int)n, spec);
        tpl_all.lib = dlopen(tpl_all.path, RTLD_NOW | RTLD_LOCAL);
        if (!tpl_all.lib) {
            const char *e = dlerror();
            return tpl_refuse(err, errlen, e ? e : "cannot be loaded");
        }
    }
    const int *version = (const int *)dlsym(tpl_all.lib, "jvmprof_plugin_api_version");
    tpl_startup_fn startup = (tpl_startup_fn)dlsym(tpl_all.lib, "jvmprof_plugin_startup");
    tpl_all.event = (tpl_event_fn)dlsym(tpl_all.lib, "jvmprof_plugin_event");
    tpl_all.begin = (tpl_begin_fn)dlsym(tpl_all.lib, "jvmprof_plugin_begin");
    tpl_all.end = (tpl_void_fn)dlsym(tpl_all.lib, "jvmprof_plugin_end");
    tpl_all.shutdown = (tpl_void_fn)dlsym(tpl_all.lib, "jvmprof_plugin_shutdown");
    char why[160];
    if (!version)
        return tpl_refuse(err, errlen,
                          "it does not export jvmprof_plugin_api_version (build it with include/jvmprof/plugin.h)");
    if (*version != JVMPROF_PLUGIN_API_VERSION && *version != 1) { /* 2 only added fields at the ends */
        snprintf(why, sizeof why, "built for plugin API version %d; this jvmprof has version %d (and loads 1)",
                 *version, JVMPROF_PLUGIN_API_VERSION);
        return tpl_refuse(err, errlen, why);
    }
    if (!startup || !tpl_all.event)
        return tpl_refuse(err, errlen, !startup ? "it does not export jvmprof_plugin_startup, which a plugin must"
                                   : "it does not export jvmprof_plugin_event, which a plugin must");
    int rc = startup(args, &tpl_support);
    if (rc != 0) {
        snprintf(why, sizeof why, "its jvmprof_plugin_startup(\"%.60s\") returned %d: the plugin refused to start",
                 args, rc);
        return tpl_refuse(err, errlen, why);
    }
    return JP_OK;
}

void trace_plugin_begin(unsigned what)
{
    if (!tpl_all.event)
        return;
    if (tpl_all.begin)
        tpl_all.begin(what);
    tpl_all.begun = true;
    atomic_store(&tpl_all.live, true);
    trace_session_set_consumer(tpl_consume);
}

/* Events stop, those under way are let finish (up to 2 s), then the plugin's end. */
void trace_plugin_end(void)
{
    atomic_store(&tpl_all.live, false);
    trace_session_set_consumer(NULL);
    for (int i = 0; i < 2000 && atomic_load_explicit(&tpl_all.inflight, memory_order_acquire); i++)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
    if (tpl_all.begun && tpl_all.end)
        tpl_all.end();
    tpl_all.begun = false;
}

void trace_plugin_shutdown(void)
{
    trace_plugin_end();
    if (tpl_all.event && tpl_all.shutdown)
        tpl_all.shutdown();
    tpl_all.event = NULL; /* the library stays mapped: a thread may still be inside it */
}

bool trace_plugin_loaded(void) { return tpl_all.event != NULL; }
