/* calltree.c — a jvmprof plugin (include/jvmprof/plugin.h) that builds each
 * thread's call tree from the enter and exit events, with the calls and
 * the inclusive time of each path, and prints the trees to stderr when the
 * JVM ends. Each thread keeps its own tree (found through a thread-local),
 * so the events need no lock; the trees are listed under a mutex once per
 * thread.
 *
 *   java -agentpath:build/libjvmprof.so=trace=exec,include=com.example.,plugin=build/examples/libcalltree.so ...
 *
 * ARGS: "min=NS" leaves out the paths of less than NS nanoseconds in all. */
#include <jvmprof/plugin.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;

typedef struct ct_node {
    uint32_t method;
    char *name;                 /* "pkg.Class.method", copied at the node's first call */
    uint64_t calls, ns;         /* inclusive */
    struct ct_node *child, *sibling;
} ct_node;

typedef struct ct_thread {
    uint32_t id;
    ct_node root;
    ct_node **stack;            /* the open calls' nodes */
    uint64_t *starts;
    size_t depth, cap;
    struct ct_thread *next;
} ct_thread;

static pthread_mutex_t ct_lock = PTHREAD_MUTEX_INITIALIZER;
static ct_thread *ct_threads;
static _Thread_local ct_thread *ct_self;
static uint64_t ct_min_ns;

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    (void)support;
    if (args && strncmp(args, "min=", 4) == 0)
        ct_min_ns = strtoull(args + 4, NULL, 10);
    else if (args && *args)
        return 1;
    return 0;
}

static ct_thread *ct_thread_of(uint32_t id)
{
    if (ct_self && ct_self->id == id)
        return ct_self;
    ct_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->id = id;
    pthread_mutex_lock(&ct_lock);
    t->next = ct_threads;
    ct_threads = t;
    pthread_mutex_unlock(&ct_lock);
    return ct_self = t;
}

static ct_node *ct_child(ct_node *parent, const jvmprof_method *m)
{
    for (ct_node *c = parent->child; c; c = c->sibling)
        if (c->method == m->id)
            return c;
    ct_node *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->method = m->id;
    c->name = malloc(m->class_name.len + m->name.len + 2);
    if (c->name)
        sprintf(c->name, "%.*s.%.*s", (int)m->class_name.len, m->class_name.p, (int)m->name.len, m->name.p);
    c->sibling = parent->child;
    parent->child = c;
    return c;
}

void jvmprof_plugin_event(const jvmprof_event *e)
{
    if (e->type != JVMPROF_EV_ENTER && e->type != JVMPROF_EV_EXIT && e->type != JVMPROF_EV_EXIT_THROW)
        return;
    ct_thread *t = ct_thread_of(e->thread);
    if (!t)
        return;
    if (e->type == JVMPROF_EV_ENTER) {
        if (t->depth == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 64;
            ct_node **s = realloc(t->stack, cap * sizeof *s);
            uint64_t *st = s ? realloc(t->starts, cap * sizeof *st) : NULL;
            if (s)
                t->stack = s;
            if (!st)
                return;
            t->starts = st;
            t->cap = cap;
        }
        ct_node *parent = t->depth ? t->stack[t->depth - 1] : &t->root;
        ct_node *n = parent ? ct_child(parent, &e->u.enter.method) : NULL;
        t->stack[t->depth] = n;
        t->starts[t->depth++] = e->time_ns;
        return;
    }
    if (!t->depth)
        return; /* entered before tracing began */
    ct_node *n = t->stack[--t->depth];
    if (n) {
        n->calls++;
        n->ns += e->time_ns - t->starts[t->depth];
    }
}

static void ct_print(const ct_node *n, int depth)
{
    for (const ct_node *c = n->child; c; c = c->sibling) {
        if (c->ns < ct_min_ns)
            continue;
        fprintf(stderr, "calltree: %*s%s  calls=%llu  ms=%.3f\n", 2 * depth, "", c->name ? c->name : "?",
                (unsigned long long)c->calls, (double)c->ns / 1e6);
        ct_print(c, depth + 1);
    }
}

void jvmprof_plugin_shutdown(void)
{
    pthread_mutex_lock(&ct_lock);
    for (ct_thread *t = ct_threads; t; t = t->next) {
        fprintf(stderr, "calltree: thread %u\n", t->id);
        ct_print(&t->root, 1);
    }
    pthread_mutex_unlock(&ct_lock);
}
