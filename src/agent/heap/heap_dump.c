/* heap_dump.c — heap=dump (see heap_dump.h). A dump runs in three steps:
 *
 * 1. Before the walk, on the calling thread: every loaded class (and the
 *    nine primitive types' mirrors) gets tag = its index + 1 in a fresh
 *    JVMTI environment, and its fields are read to build, per class, the map
 *    from JVMTI's field index to the byte offset of the value in an INSTANCE
 *    DUMP (JVMTI numbers the fields of all superinterfaces first, then those
 *    of each class from java.lang.Object down, each class's in declaration
 *    order). Threads are tagged and their stacks become FRAME/TRACE records.
 * 2. FollowReferences visits every reachable object once. An object is
 *    tagged with a fresh id when it is first reported as a referree; an
 *    array's id carries its length in the high 32 bits (the walk reports an
 *    array's length only as a referree). All callbacks about one referrer
 *    come together, so the object being visited is assembled in one buffer
 *    and written when the next referrer starts: nothing per object is kept.
 *    Only objects the walk visits are written, and only references the walk
 *    reports: every id in the file is an object of the file.
 * 3. After the walk: the CLASS DUMPs (with the loader, signers, protection
 *    domain and static values the walk reported), START THREAD records, and
 *    HEAP DUMP END. Disposing of the environment drops every tag at once.
 *
 * A class loaded between step 1 and the walk has no tag: its objects are left
 * out like those of CDS's archived objects. When the number of loaded
 * classes changed, the dump is taken once more; the second one is kept. */
#include "heap_dump.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/file_map.h"
#include "../../common/out_file.h"
#include "../../common/jp_log.h"
#include "../../format/hprof_heap.h"
#include "../../format/sink.h"
#include "../../heapdump/hprof_heap_text.h"
#include "../../model/model.h"
#include "../core/agent_env.h"
#include "heap_dump_hotspot.h"
#include "heap_dump_sites.h"
#include "../core/jvmti_util.h"
#include "../hotspot/vmstructs.h"

enum hd_kind { HD_INSTANCE = 0, HD_OBJ_ARRAY, HD_PRIM_ARRAY, HD_PRIMITIVE };

typedef struct hd_class {
    uint8_t kind;            /* enum hd_kind */
    bool prepared;           /* fields known */
    bool done;               /* layout computed */
    uint32_t super;          /* index + 1 of the superclass, 0 if none */
    str_id name;             /* as HotSpot writes it: java/lang/String, [I, [Ljava/lang/Object; */
    /* own fields, declaration order (GetClassFields) */
    uint32_t nown;
    str_id *own_name;
    uint8_t *own_type;       /* enum hprof_type */
    bool *own_static;
    /* JVMTI field index -> offset of the value in an INSTANCE DUMP (-1: not
     * an instance field), for every index an instance of this class has */
    uint32_t nindex;
    int32_t *offset;
    uint8_t *otype;
    uint32_t own_base;       /* JVMTI index of own field 0 */
    uint32_t instance_size;
    /* own interfaces (indices + 1), for the interface field count */
    uint32_t niface;
    uint32_t *iface;
    /* what the walk reports of the class object */
    uint64_t loader, signers, domain;
    uint64_t *static_value;  /* [nown], statics only */
} hd_class;

typedef struct hd_thread {
    uint64_t tag;
    uint32_t serial, trace;
    str_id name, group, parent;
    bool seen;               /* the walk reported its thread object (a virtual thread: a root on its stack) */
    bool is_virtual;         /* a virtual thread (JDK 21+), found in the heap (hd_virtual_threads) */
} hd_thread;

enum hd_cur { CUR_NONE, CUR_INSTANCE, CUR_OBJ_ARRAY, CUR_CLASS, CUR_SKIP };

typedef struct hd_state {
    jvmtiEnv *tags;          /* this dump's own environment */
    model *strings;          /* UTF8 ids */
    hd_class *cls;
    uint32_t ncls, cls_cap;
    uint32_t class_class;    /* index + 1 of java.lang.Class */
    uint32_t object_class;   /* index + 1 of java.lang.Object */
    hd_thread *threads;
    uint32_t nthreads;
    jclass vthread_class;    /* java.lang.VirtualThread (JDK 21+; a global ref), from the loaded classes */
    jlong *vthread_tags;     /* the virtual threads' tags (hd_virtual_threads), HD_MAX_VTHREADS at most */
    uint32_t nvthreads;
    uint64_t next_frame;     /* the last FRAME id given */
    uint64_t next_id;
    /* heap=sites' live sampled objects (hd_sampled): their ids' low 32 bits are HD_SAMPLED_BASE + k,
     * sampled_trace[k] their trace serial */
    const heap_dump_sites *sites;
    uint32_t *sampled_trace;
    uint32_t nsampled;
    hprof_heap *out;
    /* the referrer being visited */
    enum hd_cur cur;
    uint64_t cur_id;
    uint32_t cur_cls;
    unsigned char *values;   /* INSTANCE DUMP values of the current object: the largest class's size */
    /* counts */
    uint64_t objects, bytes, left_out, odd;
    jint classes_before;
    bool too_many;
    /* progress */
    uint64_t heap_used, t0, last_report;
    bool progress;
} hd_state;

/* Dumps come from any thread (the reports, Control.dumpHeap, jvmprof heapdump) and for the JVM's life:
 * one at a time (lock); and the reports' dumps to file= are numbered over the JVM's life (sequence,
 * under lock), so that a later session's first dump does not replace an earlier session's. */
struct hd_serial_state {
    pthread_mutex_t lock;
    unsigned sequence;
};
static struct hd_serial_state hd_serial = { PTHREAD_MUTEX_INITIALIZER, 0 }; /* the JVM's one, see above */

