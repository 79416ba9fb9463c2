/* thread_record.c — the per-thread record's storage and its begin and end
 * (see thread_record.h for the rules). Both run on the thread itself; a
 * signal handler that interrupts them sees each field either before or after
 * its store, never a record of another thread. */
#include "thread_record.h"

#include <stdatomic.h>
#include <string.h>

/* A dlopen'ed library's initial-exec TLS (all of its TLS, once any of it is)
 * comes from the surplus glibc reserves in every thread's static TLS block
 * at start-up, a few hundred bytes shared by every library loaded late. */
_Static_assert(sizeof(thread_record) <= 128, "thread_record lives in static TLS: keep it small");

_Thread_local thread_record thread_record_self __attribute__((tls_model("initial-exec")));

void thread_record_begin(uint32_t serial, uint32_t tid, JNIEnv *jni)
{
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
    atomic_signal_fence(memory_order_seq_cst);
}
