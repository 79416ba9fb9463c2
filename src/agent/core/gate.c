/* gate.c — the callback in-flight counter (see gate.h). Lock-free: one
 * atomic counter and one flag; gate_close polls with short sleeps. */
#include "gate.h"

#include <stdatomic.h>
#include <time.h>

/* The callbacks in flight and whether new ones are turned away. Global: the
 * JVMTI callbacks, the hooks and the signal-free paths that enter it get no
 * session, and it outlives each one (a session closes and reopens it; VM
 * death closes it for good). */
static struct {
    atomic_int in_flight;
    atomic_bool closed;
} gate;

bool gate_enter(void)
{
    atomic_fetch_add_explicit(&gate.in_flight, 1, memory_order_acq_rel);
    if (atomic_load_explicit(&gate.closed, memory_order_acquire)) {
        atomic_fetch_sub_explicit(&gate.in_flight, 1, memory_order_acq_rel);
        return false;
    }
    return true;
}

void gate_leave(void) { atomic_fetch_sub_explicit(&gate.in_flight, 1, memory_order_acq_rel); }

bool gate_close(unsigned timeout_ms)
{
    atomic_store_explicit(&gate.closed, true, memory_order_release);
    struct timespec ts = { 0, 1000000 };
    for (unsigned waited = 0; waited < timeout_ms; waited++) {
        if (atomic_load_explicit(&gate.in_flight, memory_order_acquire) == 0)
            return true;
        nanosleep(&ts, NULL);
    }
    return atomic_load_explicit(&gate.in_flight, memory_order_acquire) == 0;
}

void gate_reopen(void) { atomic_store_explicit(&gate.closed, false, memory_order_release); }
