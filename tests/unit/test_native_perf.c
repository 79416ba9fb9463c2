/* test_native_perf.c — perf_events sampling on this machine's kernel: the event= names (every one, a tracepoint
 * that exists and one that does not, bad text, a function's name), the probe (cpu counts; cycles on a VM without
 * a PMU says why not), real kernel callchains of a thread that write()s in a loop, named through /proc/kallsyms
 * (a share of the samples in the write path that the thread's system time implies), the same open refused
 * kernel callchains when not root, an execute breakpoint on a function of this test (one signal per call),
 * kallsyms itself (the real file and a made-up one), and the ring parser fed made-up rings (records wrapping at
 * the end, LOST and THROTTLE records, truncated and inconsistent ones). */
#include "harness.h"

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "native/kallsyms.h"
#include "native/perf_spec.h"
#include "native/perf_thread.h"

static uint64_t now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool contains(const char *s, const char *part)
{
    return s && strstr(s, part) != NULL;
}

/* ---- what the SIGPROF handler of the sampling tests keeps ---- */

#define CHAIN_SAMPLES 4096
#define CHAIN_KEEP 24

static _Atomic int sig_count, sig_foreign;
static _Atomic pid_t sig_tid;             /* the thread under test (its perf_thread through perf_threads_by_fd) */
static _Atomic bool sig_read_chain;
static int chain_n; /* samples kept */
static uint8_t chain_len[CHAIN_SAMPLES];
static uint64_t chain_frames[CHAIN_SAMPLES][CHAIN_KEEP];
static uint64_t chain_read_ns, chain_reads;
static uint32_t chain_cost[CHAIN_SAMPLES]; /* ns of each read */

/* ---- perf_spec_parse ---- */

