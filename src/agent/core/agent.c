/* agent.c — the agent's entry points: Agent_OnLoad parses and validates the
 * options (a bad one stops the VM with one line), checks the output file can
 * be written, adds jvmprof.jar (found beside this library) to the boot class
 * path, and loads the session those options describe (session.h: its
 * collectors' capabilities and callbacks). Agent_OnAttach makes the core
 * ready the first time and runs the attach command (attach_commands.h). */

#include "agent_env.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../common/jp_log.h"
#include "../../common/out_file.h"
#include "../../format/sink.h"
#include "../remote/attach_commands.h"
#include "../instrument/bci.h"
#include "blocking.h"
#include "../heap/heap_dump.h"
#include "collectors.h"
#include "jvmti_util.h"
#include "outputs.h"
#include "session.h"
#include "ticks.h"
#include "../instrument/tracker.h"

/* How this library was loaded. Global, for the JVM's life: the JVM calls
 * the entry points with nothing to keep between them, and the session given
 * at load points at its options for as long as the JVM runs (a late Tracker
 * call may read them). */
static struct {
    agent_options at_load;   /* the options given at load */
    /* Loaded twice (agent_loaded_twice): whether Agent_OnLoad ran, and with which options. */
    bool onload_called;
    char *first_options;     /* the first load's, for the example (NULL: none) */
    /* Attached (Agent_OnAttach): 0 not yet made ready; 1 ready (or loaded at start-up); -1 could not be */
    int attach_state;
    pthread_mutex_t attach_lock;   /* the JVM has one attach listener; to be sure */
} agent_loads = { .attach_lock = PTHREAD_MUTEX_INITIALIZER };

static jint agent_load(JavaVM *vm, const char *text)
{
    agent_options *o = &agent_loads.at_load;
    char err[1024];
    char *all = options_join(text, getenv("JVMPROF_OPTIONS"));
    if (!all)
        return JNI_ERR;
    jp_status st = options_parse(all, (long)getpid(), o, err, sizeof err);
    free(all);
    if (st != JP_OK) {
        fprintf(stderr, "jvmprof: %s\n", err);
        return JNI_ERR;
    }
    if (o->help) {
        options_print_help(stderr);
        exit(0);
    }
    agent_set_log_level(o);

    agent_vm = vm;
    if ((*vm)->GetEnv(vm, (void **)&agent_jvmti, JVMTI_VERSION_11) != JNI_OK) {
        fprintf(stderr, "jvmprof: this JVM does not offer JVMTI 11 (JDK 11 or later is needed)\n");
        return JNI_ERR;
    }
    agent_add_jar();
    ticks_init();
    blocking_load(vm);
    bci_set_tracker(&tracker_spec, tracker_natives, tracker_native_count);
    st = session_load(o, text, err, sizeof err);
    if (st == JP_ERR_ARG) { /* an output that cannot be written */
        if (!o->force)
            fprintf(stderr, "jvmprof: %s (force=n stops the program)\n", err);
        else
            fprintf(stderr, "jvmprof: %s; profiling disabled, the program runs on (force=y)\n", err);
        return o->force ? JNI_OK : JNI_ERR;
    }
    if (st != JP_OK)
        return JNI_ERR;
    return JNI_OK;
}

/* Loaded twice. Two -agentpath of one file call this library's Agent_OnLoad
 * twice on the same statics (the second's options would replace the
 * first's); a copy under another name is a library of its own, which finds
 * the first among the loaded objects by its exported Control native. The JVM
 * loads agents one after the other, so the one that finds another is the
 * second; it is refused before it changes anything, and the JVM stops. */

static int agent_other_copy(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    Dl_info self, sym;
    if (!info->dlpi_name || !info->dlpi_name[0] || !dladdr((void *)agent_other_copy, &self))
        return 0;
    void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return 0;
    void *f = dlsym(h, "Java_jvmprof_Control_version0");
    bool other = f && dladdr(f, &sym) && sym.dli_fbase != self.dli_fbase;
    if (other)
        snprintf(data, OPTIONS_PATH_MAX, "%s", info->dlpi_name);
    dlclose(h);
    return other;
}

