/* eventq.h — the hand-off from collectors (JVMTI callbacks on the program's
 * threads) to the agent thread: a lock-free multi-producer stack. Producers
 * push with one CAS; the agent thread takes everything at once with an
 * atomic exchange (so there is no ABA) and gets it back in push order.
 *
 * eventq owns only an event's header: the link, the function that applies
 * it and the thread it came from. Each module that queues events defines its
 * own struct with the header first and its fields after it (collect_monitor.c's
 * monitor_event, ...), and the apply function, set by that module, knows
 * which struct it was given. Events are malloc'ed by the producer
 * (eventq_new) and freed by the consumer. */
#ifndef EVENTQ_H
#define EVENTQ_H

#include <jni.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../model/model.h"

struct eventq_event;
/* What the agent thread does with an event, set by the module that made it:
 * puts it into the model. True when that module keeps the event (and frees
 * it later), false to have it freed. */
typedef bool (*eventq_apply_fn)(model *m, JNIEnv *jni, struct eventq_event *e);

typedef struct eventq_event {
    struct eventq_event *next;
    eventq_apply_fn apply;
    uint32_t thread;           /* thread serial (0: none) */
} eventq_event;

/* An event of `size` bytes (the module's struct, header first, and whatever
 * follows it), zeroed, with its header set. Returns NULL when out of memory,
 * which the count "events lost (out of memory)" reports. */
eventq_event *eventq_new(size_t size, eventq_apply_fn apply, uint32_t thread);
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