static void test_parse_names(void)
{
    static const struct {
        const char *text;
        uint32_t type;
        uint64_t config;
        bool time_based;
    } names[] = {
        { "cpu", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true },
        { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true },
        { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true },
        { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
        { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false },
        { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false },
        { "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false },
        { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false },
        { "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
        { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
        { "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false },
        { "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false },
        { "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
        { "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
        { "Cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        perf_spec s;
        char err[256] = "untouched";
        int rc = perf_spec_parse(names[i].text, &s, err, sizeof err);
        if (!CHECK_EQ_INT(rc, 0))
            fprintf(stderr, "    %s: %s\n", names[i].text, err);
        CHECK_EQ_INT(s.type, names[i].type);
        CHECK_EQ_INT(s.config, names[i].config);
        CHECK_EQ_INT(s.time_based, names[i].time_based);
        CHECK_EQ_STR(s.name, names[i].text);
        CHECK_EQ_STR(err, "");
    }
}

static void test_parse_bad(void)
{
    char longtext[201];
    memset(longtext, 'a', 200);
    longtext[200] = '\0';
    const char *bad[] = { "", "cycles,foo", longtext, "cycles foo", "9lives", "sched:", ":sched_switch",
                          "sched:sched/../x", "a:b:c", "-x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        perf_spec s;
        char err[512] = "";
        int rc = perf_spec_parse(bad[i], &s, err, sizeof err);
        if (!CHECK_EQ_INT(rc, -1))
            fprintf(stderr, "    text \"%.40s\"\n", bad[i]);
        /* one line naming the accepted events */
        CHECK(contains(err, "accepted: cpu"));
        CHECK(contains(err, "page-faults"));
        CHECK(contains(err, "SYS:NAME"));
        CHECK(strchr(err, '\n') == NULL);
        if (i < 3)
            printf("  event=%.30s%s -> %s\n", bad[i], strlen(bad[i]) > 30 ? "..." : "", err);
    }
    perf_spec s;
    char err[512];
    CHECK_EQ_INT(perf_spec_parse(NULL, &s, err, sizeof err), -1);
    CHECK(contains(err, "200 characters") == false);
    CHECK_EQ_INT(perf_spec_parse(longtext, &s, err, sizeof err), -1);
    CHECK(contains(err, "200 characters"));
    /* a message cut to a small buffer stays a string */
    char small[16];
    CHECK_EQ_INT(perf_spec_parse("cycles,foo", &s, small, sizeof small), -1);
    CHECK_EQ_INT(strlen(small), sizeof small - 1);
}

static void test_parse_function(void)
{
    const char *fns[] = { "my_function", "_ZN3foo3barEv", "ns::func", "memcpy@GLIBC_2.14", "f.cold", "malloc" };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        perf_spec s;
        char err[256] = "x";
        CHECK_EQ_INT(perf_spec_parse(fns[i], &s, err, sizeof err), 1);
        CHECK_EQ_STR(s.name, fns[i]);
        CHECK_EQ_STR(err, "");
    }
    perf_spec s;
    perf_spec_breakpoint(&s, "malloc", 0x401000);
    CHECK_EQ_INT(s.type, PERF_TYPE_BREAKPOINT);
    CHECK_EQ_INT(s.bp_addr, 0x401000);
    CHECK_EQ_STR(s.name, "malloc");
    CHECK(!s.time_based);
    struct perf_event_attr a;
    perf_spec_attr(&s, 1, &a);
    CHECK_EQ_INT(a.bp_type, 4 /* HW_BREAKPOINT_X */);
    CHECK_EQ_INT(a.bp_len, sizeof(long));
    CHECK_EQ_INT(a.bp_addr, 0x401000);
    CHECK_EQ_INT(a.sample_period, 1);
    CHECK_EQ_INT(a.exclude_kernel, 0);
    /* a stray SIGTRAP: at the breakpoint, of a debug exception; not another signal, address or event */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_code = TRAP_BRKPT;
    si.si_addr = (void *)(uintptr_t)0x401000;
    CHECK(perf_spec_stray_trap(&s, SIGTRAP, &si));
    si.si_code = TRAP_HWBKPT;
    CHECK(perf_spec_stray_trap(&s, SIGTRAP, &si));
    CHECK(!perf_spec_stray_trap(&s, SIGSEGV, &si));
    si.si_code = SI_USER;
    CHECK(!perf_spec_stray_trap(&s, SIGTRAP, &si));
    si.si_code = TRAP_BRKPT;
    si.si_addr = (void *)(uintptr_t)0x401001;
    CHECK(!perf_spec_stray_trap(&s, SIGTRAP, &si));
    perf_spec cpu;
    char err[128];
    perf_spec_parse("cpu", &cpu, err, sizeof err);
    cpu.bp_addr = 0x401000;
    si.si_addr = (void *)(uintptr_t)0x401000;
    CHECK(!perf_spec_stray_trap(&cpu, SIGTRAP, &si));
}


/* ---- events of the kernel's (context switches, a tracepoint) with their kernel callchains ---- */

static void install_handler(void);

/* spec sampled at every event on this thread with kernel callchains while it sleeps 50 times 1 ms: at least
 * one sample a sleep, and most of them (all but those the kernel took elsewhere) in the sleep's path. */
static void switch_samples(const char *text, const perf_spec *spec)
{
    install_handler();
    pid_t tid = (pid_t)syscall(SYS_gettid);
    perf_thread t;
    int refused = 0;
    int rc = perf_thread_open(&t, tid, spec, 1, SIGPROF, true, &refused);
    if (rc != 0 || refused) {
        printf("  %s with kernel callchains cannot be opened here (%s): not checked\n", text,
               strerror(rc ? -rc : refused));
        CHECK(rc == -EACCES || rc == -EPERM || refused == EACCES || refused == EPERM);
        return;
    }
    atomic_store(&sig_tid, tid);
    atomic_store(&sig_count, 0);
    chain_n = 0;
    atomic_store(&sig_read_chain, true);
    perf_threads_by_fd_set(t.fd, &t);
    for (int i = 0; i < 50; i++) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    atomic_store(&sig_read_chain, false);
    perf_threads_by_fd_clear(t.fd, &t);
    perf_thread_close(&t);
    int signals = atomic_load(&sig_count);
    kallsyms *k = kallsyms_load(NULL);
    int in_sleep = 0, with = 0;
    const char *example = NULL;
    for (int i = 0; i < chain_n; i++) {
        with += chain_len[i] > 0;
        bool sl = false;
        for (int j = 0; j < chain_len[i]; j++) {
            const char *name = kallsyms_find(k, chain_frames[i][j]);
            sl = sl || contains(name, "nanosleep");
        }
        in_sleep += sl;
        if (sl && !example)
            example = kallsyms_find(k, chain_frames[i][0]);
    }
    printf("  %s: %d signals for 50 sleeps, %d samples with kernel frames, %d in nanosleep's path (leaf e.g. %s)\n",
           text, signals, with, in_sleep, example ? example : "-");
    CHECK(signals >= 50);
    CHECK(with >= 45);
    if (kallsyms_usable(k))
        CHECK(in_sleep >= 40);
    kallsyms_free(k);
}

static void test_context_switches(void)
{
    perf_spec s;
    char err[256];
    ASSERT(perf_spec_parse("context-switches", &s, err, sizeof err) == 0);
    switch_samples("context-switches", &s);
}

static const char *const tracefs_roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

/* The id tracefs gives SYS/NAME, 0 if it is not mounted or has no such tracepoint. */
static uint64_t tracefs_id(const char *sys, const char *name)
{
    for (int i = 0; i < 2; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/events/%s/%s/id", tracefs_roots[i], sys, name);
        size_t len;
        char *text = th_read_file(path, &len);
        if (text) {
            uint64_t id = strtoull(text, NULL, 10);
            free(text);
            return id;
        }
    }
    return 0;
}

static bool tracefs_mounted(void)
{
    return access("/sys/kernel/tracing/events", F_OK) == 0 || access("/sys/kernel/debug/tracing/events", F_OK) == 0;
}

/* With tracefs mounted: a tracepoint that exists parses to its id and can be counted; one that does not is -1. */
static void tracepoint_checks(void)
{
    perf_spec s;
    char err[512] = "";
    uint64_t id = tracefs_id("sched", "sched_switch");
    CHECK(id != 0);
    CHECK_EQ_INT(perf_spec_parse("sched:sched_switch", &s, err, sizeof err), 0);
    CHECK_EQ_INT(s.type, PERF_TYPE_TRACEPOINT);
    CHECK_EQ_INT(s.config, id);
    CHECK_EQ_STR(s.name, "sched:sched_switch");
    char why[256];
    bool ok = perf_spec_probe(&s, why, sizeof why);
    CHECK(ok || why[0]);
    printf("  sched:sched_switch: id %" PRIu64 ", %s\n", id, ok ? "can be counted" : why);
    if (ok)
        switch_samples("sched:sched_switch", &s);
    CHECK_EQ_INT(perf_spec_parse("sched:no_such_tracepoint", &s, err, sizeof err), -1);
    CHECK(contains(err, "sched:no_such_tracepoint: no such tracepoint"));
    printf("  event=sched:no_such_tracepoint -> %s\n", err);
    CHECK_EQ_INT(perf_spec_parse("nosuchsys:x", &s, err, sizeof err), -1);
    CHECK(contains(err, "no such tracepoint"));
}

static void test_parse_tracepoint(void)
{
    if (tracefs_mounted()) {
        tracepoint_checks();
        return;
    }
    perf_spec s;
    char err[512] = "";
    CHECK_EQ_INT(perf_spec_parse("sched:sched_switch", &s, err, sizeof err), -1);
    CHECK(contains(err, "tracefs is mounted at neither"));
    printf("  tracefs is not mounted: %s\n", err);
    if (geteuid() != 0) {
        printf("  not root: the tracepoint's id is not checked with tracefs mounted (skipped)\n");
        return;
    }
    /* mount it in a mount namespace of a child's own, which leaves this machine's mounts alone */
    fflush(stdout);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0) {
            printf("  cannot mount tracefs in a mount namespace (%s): the tracepoint's id is not checked\n",
                   strerror(errno));
            fflush(stdout);
            _exit(77);
        }
        tracepoint_checks();
        fflush(stdout);
        _exit(th_failed ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77));
}

/* ---- perf_spec_probe ---- */

static void test_probe(void)
{
    perf_spec s;
    char err[256], why[256];
    CHECK_EQ_INT(perf_spec_parse("cpu", &s, err, sizeof err), 0);
    CHECK(perf_spec_probe(&s, why, sizeof why));
    printf("  cpu: can be counted%s%s\n", why[0] ? ": " : "", why);
    const char *others[] = { "cycles", "instructions", "page-faults", "context-switches" };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        CHECK_EQ_INT(perf_spec_parse(others[i], &s, err, sizeof err), 0);
        why[0] = 'x';
        bool ok = perf_spec_probe(&s, why, sizeof why);
        if (!ok) {
            CHECK(strncmp(why, others[i], strlen(others[i])) == 0 && why[strlen(others[i])] == ':');
            CHECK(contains(why, "perf_event_open: "));
        }
        if (ok)
            printf("  %s: %s\n", others[i], why[0] ? why : "can be counted");
        else
            printf("  %s\n", why);
    }
    /* the software events are counted on every Linux */
    CHECK_EQ_INT(perf_spec_parse("page-faults", &s, err, sizeof err), 0);
    CHECK(perf_spec_probe(&s, why, sizeof why));
}

/* ---- the signal handler of the sampling tests ---- */

static void on_sigprof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    int saved = errno;
    perf_thread *t = perf_threads_by_fd_get(si->si_fd, atomic_load(&sig_tid));
    if (si->si_code != POLL_IN || !t) {
        atomic_fetch_add(&sig_foreign, 1);
        errno = saved;
        return;
    }
    atomic_fetch_add(&sig_count, 1);
    if (atomic_load(&sig_read_chain)) {
        uint64_t frames[PERF_THREAD_MAX_FRAMES];
        uint64_t t0 = now_ns(CLOCK_MONOTONIC);
        int n = perf_thread_kernel_frames(t, frames, PERF_THREAD_MAX_FRAMES);
        uint64_t cost = now_ns(CLOCK_MONOTONIC) - t0;
        chain_read_ns += cost;
        chain_reads++;
        if (chain_n < CHAIN_SAMPLES) {
            chain_cost[chain_n] = (uint32_t)(cost < UINT32_MAX ? cost : UINT32_MAX);
            int keep = n < CHAIN_KEEP ? n : CHAIN_KEEP;
            memcpy(chain_frames[chain_n], frames, (size_t)keep * sizeof frames[0]);
            chain_len[chain_n++] = (uint8_t)keep;
        }
    }
    errno = saved;
}

static void install_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigprof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
}

/* ---- real kernel callchains ---- */

typedef struct chain_run {
    int open_rc, refused;
    bool kernel_chain, user_only;
    uint64_t writes, cpu_ns, wall_ns;
    double user_s, sys_s;
    uint64_t lost, throttles, bad, skipped, overrun;
} chain_run;

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void *chain_thread(void *arg)
{
    chain_run *run = arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    perf_spec spec;
    char err[256];
    perf_spec_parse("cpu", &spec, err, sizeof err);
    static perf_thread t;
    run->open_rc = perf_thread_open(&t, tid, &spec, 1000000 /* 1 ms */, SIGPROF, true, &run->refused);
    if (run->open_rc != 0)
        return NULL;
    run->kernel_chain = t.kernel_chain;
    run->user_only = t.user_only;
    atomic_store(&sig_tid, tid);
    perf_threads_by_fd_set(t.fd, &t);
    char path[] = "/tmp/jp-native-perf-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    else
        unlink(path);
    char buf[256];
    memset(buf, 'x', sizeof buf);
    struct rusage r0, r1;
    getrusage(RUSAGE_THREAD, &r0);
    uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC), w;
    do {
        for (int i = 0; i < 256; i++) {
            if (write(fd, buf, sizeof buf) == (ssize_t)sizeof buf)
                run->writes++;
        }
        if ((run->writes & 0xffff) < 256)
            lseek(fd, 0, SEEK_SET); /* a file of at most 16 MiB */
        w = now_ns(CLOCK_MONOTONIC);
        /* 1 s, and on a busy machine until the thread has run 300 ms (at most 5 s) */
    } while (w - w0 < 1000000000u ||
             (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < 300000000u && w - w0 < 5000000000u));
    run->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    run->wall_ns = w - w0;
    getrusage(RUSAGE_THREAD, &r1);
    run->user_s = tv_s(r1.ru_utime) - tv_s(r0.ru_utime);
    run->sys_s = tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
    run->lost = t.stats.lost;
    run->throttles = t.stats.throttles;
    run->bad = t.stats.bad;
    run->skipped = t.stats.skipped;
    run->overrun = t.stats.overrun;
    /* out of the table, then closed */
    perf_threads_by_fd_clear(t.fd, &t);
    perf_thread_close(&t);
    close(fd);
    return NULL;
}

static bool in_write_path(const char *name)
{
    return name && (strcmp(name, "vfs_write") == 0 || strcmp(name, "ksys_write") == 0 ||
                    strcmp(name, "__x64_sys_write") == 0 || strncmp(name, "entry_SYSCALL_64", 16) == 0);
}

typedef struct name_count {
    const char *name;
    int n;
} name_count;

static int by_count(const void *a, const void *b)
{
    return ((const name_count *)b)->n - ((const name_count *)a)->n;
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void test_kernel_chains(void)
{
    install_handler();
    atomic_store(&sig_read_chain, true);
    chain_n = 0;
    atomic_store(&sig_count, 0);
    chain_run run;
    memset(&run, 0, sizeof run);
    pthread_t th;
    ASSERT(pthread_create(&th, NULL, chain_thread, &run) == 0);
    pthread_join(th, NULL);
    atomic_store(&sig_read_chain, false);
    if (run.open_rc != 0) {
        printf("  the task clock cannot be opened here (%s): kernel callchains not checked\n", strerror(-run.open_rc));
        CHECK(run.open_rc == -EACCES || run.open_rc == -EPERM || run.open_rc == -ENOSYS);
        return;
    }
    if (run.refused) {
        printf("  kernel callchains refused (%s, perf_event_paranoid > 1 and not root): opened without them\n",
               strerror(run.refused));
        CHECK(!run.kernel_chain);
        for (int i = 0; i < chain_n; i++)
            CHECK_EQ_INT(chain_len[i], 0);
        return;
    }
    CHECK(run.kernel_chain);
    int signals = atomic_load(&sig_count);
    double cpu_ms = (double)run.cpu_ns / 1e6;
    printf("  %" PRIu64 " writes in %.0f ms of CPU time (user %.2f s, system %.2f s), %d signals, %d samples kept; "
           "ring: %" PRIu64 " merged, %" PRIu64 " lost, %" PRIu64 " throttles, %" PRIu64 " bad, %" PRIu64 " full\n",
           run.writes, cpu_ms, run.user_s, run.sys_s, signals, chain_n, run.skipped, run.lost, run.throttles, run.bad,
           run.overrun);
    /* one signal per ms of the thread's CPU time, user and system: the task clock counts both */
    CHECK(signals >= cpu_ms * 0.5 && signals <= cpu_ms * 1.5 + 5);
    CHECK_EQ_INT(run.bad, 0);
    CHECK_EQ_INT(run.overrun, 0);
    if (chain_n) {
        qsort(chain_cost, (size_t)chain_n, sizeof chain_cost[0], by_u32);
        printf("  the ring's read in the handler: median %u ns, 90th percentile %u ns, mean %.0f ns (%" PRIu64
               " reads)\n", chain_cost[chain_n / 2], chain_cost[chain_n * 9 / 10],
               (double)chain_read_ns / (double)chain_reads, chain_reads);
    }
    kallsyms *k = kallsyms_load(NULL);
    if (!k || !kallsyms_usable(k)) {
        printf("  /proc/kallsyms has no addresses (kptr_restrict): frames are not named, only counted\n");
        int with = 0;
        for (int i = 0; i < chain_n; i++)
            with += chain_len[i] > 0;
        CHECK(with > 0);
        kallsyms_free(k);
        return;
    }
    int with_kernel = 0, in_write = 0, unnamed = 0;
    static name_count leaves[512];
    int nleaves = 0;
    for (int i = 0; i < chain_n; i++) {
        if (chain_len[i] == 0)
            continue;
        with_kernel++;
        bool w = false;
        for (int j = 0; j < chain_len[i]; j++) {
            const char *name = kallsyms_find(k, chain_frames[i][j]);
            unnamed += name == NULL;
            w = w || in_write_path(name);
        }
        in_write += w;
        const char *leaf = kallsyms_find(k, chain_frames[i][0]);
        leaf = leaf ? leaf : "?";
        int j = 0;
        while (j < nleaves && strcmp(leaves[j].name, leaf) != 0)
            j++;
        if (j == nleaves && nleaves < 512)
            leaves[nleaves++] = (name_count){ leaf, 0 };
        if (j < nleaves)
            leaves[j].n++;
    }
    qsort(leaves, (size_t)nleaves, sizeof leaves[0], by_count);
    printf("  top leaf kernel frames:");
    for (int i = 0; i < nleaves && i < 8; i++)
        printf(" %s %d%s", leaves[i].name, leaves[i].n, i + 1 < nleaves && i < 7 ? "," : "\n");
    if (nleaves == 0)
        printf(" none\n");
    double sys_share = run.sys_s + run.user_s > 0 ? run.sys_s / (run.sys_s + run.user_s) : 0;
    double share = chain_n ? (double)in_write / chain_n : 0;
    printf("  %d of %d samples (%.0f%%) have kernel frames, %d (%.0f%%) in the write path "
           "(vfs_write, ksys_write, __x64_sys_write, entry_SYSCALL_64*); system time is %.0f%% of the thread's; "
           "%d frames unnamed\n",
           with_kernel, chain_n, chain_n ? 100.0 * with_kernel / chain_n : 0, in_write, 100 * share, 100 * sys_share,
           unnamed);
    /* the thread does nothing but write(): most of its time is in the kernel (the system time measured), and
     * every sample taken there is in the write path; the bound leaves room for a busy machine */
    CHECK(chain_n >= 100);
    CHECK(share >= 0.3);
    CHECK(share >= sys_share * 0.5);
    CHECK(unnamed <= with_kernel); /* at most one unknown frame a sample (code outside kallsyms' functions) */
    kallsyms_free(k);
}

/* Not root: a child drops to nobody, where kernel.perf_event_paranoid (2 here) refuses kernel mode and its
 * callchains; the open still succeeds, without them, and says so. */
static void test_kernel_chains_refused(void)
{
    if (geteuid() != 0) {
        printf("  not root: test_kernel_chains covered the refused case\n");
        CHECK(true);
        return;
    }
    size_t len;
    char *p = th_read_file("/proc/sys/kernel/perf_event_paranoid", &len);
    int paranoid = p ? atoi(p) : -9;
    free(p);
    if (paranoid < 2) {
        printf("  kernel.perf_event_paranoid = %d: an unprivileged user may take kernel callchains (not checked)\n",
               paranoid);
        CHECK(true);
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) {
            printf("  cannot become nobody (%s): the refused case is not checked\n", strerror(errno));
            _exit(77);
        }
        perf_spec spec;
        char err[256], why[256];
        perf_spec_parse("cpu", &spec, err, sizeof err);
        pid_t tid = (pid_t)syscall(SYS_gettid);
        perf_thread t;
        int refused = -1;
        int rc = perf_thread_open(&t, tid, &spec, 1000000, SIGPROF, true, &refused);
        printf("  as nobody: open %s, kernel callchains refused (%s), user mode only: %s\n",
               rc == 0 ? "succeeds" : strerror(-rc), refused > 0 ? strerror(refused) : "no", t.user_only ? "yes" : "no");
        /* a CPU clock is never opened for user mode only (its samples in system calls would be lost, as
         * the write() loop below would show): refused, the sampler takes a POSIX CPU timer instead */
        CHECK(rc == -EACCES || rc == -EPERM);
        if (rc == 0) {
            atomic_store(&sig_tid, tid);
            atomic_store(&sig_count, 0);
            perf_threads_by_fd_set(t.fd, &t);
            uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
            volatile uint64_t x = 0;
            while (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < 100000000u) /* user-mode work, mostly */
                for (int i = 0; i < 100000; i++)
                    x += (uint64_t)i;
            int signals = atomic_load(&sig_count);
            /* user mode only: a thread in write() most of its time is sampled for its user time alone */
            int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
            char buf[64] = { 0 };
            struct rusage r0, r1;
            getrusage(RUSAGE_THREAD, &r0);
            int s0 = atomic_load(&sig_count);
            c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
            while (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < 300000000u)
                for (int i = 0; i < 1000; i++)
                    if (write(devnull, buf, sizeof buf) < 0)
                        break;
            int in_writes = atomic_load(&sig_count) - s0;
            getrusage(RUSAGE_THREAD, &r1);
            close(devnull);
            double user_ms = (tv_s(r1.ru_utime) - tv_s(r0.ru_utime)) * 1e3;
            double sys_ms = (tv_s(r1.ru_stime) - tv_s(r0.ru_stime)) * 1e3;
            printf("  as nobody, user mode only: %d signals in a write() loop of %.0f ms user and %.0f ms system "
                   "time: its system time is not sampled\n", in_writes, user_ms, sys_ms);
            /* about one a ms of user time; with the system time sampled it would be one a ms of both */
            CHECK(in_writes >= 0.5 * user_ms);
            CHECK(in_writes <= user_ms + 0.5 * sys_ms + 5);
            uint64_t frames[8];
            CHECK_EQ_INT(perf_thread_kernel_frames(&t, frames, 8), 0);
            perf_threads_by_fd_clear(t.fd, &t);
            perf_thread_close(&t);
            printf("  as nobody: %d signals in 100 ms of user-mode CPU time\n", signals);
            CHECK(signals >= 30);
        }
        CHECK(!perf_spec_probe(&spec, why, sizeof why));
        printf("  as nobody: probe of cpu: %s\n", why);
        /* page-faults may be counted in user mode only, and says so */
        perf_spec pf;
        CHECK_EQ_INT(perf_spec_parse("page-faults", &pf, err, sizeof err), 0);
        CHECK(perf_spec_probe(&pf, why, sizeof why));
        CHECK(contains(why, "user mode only"));
        printf("  as nobody: probe of page-faults: %s\n", why);
        /* context switches and tracepoints fire in the kernel: never opened for user mode only */
        perf_spec cs;
        CHECK_EQ_INT(perf_spec_parse("context-switches", &cs, err, sizeof err), 0);
        CHECK(!perf_spec_probe(&cs, why, sizeof why));
        CHECK(contains(why, "context-switches: not permitted"));
        CHECK(perf_thread_open(&t, tid, &cs, 1, SIGPROF, false, NULL) == -EACCES);
        /* cycles: no PMU here says so, whatever else is refused */
        perf_spec cyc;
        CHECK_EQ_INT(perf_spec_parse("cycles", &cyc, err, sizeof err), 0);
        if (!perf_spec_probe(&cyc, why, sizeof why))
            printf("  as nobody: %s\n", why);

        perf_spec tp = spec;
        tp.type = PERF_TYPE_TRACEPOINT;
        tp.config = 1;
        tp.time_based = false;
        CHECK(perf_thread_open(&t, tid, &tp, 1, SIGPROF, false, NULL) < 0);
        fflush(stdout);
        _exit(th_failed ? 1 : 0);
    }
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77));
}

