/* collect_alloc_counts.c — heap=sites,alloc_count=site: every allocation counted
 * exactly per site, without a stack walk.
 *
 * A site is an allocating instruction of a method: new, an array, or a call
 * of one of the VM's allocating natives and intrinsics (clone(),
 * Array.newArray, Unsafe.allocateInstance, Arrays.copyOf of objects ...),
 * numbered when its class is rewritten (bci.c: at load, and by
 * retransformation for the classes loaded before VM init). The count
 * injected after it (java/jvmprof/AllocCounts.java) is an atomic add into
 * this module's memory: per site and stripe of threads, the objects and (for
 * arrays) the bytes; per site and class in a second table where the class is
 * known only at run time. What the VM and JNI code allocate is counted per
 * class by vm_allocs.c. Before each report the agent thread adds up the
 * stripes into the model's counted sites: a depth-1 trace (the site's method
 * and line) and the class; a plain object's bytes are its count times its
 * class's instance size (class_sizes.c). The callers
 * of each site come from the allocation sampler (collect_alloc_sampled.c), which runs
 * beside this and fills the model's sampled sites.
 *
 * The counters, the sites and AllocCounts' classes are the JVM's (cnt_jvm,
 * cnt_sites): the rewritten classes keep their site numbers and addresses.
 * What a report has taken from them so far is the session's part
 * (JP_PART_ALLOC_COUNTS, cnt_state). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../common/jp_log.h"
#include "../../common/pub_table.h"
#include "../core/agent_env.h"
#include "../instrument/bci.h"
#include "../hotspot/class_sizes.h"
#include "../core/collector.h"
#include "../core/gate.h"
#include "../core/jvmti_util.h"
#include "../core/symbols.h"
#include "vm_allocs.h"

/* The layout AllocCounts.java computes its addresses with. */
#define CNT_STRIPES 8u
#define CNT_STRIPE_BYTES (1ul << 26)
#define CNT_SITES ((uint32_t)(CNT_STRIPE_BYTES >> 4)) /* site numbers below this */
#define CNT_DYN_BITS 18
#define CNT_DYN (1u << CNT_DYN_BITS)                  /* entries of 32 bytes: key, objects, bytes, unused */
#define CNT_CLASS_BITS 16

typedef struct cnt_class {
    char *name;                /* internal: java/util/HashMap */
    char *_Atomic source;      /* its SourceFile, set once it is rewritten */
} cnt_class;

typedef struct cnt_site {
    const cnt_class *cls;       /* the allocating method's class */
    const char *method, *sig;  /* shared by a method's sites */
    int32_t line;              /* -1: unknown */
    char *type;                /* the JVM signature of what it makes (Ljava/lang/String; [I); NULL: known when it runs */
    char *owner;               /* clone() by invokespecial: the class it names (internal), else NULL */
} cnt_site;

/* What the rewritten classes and AllocCounts hold on to for the JVM's life
 * (the bytecode injected stays, and alloc_count=site runs only in the session
 * given at load): the counters' memory, the site numbers given, the classes
 * AllocCounts numbered, and the facts measured once at VM init. */
static struct {
    unsigned char *counts, *flags, *dyn; /* mmap'ed once, never unmapped: compiled code holds the addresses */
    atomic_uint given;                   /* site numbers given so far (from 1) */
    pub_table sites;                     /* the sites by number (set up at load, in sites_chunks) */
    _Atomic(pub_slot *) sites_chunks[(CNT_SITES + PUB_CHUNK - 1) / PUB_CHUNK];
    atomic_ullong sites_lost;            /* sites past CNT_SITES, or out of memory: uncounted */
    jlong alignment;                     /* the JVM's object alignment (measured before AllocCounts asks) */
    jmethodID skip[5];                   /* set by cnt_ready, handed to vm_allocs at the start */
    /* AllocCounts' classes by number: signature (NULL unknown) and instance size (-1: an array, or unknown) */
    char *_Atomic class_sig[1u << CNT_CLASS_BITS];
    long class_size[1u << CNT_CLASS_BITS];
} cnt_jvm;

/* ---- the sites, numbered as classes are rewritten ---- */

static const cnt_site *cnt_site_get(uint32_t id) { return id < CNT_SITES ? pub_get(&cnt_jvm.sites, id) : NULL; }

typedef struct cnt_class_ctx {
    cnt_class *cls;
    int last_method;             /* the method index the strings below are of, -1: none */
    const char *method, *sig;
    uint32_t sites;
} cnt_class_ctx;

