#define _GNU_SOURCE /* memmem */
/* window.c — a test plugin (t6302) for jvmprof.Control's tracing API: counts
 * begins, ends and events, and the events that came outside a begin..end
 * window (there must be none); the user events in order; and from the
 * object-reference report the references between objects of classes whose
 * name contains "$Node", printed as "edge TraceControl$NodeA -> TraceControl$NodeB". */
#include <jvmprof/plugin.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;

static atomic_int in_window;
static _Atomic unsigned long begins, ends, events, outside, shutdowns, startups;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long users, users_out_of_order;
/* the report: objects of the Node classes, and the references between objects */
#define MAX 4096
static struct { uint64_t id; char cls[64]; } nodes[MAX];
static int nnodes;
static struct { uint64_t from, to; } edges[MAX];
static int nedges;
static uint64_t current;    /* the object whose references come */

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    (void)args, (void)support;
    startups++;
    return 0;
}

void jvmprof_plugin_begin(unsigned flags)
{
    (void)flags;
    begins++;
    atomic_store(&in_window, 1);
}

void jvmprof_plugin_end(void)
{
    atomic_store(&in_window, 0);
    ends++;
}

void jvmprof_plugin_event(const jvmprof_event *e)
{
    events++;
    if (!atomic_load(&in_window))
        outside++;
    if (e->type == JVMPROF_EV_USER) {
        pthread_mutex_lock(&lock); /* "in N": N counts up from 0 */
        if (e->u.user.message.len > 3 && memcmp(e->u.user.message.p, "in ", 3) == 0 &&
            strtoul(e->u.user.message.p + 3, NULL, 10) != users++)
            users_out_of_order++;
        pthread_mutex_unlock(&lock);
    } else if (e->type == JVMPROF_EV_OBJECT) {
        pthread_mutex_lock(&lock);
        current = e->u.object.object;
        const jvmprof_name *c = &e->u.object.class_name;
        if (nnodes < MAX && c->len < 64 && memmem(c->p, c->len, "TraceControl$Node", 17)) {
            nodes[nnodes].id = e->u.object.object;
            memcpy(nodes[nnodes].cls, c->p, c->len);
            nodes[nnodes++].cls[c->len] = '\0';
        }
        pthread_mutex_unlock(&lock);
    } else if (e->type == JVMPROF_EV_REFERENCE && e->u.reference.kind == 2 /* a field */) {
        pthread_mutex_lock(&lock);
        if (nedges < MAX) {
            edges[nedges].from = current;
            edges[nedges++].to = e->u.reference.object;
        }
        pthread_mutex_unlock(&lock);
    }
}

static const char *node(uint64_t id)
{
    for (int i = 0; i < nnodes; i++)
        if (nodes[i].id == id)
            return nodes[i].cls;
    return NULL;
}

void jvmprof_plugin_shutdown(void)
{
    shutdowns++;
    for (int i = 0; i < nedges; i++) {
        const char *a = node(edges[i].from), *b = node(edges[i].to);
        if (a && b)
            fprintf(stderr, "window: edge %s -> %s\n", a, b);
    }
    fprintf(stderr, "window: startups %lu begins %lu ends %lu shutdowns %lu events %lu outside %lu users %lu "
            "out-of-order %lu\n", startups, begins, ends, shutdowns, events, outside, users, users_out_of_order);
}