/* ---- a hardware execute breakpoint ---- */

static volatile int bp_sink;

__attribute__((noinline)) static void bp_target(int x)
{
    bp_sink += x;
    __asm__ volatile("" ::: "memory");
}

static perf_spec bp_spec;
static _Atomic int bp_strays;

static void on_sigtrap(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (perf_spec_stray_trap(&bp_spec, sig, si)) {
        atomic_fetch_add(&bp_strays, 1);
        return;
    }
    signal(SIGTRAP, SIG_DFL);
    raise(SIGTRAP);
}

static void test_breakpoint(void)
{
    install_handler();
    perf_spec spec;
    perf_spec_breakpoint(&spec, "bp_target", (uint64_t)(uintptr_t)&bp_target);
    char why[256];
    if (!perf_spec_probe(&spec, why, sizeof why)) {
        printf("  breakpoints cannot be counted here: %s (skipped)\n", why);
        CHECK(why[0] != '\0');
        return;
    }
    /* stray SIGTRAPs of the breakpoint (perf_spec.h) are ignored */
    bp_spec = spec;
    struct sigaction sa, old_trap;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigtrap;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTRAP, &sa, &old_trap);
    atomic_store(&bp_strays, 0);
    pid_t tid = (pid_t)syscall(SYS_gettid);
    perf_thread t;
    int rc = perf_thread_open(&t, tid, &spec, 1, SIGPROF, false, NULL);
    ASSERT(rc == 0);
    atomic_store(&sig_tid, tid);
    atomic_store(&sig_count, 0);
    atomic_store(&sig_foreign, 0);
    perf_threads_by_fd_set(t.fd, &t);
    for (int i = 0; i < 1000; i++)
        bp_target(i);
    /* the signal of the last hit may wait for the next return from the kernel (the irq_work's interrupt) */
    (void)syscall(SYS_getppid);
    int signals = atomic_load(&sig_count);
    uint64_t hits = 0;
    CHECK(read(t.fd, &hits, sizeof hits) == (ssize_t)sizeof hits);
    perf_threads_by_fd_clear(t.fd, &t);
    perf_thread_close(&t);
    int after = atomic_load(&sig_count);
    for (int i = 0; i < 10; i++)
        bp_target(i); /* closed: no more */
    (void)syscall(SYS_getppid);
    sigaction(SIGTRAP, &old_trap, NULL);
    printf("  breakpoint on bp_target: %" PRIu64 " hits counted and %d signals for 1000 calls%s, %d stray SIGTRAPs "
           "ignored\n", hits, signals, t.user_only ? " (user mode only)" : "", atomic_load(&bp_strays));
    CHECK_EQ_INT(hits, 1000);
    /* a signal per hit, but SIGPROF is not queued: one still pending at the next hit is one for both */
    CHECK(signals >= 990 && signals <= 1000);
    CHECK_EQ_INT(atomic_load(&sig_count), after);
    CHECK_EQ_INT(atomic_load(&sig_foreign), 0);
}