static void *cnt_class_begin(const char *name)
{
    cnt_class_ctx *x = calloc(1, sizeof *x);
    cnt_class *c = x ? calloc(1, sizeof *c) : NULL;
    char *n = c ? strdup(name) : NULL;
    if (!n) {
        free(c);
        free(x);
        return NULL;
    }
    c->name = n;
    x->cls = c;
    x->last_method = -1;
    return x;
}

static void cnt_class_end(void *vctx, const char *source_file)
{
    cnt_class_ctx *x = vctx;
    if (source_file && source_file[0])
        atomic_store_explicit(&x->cls->source, strdup(source_file), memory_order_release);
    if (!x->sites) { /* nothing refers to it */
        free(x->cls->name);
        free(x->cls);
    }
    free(x);
}

/* The methods whose allocations are counted at their call sites (the JIT
 * replaces their bodies with its intrinsics): their own are not counted. */
static bool cnt_counted_at_calls(const char *cls, const char *name, const char *desc)
{
    if (strcmp(cls, "java/util/Arrays") == 0)
        return (strcmp(name, "copyOf") == 0 && strcmp(desc, "([Ljava/lang/Object;ILjava/lang/Class;)[Ljava/lang/Object;") == 0) ||
               (strcmp(name, "copyOfRange") == 0 &&
                strcmp(desc, "([Ljava/lang/Object;IILjava/lang/Class;)[Ljava/lang/Object;") == 0);
    return strcmp(cls, "jdk/internal/misc/Unsafe") == 0 && strcmp(name, "allocateUninitializedArray0") == 0;
}

/* How a call that allocates in the VM (or in an intrinsic) is counted; SKIP for the others. */
static cf_alloc_how cnt_call_how(const cf_alloc_view *a, uint8_t *flag)
{
    const char *o = a->type, *n = a->name, *d = a->desc;
    if (strcmp(n, "clone") == 0) {
        if (d[0] != '(' || d[1] != ')' || (d[2] != 'L' && d[2] != '[') || a->opcode == 0xb8 /* invokestatic */)
            return CF_ALLOC_SKIP;
        if (o[0] == '[' || (a->opcode == 0xb7 && strcmp(o, "java/lang/Object") == 0))
            return CF_ALLOC_RESULT;        /* always Object.clone */
        *flag = a->opcode == 0xb7 ? 0 : 3; /* invokespecial: asked once per site; else per receiver class */
        return CF_ALLOC_CLONE;
    }
    if (strcmp(o, "java/lang/reflect/Array") == 0) {
        if (strcmp(n, "newArray") == 0 && strcmp(d, "(Ljava/lang/Class;I)Ljava/lang/Object;") == 0)
            return CF_ALLOC_RESULT;
        if (strcmp(n, "multiNewArray") == 0 && strcmp(d, "(Ljava/lang/Class;[I)Ljava/lang/Object;") == 0)
            return CF_ALLOC_RESULT_MULTI;
        return CF_ALLOC_SKIP;
    }
    if (strcmp(o, "jdk/internal/misc/Unsafe") == 0)
        return (strcmp(n, "allocateInstance") == 0 && strcmp(d, "(Ljava/lang/Class;)Ljava/lang/Object;") == 0) ||
                       (strcmp(n, "allocateUninitializedArray0") == 0 &&
                        strcmp(d, "(Ljava/lang/Class;I)Ljava/lang/Object;") == 0)
                   ? CF_ALLOC_RESULT
                   : CF_ALLOC_SKIP;
    if (strcmp(o, "java/util/Arrays") == 0 && cnt_counted_at_calls(o, n, d))
        return CF_ALLOC_RESULT;
    /* reflection's first calls of a constructor (before it makes an accessor in bytecode) */
    if (strcmp(o, "jdk/internal/reflect/NativeConstructorAccessorImpl") == 0 && strcmp(n, "newInstance0") == 0)
        return CF_ALLOC_RESULT;
    return CF_ALLOC_SKIP;
}

/* the names of the calls cnt_call_how may count: the rewriter asks only about these */
static const char *const cnt_calls[] = { "clone", "newArray", "multiNewArray", "allocateInstance",
                                        "allocateUninitializedArray0", "copyOf", "copyOfRange", "newInstance0", NULL };

