/* timer_cost.c — what one CPU-time sampling signal costs the process it samples,
 * kernel included: a fixed amount of arithmetic in one thread, with a 1 ms
 * CPU-time signal of one of the kinds the async sampler uses, or none. Run
 * beside a copy with none on the same CPU (bench/timer_cost.sh), the
 * difference in CPU time over the signals is the cost of each.
 *   timer_cost MODE ITERATIONS   prints "mode user_s sys_s signals"
 *   MODE 0: no timer; 1: a perf_event task clock, its overflow signal sent to
 *   the thread (as cstack=native at interval < 10 ms); 2: the same with the
 *   kernel's callchain in an mmap ring (cstack=mixed); 3: a POSIX CPU timer
 *   (timer_create on CLOCK_THREAD_CPUTIME_ID); 4: the task clock without a
 *   signal (its timer interrupts alone). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 1000000L

static volatile long signals;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    signals++;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void perf_clock(int mode, pid_t tid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = PERIOD_NS;
    a.wakeup_events = 1;
    a.disabled = 1;
    if (mode == 2) {
        a.sample_type = PERF_SAMPLE_CALLCHAIN;
        a.exclude_callchain_user = 1;
        a.sample_max_stack = 48;
    }
    int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        die("perf_event_open");
    if (mode == 2 && mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED)
        die("mmap");
    if (mode != 4) {
        struct f_owner_ex owner = { F_OWNER_TID, tid };
        if (fcntl(fd, F_SETOWN_EX, &owner) || fcntl(fd, F_SETSIG, SIGPROF) || fcntl(fd, F_SETFL, O_ASYNC))
            die("fcntl");
    }
    if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
        die("PERF_EVENT_IOC_ENABLE");
}

static void posix_timer(pid_t tid)
{
    struct sigevent se;
    memset(&se, 0, sizeof se);
    se.sigev_notify = SIGEV_THREAD_ID;
    se.sigev_signo = SIGPROF;
    se._sigev_un._tid = tid;
    timer_t t;
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &se, &t))
        die("timer_create");
    struct itimerspec its = { { 0, PERIOD_NS }, { 0, PERIOD_NS } };
    if (timer_settime(t, 0, &its, NULL))
        die("timer_settime");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: timer_cost MODE(0-4) ITERATIONS\n");
        return 2;
    }
    int mode = atoi(argv[1]);
    long n = atol(argv[2]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (mode == 1 || mode == 2 || mode == 4)
        perf_clock(mode, tid);
    else if (mode == 3)
        posix_timer(tid);
    else if (mode != 0)
        die("mode");
    unsigned long x = 1;
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        x ^= x >> 17;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d %.4f %.4f %ld %lu\n", mode, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
           ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, signals, x & 1);
    return 0;
}
