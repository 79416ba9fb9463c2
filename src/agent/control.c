/* control.c — JNI natives of the Java control API (jvmprof.Control in
 * jvmprof.jar): a dump on request and the agent's version. */
#include <jni.h>

#include "agent.h"
#include "profiler.h"

JNIEXPORT jboolean JNICALL Java_jvmprof_Control_dump0(JNIEnv *jni, jclass cls)
{
    (void)jni, (void)cls;
    if (!agent_opts)
        return JNI_FALSE;
    profiler_request_dump();
    return JNI_TRUE;
}

JNIEXPORT jstring JNICALL Java_jvmprof_Control_version0(JNIEnv *jni, jclass cls)
{
    (void)cls;
    return (*jni)->NewStringUTF(jni, JP_VERSION);
}