static uint32_t cnt_alloc(void *vctx, const cf_alloc_view *a, cf_alloc_how *how)
{
    cnt_class_ctx *x = vctx;
    const cf_method_view *m = a->method;
    if (!m->name[0] || cnt_counted_at_calls(x->cls->name, m->name, m->desc))
        return 0;
    cf_alloc_how h = CF_ALLOC_SKIP;
    uint8_t flag = 0;
    char type[520];
    type[0] = 0;
    switch (a->opcode) {
    case 0xbb: /* new */
        h = CF_ALLOC_OBJECT;
        snprintf(type, sizeof type, "L%s;", a->type);
        break;
    case 0xbc: /* newarray */
        switch (a->type[1]) {
        case 'Z': case 'B': h = CF_ALLOC_ARRAY_1; break;
        case 'C': case 'S': h = CF_ALLOC_ARRAY_2; break;
        case 'I': case 'F': h = CF_ALLOC_ARRAY_4; break;
        default: h = CF_ALLOC_ARRAY_8; break;
        }
        snprintf(type, sizeof type, "%s", a->type);
        break;
    case 0xbd: /* anewarray */
        h = CF_ALLOC_ARRAY_REF;
        snprintf(type, sizeof type, "%s", a->type);
        break;
    case 0xc5: /* multianewarray: each level of its own class, counted as they come */
        h = CF_ALLOC_MULTI;
        break;
    default:
        h = cnt_call_how(a, &flag);
        break;
    }
    if (h == CF_ALLOC_SKIP)
        return 0;
    if (x->last_method != m->index) {
        char *mn = strdup(m->name), *ms = strdup(m->desc);
        if (!mn || !ms) {
            free(mn);
            free(ms);
            atomic_fetch_add(&cnt_jvm.sites_lost, 1);
            return 0;
        }
        x->method = mn;
        x->sig = ms;
        x->last_method = m->index;
    }
    uint32_t id = atomic_fetch_add_explicit(&cnt_jvm.given, 1, memory_order_relaxed) + 1;
    cnt_site *s = id < CNT_SITES ? calloc(1, sizeof *s) : NULL;
    if (s) {
        s->cls = x->cls;
        s->method = x->method;
        s->sig = x->sig;
        s->line = a->line;
        s->type = type[0] ? strdup(type) : NULL;
        s->owner = h == CF_ALLOC_CLONE && flag == 0 ? strdup(a->type) : NULL;
    }
    if (!s || (type[0] && !s->type) || (h == CF_ALLOC_CLONE && flag == 0 && !s->owner) || !pub_put(&cnt_jvm.sites, id, s)) {
        if (s) {
            free(s->type);
            free(s->owner);
        }
        free(s);
        atomic_fetch_add(&cnt_jvm.sites_lost, 1);
        return 0;
    }
    if (h == CF_ALLOC_CLONE)
        atomic_store_explicit((_Atomic unsigned char *)&cnt_jvm.flags[id], flag, memory_order_release);
    x->sites++;
    *how = h;
    return id;
}

/* ---- clone(): which calls reach Object.clone ---- */

/* 1 when the first class from k up that declares a concrete clone() is java.lang.Object, 2 when another is. */
static jbyte cnt_clone_from(JNIEnv *jni, jclass k)
{
    jvmtiEnv *jv = agent_jvmti;
    jclass cur = (*jni)->NewLocalRef(jni, k);
    while (cur) {
        char *csig = NULL;
        bool object = (*jv)->GetClassSignature(jv, cur, &csig, NULL) == JVMTI_ERROR_NONE && csig &&
                      strcmp(csig, "Ljava/lang/Object;") == 0;
        jvmti_free(csig);
        jint n = 0;
        jmethodID *ms = NULL;
        bool found = false;
        if ((*jv)->GetClassMethods(jv, cur, &n, &ms) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < n && !found; i++) {
                char *name = NULL, *sig = NULL;
                jint mods = 0;
                if ((*jv)->GetMethodName(jv, ms[i], &name, &sig, NULL) == JVMTI_ERROR_NONE && name && sig &&
                    strcmp(name, "clone") == 0 && sig[0] == '(' && sig[1] == ')' &&
                    (*jv)->GetMethodModifiers(jv, ms[i], &mods) == JVMTI_ERROR_NONE && !(mods & 0x0400 /* abstract */))
                    found = true;
                jvmti_free(name);
                jvmti_free(sig);
            }
            jvmti_free(ms);
        }
        if (found) {
            (*jni)->DeleteLocalRef(jni, cur);
            return object ? 1 : 2;
        }
        jclass up = (*jni)->GetSuperclass(jni, cur);
        (*jni)->DeleteLocalRef(jni, cur);
        cur = up;
    }
    return 1;
}

static jbyte JNICALL cnt_clone_class0(JNIEnv *jni, jclass self, jclass c)
{
    (void)self;
    return c ? cnt_clone_from(jni, c) : 2;
}