/* ---- kallsyms ---- */

static void test_kallsyms_real(void)
{
    kallsyms *k = kallsyms_load(NULL);
    ASSERT(k != NULL);
    CHECK(kallsyms_count(k) > 1000);
    if (!kallsyms_usable(k)) {
        printf("  /proc/kallsyms reads every address as 0 (kptr_restrict or not root): not named (skipped)\n");
        CHECK(kallsyms_find(k, 0x1000) == NULL);
        kallsyms_free(k);
        return;
    }
    /* vfs_write's address, read from the file here */
    FILE *f = fopen("/proc/kallsyms", "r");
    ASSERT(f != NULL);
    char line[512];
    unsigned long long addr = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a;
        char type, name[256];
        if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && strcmp(name, "vfs_write") == 0) {
            addr = a;
            break;
        }
    }
    fclose(f);
    ASSERT(addr != 0);
    CHECK_EQ_STR(kallsyms_find(k, addr + 4), "vfs_write");
    CHECK_EQ_STR(kallsyms_find(k, addr), "vfs_write");
    uint64_t start = 0;
    CHECK_EQ_STR(kallsyms_find_start(k, addr + 4, &start), "vfs_write");
    CHECK_EQ_INT(start, addr);
    CHECK_EQ_INT(kallsyms_addr(k, "vfs_write"), addr);
    CHECK(kallsyms_find(k, addr - 1) == NULL || strcmp(kallsyms_find(k, addr - 1), "vfs_write") != 0);
    CHECK(kallsyms_find(k, 0x1000) == NULL);
    printf("  %zu kernel text symbols; vfs_write at %#llx\n", kallsyms_count(k), addr);
    kallsyms_free(k);
}

