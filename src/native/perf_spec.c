/* perf_spec.c — owns the event= names: their parse into a perf_spec (the generic hardware and software events,
 * tracepoints by SYS:NAME through tracefs, execute breakpoints), the perf_event_attr built from one, and the probe
 * that says whether this machine counts it. */
#include "perf_spec.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

typedef struct ps_named {
    const char *name;
    uint32_t type;
    uint64_t config;
} ps_named;

static const ps_named ps_events[] = {
    { "cpu", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
    { "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
    { "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
    { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
    { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
    { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
    { "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
    { "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
    { "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
    { "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
    { "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
    { "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
    { "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
    { "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

#define PS_ACCEPTED                                                                                               \
    "accepted: cpu (the default), cycles, instructions, cache-misses, cache-references, branch-misses, branches, " \
    "page-faults, minor-faults, major-faults, context-switches, cpu-migrations, SYS:NAME (a tracepoint, e.g. "      \
    "sched:sched_switch) or a native function's name"

/* Where tracefs may be mounted, newest first. */
static const char *const ps_tracefs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static bool ps_tp_part(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return false;
    return s[0] != '-';
}

/* A C or C++ function's name, mangled or with its namespaces ("ns::f"), maybe a suffix ("f.cold", "f@GLIBC"). */
static bool ps_function_name(const char *s)
{
    if (!isalpha((unsigned char)s[0]) && s[0] != '_')
        return false;
    for (const char *p = s; *p; p++) {
        if (*p == ':') {
            if (p[1] != ':')
                return false;
            p++;
        } else if (!isalnum((unsigned char)*p) && !strchr("_.$@~", *p)) {
            return false;
        }
    }
    return true;
}

/* The tracepoint's id from tracefs: 0 and a message in err when it cannot be read. */
static uint64_t ps_tracepoint_id(const char *sys, size_t syslen, const char *name, const char *text, char *err,
                                 size_t errlen)
{
    bool mounted = false;
    for (size_t i = 0; i < sizeof ps_tracefs / sizeof ps_tracefs[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/events", ps_tracefs[i]);
        if (access(path, F_OK) != 0)
            continue;
        mounted = true;
        snprintf(path, sizeof path, "%s/events/%.*s/%s/id", ps_tracefs[i], (int)syslen, sys, name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT)
                continue;
            snprintf(err, errlen, "event=%s: cannot read %s (%s)", text, path, strerror(errno));
            return 0;
        }
        char buf[32];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) {
            snprintf(err, errlen, "event=%s: cannot read %s", text, path);
            return 0;
        }
        buf[n] = '\0';
        char *end;
        errno = 0;
        unsigned long long id = strtoull(buf, &end, 10);
        if (errno || end == buf || (*end && *end != '\n')) {
            snprintf(err, errlen, "event=%s: %s does not hold a tracepoint id", text, path);
            return 0;
        }
        return id;
    }
    if (!mounted)
        snprintf(err, errlen,
                 "event=%s: tracepoints cannot be looked up: tracefs is mounted at neither %s nor %s "
                 "(mount -t tracefs nodev %s)",
                 text, ps_tracefs[0], ps_tracefs[1], ps_tracefs[0]);
    else
        snprintf(err, errlen, "event=%s: no such tracepoint (%s/available_events lists them as SYS:NAME)", text,
                 ps_tracefs[0]);
    return 0;
}

int perf_spec_parse(const char *text, perf_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    size_t len = text ? strlen(text) : 0;
    if (len == 0) {
        snprintf(err, errlen, "event= needs an event; " PS_ACCEPTED);
        return -1;
    }
    if (len > PERF_SPEC_NAME_MAX) {
        snprintf(err, errlen, "event=%.20s...: too long (%zu characters, at most %d); " PS_ACCEPTED, text, len,
                 PERF_SPEC_NAME_MAX);
        return -1;
    }
    memcpy(out->name, text, len + 1);
    for (size_t i = 0; i < sizeof ps_events / sizeof ps_events[0]; i++) {
        if (strcasecmp(text, ps_events[i].name) == 0) {
            out->type = ps_events[i].type;
            out->config = ps_events[i].config;
            out->time_based = out->type == PERF_TYPE_SOFTWARE && (out->config == PERF_COUNT_SW_TASK_CLOCK ||
                                                                  out->config == PERF_COUNT_SW_CPU_CLOCK);
            return 0;
        }
    }
    const char *colon = strchr(text, ':');
    if (colon && colon[1] != ':' && (colon == text || colon[-1] != ':')) {
        const char *name = colon + 1;
        if (!ps_tp_part(text, (size_t)(colon - text)) || !ps_tp_part(name, strlen(name))) {
            snprintf(err, errlen, "event=%s: not a tracepoint's SYS:NAME (letters, digits, _ and -); " PS_ACCEPTED,
                     text);
            return -1;
        }
        uint64_t id = ps_tracepoint_id(text, (size_t)(colon - text), name, text, err, errlen);
        if (id == 0)
            return -1;
        out->type = PERF_TYPE_TRACEPOINT;
        out->config = id;
        return 0;
    }
    if (ps_function_name(text))
        return 1;
    snprintf(err, errlen, "event=%s: unknown event; " PS_ACCEPTED, text);
    return -1;
}

void perf_spec_breakpoint(perf_spec *out, const char *name, uint64_t addr)
{
    memset(out, 0, sizeof *out);
    out->type = PERF_TYPE_BREAKPOINT;
    out->config = 0;
    out->bp_addr = addr;
    snprintf(out->name, sizeof out->name, "%s", name ? name : "?");
}

void perf_spec_attr(const perf_spec *spec, uint64_t period, struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = spec->type;
    a->config = spec->config;
    a->sample_period = period ? period : 1;
    a->disabled = 1;
    a->wakeup_events = 1;
    a->exclude_hv = 1;
    if (spec->type == PERF_TYPE_BREAKPOINT) {
        a->bp_type = HW_BREAKPOINT_X;
        a->bp_addr = spec->bp_addr;
        a->bp_len = sizeof(long);
    }
}

bool perf_spec_user_only_ok(const perf_spec *spec)
{
    /* these fire in the kernel, with the kernel's registers: user mode only, they never fire (measured) */
    if (spec->type == PERF_TYPE_TRACEPOINT)
        return false;
    /* a clock counting user time only would miss every sample in a system call: the sampler takes a POSIX
     * CPU timer instead, which counts both */
    if (spec->time_based)
        return false;
    if (spec->type == PERF_TYPE_SOFTWARE &&
        (spec->config == PERF_COUNT_SW_CONTEXT_SWITCHES || spec->config == PERF_COUNT_SW_CPU_MIGRATIONS))
        return false;
    return true;
}

static int ps_paranoid(void)
{
    int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 99;
    char buf[16];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 99;
    buf[n] = '\0';
    return atoi(buf);
}

bool perf_spec_probe(const perf_spec *spec, char *why, size_t whylen)
{
    if (whylen)
        why[0] = '\0';
    struct perf_event_attr a;
    uint64_t period = spec->time_based ? 10000000u : spec->type == PERF_TYPE_HARDWARE ? 1000000u : 1u;
    perf_spec_attr(spec, period, &a);
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    int e = fd < 0 ? errno : 0;
    if (fd < 0 && (e == EACCES || e == EPERM) && perf_spec_user_only_ok(spec)) {
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0 && errno != EACCES && errno != EPERM)
            e = errno; /* what else is wrong with it (no PMU, say) */
        if (fd >= 0) {
            close(fd);
            snprintf(why, whylen,
                     "%s: user mode only: the kernel is not counted (kernel.perf_event_paranoid = %d, not root "
                     "nor CAP_PERFMON)",
                     spec->name, ps_paranoid());
            return true;
        }
    }
    if (fd >= 0) {
        close(fd);
        return true;
    }
    const char *what;
    switch (e) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
        what = "not supported by this machine";
        break;
    case EACCES:
    case EPERM:
        what = "not permitted";
        break;
    case EINVAL:
        what = spec->type == PERF_TYPE_BREAKPOINT ? "cannot be a breakpoint here" : "refused by the kernel";
        break;
    case ENOSPC:
        what = spec->type == PERF_TYPE_BREAKPOINT ? "no debug register is free" : "no counter is free";
        break;
    default:
        what = "cannot be opened";
        break;
    }
    if (e == EACCES || e == EPERM)
        snprintf(why, whylen, "%s: %s (perf_event_open: %s; kernel.perf_event_paranoid = %d, not root nor "
                 "CAP_PERFMON)", spec->name, what, strerror(e), ps_paranoid());
    else
        snprintf(why, whylen, "%s: %s (perf_event_open: %s)", spec->name, what, strerror(e));
    return false;
}

uint64_t perf_spec_default_period(const perf_spec *spec)
{
    if (spec->time_based)
        return 10000000u; /* 10 ms */
    if (spec->type == PERF_TYPE_HARDWARE)
        return spec->config == PERF_COUNT_HW_CACHE_MISSES || spec->config == PERF_COUNT_HW_BRANCH_MISSES ||
                       spec->config == PERF_COUNT_HW_CACHE_REFERENCES
                   ? 10000u
                   : 1000000u;
    return 1u; /* the kernel's software events, tracepoints, breakpoints: each one */
}

bool perf_spec_stray_trap(const perf_spec *spec, int signo, const siginfo_t *si)
{
    return spec->type == PERF_TYPE_BREAKPOINT && signo == SIGTRAP && si &&
           (si->si_code == TRAP_BRKPT || si->si_code == TRAP_HWBKPT) &&
           (uint64_t)(uintptr_t)si->si_addr == spec->bp_addr;
}
