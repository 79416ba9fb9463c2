/* gate.c — the callback in-flight counter (see gate.h). Lock-free: one
 * atomic counter and one flag; gate_close polls with short sleeps. */
#include "gate.h"

#include <stdatomic.h>
#include <time.h>

static atomic_int gate_in_flight;
static atomic_bool gate_closed;

bool gate_enter(void)
{
    atomic_fetch_add_explicit(&gate_in_flight, 1, memory_order_acq_rel);
    if (atomic_load_explicit(&gate_closed, memory_order_acquire)) {
        atomic_fetch_sub_explicit(&gate_in_flight, 1, memory_order_acq_rel);
        return false;
    }
    return true;
}

void gate_leave(void) { atomic_fetch_sub_explicit(&gate_in_flight, 1, memory_order_acq_rel); }

bool gate_close(unsigned timeout_ms)
{
    atomic_store_explicit(&gate_closed, true, memory_order_release);
    struct timespec ts = { 0, 1000000 };
    for (unsigned waited = 0; waited < timeout_ms; waited++) {
        if (atomic_load_explicit(&gate_in_flight, memory_order_acquire) == 0)
            return true;
        nanosleep(&ts, NULL);
    }
    return atomic_load_explicit(&gate_in_flight, memory_order_acquire) == 0;
}

void gate_reopen(void) { atomic_store_explicit(&gate_closed, false, memory_order_release); }