static void test_kallsyms_file(void)
{
    char path[] = "/tmp/jp-kallsyms-XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    close(fd);
    const char *text = "ffffffff81002000 T second\n"
                       "ffffffff81000000 T first\n"
                       "ffffffff81001000 D some_data\n"
                       "ffffffff81003000 t alias_local\n"
                       "ffffffff81003000 T alias_global\n"
                       "ffffffffc0001000 t mod_func\t[somemod]\n"
                       "garbage line\n"
                       "ffffffff81004000 W weak_one\n";
    ASSERT(th_write_file(path, text, strlen(text)));
    kallsyms *k = kallsyms_load(path);
    ASSERT(k != NULL);
    CHECK(kallsyms_usable(k));
    CHECK_EQ_INT(kallsyms_count(k), 6);
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81000000ull), "first");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81001008ull), "first"); /* data symbols are not functions */
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81002fffull), "second");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81003010ull), "alias_global");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81004001ull), "weak_one");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffffc0001010ull), "mod_func");
    CHECK(kallsyms_find(k, 0xffffffff80ffffffull) == NULL);
    CHECK(kallsyms_find(k, 0xffffffffc0001000ull + (2u << 20)) == NULL);
    CHECK_EQ_INT(kallsyms_addr(k, "mod_func"), 0xffffffffc0001000ull);
    CHECK_EQ_INT(kallsyms_addr(k, "nothing"), 0);
    kallsyms_free(k);
    /* in address order already (as the kernel's own symbols are): only a tie is reordered, global first */
    text = "ffffffff81000000 T first\n"
           "ffffffff81003000 t alias_local\n"
           "ffffffff81003000 t alias_local2\n"
           "ffffffff81003000 T alias_global\n"
           "1ffffffff81003800 T seventeen_digits\n"
           "ffffffff8100400g T bad_digit\n"
           "ffffffff81004000 T last\n";
    ASSERT(th_write_file(path, text, strlen(text)));
    k = kallsyms_load(path);
    ASSERT(k != NULL);
    CHECK_EQ_INT(kallsyms_count(k), 5);
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81003010ull), "alias_global");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81003800ull), "alias_global");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81000010ull), "first");
    CHECK_EQ_STR(kallsyms_find(k, 0xffffffff81004010ull), "last");
    CHECK_EQ_INT(kallsyms_addr(k, "seventeen_digits"), 0);
    kallsyms_free(k);
    /* what an unprivileged reader sees under kptr_restrict */
    text = "0000000000000000 T first\n0000000000000000 t second\n";
    ASSERT(th_write_file(path, text, strlen(text)));
    k = kallsyms_load(path);
    ASSERT(k != NULL);
    CHECK(!kallsyms_usable(k));
    CHECK(kallsyms_find(k, 0) == NULL);
    kallsyms_free(k);
    ASSERT(th_write_file(path, "", 0));
    errno = 0;
    CHECK(kallsyms_load(path) == NULL);
    CHECK_EQ_INT(errno, ENOENT);
    unlink(path);
    CHECK(kallsyms_load("/nonexistent/kallsyms") == NULL);
}

