/* test_proc_state.c — a thread's state from /proc: this thread, running,
 * reads R; a thread asleep in nanosleep reads S; a thread blocked on a
 * condition variable reads S; a thread that has ended, or no such thread,
 * reads 0 (not known). */
#include "harness.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/proc_state.h"

static _Atomic uint32_t sleeper_tid;

static void *sleeper(void *arg)
{
    (void)arg;
    sleeper_tid = (uint32_t)syscall(SYS_gettid);
    struct timespec ts = { 2, 0 };
    nanosleep(&ts, NULL);
    return NULL;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go;
static _Atomic uint32_t waiter_tid;

static void *waiter(void *arg)
{
    (void)arg;
    waiter_tid = (uint32_t)syscall(SYS_gettid);
    pthread_mutex_lock(&mu);
    while (!go)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* waits up to 2 s for thread TID to read WANT */
static char settle(uint32_t tid, char want)
{
    char s = 0;
    for (int i = 0; i < 200 && (s = proc_thread_state(tid)) != want; i++)
        usleep(10000);
    return s;
}

static void test_self(void)
{
    char s = proc_thread_state((uint32_t)syscall(SYS_gettid));
    CHECK_EQ_INT(s, 'R');
    CHECK_EQ_INT(proc_state_running(s), 1);
}

static void test_asleep(void)
{
    pthread_t t;
    ASSERT(pthread_create(&t, NULL, sleeper, NULL) == 0);
    while (!sleeper_tid)
        usleep(1000);
    char s = settle(sleeper_tid, 'S');
    CHECK_EQ_INT(s, 'S');
    CHECK_EQ_INT(proc_state_running(s), 0);
    pthread_t w;
    ASSERT(pthread_create(&w, NULL, waiter, NULL) == 0);
    while (!waiter_tid)
        usleep(1000);
    CHECK_EQ_INT(settle(waiter_tid, 'S'), 'S');
    pthread_mutex_lock(&mu);
    go = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(w, NULL);
    pthread_join(t, NULL);
    CHECK_EQ_INT(proc_thread_state(sleeper_tid), 0); /* ended */
}

static void test_unknown(void)
{
    CHECK_EQ_INT(proc_thread_state(0), 0);
    CHECK_EQ_INT(proc_thread_state(UINT32_MAX), 0);
    CHECK_EQ_INT(proc_state_running(0), -1);
}

int main(void)
{
    RUN(test_self);
    RUN(test_asleep);
    RUN(test_unknown);
    return DONE();
}
