/* fields.c — a test plugin (t6303) that writes every field of every event
 * it receives to the file its argument names, one line per event, in the
 * words of `jvmprof trace FILE` for the same event, so the test can compare
 * the two line by line; what the text does not show (a method's id and
 * flags, a class's id) follows " |". gc_info, which the text shows on its
 * collection's gc-start and gc-end lines, is a line of its own:
 *   info #N young|full|unknown "collector" cause="cause" used-before=B used-after=A
 * The thread of an event is its name (current_thread, where the header
 * allows it, else the name seen before for that number), "-" for none. */
#include <jvmprof/plugin.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const int jvmprof_plugin_api_version = JVMPROF_PLUGIN_API_VERSION;

#define FL_THREADS 4096
static const jvmprof_support *sp;
static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* never held across a call into the JVM */
static char names[FL_THREADS][64];

int jvmprof_plugin_startup(const char *args, const jvmprof_support *support)
{
    sp = support;
    out = args && *args ? fopen(args, "w") : NULL;
    return out ? 0 : 1;
}

typedef struct line { char b[8192]; size_t n; } line;

static void put(line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(l->b + l->n, sizeof l->b - l->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        l->n = l->n + (size_t)k < sizeof l->b ? l->n + (size_t)k : sizeof l->b - 1;
}

static void name(line *l, jvmprof_name n) { put(l, "%.*s", (int)n.len, n.p ? n.p : ""); }

static void method(line *l, const jvmprof_method *m)
{
    name(l, m->class_name);
    put(l, ".");
    name(l, m->name);
    name(l, m->signature);
}

static const char *gc_kind(int k)
{
    return k == JVMPROF_GC_YOUNG ? "young" : k == JVMPROF_GC_FULL ? "full" : k == JVMPROF_GC_UNKNOWN ? "unknown" : "?";
}

void jvmprof_plugin_event(const jvmprof_event *e)
{
    line l = { .n = 0 };
    char extra[256] = "";
    jvmprof_name tn = { NULL, 0 };
    int prio;
    int java_thread = e->type != JVMPROF_EV_GC_START && e->type != JVMPROF_EV_GC_END && e->type != JVMPROF_EV_GC_INFO &&
                      e->type != JVMPROF_EV_FREE && e->type != JVMPROF_EV_CLASS_UNLOAD && e->type != JVMPROF_EV_SAMPLE;
    if (e->type == JVMPROF_EV_THREAD_START)
        tn = e->u.thread.name;
    else if (java_thread && e->thread)
        sp->current_thread(&tn, NULL, &prio);
    if (e->type == JVMPROF_EV_GC_INFO) {
        const __typeof__(e->u.gc_info) *g = &e->u.gc_info;
        put(&l, "info #%" PRIu64 " %s \"", g->number, gc_kind(g->kind));
        name(&l, g->collector);
        put(&l, "\" cause=\"");
        name(&l, g->cause);
        put(&l, "\"");
        if (g->used_before == JVMPROF_GC_USED_UNKNOWN)
            put(&l, " used-before=unknown");
        else
            put(&l, " used-before=%" PRIu64, g->used_before);
        if (g->used_after == JVMPROF_GC_USED_UNKNOWN)
            put(&l, " used-after=unknown\n");
        else
            put(&l, " used-after=%" PRIu64 "\n", g->used_after);
        pthread_mutex_lock(&lock);
        fputs(l.b, out);
        pthread_mutex_unlock(&lock);
        return;
    }
    pthread_mutex_lock(&lock);
    if (tn.p && e->thread && e->thread < FL_THREADS)
        snprintf(names[e->thread], sizeof names[0], "%.*s", (int)tn.len, tn.p);
    char thread[80];
    if (!e->thread)
        snprintf(thread, sizeof thread, "-");
    else if (e->thread < FL_THREADS && names[e->thread][0])
        snprintf(thread, sizeof thread, "%s", names[e->thread]);
    else
        snprintf(thread, sizeof thread, "thread-%u", e->thread);
    pthread_mutex_unlock(&lock);
    put(&l, "%6" PRIu64 ".%09" PRIu64 " %s ", e->time_ns / 1000000000u, e->time_ns % 1000000000u, thread);
    switch (e->type) {
    case JVMPROF_EV_ENTER: {
        const jvmprof_method *m = &e->u.enter.method;
        put(&l, "enter ");
        method(&l, m);
        put(&l, " depth=%u", e->u.enter.depth);
        if (m->flags & JVMPROF_METHOD_SYNCHRONIZED)
            put(&l, " synchronized");
        if (m->flags & JVMPROF_METHOD_NATIVE)
            put(&l, " native");
        if (e->u.enter.receiver)
            put(&l, " this=%" PRIu64, e->u.enter.receiver);
        snprintf(extra, sizeof extra, "id=%u flags=%u", m->id, m->flags);
        break;
    }
    case JVMPROF_EV_EXIT:
    case JVMPROF_EV_EXIT_THROW:
        put(&l, "%s ", e->u.exit.thrown ? "exit-throw" : "exit");
        method(&l, &e->u.exit.method);
        put(&l, " depth=%u", e->u.exit.depth);
        snprintf(extra, sizeof extra, "id=%u flags=%u type=%u", e->u.exit.method.id, e->u.exit.method.flags, e->type);
        break;
    case JVMPROF_EV_CALL:
        put(&l, "call ");
        method(&l, &e->u.call.method);
        put(&l, " depth=%u duration=%" PRIu64 ".%06" PRIu64 "ms%s", e->u.call.depth,
            e->u.call.duration_ns / 1000000u, e->u.call.duration_ns % 1000000u, e->u.call.thrown ? " thrown" : "");
        snprintf(extra, sizeof extra, "id=%u flags=%u", e->u.call.method.id, e->u.call.method.flags);
        break;
    case JVMPROF_EV_ALLOC:
        put(&l, "alloc object=%" PRIu64 " ", e->u.alloc.object);
        name(&l, e->u.alloc.class_name);
        put(&l, " bytes=%" PRIu64, e->u.alloc.size);
        if (e->u.alloc.length >= 0)
            put(&l, " length=%" PRId64, e->u.alloc.length);
        break;
    case JVMPROF_EV_FREE:
        put(&l, "free object=%" PRIu64, e->u.free.object);
        break;
    case JVMPROF_EV_GC_START:
    case JVMPROF_EV_GC_END:
        put(&l, "%s #%" PRIu64, e->type == JVMPROF_EV_GC_START ? "gc-start" : "gc-end", e->u.gc.number);
        break;
    case JVMPROF_EV_THREAD_START:
        put(&l, "thread-start ");
        name(&l, e->u.thread.name);
        put(&l, " group=");
        if (e->u.thread.group.len)
            name(&l, e->u.thread.group);
        else
            put(&l, "-");
        put(&l, " priority=%d%s", e->u.thread.priority, e->u.thread.daemon ? " daemon" : "");
        snprintf(extra, sizeof extra, "thread=%u", e->u.thread.thread);
        break;
    case JVMPROF_EV_THREAD_END:
        put(&l, "thread-end %s", thread);
        snprintf(extra, sizeof extra, "thread=%u", e->u.thread.thread);
        break;
    case JVMPROF_EV_CLASS_LOAD:
    case JVMPROF_EV_CLASS_UNLOAD:
        put(&l, "%s ", e->type == JVMPROF_EV_CLASS_LOAD ? "class-load" : "class-unload");
        name(&l, e->u.class_event.name);
        snprintf(extra, sizeof extra, "class=%u", e->u.class_event.class_id);
        break;
    case JVMPROF_EV_MONITOR: {
        static const char *const kinds[] = { "?", "contended", "entered", "wait", "waited" };
        int k = e->u.monitor.kind;
        put(&l, "monitor %s object=%" PRIu64 " ", k >= 1 && k <= 4 ? kinds[k] : "?", e->u.monitor.object);
        name(&l, e->u.monitor.class_name);
        break;
    }
    case JVMPROF_EV_USER:
        put(&l, "user ");
        name(&l, e->u.user.message);
        break;
    case JVMPROF_EV_REFERENCES:
        put(&l, "references objects=%" PRIu64 " references=%" PRIu64, e->u.references.objects,
            e->u.references.references);
        break;
    case JVMPROF_EV_OBJECT: {
        int k = e->u.object.kind;
        put(&l, "object object=%" PRIu64 " ", e->u.object.object);
        if (e->u.object.class_name.len) /* empty: not named, the text's <class 0> (plugin.h) */
            name(&l, e->u.object.class_name);
        else
            put(&l, "<class 0>");
        put(&l, " %s bytes=%" PRIu64, k == JVMPROF_OBJECT_ARRAY ? "array" : k == JVMPROF_OBJECT_CLASS ? "class"
                                      : k == JVMPROF_OBJECT_PLAIN ? "object" : "?", e->u.object.size);
        if (e->u.object.length >= 0)
            put(&l, " length=%" PRId64, e->u.object.length);
        break;
    }
    case JVMPROF_EV_REFERENCE: {
        static const char *const kinds[] = { "?", "class", "field", "array-element", "class-loader", "signers",
                                             "protection-domain", "interface", "static-field", "constant-pool",
                                             "superclass" };
        int k = e->u.reference.kind;
        put(&l, "reference object=%" PRIu64 " %s", e->u.reference.object, k >= 1 && k <= 10 ? kinds[k] : "other");
        if (k == 2 || k == 3 || k == 8 || k == 9)
            put(&l, " index=%u", e->u.reference.index);
        break;
    }
    case JVMPROF_EV_OBJECT_END:
        put(&l, "object-end");
        break;
    case JVMPROF_EV_SAMPLE:
        put(&l, "sample ");
        name(&l, e->u.sample.stack);
        break;
    default:
        put(&l, "type-%u", e->type);
        break;
    }
    if (extra[0])
        put(&l, " |%s", extra);
    put(&l, "\n");
    pthread_mutex_lock(&lock);
    fputs(l.b, out);
    pthread_mutex_unlock(&lock);
}

void jvmprof_plugin_shutdown(void)
{
    pthread_mutex_lock(&lock);
    if (out)
        fclose(out);
    out = NULL;
    pthread_mutex_unlock(&lock);
}
