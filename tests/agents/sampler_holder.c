/* sampler_holder.c — a JVMTI agent of the tests that only takes JVMTI's
 * allocation sampler (can_generate_sampled_object_alloc_events), which one
 * environment holds at a time, and keeps it: jvmprof, loaded after it, must
 * say that another agent holds it (tests/it/t9010-alloc-sampler-sessions.sh). */
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)options, (void)reserved;
    jvmtiEnv *env = NULL;
    if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_11) != JNI_OK)
        return 1;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    if ((*env)->AddCapabilities(env, &caps) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "sampler_holder: AddCapabilities failed\n");
        return 1;
    }
    return 0;
}
