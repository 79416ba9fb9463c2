/* control.c — JNI natives of the Java control API (jvmprof.Control in
 * jvmprof.jar): a dump on request, a heap dump, the agent's version, a
 * profiling session's stop and start (session.h), and user events for the
 * trace (collect_trace.h). */
#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../common/out_file.h"
#include "../core/agent_env.h"
#include "collect_trace.h"
#include "../heap/heap_dump.h"
#include "../core/profiler.h"
#include "../core/session.h"
#include "trace_plugin.h"
#include "trace_vm_events.h"

JNIEXPORT jboolean JNICALL Java_jvmprof_Control_dump0(JNIEnv *jni, jclass cls)
{
    (void)jni, (void)cls;
    if (!session_options())
        return JNI_FALSE;
    return profiler_request_dump() ? JNI_TRUE : JNI_FALSE;
}

/* Writes a window of record=y's recording (last_ms back from now, or from_ms .. to_ms after the session's
 * start; to_ms 0: now) to file (NULL: the session's outputs), waiting for the agent thread. NULL when
 * written, else the one-line reason. */
JNIEXPORT jstring JNICALL Java_jvmprof_Control_dumpWindow0(JNIEnv *jni, jclass cls, jstring file, jlong last_ms,
                                                          jlong from_ms, jlong to_ms)
{
    (void)cls;
    const agent_options *o = session_options();
    if (!o || !session_running())
        return (*jni)->NewStringUTF(jni, "no profiling session runs");
    if (!o->record)
        return (*jni)->NewStringUTF(jni, "a window is cut from the recording of record=y, and this session has none");
    const char *path = file ? (*jni)->GetStringUTFChars(jni, file, NULL) : NULL;
    if (file && !path)
        return (*jni)->NewStringUTF(jni, "out of memory");
    char err[1200] = "";
    out_target target;
    char why[1024];
    if (path && (!path[0] || out_file_check(path, &target, why, sizeof why) != JP_OK))
        snprintf(err, sizeof err, "%s", path[0] ? out_file_reason(why, path) : "empty file name");
    profiler_window w = { true, (uint64_t)(last_ms > 0 ? last_ms : 0), (uint64_t)(from_ms > 0 ? from_ms : 0),
                          (uint64_t)(to_ms > 0 ? to_ms : 0) };
    if (!err[0] && !profiler_dump_and_wait(path, &w, 60000))
        snprintf(err, sizeof err, "the agent thread did not write it within 60 s");
    if (path)
        (*jni)->ReleaseStringUTFChars(jni, file, path);
    return err[0] ? (*jni)->NewStringUTF(jni, err) : NULL;
}

JNIEXPORT jstring JNICALL Java_jvmprof_Control_version0(JNIEnv *jni, jclass cls)
{
    (void)cls;
    return (*jni)->NewStringUTF(jni, JP_VERSION);
}

/* Writes a heap dump to `file` now, on the calling thread. Returns NULL when
 * written, else the one-line reason (the Java side throws it). */
JNIEXPORT jstring JNICALL Java_jvmprof_Control_dumpHeap0(JNIEnv *jni, jclass cls, jstring file)
{
    (void)cls;
    char err[1024];
    if (!session_options() || !agent_jvmti)   /* loaded, but profiling was disabled at start (force=y) */
        return (*jni)->NewStringUTF(jni, "the jvmprof agent is not active (it could not start; see its message "
                                         "at start-up)");
    const char *path = file ? (*jni)->GetStringUTFChars(jni, file, NULL) : NULL;
    if (!path)
        return (*jni)->NewStringUTF(jni, "no file name given");
    if (!path[0]) {
        (*jni)->ReleaseStringUTFChars(jni, file, path);
        return (*jni)->NewStringUTF(jni, "empty file name");
    }
    jp_status st = session_heap_dump(jni, path, err, sizeof err);
    /* the Java side names the file: a message that begins with it says it once */
    jstring reason = st == JP_OK ? NULL : (*jni)->NewStringUTF(jni, out_file_reason(err, path));
    (*jni)->ReleaseStringUTFChars(jni, file, path);
    return reason;
}

/* Stops the running session and writes its report. NULL when done, else the
 * one-line reason after 'N' (no session ran) or 'F' (stopped, but the report
 * failed). */
JNIEXPORT jstring JNICALL Java_jvmprof_Control_stop0(JNIEnv *jni, jclass cls)
{
    (void)cls;
    char err[1024], line[1100];
    bool was = session_running();
    if (session_stop(jni, err, sizeof err))
        return NULL;
    snprintf(line, sizeof line, "%c%s", was ? 'F' : 'N', err);
    return (*jni)->NewStringUTF(jni, line);
}

/* Starts a session with these options. NULL when started, else the one-line
 * reason after 'A' (the options are refused) or 'S' (not now). */
JNIEXPORT jstring JNICALL Java_jvmprof_Control_start0(JNIEnv *jni, jclass cls, jstring options)
{
    (void)cls;
    char err[1024];
    const char *text = options ? (*jni)->GetStringUTFChars(jni, options, NULL) : NULL;
    if (!text)
        return (*jni)->NewStringUTF(jni, "no options given");
    jp_status st = session_start(jni, text, err, sizeof err);
    (*jni)->ReleaseStringUTFChars(jni, options, text);
    if (st == JP_OK)
        return NULL;
    char line[1100];
    snprintf(line, sizeof line, "%c%s", st == JP_ERR_ARG ? 'A' : 'S', err);
    return (*jni)->NewStringUTF(jni, line);
}