/* invokespecial Owner.clone(): resolved from Owner, a superclass of the receiver's class */
static jbyte JNICALL cnt_clone_site0(JNIEnv *jni, jclass self, jobject receiver, jint site)
{
    (void)self;
    const cnt_site *s = cnt_site_get((uint32_t)site);
    if (!s || !s->owner || !receiver)
        return 2;
    char want[600];
    snprintf(want, sizeof want, "L%s;", s->owner);
    jclass k = (*jni)->GetObjectClass(jni, receiver);
    while (k) {
        char *sig = NULL;
        bool hit = (*agent_jvmti)->GetClassSignature(agent_jvmti, k, &sig, NULL) == JVMTI_ERROR_NONE && sig &&
                   strcmp(sig, want) == 0;
        jvmti_free(sig);
        if (hit) {
            jbyte f = cnt_clone_from(jni, k);
            (*jni)->DeleteLocalRef(jni, k);
            atomic_store_explicit((_Atomic unsigned char *)&cnt_jvm.flags[site], (unsigned char)f, memory_order_release);
            return f;
        }
        jclass up = (*jni)->GetSuperclass(jni, k);
        (*jni)->DeleteLocalRef(jni, k);
        k = up;
    }
    return 2; /* an override returned an object of another class: not Object.clone's */
}

static jlong JNICALL cnt_alignment0(JNIEnv *jni, jclass self) { (void)jni; (void)self; return cnt_jvm.alignment; }
static jlong JNICALL cnt_counts0(JNIEnv *jni, jclass self) { (void)jni; (void)self; return (jlong)(uintptr_t)cnt_jvm.counts; }
static jlong JNICALL cnt_flags0(JNIEnv *jni, jclass self) { (void)jni; (void)self; return (jlong)(uintptr_t)cnt_jvm.flags; }
static jlong JNICALL cnt_dyn0(JNIEnv *jni, jclass self) { (void)jni; (void)self; return (jlong)(uintptr_t)cnt_jvm.dyn; }

/* ---- the classes of the sites known when they run ---- */


/* AllocCounts, on the program's thread, the first time a class is counted at a dynamic site */
static void JNICALL cnt_class_added0(JNIEnv *jni, jclass self, jint n, jclass c)
{
    (void)self;
    if (n <= 0 || n > (jint)(1u << CNT_CLASS_BITS) || !c || atomic_load(&cnt_jvm.class_sig[n - 1]))
        return;
    char *sig = NULL;
    if ((*agent_jvmti)->GetClassSignature(agent_jvmti, c, &sig, NULL) == JVMTI_ERROR_NONE && sig) {
        cnt_jvm.class_size[n - 1] = sig[0] == 'L' ? class_sizes_of(jni, c) : -1;
        atomic_store_explicit(&cnt_jvm.class_sig[n - 1], strdup(sig), memory_order_release);
    }
    jvmti_free(sig);
}

/* ---- into the model ---- */

/* A session's part (agent thread only): what each counter held at the last
 * report, to add only what came since. */
typedef struct cnt_state {
    const agent_options *opts;  /* the session's */
    uint64_t (*prev)[2];        /* [site]: objects, bytes */
    uint64_t (*now)[2];         /* [site]: the same, summed over the stripes for this report */
    site_id *msite;             /* [site]: its model site, 0 not made yet */
    uint32_t prev_cap;
    uint64_t (*dyn_prev)[2];    /* [entry] */
    site_id *dyn_msite;
    uint64_t vm_prev[VM_ALLOCS_CLASSES][2];
    site_id vm_msite[VM_ALLOCS_CLASSES];
    uint64_t total_objs, vm_objs;
} cnt_state;

/* What a pair of counters (objects, bytes) gained since prev, which moves up
 * to them; false, prev kept, when no object was counted (an array's bytes
 * may not be in yet: they come with its next count). */
static bool cnt_gained(uint64_t prev[2], uint64_t objs, uint64_t bytes, uint64_t *d_objs, uint64_t *d_bytes)
{
    *d_objs = objs - prev[0];
    *d_bytes = bytes - prev[1];
    if (!*d_objs)
        return false;
    prev[0] = objs;
    prev[1] = bytes;
    return true;
}

