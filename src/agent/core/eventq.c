/* eventq.c — lock-free MPSC hand-off of events (see eventq.h). */
#include "eventq.h"

#include <stdatomic.h>
#include <stdlib.h>

/* The queue: global because its producers are JVMTI callbacks and hooks on
 * the program's threads, which get no session; it is emptied between
 * sessions (eventq_discard) but lives as long as the JVM. */
static struct {
    _Atomic(eventq_event *) head;
    _Atomic uint64_t lost;   /* events that could not be made: out of memory */
} eventq;

eventq_event *eventq_new(size_t size, eventq_apply_fn apply, uint32_t thread)
{
    eventq_event *e = size >= sizeof *e ? calloc(1, size) : NULL;
    if (!e) {
        atomic_fetch_add_explicit(&eventq.lost, 1, memory_order_relaxed);
        return NULL;
    }
    e->apply = apply;
    e->thread = thread;
    return e;
}

void eventq_push(eventq_event *e)
{
    eventq_event *old = atomic_load_explicit(&eventq.head, memory_order_relaxed);
    do {
        e->next = old;
    } while (!atomic_compare_exchange_weak_explicit(&eventq.head, &old, e, memory_order_release,
                                                    memory_order_relaxed));
}

eventq_event *eventq_take_all(void)
{
    eventq_event *e = atomic_exchange_explicit(&eventq.head, NULL, memory_order_acquire);
    eventq_event *fifo = NULL;
    while (e) {
        eventq_event *next = e->next;
        e->next = fifo;
        fifo = e;
        e = next;
    }
    return fifo;
}

void eventq_apply_all(model *m, JNIEnv *jni)
{
    model_count_set(m, "events lost (out of memory)", atomic_load_explicit(&eventq.lost, memory_order_relaxed));
    eventq_event *e = eventq_take_all();
    while (e) {
        eventq_event *next = e->next;
        if (!e->apply || !e->apply(m, jni, e))
            free(e);
        e = next;
    }
}

void eventq_discard(void)
{
    eventq_event *e = eventq_take_all();
    while (e) {
        eventq_event *next = e->next;
        free(e);
        e = next;
    }
    atomic_store_explicit(&eventq.lost, 0, memory_order_relaxed);
}
