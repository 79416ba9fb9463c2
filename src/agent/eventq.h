/* eventq.h — the hand-off from collectors (JVMTI callbacks on the program's
 * threads) to the agent thread: a lock-free multi-producer stack. Producers
 * push with one CAS; the agent thread takes everything at once with an
 * atomic exchange (so there is no ABA) and gets it back in push order.
 * Events are malloc'ed by the producer and freed by the consumer. */
#ifndef EVENTQ_H
#define EVENTQ_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

#include "../model/model.h"

typedef enum eventq_kind {
    EVENTQ_THREAD_START,
    EVENTQ_THREAD_END,
    EVENTQ_MONITOR,
    EVENTQ_CODE_LOAD,          /* code_kinds.c: frames[0] = method, then (caller, callee) pairs */
    EVENTQ_CODE_UNLOAD,        /* code_kinds.c: frames[0] = method */
    EVENTQ_ALLOC,              /* alloc_sites.c: a sampled allocation; str[0] = class signature */
    EVENTQ_ALLOC_SITE,         /* alloc_exact.c: a new site; alloc_tag = its entry id, str[0] = class signature */
} eventq_kind;

struct eventq_event;
/* What the agent thread does with an event, set by the module that made it:
 * puts it into the model. True when that module keeps the event (and frees
 * it later), false to have it freed. */
typedef bool (*eventq_apply_fn)(model *m, JNIEnv *jni, struct eventq_event *e);

typedef struct eventq_event {
    struct eventq_event *next;
    eventq_kind kind;
    eventq_apply_fn apply;
    uint32_t thread;           /* thread serial */
    uint64_t duration_ns;      /* EVENTQ_MONITOR: time blocked or waiting */
    const void *code;          /* EVENTQ_CODE_*: the compiled code's address */
    uint64_t alloc_size;       /* EVENTQ_ALLOC: the object's size in bytes */
    uint64_t alloc_tag;        /* EVENTQ_ALLOC: the tag it got (ObjectFree reports it) */
    uint64_t alloc_ns;         /* EVENTQ_ALLOC: when (agent_now_ns) */
    uint64_t alloc_gcs;        /* EVENTQ_ALLOC: garbage collections finished by then */
    const char *str[3];        /* THREAD_START: name, group, parent group; MONITOR: class signature */
    uint32_t nframes;
    jvmtiFrameInfo frames[];   /* MONITOR: where it happened, top first */
} eventq_event;

/* Allocates an event with room for nframes frames and the given strings
 * (copied; NULL allowed). Returns NULL when out of memory. */
eventq_event *eventq_new(eventq_kind kind, eventq_apply_fn apply, uint32_t thread, uint32_t nframes, const char *s0,
                         const char *s1, const char *s2);
/* Agent thread: applies every event taken so far (eventq_take_all, then each
 * one's apply), oldest first, and frees those not kept; the model's count
 * "events lost (out of memory)" says how many could not be made. */
void eventq_apply_all(model *m, JNIEnv *jni);
void eventq_push(eventq_event *e);
/* Between two sessions: frees every event queued and not applied (the next
 * session's model starts empty) and zeroes the count of events lost. */
void eventq_discard(void);
/* Takes all pushed events, oldest first; caller frees each with free(). */
eventq_event *eventq_take_all(void);

#endif