static bool cnt_grow(cnt_state *st, uint32_t n)
{
    if (n <= st->prev_cap)
        return true;
    uint32_t cap = st->prev_cap ? st->prev_cap : 4096;
    while (cap < n)
        cap *= 2;
    uint64_t(*p)[2] = realloc(st->prev, cap * sizeof *p);
    if (!p)
        return false;
    st->prev = p;
    p = realloc(st->now, cap * sizeof *p);
    if (!p)
        return false;
    st->now = p;
    site_id *q = realloc(st->msite, cap * sizeof *q);
    if (!q)
        return false;
    st->msite = q;
    memset(st->prev + st->prev_cap, 0, (cap - st->prev_cap) * sizeof *st->prev);
    memset(st->msite + st->prev_cap, 0, (cap - st->prev_cap) * sizeof *st->msite);
    st->prev_cap = cap;
    return true;
}

/* The counted site of site s (its method and line) allocating class sig ("" for "not recorded"). */
static site_id cnt_model_site(const cnt_state *st, model *m, const cnt_site *s, const char *sig)
{
    char cname[1024], owner[1024];
    symbols_class_name(sig[0] ? sig : "L(class not recorded);", cname, sizeof cname);
    char osig[1100]; /* symbols_class_name reads a signature: L...; around the internal name */
    snprintf(osig, sizeof osig, "L%s;", s->cls->name);
    symbols_class_name(osig, owner, sizeof owner);
    const char *src = atomic_load_explicit(&((cnt_class *)s->cls)->source, memory_order_acquire);
    class_id oc = model_class_intern(m, model_cstring(m, owner), src ? model_cstring(m, src) : (str_id){ 0 });
    method_id me = model_method_intern(m, oc, model_cstring(m, s->method), model_cstring(m, s->sig));
    int32_t line = st->opts->lineno ? (s->line > 0 ? s->line : FRAME_LINE_UNKNOWN) : FRAME_LINE_UNKNOWN;
    frame_id f = model_frame_intern(m, me, line);
    trace_id t = model_trace_intern(m, 0, &f, 1);
    class_id c = model_class_intern(m, model_cstring(m, cname), (str_id){ 0 });
    return model_site_intern_counted(m, t, c, sig[0] == '[');
}

/* The signature and (instances) size of the class numbered n in AllocCounts' table ("" unknown). */
static const char *cnt_dyn_class(uint32_t n, long *size)
{
    *size = -1;
    const char *sig = n && n <= (1u << CNT_CLASS_BITS) ? atomic_load_explicit(&cnt_jvm.class_sig[n - 1], memory_order_acquire)
                                                       : NULL;
    if (!sig)
        return "";
    *size = cnt_jvm.class_size[n - 1];
    return sig;
}

static void cnt_add(cnt_state *st, model *m, site_id id, uint64_t objs, uint64_t bytes)
{
    model_site_alloc(m, id, (double)objs, (double)bytes, false);
    st->total_objs += objs;
}

