/* probes.c — a test plugin (t6401): prints to stderr, in order, the entries
 * and exits of ProbeFire.outer and ProbeFire.inner and every probe firing,
 * as "enter ProbeFire.outer", "probe Fire:::values(0, 0, true, -0.25, \"s0\")"
 * (the trace text's form), and at shutdown the probes' descriptions. */
#include <jvmprof/plugin.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    (void)args, (void)support;
    return 0;
}

static int is(const jvmprof_name *n, const char *s) { return n->len == strlen(s) && memcmp(n->p, s, n->len) == 0; }

void jvmprof_plugin_event(const jvmprof_event *e)
{
    if (e->type == JVMPROF_EV_ENTER || e->type == JVMPROF_EV_EXIT) {
        const jvmprof_method *m = e->type == JVMPROF_EV_ENTER ? &e->u.enter.method : &e->u.exit.method;
        if (!is(&m->class_name, "ProbeFire") || !(is(&m->name, "outer") || is(&m->name, "inner")))
            return;
        pthread_mutex_lock(&lock);
        fprintf(stderr, "plugin: %s ProbeFire.%.*s\n", e->type == JVMPROF_EV_ENTER ? "enter" : "exit",
                (int)m->name.len, m->name.p);
        pthread_mutex_unlock(&lock);
    } else if (e->type == JVMPROF_EV_PROBE) {
        const jvmprof_probe *p = e->u.probe.probe;
        pthread_mutex_lock(&lock);
        fprintf(stderr, "plugin: probe %.*s:%.*s:%.*s:%.*s(", (int)p->provider.len, p->provider.p,
                (int)p->module.len, p->module.p, (int)p->function.len, p->function.p, (int)p->name.len, p->name.p);
        for (uint32_t i = 0; i < p->nargs; i++) {
            const jvmprof_probe_arg *a = &e->u.probe.args[i];
            if (i)
                fprintf(stderr, ", ");
            if (a->type == 'Z')
                fprintf(stderr, "%s", a->i ? "true" : "false");
            else if (a->type == 'F' || a->type == 'D')
                fprintf(stderr, "%.17g", a->d);
            else if (a->type == 's' && !a->s.p)
                fprintf(stderr, "null");
            else if (a->type == 's')
                fprintf(stderr, "\"%.*s\"", (int)a->s.len, a->s.p);
            else if (a->type == 'o')
                fprintf(stderr, "object");
            else
                fprintf(stderr, "%" PRId64, a->i);
        }
        fprintf(stderr, ") attributes=%.*s\n", (int)p->attributes.len, p->attributes.p);
        pthread_mutex_unlock(&lock);
    }
}