/* ---- the ring parser on made-up rings ---- */

#define RING_PAGE 4096u
#define RING_DATA 1024u

typedef struct fake_ring {
    unsigned char *mem; /* RING_PAGE + RING_DATA bytes, malloc'ed: ASan sees a read outside */
    uint64_t head;
} fake_ring;

static struct perf_event_mmap_page *ring_page(fake_ring *r)
{
    return (struct perf_event_mmap_page *)r->mem;
}

static void ring_init(fake_ring *r, uint64_t start)
{
    r->mem = calloc(1, RING_PAGE + RING_DATA);
    ring_page(r)->data_offset = RING_PAGE;
    ring_page(r)->data_size = RING_DATA;
    ring_page(r)->data_tail = start;
    ring_page(r)->data_head = start;
    r->head = start;
}

static void ring_put(fake_ring *r, const void *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        r->mem[RING_PAGE + ((r->head + i) & (RING_DATA - 1))] = ((const unsigned char *)bytes)[i];
    r->head += n;
}

static void ring_sample(fake_ring *r, const uint64_t *ips, uint64_t nr)
{
    struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)(sizeof h + 8 + 8 * nr) };
    ring_put(r, &h, sizeof h);
    ring_put(r, &nr, 8);
    ring_put(r, ips, 8 * nr);
}