static void cnt_before_report(jp_session *session, JNIEnv *jni)
{
    model *m = session->model;
    cnt_state *st = session_part_if(session, JP_PART_ALLOC_COUNTS);
    if (!cnt_jvm.counts || !st)
        return;
    m->sites_counted = true;
    uint32_t n = atomic_load(&cnt_jvm.given) + 1;
    if (n > CNT_SITES)
        n = CNT_SITES;
    if (!cnt_grow(st, n)) {
        jp_log_error("alloc_count=site: out of memory for the report's counts");
        return;
    }
    /* the sites' totals now; the instance sizes of the plain objects' classes of those that counted
     * since the last report, asked for first, then found at once */
    for (uint32_t id = 1; id < n; id++) {
        const cnt_site *s = cnt_site_get(id);
        uint64_t objs = 0, bytes = 0;
        for (uint32_t k = 0; s && k < CNT_STRIPES; k++) {
            const _Atomic uint64_t *p = (const _Atomic uint64_t *)(cnt_jvm.counts + k * CNT_STRIPE_BYTES + ((size_t)id << 4));
            objs += atomic_load_explicit(p, memory_order_relaxed);
            bytes += atomic_load_explicit(p + 1, memory_order_relaxed);
        }
        st->now[id][0] = objs;
        st->now[id][1] = bytes;
        if (objs != st->prev[id][0] && s->type && s->type[0] == 'L')
            class_sizes_by_name(s->type);
    }
    class_sizes_resolve(jni);
    for (uint32_t id = 1; id < n; id++) {
        uint64_t d_objs, d_bytes;
        if (!cnt_gained(st->prev[id], st->now[id][0], st->now[id][1], &d_objs, &d_bytes))
            continue;
        const cnt_site *s = cnt_site_get(id);
        if (s->type && s->type[0] == 'L') {
            long size = class_sizes_by_name(s->type);
            d_bytes = size > 0 ? d_objs * (uint64_t)size : 0;
        }
        if (!st->msite[id].v)
            st->msite[id] = cnt_model_site(st, m, s, s->type ? s->type : "");
        cnt_add(st, m, st->msite[id], d_objs, d_bytes);
    }
    /* the sites whose class is known when they run */
    if (!st->dyn_prev) {
        st->dyn_prev = calloc(CNT_DYN, sizeof *st->dyn_prev);
        st->dyn_msite = calloc(CNT_DYN, sizeof *st->dyn_msite);
    }
    for (uint32_t i = 0; st->dyn_prev && st->dyn_msite && i < CNT_DYN; i++) {
        const _Atomic uint64_t *e = (const _Atomic uint64_t *)(cnt_jvm.dyn + ((size_t)i << 5));
        uint64_t key = atomic_load_explicit(e, memory_order_acquire);
        if (!key)
            continue;
        uint64_t d_objs, d_bytes;
        if (!cnt_gained(st->dyn_prev[i], atomic_load_explicit(e + 1, memory_order_relaxed),
                        atomic_load_explicit(e + 2, memory_order_relaxed), &d_objs, &d_bytes))
            continue;
        const cnt_site *s = cnt_site_get((uint32_t)(key >> CNT_CLASS_BITS));
        if (!s)
            continue;
        long size;
        const char *sig = cnt_dyn_class((uint32_t)(key & ((1u << CNT_CLASS_BITS) - 1)), &size);
        if (sig[0] == 'L')
            d_bytes = size > 0 ? d_objs * (uint64_t)size : 0;
        if (!st->dyn_msite[i].v)
            st->dyn_msite[i] = cnt_model_site(st, m, s, sig);
        cnt_add(st, m, st->dyn_msite[i], d_objs, d_bytes);
    }
    /* what the VM and JNI allocated: per class and caller (its one frame), or with no frame */
    for (uint32_t i = 0; i < VM_ALLOCS_CLASSES; i++) {
        uint64_t objs, bytes;
        jmethodID caller = NULL;
        jlocation where = -1;
        const char *sig = vm_allocs_entry(session, i, &objs, &bytes, &caller, &where);
        uint64_t d_objs, d_bytes;
        if (!sig || !cnt_gained(st->vm_prev[i], objs, bytes, &d_objs, &d_bytes))
            continue;
        if (!st->vm_msite[i].v) {
            char cname[1024];
            symbols_class_name(sig, cname, sizeof cname);
            class_id c = model_class_intern(m, model_cstring(m, cname), (str_id){ 0 });
            frame_id f = caller ? symbols_frame(m, jni, caller, where, st->opts->lineno) : (frame_id){ 0 };
            trace_id t = model_trace_intern(m, 0, &f, f.v ? 1 : 0);
            st->vm_msite[i] = model_site_intern_counted(m, t, c, sig[0] == '[');
        }
        cnt_add(st, m, st->vm_msite[i], d_objs, d_bytes);
        st->vm_objs += d_objs;
    }
    model_count_set(m, "alloc_count=site: allocation sites not counted (out of site numbers or memory)",
                    atomic_load(&cnt_jvm.sites_lost));
    model_count_set(m, "alloc_count=site: VM allocations not counted (too many classes)", vm_allocs_lost(session));
}

/* ---- the collector ---- */


static const cf_alloc_tracker cnt_tracker = {
    "jvmprof/AllocCounts",
    { [CF_ALLOC_OBJECT] = "newObject", [CF_ALLOC_ARRAY_1] = "newArray1", [CF_ALLOC_ARRAY_2] = "newArray2",
      [CF_ALLOC_ARRAY_4] = "newArray4", [CF_ALLOC_ARRAY_8] = "newArray8", [CF_ALLOC_ARRAY_REF] = "newArrayRef",
      [CF_ALLOC_MULTI] = "allocatedMulti", [CF_ALLOC_RESULT] = "allocated", [CF_ALLOC_RESULT_MULTI] = "allocatedMulti",
      [CF_ALLOC_CLONE] = "cloned" },
};

/* The JVM's object alignment: the step between the sizes of byte arrays as they grow. */
static jlong cnt_measure_alignment(JNIEnv *jni)
{
    jlong first = -1;
    for (jint len = 1; len <= 64; len++) {
        jbyteArray a = (*jni)->NewByteArray(jni, len);
        jlong sz = -1;
        if (!a || (*agent_jvmti)->GetObjectSize(agent_jvmti, a, &sz) != JVMTI_ERROR_NONE) {
            (*jni)->ExceptionClear(jni);
            return 8;
        }
        (*jni)->DeleteLocalRef(jni, a);
        if (first < 0)
            first = sz;
        else if (sz != first)
            return sz - first;
    }
    return 8;
}

