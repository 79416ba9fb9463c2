/* tracker.c — see tracker.h. */
#include "tracker.h"

#include "alloc_exact.h"
#include "collect_trace.h"
#include "times.h"

/* enter0 and exit0: trace=exec's, or cpu=times' (never both in one session) */
static void JNICALL tracker_enter(JNIEnv *jni, jclass cls, jint id)
{
    if (trace_exec_on())
        trace_exec_enter(jni, id);
    else
        times_enter(jni, cls, id);
}

static void JNICALL tracker_exit(JNIEnv *jni, jclass cls, jint id)
{
    if (trace_exec_on())
        trace_exec_exit(jni, id, false);
    else
        times_exit(jni, cls, id);
}

/* the catch-all handler's exit: the method is left by an exception */
static void JNICALL tracker_exit_throw(JNIEnv *jni, jclass cls, jint id)
{
    if (trace_exec_on())
        trace_exec_exit(jni, id, true);
    else
        times_exit(jni, cls, id);
}

/* Tracker's Java methods, which the injected code calls; each but count (all
 * Java) calls the native of the same name + "0" */
const cf_tracker tracker_spec = { "jvmprof/Tracker", "enter", "exit", "count", "exitThrow", "objectInit", "newArray" };

const JNINativeMethod tracker_natives[] = {
    { (char *)"enter0", (char *)CF_TRACKER_ID_DESC, (void *)tracker_enter },
    { (char *)"exit0", (char *)CF_TRACKER_ID_DESC, (void *)tracker_exit },
    { (char *)"exitThrow0", (char *)CF_TRACKER_ID_DESC, (void *)tracker_exit_throw },
    { (char *)"objectInit0", (char *)CF_TRACKER_OBJECT_DESC, (void *)alloc_exact_object_init },
    { (char *)"newArray0", (char *)CF_TRACKER_OBJECT_DESC, (void *)alloc_exact_new_array },
};

const int tracker_native_count = (int)(sizeof tracker_natives / sizeof tracker_natives[0]);