static void ring_publish(fake_ring *r)
{
    ring_page(r)->data_head = r->head;
}

static int ring_take(fake_ring *r, perf_ring_stats *st, uint64_t *out, int max)
{
    return perf_ring_take_chain(r->mem, RING_PAGE + RING_DATA, RING_PAGE, st, out, max);
}

#define K(n) (0xffffffff81000000ull + (n))

static void test_ring(void)
{
    perf_ring_stats st;
    memset(&st, 0, sizeof st);
    uint64_t out[16];
    fake_ring r;
    /* empty */
    ring_init(&r, 0);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    CHECK_EQ_INT(ring_page(&r)->data_tail, 0);
    /* one sample: the kernel's frames, the markers dropped, the user's too */
    uint64_t a[] = { PERF_CONTEXT_KERNEL, K(1), K(2), K(3), PERF_CONTEXT_USER, 0x401000, 0x401100 };
    ring_sample(&r, a, 7);
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 3);
    CHECK_EQ_INT(out[0], K(1));
    CHECK_EQ_INT(out[1], K(2));
    CHECK_EQ_INT(out[2], K(3));
    CHECK_EQ_INT(ring_page(&r)->data_tail, r.head);
    CHECK_EQ_INT(st.samples, 1);
    /* read once: nothing more */
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    free(r.mem);

    /* a sample, LOST, THROTTLE, then the newest sample wrapping at the data's end (its header cut in two) */
    for (uint64_t start = RING_DATA - 200; start < RING_DATA + 8; start += 4) {
        memset(&st, 0, sizeof st);
        ring_init(&r, start + 3 * RING_DATA); /* running offsets past several laps */
        uint64_t b[] = { PERF_CONTEXT_KERNEL, K(10), K(11) };
        ring_sample(&r, b, 3);
        struct {
            struct perf_event_header h;
            uint64_t id, lost;
        } lost = { { PERF_RECORD_LOST, 0, 24 }, 7, 5 };
        ring_put(&r, &lost, sizeof lost);
        struct {
            struct perf_event_header h;
            uint64_t time, id, stream_id;
        } thr = { { PERF_RECORD_THROTTLE, 0, 32 }, 1, 2, 3 };
        ring_put(&r, &thr, sizeof thr);
        uint64_t c[12] = { PERF_CONTEXT_KERNEL };
        for (int i = 1; i < 12; i++)
            c[i] = K(100 + i);
        ring_sample(&r, c, 12);
        ring_publish(&r);
        int n = ring_take(&r, &st, out, 16);
        CHECK_EQ_INT(n, 11);
        bool same = true;
        for (int i = 0; i < 11 && i < n; i++)
            same = same && out[i] == K(100 + i + 1);
        CHECK(same);
        CHECK_EQ_INT(st.samples, 2);
        CHECK_EQ_INT(st.skipped, 1);
        CHECK_EQ_INT(st.lost, 5);
        CHECK_EQ_INT(st.throttles, 1);
        CHECK_EQ_INT(st.bad, 0);
        CHECK_EQ_INT(ring_page(&r)->data_tail, r.head);
        free(r.mem);
    }

    /* a ring left nearly full: the sample of this signal may have been dropped, none is taken */
    memset(&st, 0, sizeof st);
    ring_init(&r, 40);
    uint64_t big[40] = { PERF_CONTEXT_KERNEL };
    for (int i = 1; i < 40; i++)
        big[i] = K(200 + i);
    ring_sample(&r, big, 40); /* 336 bytes */
    ring_sample(&r, big, 30); /* 256: 432 bytes free of 1024, less than half */
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    CHECK_EQ_INT(st.overrun, 1);
    CHECK_EQ_INT(st.samples, 2);
    CHECK_EQ_INT(ring_page(&r)->data_tail, r.head);
    ring_sample(&r, big, 30); /* read: room again */
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 16);
    CHECK_EQ_INT(out[0], K(201));
    CHECK_EQ_INT(st.overrun, 1);
    free(r.mem);

    /* max cuts the chain */
    memset(&st, 0, sizeof st);
    ring_init(&r, 0);
    ring_sample(&r, a, 7);
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 2), 2);
    CHECK_EQ_INT(out[1], K(2));
    free(r.mem);

    /* a truncated record (data_head in its middle): the complete sample before it is the newest, bad counted */
    memset(&st, 0, sizeof st);
    ring_init(&r, 100);
    uint64_t d[] = { PERF_CONTEXT_KERNEL, K(20) };
    ring_sample(&r, d, 2);
    ring_sample(&r, a, 7);
    r.head -= 12;
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 1);
    CHECK_EQ_INT(out[0], K(20));
    CHECK_EQ_INT(st.bad, 1);
    CHECK_EQ_INT(ring_page(&r)->data_tail, r.head);
    free(r.mem);

    /* a record of size 0 ends the read (no endless loop); fewer bytes than a header left over */
    memset(&st, 0, sizeof st);
    ring_init(&r, 0);
    struct perf_event_header zero = { PERF_RECORD_SAMPLE, 0, 0 };
    ring_put(&r, &zero, sizeof zero);
    ring_put(&r, a, 56);
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    CHECK_EQ_INT(st.bad, 1);
    ring_put(&r, a, 5);
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    CHECK_EQ_INT(st.bad, 2);
    free(r.mem);

    /* a sample whose nr says more than it holds */
    memset(&st, 0, sizeof st);
    ring_init(&r, 0);
    struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 8 + 8 + 16 };
    uint64_t nr = 1000;
    ring_put(&r, &h, sizeof h);
    ring_put(&r, &nr, 8);
    ring_put(&r, a, 16);
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    CHECK_EQ_INT(st.bad, 1);
    /* a record as long as the whole ring, and then some: data_head more than a ring ahead */
    ring_page(&r)->data_head = ring_page(&r)->data_tail + RING_DATA + 8;
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    CHECK_EQ_INT(st.bad, 2);
    CHECK_EQ_INT(ring_page(&r)->data_tail, ring_page(&r)->data_head);
    /* data_offset and data_size out of the mapping, or not a power of two */
    ring_page(&r)->data_offset = RING_PAGE + 512;
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    ring_page(&r)->data_offset = RING_PAGE;
    ring_page(&r)->data_size = 1000;
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    ring_page(&r)->data_offset = 0;
    ring_page(&r)->data_size = 1u << 20;
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 0);
    CHECK_EQ_INT(st.bad, 5);
    /* no data_offset and data_size (a kernel before 4.1): the page size, the rest of the mapping */
    ring_page(&r)->data_offset = 0;
    ring_page(&r)->data_size = 0;
    r.head = ring_page(&r)->data_tail;
    ring_sample(&r, d, 2);
    ring_publish(&r);
    CHECK_EQ_INT(ring_take(&r, &st, out, 16), 1);
    CHECK_EQ_INT(out[0], K(20));
    /* a mapping too small to hold the page */
    CHECK_EQ_INT(perf_ring_take_chain(r.mem, 64, RING_PAGE, &st, out, 16), 0);
    CHECK_EQ_INT(perf_ring_take_chain(NULL, 0, RING_PAGE, NULL, out, 16), 0);
    free(r.mem);
}