static jmethodID cnt_method(JNIEnv *jni, const char *cls, const char *name, const char *sig, bool is_static)
{
    jclass c = (*jni)->FindClass(jni, cls);
    jmethodID m = c ? (is_static ? (*jni)->GetStaticMethodID(jni, c, name, sig) : (*jni)->GetMethodID(jni, c, name, sig))
                    : NULL;
    if (!m) {
        (*jni)->ExceptionClear(jni);
        jp_log_debug("alloc_count=site: %s.%s%s not found", cls, name, sig);
    }
    if (c)
        (*jni)->DeleteLocalRef(jni, c);
    return m;
}

/* bci.c, once the Tracker is set up: AllocCounts' natives, and its holder
 * initialized here, before any class is rewritten (its set-up allocates,
 * and would otherwise run in the first thread that counts). */
static jp_status cnt_ready(JNIEnv *jni)
{
    cnt_jvm.alignment = cnt_measure_alignment(jni);
    jmethodID *skip = cnt_jvm.skip; /* VMObjectAlloc from these is counted at their calls */
    skip[0] = cnt_method(jni, "java/lang/Object", "clone", "()Ljava/lang/Object;", false);
    skip[1] = cnt_method(jni, "jdk/internal/misc/Unsafe", "allocateInstance", "(Ljava/lang/Class;)Ljava/lang/Object;",
                           false);
    skip[2] = cnt_method(jni, "java/lang/reflect/Array", "newArray", "(Ljava/lang/Class;I)Ljava/lang/Object;", true);
    skip[3] = cnt_method(jni, "java/lang/reflect/Array", "multiNewArray", "(Ljava/lang/Class;[I)Ljava/lang/Object;",
                           true);
    skip[4] = cnt_method(jni, "jdk/internal/reflect/NativeConstructorAccessorImpl", "newInstance0",
                           "(Ljava/lang/reflect/Constructor;[Ljava/lang/Object;)Ljava/lang/Object;", true);
    jclass c = (*jni)->FindClass(jni, "jvmprof/AllocCounts");
    if (!c) {
        (*jni)->ExceptionClear(jni);
        return jp_error(JP_ERR_JVMTI, "alloc_count=site needs jvmprof.jar beside libjvmprof.so; class "
                                      "jvmprof.AllocCounts not found");
    }
    static const JNINativeMethod natives[] = {
        { (char *)"alignment0", (char *)"()J", (void *)cnt_alignment0 },
        { (char *)"counts0", (char *)"()J", (void *)cnt_counts0 },
        { (char *)"flags0", (char *)"()J", (void *)cnt_flags0 },
        { (char *)"dyn0", (char *)"()J", (void *)cnt_dyn0 },
        { (char *)"cloneSite0", (char *)"(Ljava/lang/Object;I)B", (void *)cnt_clone_site0 },
        { (char *)"cloneClass0", (char *)"(Ljava/lang/Class;)B", (void *)cnt_clone_class0 },
        { (char *)"classAdded0", (char *)"(ILjava/lang/Class;)V", (void *)cnt_class_added0 },
    };
    if ((*jni)->RegisterNatives(jni, c, natives, (jint)(sizeof natives / sizeof natives[0])) != 0) {
        (*jni)->ExceptionClear(jni);
        return jp_error(JP_ERR_JVMTI, "cannot register jvmprof.AllocCounts' natives");
    }
    class_sizes_init(jni); /* before any thread asks */
    jmethodID ready = (*jni)->GetStaticMethodID(jni, c, "ready", "()Z");
    jboolean ok = ready ? (*jni)->CallStaticBooleanMethod(jni, c, ready) : JNI_FALSE;
    if ((*jni)->ExceptionCheck(jni))
        (*jni)->ExceptionClear(jni);
    (*jni)->DeleteLocalRef(jni, c);
    if (!ok)
        return jp_error(JP_ERR_JVMTI, "jvmprof.AllocCounts cannot count (jdk.internal.misc.Unsafe not open to it, "
                                      "or jvmprof.jar does not match the agent)");
    return JP_OK;
}

static const bci_alloc_counter cnt_counter = {
    &cnt_tracker, cnt_calls, cnt_class_begin, cnt_alloc, cnt_class_end, cnt_ready,
};

static bool cnt_wanted(const agent_options *o) { return options_alloc_counted(o); }

static jp_status cnt_capabilities(jp_session *session, jvmtiCapabilities *caps)
{
    (void)session;
    caps->can_retransform_classes = 1;
    caps->can_retransform_any_class = 1;
    caps->can_generate_vm_object_alloc_events = 1;
    caps->can_generate_all_class_hook_events = 1;
    return JP_OK;
}