void heap_dump_said(char *said, size_t len, const char *fmt, ...)
{
    size_t used = strlen(said);
    if (used + 1 >= len)
        return;
    if (used)
        said[used++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(said + used, len - used, fmt, ap);
    va_end(ap);
}

/* The lines heap_dump_said gathered, each as an info line */
static void hd_log_said(const char *said)
{
    while (*said) {
        const char *end = strchr(said, '\n');
        int n = end ? (int)(end - said) : (int)strlen(said);
        jp_log_info("%.*s", n, said);
        said += n + (end != NULL);
    }
}

#define HD_MAX_FRAMES 1024
#define HD_MAX_VTHREADS 100000u /* virtual threads given their own thread and stack in a dump; more are left to
                                 * the objects they reach */
#define HD_DUMMY_TRACE 1u       /* an empty TRACE for objects, as HotSpot writes */
#define HD_ARRAY_SHIFT 32
#define HD_MAX_SAMPLED 0x10000000u /* sampled objects given their trace in a dump: the ids above the others' */
#define HD_SAMPLED_BASE 0xF0000000u /* the low 32 bits of the sampled objects' ids start here; the others' stay
                                     * below */

/* ---- step 1: classes and threads ---- */

static str_id hd_str(hd_state *s, const char *text) { return model_cstring(s->strings, text ? text : ""); }

static hd_class *hd_class_add(hd_state *s)
{
    if (s->ncls == s->cls_cap) {
        uint32_t cap = s->cls_cap ? s->cls_cap * 2 : 1024;
        hd_class *n = realloc(s->cls, (size_t)cap * sizeof *n);
        if (!n)
            return NULL;
        s->cls = n;
        s->cls_cap = cap;
    }
    hd_class *c = &s->cls[s->ncls++];
    memset(c, 0, sizeof *c);
    return c;
}

static uint32_t hd_tag_of(hd_state *s, jobject o)
{
    jlong tag = 0;
    if (!o || (*s->tags)->GetTag(s->tags, o, &tag) != JVMTI_ERROR_NONE)
        return 0;
    return tag > 0 && (uint64_t)tag <= s->ncls ? (uint32_t)tag : 0;
}

/* The class's name as HotSpot writes it in LOAD CLASS. */
static str_id hd_class_name(hd_state *s, const char *sig)
{
    if (sig[0] != 'L')
        return hd_str(s, sig);
    size_t n = strlen(sig);
    char small[512];
    char *name = n < sizeof small ? small : malloc(n);
    if (!name)
        return hd_str(s, "?");
    memcpy(name, sig + 1, n - 1);
    name[n >= 2 ? n - 2 : 0] = '\0';
    str_id id = hd_str(s, name);
    if (name != small)
        free(name);
    return id;
}

/* Reads the class's own fields and interfaces (classes are tagged already). */
static void hd_class_read(hd_state *s, JNIEnv *jni, hd_class *c, jclass k)
{
    jvmtiEnv *jv = agent_jvmti;
    jint status = 0;
    if ((*jv)->GetClassStatus(jv, k, &status) != JVMTI_ERROR_NONE || !(status & JVMTI_CLASS_STATUS_PREPARED))
        return;
    jclass super = (*jni)->GetSuperclass(jni, k);
    c->super = hd_tag_of(s, super);
    if (super)
        (*jni)->DeleteLocalRef(jni, super);
    jint nf = 0;
    jfieldID *fields = NULL;
    if ((*jv)->GetClassFields(jv, k, &nf, &fields) != JVMTI_ERROR_NONE)
        return;
    c->nown = (uint32_t)nf;
    c->own_name = calloc((size_t)nf + 1, sizeof *c->own_name);
    c->own_type = calloc((size_t)nf + 1, 1);
    c->own_static = calloc((size_t)nf + 1, sizeof *c->own_static);
    c->static_value = calloc((size_t)nf + 1, sizeof *c->static_value);
    if (!c->own_name || !c->own_type || !c->own_static || !c->static_value) {
        jvmti_free(fields);
        c->nown = 0;
        return;
    }
    for (jint i = 0; i < nf; i++) {
        char *name = NULL, *sig = NULL;
        jint mods = 0;
        if ((*jv)->GetFieldName(jv, k, fields[i], &name, &sig, NULL) == JVMTI_ERROR_NONE) {
            c->own_name[i] = hd_str(s, name);
            c->own_type[i] = (uint8_t)hprof_type_of_descriptor(sig ? sig[0] : 'I');
        } else {
            c->own_name[i] = hd_str(s, "?");
            c->own_type[i] = HPROF_INT;
        }
        jvmti_free(name);
        jvmti_free(sig);
        (*jv)->GetFieldModifiers(jv, k, fields[i], &mods);
        c->own_static[i] = (mods & 0x0008) != 0;   /* ACC_STATIC */
    }
    jvmti_free(fields);
    jint ni = 0;
    jclass *ifs = NULL;
    if ((*jv)->GetImplementedInterfaces(jv, k, &ni, &ifs) == JVMTI_ERROR_NONE && ni > 0) {
        c->iface = calloc((size_t)ni, sizeof *c->iface);
        for (jint i = 0; c->iface && i < ni; i++) {
            uint32_t t = hd_tag_of(s, ifs[i]);
            if (t)
                c->iface[c->niface++] = t;
        }
        jvmti_free(ifs);
    }
    c->prepared = true;
}

/* Adds the class's superinterfaces (and theirs) to set[] once each. */
static void hd_collect_ifaces(hd_state *s, uint32_t ci, uint8_t *mark, uint32_t *set, uint32_t *n)
{
    for (uint32_t ca = ci; ca; ca = s->cls[ca - 1].super) {
        const hd_class *c = &s->cls[ca - 1];
        for (uint32_t i = 0; i < c->niface; i++) {
            uint32_t f = c->iface[i];
            if (mark[f - 1])
                continue;
            mark[f - 1] = 1;
            set[(*n)++] = f;
            hd_collect_ifaces(s, f, mark, set, n);
        }
    }
}

/* Computes the field index map and instance layout of class ci (1-based). */
static bool hd_class_layout(hd_state *s, uint32_t ci, uint8_t *mark, uint32_t *set)
{
    hd_class *c = &s->cls[ci - 1];
    if (c->done)
        return true;
    c->done = true;
    /* superinterfaces' fields come first in JVMTI's numbering */
    uint32_t n = 0;
    hd_collect_ifaces(s, ci, mark, set, &n);
    uint32_t iface_fields = 0;
    for (uint32_t i = 0; i < n; i++) {
        iface_fields += s->cls[set[i] - 1].nown;
        mark[set[i] - 1] = 0;
    }
    /* the class chain, java.lang.Object first */
    uint32_t chain[256], depth = 0;
    for (uint32_t ca = ci; ca && depth < 256; ca = s->cls[ca - 1].super)
        chain[depth++] = ca;
    uint32_t total = iface_fields;
    for (uint32_t d = 0; d < depth; d++)
        total += s->cls[chain[d] - 1].nown;
    c->nindex = total;
    c->offset = malloc(((size_t)total + 1) * sizeof *c->offset);
    c->otype = calloc((size_t)total + 1, 1);
    if (!c->offset || !c->otype)
        return false;
    for (uint32_t i = 0; i < total; i++)
        c->offset[i] = -1;
    /* values in the dump: this class's instance fields, then its superclass's ... */
    uint32_t off = 0;
    for (uint32_t d = 0; d < depth; d++) {
        const hd_class *k = &s->cls[chain[d] - 1];
        uint32_t base = iface_fields;   /* index of k's field 0: every class above k comes before it */
        for (uint32_t e = d + 1; e < depth; e++)
            base += s->cls[chain[e] - 1].nown;
        if (d == 0)
            c->own_base = base;
        for (uint32_t j = 0; j < k->nown; j++) {
            if (k->own_static[j])
                continue;
            c->offset[base + j] = (int32_t)off;
            c->otype[base + j] = k->own_type[j];
            off += hprof_type_size(k->own_type[j]);
        }
    }
    c->instance_size = off;
    return true;
}

static void hd_classes_free(hd_state *s)
{
    for (uint32_t i = 0; i < s->ncls; i++) {
        hd_class *c = &s->cls[i];
        free(c->own_name);
        free(c->own_type);
        free(c->own_static);
        free(c->static_value);
        free(c->offset);
        free(c->otype);
        free(c->iface);
    }
    free(s->cls);
    s->cls = NULL;
    s->ncls = s->cls_cap = 0;
}

static jp_status hd_classes(hd_state *s, JNIEnv *jni)
{
    jvmtiEnv *jv = agent_jvmti;
    jint n = 0;
    jclass *classes = NULL;
    jp_status st = jvmti_check((*jv)->GetLoadedClasses(jv, &n, &classes), "GetLoadedClasses");
    if (st != JP_OK)
        return st;
    s->classes_before = n;
    static const char *const prim[][3] = {
        { "java/lang/Boolean", "boolean" }, { "java/lang/Character", "char" }, { "java/lang/Float", "float" },
        { "java/lang/Double", "double" }, { "java/lang/Byte", "byte" }, { "java/lang/Short", "short" },
        { "java/lang/Integer", "int" }, { "java/lang/Long", "long" }, { "java/lang/Void", "void" },
    };
    jclass mirrors[9];
    for (int i = 0; i < 9; i++) {
        jclass box = (*jni)->FindClass(jni, prim[i][0]);
        jfieldID f = box ? (*jni)->GetStaticFieldID(jni, box, "TYPE", "Ljava/lang/Class;") : NULL;
        mirrors[i] = f ? (jclass)(*jni)->GetStaticObjectField(jni, box, f) : NULL;
        if ((*jni)->ExceptionCheck(jni))
            (*jni)->ExceptionClear(jni);
    }
    /* tag first (index + 1), so superclasses and interfaces resolve to indices */
    for (jint i = 0; i < n + 9 && st == JP_OK; i++) {
        jclass k = i < n ? classes[i] : mirrors[i - n];
        hd_class *c = k ? hd_class_add(s) : NULL;
        if (!k)
            continue;
        if (!c) {
            st = jp_error(JP_ERR_NOMEM, "heap dump: out of memory for the class table");
            break;
        }
        if ((*s->tags)->SetTag(s->tags, k, (jlong)s->ncls) != JVMTI_ERROR_NONE) {
            s->ncls--;
            continue;
        }
        if (i >= n) {
            c->kind = HD_PRIMITIVE;
            c->name = hd_str(s, prim[i - n][1]);
            continue;
        }
        char *sig = NULL;
        if ((*jv)->GetClassSignature(jv, k, &sig, NULL) != JVMTI_ERROR_NONE || !sig) {
            c->name = hd_str(s, "?");
            continue;
        }
        c->name = hd_class_name(s, sig);
        if (sig[0] == '[')
            c->kind = (sig[1] == 'L' || sig[1] == '[') ? HD_OBJ_ARRAY : HD_PRIM_ARRAY;
        if (strcmp(sig, "Ljava/lang/Class;") == 0)
            s->class_class = s->ncls;
        if (strcmp(sig, "Ljava/lang/Object;") == 0)
            s->object_class = s->ncls;
        if (strcmp(sig, "Ljava/lang/VirtualThread;") == 0 && !s->vthread_class)
            s->vthread_class = (*jni)->NewGlobalRef(jni, k);
        jvmti_free(sig);
    }
    /* read fields: walk classes[] again and find each one's index by its tag */
    for (jint i = 0; i < n && st == JP_OK; i++) {
        uint32_t ci = hd_tag_of(s, classes[i]);
        if (ci && s->cls[ci - 1].kind == HD_INSTANCE)
            hd_class_read(s, jni, &s->cls[ci - 1], classes[i]);
    }
    uint8_t *mark = calloc((size_t)s->ncls + 1, 1);
    uint32_t *set = calloc((size_t)s->ncls + 1, sizeof *set);
    if (!mark || !set)
        st = jp_error(JP_ERR_NOMEM, "heap dump: out of memory for the class table");
    uint32_t largest = 0;
    for (uint32_t ci = 1; ci <= s->ncls && st == JP_OK; ci++) {
        if (s->cls[ci - 1].kind != HD_INSTANCE)
            continue;
        if (!hd_class_layout(s, ci, mark, set))
            st = jp_error(JP_ERR_NOMEM, "heap dump: out of memory for the class table");
        else if (s->cls[ci - 1].instance_size > largest)
            largest = s->cls[ci - 1].instance_size;
    }
    /* the walk's callbacks then assemble any instance without allocating */
    s->values = st == JP_OK ? malloc((size_t)largest + 1) : NULL;
    if (st == JP_OK && !s->values)
        st = jp_error(JP_ERR_NOMEM, "heap dump: out of memory for the class table");
    free(mark);
    free(set);
    for (jint i = 0; i < n; i++)
        (*jni)->DeleteLocalRef(jni, classes[i]);
    jvmti_free(classes);
    if (st == JP_OK && (!s->class_class || !s->object_class))
        st = jp_error(JP_ERR_JVMTI, "heap dump: java.lang.Class or java.lang.Object not among the loaded classes");
    return st;
}

static int hd_thread_cmp(const void *a, const void *b)
{
    const hd_thread *x = a, *y = b;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static hd_thread *hd_thread_find(hd_state *s, uint64_t tag)
{
    hd_thread key = { .tag = tag };
    return tag ? bsearch(&key, s->threads, s->nthreads, sizeof key, hd_thread_cmp) : NULL;
}

static int32_t hd_line(jmethodID m, jlocation at)
{
    jvmtiEnv *jv = agent_jvmti;
    jint n = 0;
    jvmtiLineNumberEntry *t = NULL;
    if (at < 0)
        return FRAME_LINE_NATIVE;
    if ((*jv)->GetLineNumberTable(jv, m, &n, &t) != JVMTI_ERROR_NONE)
        return FRAME_LINE_UNKNOWN;
    /* the entry that starts last at or before `at` (the table need not be sorted) */
    int32_t line = FRAME_LINE_UNKNOWN;
    jlocation best = -1;
    for (jint i = 0; i < n; i++)
        if (t[i].start_location <= at && t[i].start_location >= best) {
            best = t[i].start_location;
            line = t[i].line_number;
        }
    jvmti_free(t);
    return line;
}

/* One thread in the thread table (room for it made by the caller), with its stack as frames and a trace
 * in frames_out. */
static void hd_thread_add(hd_state *s, JNIEnv *jni, jthread thread, const jvmtiFrameInfo *frames, jint nframes,
                          bool is_virtual, buf *frames_out)
{
    jvmtiEnv *jv = agent_jvmti;
    hd_thread *t = &s->threads[s->nthreads];
    jlong tag = 0;
    (*s->tags)->GetTag(s->tags, thread, &tag);
    if (tag == 0) {
        tag = (jlong)s->next_id++;
        if ((*s->tags)->SetTag(s->tags, thread, tag) != JVMTI_ERROR_NONE)
            return;
    }
    t->tag = (uint64_t)tag;
    t->serial = s->nthreads + 1;
    t->trace = s->nthreads + 2;
    jvmtiThreadInfo ti;
    memset(&ti, 0, sizeof ti);
    if ((*jv)->GetThreadInfo(jv, thread, &ti) == JVMTI_ERROR_NONE) {
        t->name = hd_str(s, ti.name);
        jvmtiThreadGroupInfo gi;
        memset(&gi, 0, sizeof gi);
        if (ti.thread_group && (*jv)->GetThreadGroupInfo(jv, ti.thread_group, &gi) == JVMTI_ERROR_NONE) {
            t->group = hd_str(s, gi.name);
            jvmtiThreadGroupInfo pi;
            memset(&pi, 0, sizeof pi);
            if (gi.parent && (*jv)->GetThreadGroupInfo(jv, gi.parent, &pi) == JVMTI_ERROR_NONE)
                t->parent = hd_str(s, pi.name);
            jvmti_free(pi.name);
            jvmti_free(gi.name);
        }
        jvmti_free(ti.name);
        if (ti.thread_group)
            (*jni)->DeleteLocalRef(jni, ti.thread_group);
        if (ti.context_class_loader)
            (*jni)->DeleteLocalRef(jni, ti.context_class_loader);
    }
    /* frames: frame id, name, sig, source, class serial, line; then the trace */
    buf_put_u4(frames_out, t->serial);
    buf_put_u4(frames_out, t->trace);
    buf_put_u4(frames_out, (uint32_t)nframes);
    for (jint f = 0; f < nframes; f++) {
        const jvmtiFrameInfo *fi = &frames[f];
        char *name = NULL, *sig = NULL, *src = NULL;
        jclass decl = NULL;
        (*jv)->GetMethodName(jv, fi->method, &name, &sig, NULL);
        (*jv)->GetMethodDeclaringClass(jv, fi->method, &decl);
        if (decl)
            (*jv)->GetSourceFileName(jv, decl, &src);
        buf_put_u8(frames_out, ++s->next_frame);
        buf_put_u8(frames_out, hd_str(s, name).v);
        buf_put_u8(frames_out, hd_str(s, sig).v);
        buf_put_u8(frames_out, src ? hd_str(s, src).v : 0);
        buf_put_u4(frames_out, hd_tag_of(s, decl));
        buf_put_u4(frames_out, (uint32_t)hd_line(fi->method, fi->location));
        jvmti_free(name);
        jvmti_free(sig);
        jvmti_free(src);
        if (decl)
            (*jni)->DeleteLocalRef(jni, decl);
    }
    t->is_virtual = is_virtual;
    s->nthreads++;
}

/* IterateThroughHeap's callback on each java.lang.VirtualThread: tagged with the next id, its tag kept */
static jint JNICALL hd_on_vthread(jlong class_tag, jlong size, jlong *tag_ptr, jint length, void *data)
{
    (void)class_tag, (void)size, (void)length;
    hd_state *s = data;
    if (s->nvthreads >= HD_MAX_VTHREADS)
        return JVMTI_VISIT_ABORT;
    if (*tag_ptr == 0)
        *tag_ptr = (jlong)s->next_id++;
    s->vthread_tags[s->nvthreads++] = *tag_ptr;
    return 0;
}

/* Virtual threads (JDK 21+), which GetAllStackTraces leaves out while the heap walk reports the objects
 * their stacks hold (by the virtual thread's tag): found in the heap by their class, tagged, and given a
 * thread and a stack in the table, as HotSpot's own dumper does, so that those roots name their thread. */
static void hd_virtual_threads(hd_state *s, JNIEnv *jni, buf *frames_out)
{
    jvmtiEnv *jv = agent_jvmti;
    /* from the loaded classes, not FindClass, which would run the class loader's Java code (and make
     * objects) while the dump is being prepared */
    jclass vt = s->vthread_class;
    if (!vt)
        return; /* before JDK 21, or no virtual thread yet */
    s->vthread_tags = malloc(HD_MAX_VTHREADS * sizeof *s->vthread_tags);
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = hd_on_vthread;
    jint n = 0;
    jobject *objs = NULL;
    if (!s->vthread_tags || (*s->tags)->IterateThroughHeap(s->tags, 0, vt, &cb, s) != JVMTI_ERROR_NONE ||
        !s->nvthreads ||
        (*s->tags)->GetObjectsWithTags(s->tags, (jint)s->nvthreads, s->vthread_tags, &n, &objs, NULL) !=
            JVMTI_ERROR_NONE)
        return;
    hd_thread *more = realloc(s->threads, ((size_t)s->nthreads + (size_t)n + 1) * sizeof *s->threads);
    if (more) {
        s->threads = more;
        memset(s->threads + s->nthreads, 0, ((size_t)n + 1) * sizeof *s->threads);
    }
    static jvmtiFrameInfo frames[HD_MAX_FRAMES]; /* the agent thread's, one dump at a time */
    for (jint i = 0; i < n; i++) {
        jint count = 0;
        if (more && (*jv)->GetStackTrace(jv, objs[i], 0, HD_MAX_FRAMES, frames, &count) == JVMTI_ERROR_NONE)
            hd_thread_add(s, jni, objs[i], frames, count, true, frames_out);
        (*jni)->DeleteLocalRef(jni, objs[i]);
    }
    jvmti_free(objs);
}

/* Thread table, and each thread's stack as FRAME and TRACE records (trace
 * serials from 2; 1 is the empty trace objects refer to). */
static jp_status hd_threads(hd_state *s, JNIEnv *jni, buf *frames_out)
{
    jvmtiEnv *jv = agent_jvmti;
    jvmtiStackInfo *info = NULL;
    jint n = 0;
    jp_status st = jvmti_check((*jv)->GetAllStackTraces(jv, HD_MAX_FRAMES, &info, &n), "GetAllStackTraces");
    if (st != JP_OK)
        return st;
    s->threads = calloc((size_t)n + 1, sizeof *s->threads);
    if (!s->threads) {
        jvmti_free(info);
        return jp_error(JP_ERR_NOMEM, "heap dump: out of memory for the thread table");
    }
    for (jint i = 0; i < n; i++)
        hd_thread_add(s, jni, info[i].thread, info[i].frame_buffer, info[i].frame_count, false, frames_out);
    jvmti_free(info);
    hd_virtual_threads(s, jni, frames_out);
    qsort(s->threads, s->nthreads, sizeof *s->threads, hd_thread_cmp);
    return frames_out->failed ? jp_error(JP_ERR_NOMEM, "heap dump: out of memory for thread stacks") : JP_OK;
}

/* The classes by name as the model spells them (java.lang.String; a hidden
 * class's suffix after '.', which LOAD CLASS keeps: java/lang/Module$$Lambda$22.0x800c2b4a8
 * and java.lang.Module$$Lambda$22.0x800c2b4a8 are one class), sorted, for the frames' class serials */
typedef struct hd_named {
    const char *dotted;
    uint32_t ci;
} hd_named;

static int hd_named_cmp(const void *a, const void *b)
{
    const hd_named *x = a, *y = b;
    int c = strcmp(x->dotted, y->dotted);
    return c ? c : (x->ci > y->ci) - (x->ci < y->ci);
}

/* The table (and the names' memory in *mem); NULL when out of memory. */
static hd_named *hd_names_dotted(const hd_state *s, char **mem)
{
    size_t total = 0;
    for (uint32_t ci = 1; ci <= s->ncls; ci++) {
        size_t len = 0;
        model_string_get(s->strings, s->cls[ci - 1].name, &len);
        total += len + 1;
    }
    hd_named *t = malloc(((size_t)s->ncls + 1) * sizeof *t);
    char *m = *mem = malloc(total + 1);
    if (!t || !m) {
        free(t);
        free(m);
        *mem = NULL;
        return NULL;
    }
    for (uint32_t ci = 1; ci <= s->ncls; ci++) {
        size_t len = 0;
        const char *name = model_string_get(s->strings, s->cls[ci - 1].name, &len);
        t[ci - 1] = (hd_named){ m, ci };
        for (size_t j = 0; j < len; j++)
            *m++ = name[j] == '/' ? '.' : name[j];
        *m++ = '\0';
    }
    qsort(t, s->ncls, sizeof *t, hd_named_cmp);
    return t;
}

/* The first entry at or after `key`. */
static uint32_t hd_named_lower(const hd_named *t, uint32_t n, const char *key)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(t[mid].dotted, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The index of the first class named `dotted`, 0 if none. The model names a
 * hidden class without the address LOAD CLASS gives it (symbols.c:
 * java.lang.Module$$Lambda$1 for java/lang/Module$$Lambda$1.0x7f9bd0040a58):
 * failing an exact match, the first class named `dotted` + ".0x..." (one of
 * the hidden classes of that name; the model cannot tell which). */
static uint32_t hd_named_find(const hd_named *t, uint32_t n, const char *dotted)
{
    uint32_t at = hd_named_lower(t, n, dotted);
    if (at < n && strcmp(t[at].dotted, dotted) == 0)
        return t[at].ci;
    char key[1024];
    int len = snprintf(key, sizeof key, "%s.0x", dotted);
    if (len < 0 || (size_t)len >= sizeof key)
        return 0;
    at = hd_named_lower(t, n, key);
    return at < n && strncmp(t[at].dotted, key, (size_t)len) == 0 ? t[at].ci : 0;
}

/* heap=sites' live sampled objects (s->sites: their tags in the agent's
 * environment, where the sampler tagged them): each gets its id now, in this
 * dump's environment, with HD_SAMPLED_BASE + k in its low 32 bits (an
 * array's length above, as the walk would give it), so that writing an
 * object tells its trace from its id alone, with no lookup and nothing per
 * object; and FRAME and TRACE records for their traces go in frames_out
 * (thread serial 0), named by the serial the report prints. After the
 * classes (a class object keeps its class index and trace 1), before the
 * threads (a sampled Thread keeps its id as a thread). */
static void hd_sampled(hd_state *s, JNIEnv *jni, buf *frames_out)
{
    const heap_dump_sites *ds = s->sites;
    if (!ds || !ds->nobjects)
        return;
    jint n = 0;
    jobject *objs = NULL;
    jlong *tags = NULL;
    uint32_t want = ds->nobjects < HD_MAX_SAMPLED ? ds->nobjects : HD_MAX_SAMPLED;
    s->sampled_trace = malloc((size_t)want * sizeof *s->sampled_trace);
    if (!s->sampled_trace ||
        (*agent_jvmti)->GetObjectsWithTags(agent_jvmti, (jint)want, (const jlong *)ds->tags, &n, &objs, &tags) !=
            JVMTI_ERROR_NONE)
        return;
    uint8_t *used = calloc(ds->ntraces + 1, 1);
    for (jint i = 0; i < n; i++) {
        jobject o = objs[i];
        uint32_t serial = heap_dump_sites_serial_of(ds, tags[i]);
        jclass k = (*jni)->GetObjectClass(jni, o);
        uint32_t ci = hd_tag_of(s, k);
        jlong mine = 0;
        (*s->tags)->GetTag(s->tags, o, &mine);
        if (serial && ci && ci != s->class_class && mine == 0 && s->nsampled < want) {
            const hd_class *c = &s->cls[ci - 1];
            uint64_t id = HD_SAMPLED_BASE + (uint64_t)s->nsampled;
            if (c->kind == HD_OBJ_ARRAY || c->kind == HD_PRIM_ARRAY)
                id |= ((uint64_t)(*jni)->GetArrayLength(jni, (jarray)o) + 1) << HD_ARRAY_SHIFT;
            if ((*s->tags)->SetTag(s->tags, o, (jlong)id) == JVMTI_ERROR_NONE) {
                s->sampled_trace[s->nsampled++] = serial;
                const heap_dump_trace *t = heap_dump_sites_find_trace(ds, serial);
                if (t && used)
                    used[t - ds->traces] = 1;
            }
        }
        (*jni)->DeleteLocalRef(jni, k);
        (*jni)->DeleteLocalRef(jni, o);
    }
    jvmti_free(objs);
    jvmti_free(tags);
    char *names_mem = NULL;
    hd_named *by_name = used ? hd_names_dotted(s, &names_mem) : NULL;
    for (uint32_t ti = 0; used && by_name && ti < ds->ntraces; ti++) {
        const heap_dump_trace *t = &ds->traces[ti];
        if (!used[ti])
            continue;
        buf_put_u4(frames_out, 0);
        buf_put_u4(frames_out, t->serial);
        buf_put_u4(frames_out, t->nframes < HD_MAX_FRAMES ? t->nframes : HD_MAX_FRAMES);
        for (uint32_t f = 0; f < t->nframes && f < HD_MAX_FRAMES; f++) {
            const heap_dump_frame *fr = &t->frames[f];
            /* 0 for a class no longer loaded, as for a thread's frames */
            uint32_t cls = hd_named_find(by_name, s->ncls, fr->class_name);
            buf_put_u8(frames_out, ++s->next_frame);
            buf_put_u8(frames_out, hd_str(s, fr->method).v);
            buf_put_u8(frames_out, hd_str(s, fr->sig).v);
            buf_put_u8(frames_out, fr->source ? hd_str(s, fr->source).v : 0);
            buf_put_u4(frames_out, cls);
            buf_put_u4(frames_out, (uint32_t)fr->line);
        }
    }
    free(by_name);
    free(names_mem);
    free(used);
}

/* ---- step 2: the walk ---- */

/* Objects of classes not in the class table: CDS archived objects whose
 * class is not loaded yet (the JVM keeps them, the program cannot reach
 * them), or a class loaded during the dump. They are left out: tagged with
 * HD_LEFT_OUT so that every reference to them is written as null and the
 * walk does not go through them. */
#define HD_LEFT_OUT (1ull << 63)

/* A fresh id for an object first reported now (so a class object here has
 * no tag: its class is not in the table). */
static uint64_t hd_new_id(hd_state *s, jlong class_tag, jint length)
{
    if (class_tag <= 0 || (uint64_t)class_tag > s->ncls || (uint32_t)class_tag == s->class_class) {
        s->left_out++;
        return HD_LEFT_OUT | s->left_out;
    }
    uint64_t seq = s->next_id++;
    if (seq >= HD_SAMPLED_BASE)
        s->too_many = true;
    if (length >= 0)
        return (seq & 0xffffffffu) | ((uint64_t)length + 1) << HD_ARRAY_SHIFT;
    return seq;
}

/* The stack-trace serial of the object with this id: its allocation trace
 * for a sampled object (hd_sampled), else the empty trace. */
static uint32_t hd_trace_of(const hd_state *s, uint64_t id)
{
    uint32_t low = (uint32_t)id;
    if (low < HD_SAMPLED_BASE || low - HD_SAMPLED_BASE >= s->nsampled)
        return HD_DUMMY_TRACE;
    return s->sampled_trace[low - HD_SAMPLED_BASE];
}

static void hd_flush(hd_state *s)
{
    if (s->cur == CUR_INSTANCE) {
        const hd_class *c = &s->cls[s->cur_cls - 1];
        hprof_heap_instance(s->out, s->cur_id, hd_trace_of(s, s->cur_id), s->cur_cls, s->values, c->instance_size);
    } else if (s->cur == CUR_OBJ_ARRAY) {
        hprof_heap_obj_array_end(s->out);
    }
    s->cur = CUR_NONE;
}

static void hd_progress(hd_state *s)
{
    uint64_t now = agent_now_ns();
    if (now - s->t0 < 1000000000ull || now - s->last_report < 1000000000ull)
        return;
    s->last_report = now;
    double pct = s->heap_used ? 100.0 * (double)s->bytes / (double)s->heap_used : 0.0;
    fprintf(stderr, "jvmprof: heap dump: %llu objects (%.0f%% of the %llu MB heap in use) written in %.1f s\n",
            (unsigned long long)s->objects, pct > 100 ? 100.0 : pct,
            (unsigned long long)(s->heap_used >> 20), (double)(now - s->t0) / 1e9);
}

/* Makes `id` (of class tag referrer_class) the object being assembled. */
static void hd_start(hd_state *s, uint64_t id, jlong class_tag)
{
    hd_flush(s);
    s->cur_id = id;
    s->cur = CUR_SKIP;
    if (class_tag <= 0 || (uint64_t)class_tag > s->ncls)
        return;  /* not in the class table: left out when it was tagged */
    uint32_t ci = (uint32_t)class_tag;
    if (ci == s->class_class) {
        if (id >= 1 && id <= s->ncls) {
            s->cur = CUR_CLASS;
            s->cur_cls = (uint32_t)id;
        }
        return;
    }
    s->objects++;
    if (s->progress && (s->objects & 0xffff) == 0)
        hd_progress(s);
    const hd_class *c = &s->cls[ci - 1];
    s->cur_cls = ci;
    if (c->kind == HD_INSTANCE) {
        memset(s->values, 0, c->instance_size);
        s->cur = CUR_INSTANCE;
    } else if (c->kind == HD_OBJ_ARRAY) {
        uint64_t len = id >> HD_ARRAY_SHIFT;
        if (len == 0) {   /* not tagged as an array: should not happen */
            s->odd++;
            return;
        }
        hprof_heap_obj_array_begin(s->out, id, hd_trace_of(s, id), (uint32_t)(len - 1), ci);
        s->cur = CUR_OBJ_ARRAY;
    }
    /* primitive arrays: written by the array callback */
}

static void hd_store(unsigned char *at, unsigned size, uint64_t v)
{
    switch (size) {
    case 1: at[0] = (unsigned char)v; break;
    case 2: be_store_u2(at, (uint16_t)v); break;
    case 4: be_store_u4(at, (uint32_t)v); break;
    default: be_store_u8(at, v); break;
    }
}

/* A field value (instance or static) of the current referrer. */
static void hd_field(hd_state *s, bool is_static, jint index, uint64_t v)
{
    if (index < 0)
        return;
    if (s->cur == CUR_INSTANCE && !is_static) {
        const hd_class *c = &s->cls[s->cur_cls - 1];
        if ((uint32_t)index >= c->nindex || c->offset[index] < 0) {
            s->odd++;
            return;
        }
        hd_store(s->values + c->offset[index], hprof_type_size(c->otype[index]), v);
    } else if (s->cur == CUR_CLASS && is_static) {
        hd_class *c = &s->cls[s->cur_cls - 1];
        uint32_t j = (uint32_t)index - c->own_base;
        if ((uint32_t)index < c->own_base || j >= c->nown || !c->own_static[j]) {
            s->odd++;
            return;
        }
        c->static_value[j] = v;
    }
}

static void hd_root(hd_state *s, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, uint64_t id)
{
    hd_thread *t;
    switch (kind) {
    case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
        hprof_heap_root(s->out, HPROF_ROOT_JNI_GLOBAL, id, 0, 0);
        break;
    case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS:
        hprof_heap_root(s->out, HPROF_ROOT_STICKY_CLASS, id, 0, 0);
        break;
    case JVMTI_HEAP_REFERENCE_MONITOR:
        hprof_heap_root(s->out, HPROF_ROOT_MONITOR_USED, id, 0, 0);
        break;
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
        t = hd_thread_find(s, (uint64_t)info->stack_local.thread_tag);
        if (t && t->is_virtual)
            t->seen = true; /* alive, with its stack: its thread object is written after the walk */
        hprof_heap_root(s->out, HPROF_ROOT_JAVA_FRAME, id, t ? t->serial : 0, (uint32_t)info->stack_local.depth);
        break;
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
        t = hd_thread_find(s, (uint64_t)info->jni_local.thread_tag);
        if (info->jni_local.method)
            hprof_heap_root(s->out, HPROF_ROOT_JNI_LOCAL, id, t ? t->serial : 0, (uint32_t)info->jni_local.depth);
        else   /* held by native code with no Java frame */
            hprof_heap_root(s->out, HPROF_ROOT_NATIVE_STACK, id, t ? t->serial : 0, 0);
        break;
    case JVMTI_HEAP_REFERENCE_THREAD:
        t = hd_thread_find(s, id);
        if (t)
            t->seen = true;
        hprof_heap_root(s->out, HPROF_ROOT_THREAD_OBJECT, id, t ? t->serial : 0, t ? t->trace : HD_DUMMY_TRACE);
        break;
    default:
        hprof_heap_root(s->out, HPROF_ROOT_UNKNOWN, id, 0, 0);
        break;
    }
}

static jint JNICALL hd_on_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                    jlong class_tag, jlong referrer_class_tag, jlong size, jlong *tag_ptr,
                                    jlong *referrer_tag_ptr, jint length, void *user)
{
    hd_state *s = user;
    if (*tag_ptr == 0) {
        *tag_ptr = (jlong)hd_new_id(s, class_tag, length);
        s->bytes += (uint64_t)size;
    }
    uint64_t id = (uint64_t)*tag_ptr;
    if (id & HD_LEFT_OUT)
        return 0;   /* not written, not walked through: references to it stay null */
    if (!referrer_tag_ptr) {
        hd_root(s, kind, info, id);
        return JVMTI_VISIT_OBJECTS;
    }
    if (*referrer_tag_ptr == 0 || (*referrer_tag_ptr & (jlong)HD_LEFT_OUT)) {
        s->odd += *referrer_tag_ptr == 0;   /* every referrer was a referree first */
        return JVMTI_VISIT_OBJECTS;
    }
    uint64_t from = (uint64_t)*referrer_tag_ptr;
    if (from != s->cur_id || s->cur == CUR_NONE)
        hd_start(s, from, referrer_class_tag);
    switch (kind) {
    case JVMTI_HEAP_REFERENCE_FIELD:
        hd_field(s, false, info->field.index, id);
        break;
    case JVMTI_HEAP_REFERENCE_STATIC_FIELD:
        hd_field(s, true, info->field.index, id);
        break;
    case JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT:
        if (s->cur == CUR_OBJ_ARRAY)
            hprof_heap_obj_array_element(s->out, (uint32_t)info->array.index, id);
        break;
    case JVMTI_HEAP_REFERENCE_CLASS_LOADER:
        if (s->cur == CUR_CLASS)
            s->cls[s->cur_cls - 1].loader = id;
        break;
    case JVMTI_HEAP_REFERENCE_SIGNERS:
        if (s->cur == CUR_CLASS)
            s->cls[s->cur_cls - 1].signers = id;
        break;
    case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN:
        if (s->cur == CUR_CLASS)
            s->cls[s->cur_cls - 1].domain = id;
        break;
    default:
        break;
    }
    return s->too_many ? JVMTI_VISIT_ABORT : JVMTI_VISIT_OBJECTS;
}

static jint JNICALL hd_on_primitive_field(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                          jlong object_class_tag, jlong *object_tag_ptr, jvalue value,
                                          jvmtiPrimitiveType type, void *user)
{
    hd_state *s = user;
    uint64_t from = (uint64_t)*object_tag_ptr;
    if (from == 0 || (from & HD_LEFT_OUT)) {
        s->odd += from == 0;
        return 0;
    }
    if (from != s->cur_id || s->cur == CUR_NONE)
        hd_start(s, from, object_class_tag);
    uint64_t v;
    switch (type) {
    case JVMTI_PRIMITIVE_TYPE_BOOLEAN: v = value.z; break;
    case JVMTI_PRIMITIVE_TYPE_BYTE: v = (uint8_t)value.b; break;
    case JVMTI_PRIMITIVE_TYPE_CHAR: v = value.c; break;
    case JVMTI_PRIMITIVE_TYPE_SHORT: v = (uint16_t)value.s; break;
    case JVMTI_PRIMITIVE_TYPE_INT: v = (uint32_t)value.i; break;
    case JVMTI_PRIMITIVE_TYPE_FLOAT: { uint32_t b; memcpy(&b, &value.f, 4); v = b; break; }
    case JVMTI_PRIMITIVE_TYPE_DOUBLE: memcpy(&v, &value.d, 8); break;
    default: v = (uint64_t)value.j; break;
    }
    hd_field(s, kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD, info->field.index, v);
    return 0;
}

static jint JNICALL hd_on_array_values(jlong class_tag, jlong size, jlong *tag_ptr, jint count,
                                       jvmtiPrimitiveType type, const void *elements, void *user)
{
    (void)class_tag, (void)size;
    hd_state *s = user;
    uint64_t id = (uint64_t)*tag_ptr;
    if (id == 0 || (id & HD_LEFT_OUT))
        return 0;
    if (id != s->cur_id || s->cur == CUR_NONE)
        hd_start(s, id, class_tag);
    hd_flush(s);
    s->cur = CUR_SKIP;   /* the array is done; later callbacks about it have nothing to add */
    hprof_heap_prim_array(s->out, id, hd_trace_of(s, id), (uint8_t)hprof_type_of_descriptor((char)type),
                          count < 0 ? 0 : (uint32_t)count, elements);
    return 0;
}

/* ---- step 3 and the whole ---- */

static void hd_write_classes(hd_state *s)
{
    hprof_field *statics = NULL, *fields = NULL;
    uint32_t cap = 0;
    for (uint32_t ci = 1; ci <= s->ncls; ci++) {
        const hd_class *c = &s->cls[ci - 1];
        if (c->nown > cap) {
            free(statics);
            free(fields);
            cap = c->nown;
            statics = calloc(cap, sizeof *statics);
            fields = calloc(cap, sizeof *fields);
            if (!statics || !fields) {
                cap = 0;
                continue;
            }
        }
        hprof_class_dump d = { .id = ci, .trace = HD_DUMMY_TRACE, .loader = c->loader, .signers = c->signers,
                               .domain = c->domain, .instance_size = c->instance_size };
        d.super = c->kind == HD_INSTANCE ? c->super
                  : c->kind == HD_PRIMITIVE ? 0 : s->object_class;
        for (uint32_t j = 0; j < c->nown && j < 0xffff; j++) {
            hprof_field f = { c->own_name[j].v, c->own_type[j], c->static_value[j] };
            if (c->own_static[j])
                statics[d.nstatics++] = f;
            else
                fields[d.nfields++] = f;
        }
        d.statics = statics;
        d.fields = fields;
        hprof_heap_class(s->out, &d);
    }
    free(statics);
    free(fields);
}

/* One attempt; *retry is set when a class was loaded meanwhile. */
static jp_status hd_attempt(JNIEnv *jni, bool verbose, const heap_dump_sites *sites, const char *base,
                            const char *shown, bool last, bool *retry, char *tmp, size_t tmplen, char *said,
                            size_t saidlen, char *errbuf, size_t errlen)
{
    hd_state st_, *s = &st_;
    memset(s, 0, sizeof *s);
    s->sites = sites;
    *retry = false;
    JavaVM *vm = NULL;
    if ((*jni)->GetJavaVM(jni, &vm) != 0 ||
        (*vm)->GetEnv(vm, (void **)&s->tags, JVMTI_VERSION_11) != JNI_OK) {
        snprintf(errbuf, errlen, "cannot get a JVMTI environment for the heap dump");
        return JP_ERR_JVMTI;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    jp_status st = JP_OK;
    buf frames;
    buf_init(&frames);
    sink *out = NULL;
    if ((*s->tags)->AddCapabilities(s->tags, &caps) != JVMTI_ERROR_NONE) {
        snprintf(errbuf, errlen, "this JVM cannot tag objects (JVMTI can_tag_objects), which a heap dump needs");
        st = JP_ERR_JVMTI;
        goto done;
    }
    s->strings = model_new();
    if (!s->strings) {
        snprintf(errbuf, errlen, "out of memory");
        st = JP_ERR_NOMEM;
        goto done;
    }
    s->t0 = agent_now_ns();
    (*jni)->PushLocalFrame(jni, 64);
    st = hd_classes(s, jni);
    s->next_id = (uint64_t)s->ncls + 1;
    if (st == JP_OK)
        hd_sampled(s, jni, &frames);
    if (st == JP_OK)
        st = hd_threads(s, jni, &frames);
    (*jni)->PopLocalFrame(jni, NULL);
    if (st != JP_OK) {
        snprintf(errbuf, errlen, "could not read the classes and threads (%s)", jp_status_name(st));
        goto done;
    }
    out = sink_open_temp(base, SINK_PRIVATE, tmp, tmplen, errbuf, errlen);
    if (!out) {
        st = JP_ERR_IO;
        goto done;
    }
    s->out = hprof_heap_begin(out, agent_wall_ms(), HPROF_HEAP_SEGMENT_LIMIT);
    if (!s->out) {
        snprintf(errbuf, errlen, "out of memory");
        st = JP_ERR_NOMEM;
        goto done;
    }
    for (uint32_t i = 1; i <= model_string_count(s->strings); i++) {
        size_t len;
        const char *str = model_string_get(s->strings, (str_id){ i }, &len);
        hprof_heap_utf8(s->out, i, str, len);
    }
    for (uint32_t ci = 1; ci <= s->ncls; ci++)
        hprof_heap_load_class(s->out, ci, ci, HD_DUMMY_TRACE, s->cls[ci - 1].name.v);
    hprof_heap_trace(s->out, HD_DUMMY_TRACE, 0, 0, NULL);
    {
        buf_rd r;
        buf_rd_init(&r, frames.data, frames.len);
        while (r.p < r.end && !r.overrun) {
            uint32_t serial = buf_get_u4(&r), trace = buf_get_u4(&r), nf = buf_get_u4(&r);
            uint64_t ids[HD_MAX_FRAMES];
            for (uint32_t f = 0; f < nf && f < HD_MAX_FRAMES; f++) {
                uint64_t fid = buf_get_u8(&r), name = buf_get_u8(&r), sig = buf_get_u8(&r), src = buf_get_u8(&r);
                uint32_t cls = buf_get_u4(&r), line = buf_get_u4(&r);
                hprof_heap_frame(s->out, fid, name, sig, src, cls, (int32_t)line);
                ids[f] = fid;
            }
            hprof_heap_trace(s->out, trace, serial, nf, ids);
        }
    }
    s->heap_used = heap_dump_heap_in_use(jni); /* for the progress line */
    s->progress = verbose;

    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = hd_on_reference;
    cb.primitive_field_callback = hd_on_primitive_field;
    cb.array_primitive_value_callback = hd_on_array_values;
    jvmtiError err = (*s->tags)->FollowReferences(s->tags, 0, NULL, NULL, &cb, s);
    hd_flush(s);
    /* a virtual thread is no root of the walk's: the thread object of each whose stack it reported */
    for (uint32_t i = 0; i < s->nthreads && err == JVMTI_ERROR_NONE; i++)
        if (s->threads[i].is_virtual && s->threads[i].seen)
            hprof_heap_root(s->out, HPROF_ROOT_THREAD_OBJECT, s->threads[i].tag, s->threads[i].serial,
                            s->threads[i].trace);
    if (err != JVMTI_ERROR_NONE) {
        char *name = NULL;
        (*s->tags)->GetErrorName(s->tags, err, &name);
        snprintf(errbuf, errlen, "the heap walk failed: FollowReferences returned %s", name ? name : "?");
        st = JP_ERR_JVMTI;
        goto done;
    }
    if (s->too_many) {
        snprintf(errbuf, errlen, "the heap holds more than 4 billion objects, more than a dump can number");
        st = JP_ERR_FORMAT;
        goto done;
    }
    bool classes_changed = false;
    if (s->left_out) {
        jint now = 0;
        jclass *cl = NULL;
        if ((*agent_jvmti)->GetLoadedClasses(agent_jvmti, &now, &cl) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < now; i++)
                (*jni)->DeleteLocalRef(jni, cl[i]);
            jvmti_free(cl);
        }
        classes_changed = now != s->classes_before;
        if (classes_changed && !last) {
            *retry = true;
            snprintf(errbuf, errlen, "classes were loaded during the dump (%d before, %d after)",
                     (int)s->classes_before, (int)now);
            st = JP_ERR_FORMAT;
            goto done;
        }
    }
    hd_write_classes(s);
    for (uint32_t i = 0; i < s->nthreads; i++) {
        const hd_thread *t = &s->threads[i];
        if (t->seen)
            hprof_heap_start_thread(s->out, t->serial, t->tag, t->trace, t->name.v, t->group.v, t->parent.v);
    }
    hprof_heap_stats hs;
    st = hprof_heap_end(s->out, &hs);
    s->out = NULL;
    uint64_t bytes = sink_bytes(out);
    /* commit also when the sink failed: it removes the temporary file and says why (ENOSPC ...) */
    jp_status committed = sink_commit(out, errbuf, errlen);
    st = st != JP_OK && committed == JP_OK ? st : committed;
    if (st == JP_OK && verbose)
        heap_dump_said(said, saidlen,
                       "heap dump: wrote %s (%llu bytes: %llu instances, %llu object arrays, %llu primitive arrays, "
                       "%llu classes, %llu roots, %llu segments%s) in %.2f s", shown, (unsigned long long)bytes,
                       (unsigned long long)hs.instances, (unsigned long long)hs.obj_arrays,
                       (unsigned long long)hs.prim_arrays, (unsigned long long)hs.classes,
                       (unsigned long long)hs.roots, (unsigned long long)hs.segments,
                       hs.arrays_cut ? "; some arrays cut to fit a segment" : "",
                       (double)(agent_now_ns() - s->t0) / 1e9);
    if (st != JP_OK && errbuf[0] == '\0')
        snprintf(errbuf, errlen, "cannot write %s: %s", shown, jp_status_name(st));
    if (st == JP_OK && verbose && sites && sites->given)
        heap_dump_said(said, saidlen,
                       "heap dump: %u of heap=sites' %u live sampled objects carry their allocation trace (the "
                       "others died before the dump)%s", s->nsampled, sites->nobjects,
                       sites->failed ? "; out of memory for some of them" : "");
    if (st == JP_OK && s->left_out && verbose)
        heap_dump_said(said, saidlen,
                       "heap dump: left out %llu objects whose class is not loaded (class data sharing's archived "
                       "objects)%s: references to them are written as null", (unsigned long long)s->left_out,
                       classes_changed ? " or was loaded while the dump was being prepared" : "");
    if (s->odd)
        jp_log_debug("heap dump: %llu unexpected callbacks ignored", (unsigned long long)s->odd);
    out = NULL;
done:
    if (s->out)
        hprof_heap_free(s->out);
    if (out)
        sink_abort(out);
    buf_free(&frames);
    free(s->values);
    free(s->threads);
    free(s->sampled_trace);
    free(s->vthread_tags);
    if (s->vthread_class)
        (*jni)->DeleteGlobalRef(jni, s->vthread_class);
    hd_classes_free(s);
    if (s->strings)
        model_free(s->strings);
    /* drops every tag of this dump; the JVM frees its tag table (about 60
     * bytes per object) at its next garbage collection */
    (*s->tags)->DisposeEnvironment(s->tags);
    return st;
}

void heap_dump_name(const char *f, unsigned seq, char *out, size_t len)
{
    const char *n = strstr(f, "%n");
    if (n)
        snprintf(out, len, "%.*s%u%s", (int)(n - f), f, seq, n + 2);
    else if (seq <= 1)
        snprintf(out, len, "%s", f);
    else
        snprintf(out, len, "%s.%u", f, seq - 1);
}

/* Where a dump's temporary goes: beside path, or, when path is a device, a
 * FIFO or a link (written into, not replaced), in $TMPDIR (else /tmp). */
static void hd_temp_base(const char *path, const out_target *t, char *out, size_t len)
{
    const char *dir = getenv("TMPDIR");
    if (t->kind != OUT_DIRECT)
        snprintf(out, len, "%s", path);
    else
        snprintf(out, len, "%s/jvmprof-heap-dump", dir && *dir ? dir : "/tmp");
}

/* The one way a dump in the temporary `tmp` (complete, binary) gets its name `path`: as it is, renamed
 * (a file replaced keeps its mode) or, onto a device or FIFO, copied into it; or, text, as HPROF's ASCII
 * HEAP DUMP after `prefix` (heap=all's report), written 0600 through a temporary of its own. The binary
 * temporary is removed as soon as it is mapped, before the text's own temporary is made, so that a
 * process killed at any point leaves at most one temporary file. Either way tmp is gone afterwards. */
static jp_status hd_publish(const char *tmp, const char *path, const out_target *t, bool text, const void *prefix,
                            size_t prefix_len, char *errbuf, size_t errlen)
{
    jp_status st = JP_ERR_IO;
    if (!text && t->kind != OUT_DIRECT) {
        st = out_file_publish(tmp, path, t, errbuf, errlen);
        if (st != JP_OK)
            unlink(tmp);
        return st;
    }
    size_t len = 0;
    const void *map = file_map(tmp, &len, errbuf, errlen);
    unlink(tmp);
    if (!map)
        return JP_ERR_IO;
    sink *out = sink_open_file(path, SINK_PRIVATE, errbuf, errlen);
    if (out) {
        if (prefix_len)
            sink_write(out, prefix, prefix_len);
        st = JP_OK;
        if (text)
            st = hprof_heap_text_write(map, len, out, errbuf, errlen);
        else
            sink_write(out, map, len);
        if (st == JP_OK)
            st = sink_commit(out, errbuf, errlen);
        else
            sink_abort(out);
    }
    file_unmap(map, len);
    return st;
}

/* Whether a forced collection can run now. At VM death HotSpot has stopped
 * the threads that drive ZGC's and Shenandoah's cycles: asking for one then
 * waits forever (G1, Parallel and Serial collect on the VM thread, which
 * still runs, with ExplicitGCInvokesConcurrent too). HotSpot's own dumper
 * cannot collect first under ZGC either. When the flags cannot be read, no
 * collection at VM death. */
static bool hd_can_collect(void)
{
    if (!__atomic_load_n(&agent_vm_dying, __ATOMIC_ACQUIRE))
        return true;
    int z = vmstructs_flag_bool("UseZGC"), shen = vmstructs_flag_bool("UseShenandoahGC");
    if (z < 0)
        return false;
    return z == 0 && shen != 1;
}

/* A binary dump in a fresh temporary beside `base` (its name in tmp):
 * HotSpot's (dumper=hotspot, the default; the walk when the JVM has no
 * HotSpot dumper and dumper= was not given), or the walk's. A class loaded
 * while the walk was prepared has no id: the walk is taken once more; the
 * second time it is written with those objects left out. Called with
 * hd_serial.lock held. */
static jp_status hd_take(JNIEnv *jni, const agent_options *o, const heap_dump_sites *sites, const char *base,
                         const char *shown, char *tmp, size_t tmplen, char *said, size_t saidlen, char *errbuf,
                         size_t errlen)
{
    jp_status st = JP_OK;
    said[0] = '\0';
    bool with_sites = sites && sites->given;
    if (o->dumper == 'h' && with_sites && o->dumper_named)
        jp_log_info("heap dump: dumper=hotspot gives every object the empty trace; heap=sites' sampled objects carry "
                    "their allocation traces only in jvmprof's own walk (dumper=jvmti, the default with heap=sites)");
    else if (o->dumper == 'h' && with_sites && o->verbose)
        jp_log_info("heap dump: taken by jvmprof's own heap walk (dumper=jvmti), which gives heap=sites' sampled "
                    "objects their allocation traces (HotSpot's dumper cannot)");
    if (o->dumper == 'h' && !(with_sites && !o->dumper_named)) {
        st = heap_dump_hotspot(jni, o, base, shown, tmp, tmplen, said, saidlen, errbuf, errlen);
        if (st != JP_ERR_JVMTI || o->dumper_named)
            return st;
        /* the default, on a JVM without HotSpot's dumper: the walk */
        jp_log_info("heap dump: %s; taking the dump by JVMTI's heap walk (dumper=jvmti)", errbuf);
    }
    /* What HotSpot's dumper writes (live: after a full collection), the walk
     * must find too: without a collection first it followed references into
     * objects only weakly reachable, whose referents a collection clears */
    if (hd_can_collect())
        jvmti_check((*agent_jvmti)->ForceGarbageCollection(agent_jvmti), "ForceGarbageCollection");
    else
        jp_log_info("heap dump: at VM death this collector cannot run a collection first; objects only weakly "
                    "reachable may be in the dump");
    for (int attempt = 0; attempt < 2; attempt++) {
        bool retry = false;
        errbuf[0] = '\0';
        said[0] = '\0';
        st = hd_attempt(jni, o->verbose, with_sites ? sites : NULL, base, shown, attempt == 1, &retry, tmp, tmplen,
                        said, saidlen, errbuf, errlen);
        if (!retry)
            break;
        jp_log_debug("heap dump: taken again: %s", errbuf);
    }
    return st;
}

void heap_dump_next_path(const char *file, char *out, size_t len)
{
    pthread_mutex_lock(&hd_serial.lock);
    heap_dump_name(file, ++hd_serial.sequence, out, len);
    pthread_mutex_unlock(&hd_serial.lock);
}

jp_status heap_dump_write_after(JNIEnv *jni, const agent_options *o, const char *path,
                                const struct heap_dump_sites *sites, const void *prefix, size_t prefix_len,
                                char *errbuf, size_t errlen)
{
    errbuf[0] = '\0';
    /* HPROF ASCII with heap=dump,format=a or heap=all (format=a without heap=dump is the CPU report's format:
     * dumps stay binary); after a report, always */
    bool text = prefix || (o->heap_dump && o->format == 'a');
    pthread_mutex_lock(&hd_serial.lock);
    out_target t;
    jp_status st = out_file_check(path, &t, errbuf, errlen);
    if (st == JP_OK) {
        char base[OUT_FILE_NAME_MAX], tmp[OUT_FILE_NAME_MAX], said[HEAP_DUMP_SAID_MAX];
        hd_temp_base(path, &t, base, sizeof base);
        st = hd_take(jni, o, sites, base, text ? "the binary dump" : path, tmp, sizeof tmp, said, sizeof said,
                     errbuf, errlen);
        if (text) /* the binary dump the text is made from */
            hd_log_said(said);
        if (st == JP_OK)
            st = hd_publish(tmp, path, &t, text, prefix, prefix_len, errbuf, errlen);
        if (st == JP_OK && !text) /* "wrote PATH" only once PATH has it all (a device may refuse it: /dev/full) */
            hd_log_said(said);
        if (st == JP_OK && text && !prefix && o->verbose)
            jp_log_info("heap dump: wrote %s (HPROF ASCII, from the binary dump)", path);
    }
    pthread_mutex_unlock(&hd_serial.lock);
    return st;
}

jp_status heap_dump_write(JNIEnv *jni, const agent_options *o, const char *path, const struct heap_dump_sites *sites,
                          char *errbuf, size_t errlen)
{
    return heap_dump_write_after(jni, o, path, sites, NULL, 0, errbuf, errlen);
}
