/* support.c — a test plugin (t6301) that calls every support function of
 * include/jvmprof/plugin.h from every event type where the header allows
 * it, and prints, at shutdown, per type: the events, the calls that
 * failed, and for method entries whether the stack's innermost frame and
 * method() both name the entered method; for main's events whether
 * current_thread names "main"; for class loads whether class_name agrees. */
#include <jvmprof/plugin.h>

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;

static const jvmprof_support *sp;
static _Atomic unsigned long events[64], failures[64], mismatches[64];

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    (void)args;
    sp = support;
    return support && support->version == JVMPROF_PLUGIN_API_VERSION ? 0 : 1;
}

static int same(jvmprof_name a, jvmprof_name b) { return a.len == b.len && memcmp(a.p, b.p, a.len) == 0; }

void jvmprof_plugin_event(const jvmprof_event *e)
{
    unsigned t = e->type % 64;
    events[t]++;
    switch (e->type) {
    case JVMPROF_EV_GC_START: case JVMPROF_EV_GC_END: case JVMPROF_EV_GC_INFO:
    case JVMPROF_EV_FREE: case JVMPROF_EV_CLASS_UNLOAD: case JVMPROF_EV_SAMPLE:
        return; /* no support functions here */
    default:
        break;
    }
    jvmprof_name name, group;
    int prio = 0;
    if (sp->current_thread(&name, &group, &prio) != 0 || prio < 1 || prio > 10)
        failures[t]++;
    else if (e->thread == 1 && !(name.len == 4 && memcmp(name.p, "main", 4) == 0))
        mismatches[t]++;
    jvmprof_method frames[64];
    int n = 0;
    if (sp->current_stack(frames, 64, &n) != 0) /* empty where no Java frame runs yet (a thread's start) */
        failures[t]++;
    if (e->type == JVMPROF_EV_ENTER) {
        jvmprof_method m;
        if (sp->method(e->u.enter.method.id, &m) != 0)
            failures[t]++;
        else if (!same(m.name, e->u.enter.method.name) || !same(m.class_name, e->u.enter.method.class_name) ||
                 (n >= 1 && (!same(frames[0].name, m.name) || !same(frames[0].class_name, m.class_name))))
            mismatches[t]++;
    }
    if (e->type == JVMPROF_EV_CLASS_LOAD) {
        jvmprof_name c;
        if (sp->class_name(e->u.class_event.class_id, &c) != 0)
            failures[t]++;
        else if (!same(c, e->u.class_event.name))
            mismatches[t]++;
    }
}

void jvmprof_plugin_shutdown(void)
{
    for (unsigned t = 0; t < 64; t++)
        if (events[t])
            fprintf(stderr, "support: type %u events %lu failures %lu mismatches %lu\n", t, events[t], failures[t],
                    mismatches[t]);
}
