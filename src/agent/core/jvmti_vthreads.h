/* jvmti_vthreads.h — the parts of JVMTI that JDK 21 added for virtual
 * threads, declared here because the agent is built against JDK 17's
 * jvmti.h, which has none of them. The one place that names them; every use
 * is guarded by what the running JVM offers (its potential capabilities,
 * its extension events), so that on JDK 17 nothing changes.
 *
 *   can_support_virtual_threads  capability bit 44 (0-based, in the order of
 *                                the capabilities struct): one of JDK 17's
 *                                reserved bits, so set and read by position
 *   VirtualThreadStart/End       events 87 and 88, whose callbacks follow
 *                                SampledObjectAlloc (86) in the callbacks
 *                                struct: jvmti_vthreads_callbacks is JDK 17's
 *                                struct with those two slots after it
 *   VirtualThreadMount/Unmount   HotSpot's extension events, found by id
 *                                through GetExtensionEvents */
#ifndef JVMTI_VTHREADS_H
#define JVMTI_VTHREADS_H

#include <jvmti.h>
#include <stdbool.h>
#include <string.h>

#define JVMTI_VTHREADS_VERSION_21 0x30150000
#define JVMTI_VTHREADS_EVENT_START ((jvmtiEvent)87)
#define JVMTI_VTHREADS_EVENT_END ((jvmtiEvent)88)
#define JVMTI_VTHREADS_MOUNT_ID "com.sun.hotspot.events.VirtualThreadMount"
#define JVMTI_VTHREADS_UNMOUNT_ID "com.sun.hotspot.events.VirtualThreadUnmount"

/* VirtualThreadStart, VirtualThreadEnd, and the two extension events: on the
 * carrier, with the virtual thread mounted (current). */
typedef void(JNICALL *jvmti_vthreads_event_fn)(jvmtiEnv *jvmti, JNIEnv *jni, jthread vthread);

typedef struct jvmti_vthreads_callbacks {
    jvmtiEventCallbacks base;             /* events 50 to 86, as JDK 17 has them */
    jvmti_vthreads_event_fn VirtualThreadStart;   /* 87 */
    jvmti_vthreads_event_fn VirtualThreadEnd;     /* 88 */
} jvmti_vthreads_callbacks;

_Static_assert(sizeof(jvmtiEventCallbacks) == (86 - 50 + 1) * sizeof(void *),
               "jvmti.h's callbacks struct ends at SampledObjectAlloc (86)");

#define JVMTI_VTHREADS_CAP_BIT 44u

static inline bool jvmti_vthreads_cap(const jvmtiCapabilities *c)
{
    unsigned char b[sizeof *c];
    memcpy(b, c, sizeof b);
    return (b[JVMTI_VTHREADS_CAP_BIT / 8] >> (JVMTI_VTHREADS_CAP_BIT % 8)) & 1u;
}

static inline void jvmti_vthreads_cap_set(jvmtiCapabilities *c, bool on)
{
    unsigned char b[sizeof *c];
    memcpy(b, c, sizeof b);
    unsigned char bit = (unsigned char)(1u << (JVMTI_VTHREADS_CAP_BIT % 8));
    b[JVMTI_VTHREADS_CAP_BIT / 8] = (unsigned char)(on ? b[JVMTI_VTHREADS_CAP_BIT / 8] | bit
                                                       : b[JVMTI_VTHREADS_CAP_BIT / 8] & ~bit);
    memcpy(c, b, sizeof b);
}

#endif