static void cnt_callbacks(jvmtiEventCallbacks *cb)
{
    cb->VMObjectAlloc = vm_allocs_object;
    cb->ClassFileLoadHook = bci_class_file_load_hook;
}

/* Agent_OnLoad: the counters' memory, reserved (pages come as sites count), and the hook registered. */
static jp_status cnt_load(jp_session *session, char *err, size_t errlen)
{
    (void)session;
    (void)err, (void)errlen;
    if (!cnt_jvm.counts) {
        void *c = mmap(NULL, CNT_STRIPES * CNT_STRIPE_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        void *f = c == MAP_FAILED ? MAP_FAILED
                                  : mmap(NULL, CNT_SITES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                                         -1, 0);
        void *d = f == MAP_FAILED ? MAP_FAILED
                                  : mmap(NULL, (size_t)CNT_DYN << 5, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (d == MAP_FAILED)
            return jp_error(JP_ERR_NOMEM, "alloc_count=site: cannot reserve memory for the counts");
        cnt_jvm.counts = c;
        cnt_jvm.flags = f;
        cnt_jvm.dyn = d;
        cnt_jvm.sites = (pub_table){ cnt_jvm.sites_chunks, (uint32_t)(sizeof cnt_jvm.sites_chunks / sizeof cnt_jvm.sites_chunks[0]) };
    }
    bci_use_alloc_counter(session, &cnt_counter);
    return JP_OK;
}

static jp_status cnt_start(jp_session *session, JNIEnv *jni)
{
    cnt_state *p = session_part(session, JP_PART_ALLOC_COUNTS, sizeof(cnt_state));
    if (!p)
        return jp_error(JP_ERR_NOMEM, "alloc_count=site: out of memory");
    p->opts = session->opts;
    jp_status st = jvmti_event(JVMTI_EVENT_VM_OBJECT_ALLOC, true);
    if (st == JP_OK)
        st = bci_vm_init(session, jni);
    if (st == JP_OK)
        st = vm_allocs_start(session, jni, cnt_jvm.skip, (int)(sizeof cnt_jvm.skip / sizeof cnt_jvm.skip[0]));
    return st;
}

static void cnt_describe(jp_session *session)
{
    const cnt_state *st = session_part_if(session, JP_PART_ALLOC_COUNTS);
    bci_stats b;
    bci_get_stats(session, &b);
    jp_log_info("alloc_count=site: %llu sites in %llu classes rewritten (%llu failed, %llu methods left as they were) "
                "in %.1f ms; %llu classes loaded before VM init retransformed in %.1f ms; %llu objects counted, %llu "
                "of them allocated by the VM itself",
                (unsigned long long)b.alloc_counts, (unsigned long long)b.classes_rewritten,
                (unsigned long long)b.classes_failed, (unsigned long long)b.methods_unchanged,
                (double)b.rewrite_ns / 1e6, (unsigned long long)b.retransformed, (double)b.retransform_ns / 1e6,
                (unsigned long long)(st ? st->total_objs : 0), (unsigned long long)(st ? st->vm_objs : 0));
}

static void cnt_stop(jp_session *session, JNIEnv *jni)
{
    (void)session;
    jvmti_event(JVMTI_EVENT_VM_OBJECT_ALLOC, false);
    bci_vm_death(jni);
}

/* After the session's last report (no callback in flight): the VM's
 * allocations are counted no more, and what the part points to is freed
 * (the session frees the part). The counters stay, with the code that
 * counts into them. */
static void cnt_end(jp_session *session, JNIEnv *jni)
{
    (void)jni;
    vm_allocs_end(session);
    cnt_state *st = session_part_if(session, JP_PART_ALLOC_COUNTS);
    if (!st)
        return;
    free(st->prev);
    free(st->now);
    free(st->msite);
    free(st->dyn_prev);
    free(st->dyn_msite);
}

const collector alloc_counts_collector = {
    .name = "heap=sites,alloc_count=site",
    .engine = "bytecode instrumentation",
    .at_load_only = "its counts are injected into every class, those loaded before VM init retransformed then; it "
                    "cannot be set up in a running JVM yet",
    .wanted = cnt_wanted,
    .capabilities = cnt_capabilities,
    .callbacks = cnt_callbacks,
    .load = cnt_load,
    .start = cnt_start,
    .before_report = cnt_before_report,
    .describe = cnt_describe,
    .stop = cnt_stop,
    .end = cnt_end,
};
