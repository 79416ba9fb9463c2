/* bci.h — bytecode instrumentation in the agent: the ClassFileLoadHook that
 * runs the class-file rewriter (src/classfile) on each class loaded after
 * VM init (cpu=times: entry/exit calls) and, for alloc_hook=bci, on every
 * class (Object.<init> and array allocations: also the classes loaded
 * before VM init, retransformed then), the rules that pick which methods get entry/exit calls, the
 * registry that maps the method number the injected calls carry back to
 * names, and the jvmprof.Tracker natives and engaged flag. What a session
 * chose is its part (JP_PART_BCI): the functions that set or read it take
 * the session. */
#ifndef BCI_H
#define BCI_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../classfile/classfile.h"
#include "../../common/jp_error.h"

struct jp_session; /* session_ctx.h */

typedef struct bci_class {
    char *name;          /* dotted: java.util.HashMap */
    char *source_file;   /* NULL if unknown */
} bci_class;

typedef struct bci_method {
    const bci_class *cls;
    char *name, *sig;
    uint16_t access;      /* ACC_* flags */
} bci_method;

/* Method numbers are below BCI_IDS (the Tracker's count arrays hold as many). */
#define BCI_IDS (4096u * 16384u)

/* The method with number id, or NULL (not instrumented, or not yet published). */
const bci_method *bci_method_get(uint32_t id);


/* Agent_OnLoad: the Tracker class's methods the injected code calls, and the
 * natives behind them (tracker.h), registered when instrumentation starts. */
void bci_set_tracker(const cf_tracker *spec, const JNINativeMethod *natives, int count);
/* A session's start: natives and module reads (once), engage, start
 * rewriting; with alloc_hook=bci, or in a later session, also retransforms
 * the classes already loaded. */
jp_status bci_vm_init(struct jp_session *s, JNIEnv *jni);
/* A session's stop (the first of its collectors that instrument): rewriting off, the Tracker
 * disengaged, and (unless alloc_hook=bci, or the JVM is dying) the classes restored. */
void bci_vm_death(JNIEnv *jni);
/* The natives behind the Tracker's enter0, exit0 and exitThrow0 that the
 * session's bci_vm_init binds, before it engages the Tracker (cpu=times' or
 * trace=exec's: a session sets its own, so the calls pay no dispatch). */
typedef void(JNICALL *bci_call_fn)(JNIEnv *jni, jclass cls, jint id);
typedef void(JNICALL *bci_this_fn)(JNIEnv *jni, jclass cls, jobject self, jint id);
/* enter_this: Tracker.enterThis0, an instance method's entry with its
 * receiver; receivers: the classes rewritten from then on call enterThis
 * (trace=exec), not enter, at an instance method's entry. */
void bci_use_calls(struct jp_session *s, bci_call_fn enter, bci_call_fn exit, bci_call_fn exit_throw,
                   bci_this_fn enter_this, bool receivers);
/* The Tracker class (a global reference) once the first session set it up, else NULL. */
jclass bci_tracker_class_ref(void);
void JNICALL bci_class_file_load_hook(jvmtiEnv *jv, JNIEnv *jni, jclass redefined, jobject loader, const char *name,
                                      jobject protection_domain, jint len, const unsigned char *data, jint *new_len,
                                      unsigned char **new_data);

/* heap=sites,alloc_count=site: a count after every allocation
 * (collect_alloc_counts.c), in every class but jvmprof's own, the classes loaded
 * before VM init retransformed. class_begin gives a class's context for
 * alloc() (NULL: the class gets no counts), class_end ends it (source_file
 * NULL when the class was left as it was); ready runs once the Tracker is
 * set up (jvmprof.jar found, jdk.internal.misc opened to it), before any
 * class is rewritten. */
typedef struct bci_alloc_counter {
    const cf_alloc_tracker *tracker;
    const char *const *calls;
    void *(*class_begin)(const char *name);
    cf_alloc_fn alloc;
    void (*class_end)(void *ctx, const char *source_file);
    jp_status (*ready)(JNIEnv *jni);
} bci_alloc_counter;
/* The session's load (not called: off). */
void bci_use_alloc_counter(struct jp_session *s, const bci_alloc_counter *c);

typedef struct bci_stats {
    uint64_t classes_seen, classes_rewritten, classes_failed, methods_instrumented, methods_unchanged;
    uint64_t methods_counted;     /* cpu=times: tiny methods given a count call only */
    uint64_t rewrite_ns;
    uint64_t retransformed, retransform_failed, retransform_ns;   /* alloc_hook=bci, at VM init */
    uint64_t alloc_counts;        /* alloc_count=site: counts injected */
} bci_stats;
/* The session's counts (its part's: each session's start at 0); all 0 if it did not instrument. */
void bci_get_stats(struct jp_session *s, bci_stats *out);

#endif
