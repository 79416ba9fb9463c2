/* count.c — a jvmprof plugin (include/jvmprof/plugin.h) that counts the
 * events it receives, by type and, for method entries, by method, and
 * prints both tables to stderr when the JVM ends, with the user events in
 * the order they came. Thread-safe with atomics; names are copied the first
 * time a method is seen.
 *
 *   make examples
 *   java -agentpath:build/libjvmprof.so=trace=exec+alloc+user,plugin=build/examples/libcount.so -cp ... Main
 *
 * ARGS: "top=N" prints the N methods with the most entries (default 20). */
#include <jvmprof/plugin.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_METHODS (1u << 20)   /* method ids above this are counted under "other methods" */
#define COUNT_TYPES 64u

const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;

static _Atomic uint64_t count_types[COUNT_TYPES];
static _Atomic uint64_t *count_entries;          /* by method id */
static _Atomic(char *) *count_names;             /* by method id: "pkg.Class.method", set once */
static _Atomic uint64_t count_other;
static unsigned count_top = 20;
/* allocations by class: a small table under a lock (an example: simple over fast) */
#define COUNT_CLASSES 4096u
static struct { char *name; uint64_t n; } count_classes[COUNT_CLASSES];
static pthread_mutex_t count_class_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t count_user_lock = PTHREAD_MUTEX_INITIALIZER;
static char *count_user;                         /* the user events' messages, " | "-separated, in order */
static size_t count_user_len;

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    (void)support;
    if (args && strncmp(args, "top=", 4) == 0)
        count_top = (unsigned)strtoul(args + 4, NULL, 10);
    else if (args && *args)
        return 1; /* an argument this plugin does not know: refuse to start */
    count_entries = calloc(COUNT_METHODS, sizeof *count_entries);
    count_names = calloc(COUNT_METHODS, sizeof *count_names);
    return count_entries && count_names ? 0 : 2;
}

static void count_name(const jvmprof_method *m)
{
    if (atomic_load_explicit(&count_names[m->id], memory_order_acquire))
        return;
    size_t n = m->class_name.len + 1 + m->name.len;
    char *s = malloc(n + 1);
    if (!s)
        return;
    memcpy(s, m->class_name.p, m->class_name.len);
    s[m->class_name.len] = '.';
    memcpy(s + m->class_name.len + 1, m->name.p, m->name.len);
    s[n] = '\0';
    char *none = NULL;
    if (!atomic_compare_exchange_strong(&count_names[m->id], &none, s))
        free(s); /* another thread named it first */
}

void jvmprof_plugin_event(const jvmprof_event *e)
{
    atomic_fetch_add_explicit(&count_types[e->type % COUNT_TYPES], 1, memory_order_relaxed);
    if (e->type == JVMPROF_EV_ENTER) {
        if (e->u.enter.method.id < COUNT_METHODS) {
            atomic_fetch_add_explicit(&count_entries[e->u.enter.method.id], 1, memory_order_relaxed);
            count_name(&e->u.enter.method);
        } else {
            atomic_fetch_add_explicit(&count_other, 1, memory_order_relaxed);
        }
    } else if (e->type == JVMPROF_EV_ALLOC) {
        const jvmprof_name *c = &e->u.alloc.class_name;
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < c->len; i++)
            h = (h ^ (unsigned char)c->p[i]) * 16777619u;
        pthread_mutex_lock(&count_class_lock);
        for (uint32_t k = 0; k < COUNT_CLASSES; k++) {
            uint32_t at = (h + k) % COUNT_CLASSES;
            if (!count_classes[at].name) {
                count_classes[at].name = malloc(c->len + 1);
                if (!count_classes[at].name)
                    break;
                memcpy(count_classes[at].name, c->p, c->len);
                count_classes[at].name[c->len] = '\0';
            } else if (strlen(count_classes[at].name) != c->len || memcmp(count_classes[at].name, c->p, c->len)) {
                continue;
            }
            count_classes[at].n++;
            break;
        }
        pthread_mutex_unlock(&count_class_lock);
    } else if (e->type == JVMPROF_EV_USER) {
        pthread_mutex_lock(&count_user_lock);
        char *s = realloc(count_user, count_user_len + e->u.user.message.len + 4);
        if (s) {
            if (count_user_len)
                memcpy(s + count_user_len, " | ", 3), count_user_len += 3;
            memcpy(s + count_user_len, e->u.user.message.p, e->u.user.message.len);
            count_user_len += e->u.user.message.len;
            s[count_user_len] = '\0';
            count_user = s;
        }
        pthread_mutex_unlock(&count_user_lock);
    }
}

static const char *count_type_name(unsigned t)
{
    switch (t) {
    case JVMPROF_EV_GC_INFO: return "gc";
    case JVMPROF_EV_ENTER: return "enter";
    case JVMPROF_EV_EXIT: return "exit";
    case JVMPROF_EV_EXIT_THROW: return "exit-throw";
    case JVMPROF_EV_ALLOC: return "alloc";
    case JVMPROF_EV_FREE: return "free";
    case JVMPROF_EV_GC_START: return "gc-start";
    case JVMPROF_EV_GC_END: return "gc-end";
    case JVMPROF_EV_THREAD_START: return "thread-start";
    case JVMPROF_EV_THREAD_END: return "thread-end";
    case JVMPROF_EV_CLASS_LOAD: return "class-load";
    case JVMPROF_EV_CLASS_UNLOAD: return "class-unload";
    case JVMPROF_EV_MONITOR: return "monitor";
    case JVMPROF_EV_USER: return "user";
    case JVMPROF_EV_CALL: return "call";
    case JVMPROF_EV_REFERENCES: return "references";
    case JVMPROF_EV_OBJECT: return "object";
    case JVMPROF_EV_REFERENCE: return "reference";
    case JVMPROF_EV_OBJECT_END: return "object-end";
    case JVMPROF_EV_SAMPLE: return "sample";
    default: return "?";
    }
}

void jvmprof_plugin_shutdown(void)
{
    fprintf(stderr, "count: events by type\n");
    for (unsigned t = 0; t < COUNT_TYPES; t++)
        if (count_types[t])
            fprintf(stderr, "count: %-12s %llu\n", count_type_name(t), (unsigned long long)count_types[t]);
    fprintf(stderr, "count: methods by entries (top %u)\n", count_top);
    for (unsigned shown = 0; shown < count_top; shown++) { /* selection: the tables are small to print */
        uint32_t best = 0;
        for (uint32_t id = 1; id < COUNT_METHODS; id++)
            if (count_entries[id] > (best ? count_entries[best] : 0))
                best = id;
        if (!best)
            break;
        fprintf(stderr, "count: %12llu %s\n", (unsigned long long)count_entries[best],
                count_names[best] ? count_names[best] : "?");
        count_entries[best] = 0;
    }
    if (count_other)
        fprintf(stderr, "count: %12llu (other methods)\n", (unsigned long long)count_other);
    fprintf(stderr, "count: allocations by class\n");
    for (uint32_t k = 0; k < COUNT_CLASSES; k++)
        if (count_classes[k].name)
            fprintf(stderr, "count: alloc %12llu %s\n", (unsigned long long)count_classes[k].n, count_classes[k].name);
    fprintf(stderr, "count: user events: %s\n", count_user ? count_user : "");
}