JNIEXPORT jboolean JNICALL Java_jvmprof_Control_running0(JNIEnv *jni, jclass cls)
{
    (void)jni, (void)cls;
    return session_running() ? JNI_TRUE : JNI_FALSE;
}

/* jvmprof.Control.tracingStartup: the tracing library (a plugin) loaded and
 * started. NULL when done, else the one-line reason. */
JNIEXPORT jstring JNICALL Java_jvmprof_Control_tracingStartup0(JNIEnv *jni, jclass cls, jstring path)
{
    (void)cls;
    if (!session_options() || !agent_jvmti)
        return (*jni)->NewStringUTF(jni, "the jvmprof agent is not active (it could not start; see its message at "
                                         "start-up)");
    const char *p = path ? (*jni)->GetStringUTFChars(jni, path, NULL) : NULL;
    if (!p)
        return (*jni)->NewStringUTF(jni, "no library given");
    char err[1200];
    jp_status st = trace_plugin_load(p, err, sizeof err);
    (*jni)->ReleaseStringUTFChars(jni, path, p);
    return st == JP_OK ? NULL : (*jni)->NewStringUTF(jni, err);
}

/* The number of the session tracingBegin started (session_number), until
 * tracingEnd; 0: none. Global: Java's static calls (tracingBegin, End,
 * Running) are given no session, and it must outlive the session it names
 * (tracingRunning asks after it has stopped). */
static _Atomic uint64_t control_tracing;

/* jvmprof.Control.tracingBegin: a session with trace=classes to the
 * library, the running one (if any) stopped first, with its include= and
 * exclude=. NULL when begun, else the one-line reason. */
JNIEXPORT jstring JNICALL Java_jvmprof_Control_tracingBegin0(JNIEnv *jni, jclass cls, jstring classes, jstring library)
{
    (void)cls;
    if (!session_options() || !agent_jvmti)
        return (*jni)->NewStringUTF(jni, "the jvmprof agent is not active (it could not start; see its message at "
                                         "start-up)");
    const char *c = (*jni)->GetStringUTFChars(jni, classes, NULL);
    const char *l = c ? (*jni)->GetStringUTFChars(jni, library, NULL) : NULL;
    if (!c || !l) {
        if (c)
            (*jni)->ReleaseStringUTFChars(jni, classes, c);
        return (*jni)->NewStringUTF(jni, "out of memory");
    }
    static char options[3 * OPTIONS_PREFIXES_MAX + OPTIONS_PATH_MAX];
    int n = snprintf(options, sizeof options, "trace=%s,plugin=%s", c, l);
    bool exec = strstr(c, "exec") != NULL; /* include=/exclude= (the last session's) choose its classes */
    const agent_options *last = session_options();
    if (exec && last->include[0])
        n += snprintf(options + n, sizeof options - (size_t)n, ",include=%s", last->include);
    if (exec && last->exclude[0] && (size_t)n < sizeof options)
        snprintf(options + n, sizeof options - (size_t)n, ",exclude=%s", last->exclude);
    (*jni)->ReleaseStringUTFChars(jni, classes, c);
    (*jni)->ReleaseStringUTFChars(jni, library, l);
    char err[1024];
    if (session_running() && !session_stop(jni, err, sizeof err))
        return (*jni)->NewStringUTF(jni, err);
    uint64_t number = 0;
    if (session_start_numbered(jni, options, &number, err, sizeof err) != JP_OK)
        return (*jni)->NewStringUTF(jni, err);
    atomic_store(&control_tracing, number);
    return NULL;
}

/* jvmprof.Control.tracingEnd: stops the session tracingBegin started, if it
 * still runs; never another (one Control.start began after Control.stop or
 * jvmprof stop ended the tracing). */
JNIEXPORT void JNICALL Java_jvmprof_Control_tracingEnd0(JNIEnv *jni, jclass cls)
{
    (void)cls;
    char err[1024];
    uint64_t number = atomic_exchange(&control_tracing, 0);
    if (number)
        session_stop_numbered(jni, number, err, sizeof err);
}

/* Whether the session tracingBegin started still runs. */
JNIEXPORT jboolean JNICALL Java_jvmprof_Control_tracingRunning0(JNIEnv *jni, jclass cls)
{
    (void)jni, (void)cls;
    uint64_t number = atomic_load(&control_tracing);
    return number && session_number() == number ? JNI_TRUE : JNI_FALSE;
}

/* jvmprof.Control.tracingShutdown: the tracing library's shutdown. */
JNIEXPORT void JNICALL Java_jvmprof_Control_tracingShutdown0(JNIEnv *jni, jclass cls)
{
    (void)jni, (void)cls;
    trace_plugin_shutdown();
}

/* jvmprof.Control.objectReferences: the object-reference report, into the trace. */
JNIEXPORT jboolean JNICALL Java_jvmprof_Control_objectReferences0(JNIEnv *jni, jclass cls)
{
    (void)cls;
    return session_options() && trace_object_references(jni) ? JNI_TRUE : JNI_FALSE;
}

/* jvmprof.Control.userEvent: the message as a user event in the trace (trace=user). */
JNIEXPORT jboolean JNICALL Java_jvmprof_Control_userEvent0(JNIEnv *jni, jclass cls, jstring message)
{
    (void)cls;
    return session_options() && trace_user_event(jni, message) ? JNI_TRUE : JNI_FALSE;
}
