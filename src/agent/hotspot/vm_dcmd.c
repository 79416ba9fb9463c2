/* vm_dcmd.c — see vm_dcmd.h. jdk.management's DiagnosticCommandImpl holds
 * the native that runs a command line; JNI reaches it past the module's
 * encapsulation, as jcmd reaches it through the attach listener. */
#include "vm_dcmd.h"

#include <stdio.h>

bool vm_dcmd(JNIEnv *jni, const char *command, char *why, size_t why_len)
{
    /* the natives are in libmanagement_ext, which the platform MBeans' provider loads as it is initialized */
    jclass provider = (*jni)->FindClass(jni, "com/sun/management/internal/PlatformMBeanProviderImpl");
    jmethodID init = provider ? (*jni)->GetStaticMethodID(jni, provider, "getDiagnosticMXBean",
                                                          "()Lcom/sun/management/HotSpotDiagnosticMXBean;")
                              : NULL;
    jobject hs = init ? (*jni)->CallStaticObjectMethod(jni, provider, init) : NULL;
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        hs = NULL;
    }
    if (hs)
        (*jni)->DeleteLocalRef(jni, hs);
    if (provider)
        (*jni)->DeleteLocalRef(jni, provider);
    jclass cls = hs ? (*jni)->FindClass(jni, "com/sun/management/internal/DiagnosticCommandImpl") : NULL;
    jmethodID get = cls ? (*jni)->GetStaticMethodID(jni, cls, "getDiagnosticCommandMBean",
                                                    "()Lcom/sun/management/DiagnosticCommandMBean;")
                        : NULL;
    jmethodID run = get ? (*jni)->GetMethodID(jni, cls, "executeDiagnosticCommand", "(Ljava/lang/String;)Ljava/lang/String;")
                        : NULL;
    jobject bean = run ? (*jni)->CallStaticObjectMethod(jni, cls, get) : NULL;
    jstring line = bean ? (*jni)->NewStringUTF(jni, command) : NULL;
    jobject out = line ? (*jni)->CallObjectMethod(jni, bean, run, line) : NULL;
    bool thrown = (*jni)->ExceptionCheck(jni);
    if (thrown)
        (*jni)->ExceptionClear(jni);
    const char *fault = NULL;
    if (!hs)
        fault = "jdk.management's platform MBeans could not be made";
    else if (!run)
        fault = "jdk.management's DiagnosticCommandImpl was not found, or lacks the methods expected";
    else if (!bean)
        fault = "the DiagnosticCommand MBean could not be made";
    else if (thrown || !line)
        fault = "the command failed";
    if (fault)
        snprintf(why, why_len, "%s", fault);
    if (out)
        (*jni)->DeleteLocalRef(jni, out);
    if (line)
        (*jni)->DeleteLocalRef(jni, line);
    if (bean)
        (*jni)->DeleteLocalRef(jni, bean);
    if (cls)
        (*jni)->DeleteLocalRef(jni, cls);
    return fault == NULL;
}
