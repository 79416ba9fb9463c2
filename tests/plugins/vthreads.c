/* vthreads.c — a test plugin (t6207): what a plugin sees of virtual
 * threads. Per thread number (e->thread) it counts entries and exits and
 * checks each exit's depth against its own entries; it counts the virtual
 * threads' starts (u.thread.is_virtual), and the entries that came with a
 * carrier (e->carrier) or from a virtual thread without one. At the end of
 * tracing it prints one line to stderr:
 *   vthreads: started S, balanced B, unbalanced U, carried C, uncarried N, bad depths D
 * Built with -DAPI1 it declares plugin API version 1 (as a plugin built
 * before virtual threads) and prints only the entries and exits it saw:
 *   vthreads-v1: enters E exits X */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "jvmprof/plugin.h"

#ifdef API1
const int jvmprof_plugin_api_version = 1;
#else
const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;
#endif

#define VT_MAX (1u << 20)
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int32_t depth[VT_MAX];
static uint32_t enters[VT_MAX], exits[VT_MAX];
static unsigned char is_virtual[VT_MAX];
static uint64_t started, carried, uncarried, bad, total_enters, total_exits;

int jvmprof_plugin_startup(const char *args, const jvmprof_support *s)
{
    (void)args, (void)s;
    return 0;
}

void jvmprof_plugin_event(const jvmprof_event *e)
{
    uint32_t t = e->thread;
    if (t >= VT_MAX)
        return;
    pthread_mutex_lock(&lock);
    switch (e->type) {
    case JVMPROF_EV_ENTER:
        total_enters++;
        enters[t]++;
        if (e->u.enter.depth != (uint32_t)++depth[t])
            bad++;
#ifndef API1
        if (e->carrier)
            carried++;
        else if (is_virtual[t])
            uncarried++;
#endif
        break;
    case JVMPROF_EV_EXIT:
    case JVMPROF_EV_EXIT_THROW:
        total_exits++;
        exits[t]++;
        if (e->u.exit.depth != (uint32_t)depth[t]--)
            bad++;
        break;
#ifndef API1
    case JVMPROF_EV_THREAD_START:
        if (e->u.thread.is_virtual && e->u.thread.thread < VT_MAX && e->carrier && e->u.thread.java_id) {
            is_virtual[e->u.thread.thread] = 1;
            started++;
        }
        break;
#endif
    default:
        break;
    }
    pthread_mutex_unlock(&lock);
}

void jvmprof_plugin_end(void)
{
#ifdef API1
    fprintf(stderr, "vthreads-v1: enters %" PRIu64 " exits %" PRIu64 "\n", total_enters, total_exits);
#else
    uint64_t balanced = 0, unbalanced = 0;
    for (uint32_t t = 0; t < VT_MAX; t++)
        if (is_virtual[t]) {
            if (enters[t] && enters[t] == exits[t] && depth[t] == 0)
                balanced++;
            else
                unbalanced++;
        }
    fprintf(stderr, "vthreads: started %" PRIu64 ", balanced %" PRIu64 ", unbalanced %" PRIu64 ", carried %" PRIu64
            ", uncarried %" PRIu64 ", bad depths %" PRIu64 "\n", started, balanced, unbalanced, carried, uncarried, bad);
#endif
}