static void test_by_fd(void)
{
    perf_thread a = { .fd = 5, .tid = 100 }, b = { .fd = 5, .tid = 200 };
    CHECK(perf_threads_by_fd_set(5, &a));
    CHECK(perf_threads_by_fd_get(5, 100) == &a);
    CHECK(perf_threads_by_fd_get(5, 200) == NULL); /* a signal of another thread's fd */
    perf_threads_by_fd_clear(5, &b);                /* not b's: kept */
    CHECK(perf_threads_by_fd_get(5, 100) == &a);
    perf_threads_by_fd_clear(5, &a);
    CHECK(perf_threads_by_fd_get(5, 100) == NULL);
    CHECK(!perf_threads_by_fd_set(-1, &a));
    CHECK(!perf_threads_by_fd_set(PERF_THREADS_BY_FD_MAX, &a));
    CHECK(perf_threads_by_fd_get(PERF_THREADS_BY_FD_MAX + 5, 100) == NULL);
    CHECK(perf_threads_by_fd_get(-3, 100) == NULL);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(test_parse_names);
    RUN(test_parse_bad);
    RUN(test_parse_function);
    RUN(test_parse_tracepoint);
    RUN(test_probe);
    RUN(test_kernel_chains);
    RUN(test_kernel_chains_refused);
    RUN(test_context_switches);
    RUN(test_breakpoint);
    RUN(test_kallsyms_real);
    RUN(test_kallsyms_file);
    RUN(test_ring);
    RUN(test_by_fd);
    return DONE();
}
