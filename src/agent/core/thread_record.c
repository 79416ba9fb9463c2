/* thread_record.c — the per-thread record's storage and its begin and end
 * (see thread_record.h for the rules). Both run on the thread itself; a
 * signal handler that interrupts them sees each field either before or after
 * its store, never a record of another thread. */
#include "thread_record.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A dlopen'ed library's initial-exec TLS (all of its TLS, once any of it is)
 * comes from the surplus glibc reserves in every thread's static TLS block
 * at start-up, a few hundred bytes shared by every library loaded late. */
_Static_assert(sizeof(thread_record) <= 128, "thread_record lives in static TLS: keep it small");

/* Each thread's own record: thread-local, so the thread and the signal handlers that interrupt it read it
 * with no call and no lock; it begins and ends with the thread, whatever the sessions. */
_Thread_local thread_record thread_record_self __attribute__((tls_model("initial-exec")));

void thread_record_begin(uint32_t serial, uint32_t tid, JNIEnv *jni)
{
    thread_record_self.adopted = false;
    thread_record_self.ended = false;
    thread_record_self.serial = serial;
    thread_record_self.tid = tid;
    atomic_signal_fence(memory_order_seq_cst);
    thread_record_self.jni = jni;
    atomic_signal_fence(memory_order_seq_cst);
}

void thread_record_end(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    memset(&thread_record_self, 0, sizeof thread_record_self);
    thread_record_self.ended = true;
    atomic_signal_fence(memory_order_seq_cst);
}

/* ---- threads registered from outside ----
 * A slot is claimed by a CAS of its tid from 0 to THREAD_RECORD_CLAIMED,
 * filled, then published by a release store of the tid; a reader that finds
 * its tid there reads the rest after an acquire load. */
#define THREAD_RECORD_FOREIGN 256u
#define THREAD_RECORD_CLAIMED UINT32_MAX
/* Global: a thread registered from outside keeps its slot for as long as it
 * lives, across sessions, and the thread itself finds it with no session in
 * hand (thread_record_adopt, from a signal handler's path). */
static struct {
    _Atomic uint32_t tid;
    uint32_t serial;
    JNIEnv *jni;
} thread_record_foreigners[THREAD_RECORD_FOREIGN];

bool thread_record_foreign(uint32_t tid, uint32_t serial, JNIEnv *jni)
{
    if (tid == 0 || tid == THREAD_RECORD_CLAIMED)
        return false;
    thread_record_foreign_forget(tid); /* a stale entry of a thread whose id was reused */
    for (uint32_t i = 0; i < THREAD_RECORD_FOREIGN; i++) {
        uint32_t free_slot = 0;
        if (atomic_compare_exchange_strong(&thread_record_foreigners[i].tid, &free_slot, THREAD_RECORD_CLAIMED)) {
            thread_record_foreigners[i].serial = serial;
            thread_record_foreigners[i].jni = jni;
            atomic_store_explicit(&thread_record_foreigners[i].tid, tid, memory_order_release);
            return true;
        }
    }
    return false;
}

void thread_record_foreign_forget(uint32_t tid)
{
    for (uint32_t i = 0; tid && i < THREAD_RECORD_FOREIGN; i++) {
        uint32_t t = tid;
        atomic_compare_exchange_strong(&thread_record_foreigners[i].tid, &t, 0);
    }
}

bool thread_record_adopt(void)
{
    uint32_t me = (uint32_t)syscall(SYS_gettid);
    for (uint32_t i = 0; i < THREAD_RECORD_FOREIGN; i++) {
        if (atomic_load_explicit(&thread_record_foreigners[i].tid, memory_order_acquire) != me)
            continue;
        thread_record_self.adopted = true;
        thread_record_self.serial = thread_record_foreigners[i].serial;
        thread_record_self.tid = me;
        atomic_signal_fence(memory_order_seq_cst);
        thread_record_self.jni = thread_record_foreigners[i].jni;
        atomic_signal_fence(memory_order_seq_cst);
        return true;
    }
    return false;
}
