/* tracker.c — see tracker.h. */
#include "tracker.h"

#include "../alloc/collect_alloc_exact.h"
#include "times.h"

/* Tracker's Java methods, which the injected code calls; each but count (all
 * Java) calls the native of the same name + "0" */
const cf_tracker tracker_spec = { "jvmprof/Tracker", "enter", "exit", "count", "exitThrow", "objectInit", "newArray",
                                  NULL };


const JNINativeMethod tracker_natives[] = {
    /* cpu=times' until a session binds others (bci_use_calls: trace=exec) */
    { (char *)"enter0", (char *)CF_TRACKER_ID_DESC, (void *)times_enter },
    { (char *)"enterThis0", (char *)CF_TRACKER_THIS_DESC, (void *)times_enter_this },
    { (char *)"exit0", (char *)CF_TRACKER_ID_DESC, (void *)times_exit },
    { (char *)"exitThrow0", (char *)CF_TRACKER_ID_DESC, (void *)times_exit },
    { (char *)"objectInit0", (char *)CF_TRACKER_OBJECT_DESC, (void *)alloc_exact_object_init },
    { (char *)"newArray0", (char *)CF_TRACKER_OBJECT_DESC, (void *)alloc_exact_new_array },
};

const int tracker_native_count = (int)(sizeof tracker_natives / sizeof tracker_natives[0]);