/* What to do instead: one -agentpath with both lists, shown joined when the
 * parser takes them so (each option once). */
static void agent_suggest(const char *second, char *out, size_t len)
{
    char *both = options_join(agent_loads.first_options, second);
    agent_options *o = malloc(sizeof *o);
    char err[1024];
    snprintf(out, len, "give one -agentpath with all the options, each once");
    if (both && o) {
        if (agent_loads.first_options && !both[0])
            snprintf(out, len, "give -agentpath once");
        else if (agent_loads.first_options && options_parse(both, (long)getpid(), o, err, sizeof err) == JP_OK)
            snprintf(out, len, "give one -agentpath with all the options, e.g. %s", both);
    }
    free(both);
    free(o);
}

static bool agent_loaded_twice(const char *options)
{
    const char *text = options ? options : "";
    char what[OPTIONS_PATH_MAX + 64], advice[2 * OPTIONS_PATH_MAX];
    if (text[0])
        snprintf(what, sizeof what, "the second's options '%s' are refused", text);
    else
        snprintf(what, sizeof what, "the second (without options) is refused");
    Dl_info self;
    const char *path = dladdr((void *)agent_other_copy, &self) && self.dli_fname ? self.dli_fname : "libjvmprof.so";
    if (agent_loads.onload_called) {
        agent_suggest(text, advice, sizeof advice);
        fprintf(stderr, "jvmprof: loaded twice in one JVM (-agentpath:%s given twice); %s: %s\n", path, what, advice);
        return true;
    }
    agent_loads.onload_called = true;
    agent_loads.first_options = strdup(text);
    char first[OPTIONS_PATH_MAX] = "";
    if (!dl_iterate_phdr(agent_other_copy, first))
        return false;
    fprintf(stderr, "jvmprof: loaded twice in one JVM (-agentpath:%s, then a copy of it, -agentpath:%s); %s: give one "
            "-agentpath with all the options, the first's and these\n", first, path, what);
    return true;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    if (agent_loaded_twice(options))
        return JNI_ERR;
    return agent_load(vm, options);
}

/* Loaded into a running JVM (jvmprof start PID ..., or jcmd's JVMTI.agent_load):
 * the agent's core made ready the first time, with no session yet: 1; -1
 * when it cannot be in this JVM; 0 when the JVM is still starting (HotSpot's
 * attach listener answers from the JVMTI start phase on, and GetEnv gives a
 * JVMTI environment only from the live phase: JNI_EDETACHED before), to be
 * tried again at the next attach. */
static int agent_attach_init(JavaVM *vm)
{
    agent_vm = vm;
    jint got = (*vm)->GetEnv(vm, (void **)&agent_jvmti, JVMTI_VERSION_11);
    if (got != JNI_OK) {
        agent_jvmti = NULL;
        if (got == JNI_EDETACHED)
            return 0;
        fprintf(stderr, "jvmprof: this JVM does not offer JVMTI 11 (JDK 11 or later is needed)\n");
        return -1;
    }
    ticks_init(); /* jvmprof.jar is added by the first session that needs it (session_start) */
    blocking_load(vm);
    bci_set_tracker(&tracker_spec, tracker_natives, tracker_native_count);
    char err[256];
    if (!session_attach(err, sizeof err)) {
        fprintf(stderr, "jvmprof: %s\n", err);
        return -1;
    }
    return 1;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    pthread_mutex_lock(&agent_loads.attach_lock);
    int state = agent_loads.attach_state;
    if (state == 0)
        state = agent_loads.attach_state = agent_loads.onload_called ? 1 : agent_attach_init(vm);
    JNIEnv *jni = NULL;
    jint rc = JNI_ERR;
    if (state == 0) /* answered, and loaded still (a failed Agent_OnAttach may unload the library) */
        rc = attach_refuse(options, ATTACH_STARTING);
    else if (state == 1 && (*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) == JNI_OK)
        rc = attach_command(jni, options);
    pthread_mutex_unlock(&agent_loads.attach_lock);
    return rc;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
    if (session_options()) /* a session was loaded */
        collectors_unload();
}
