/* proc_state.c — a thread's state and a process's start as the kernel tells them (proc_state.h). */
#include "proc_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *proc_stat_fields(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    /* "PID (COMM) S ...": the fields go on after the last ')' */
    const char *close_paren = strrchr(buf, ')');
    if (!close_paren || close_paren[1] != ' ' || !close_paren[2])
        return NULL;
    return close_paren + 2;
}

bool proc_boot_id(char out[37])
{
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char b[64];
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    if (n != 37 || b[36] != '\n')
        return false;
    b[36] = '\0';
    if (strspn(b, "0123456789abcdef-") != 36)
        return false;
    memcpy(out, b, 37);
    return true;
}

bool proc_start_ticks(const char *path, unsigned long long *ticks)
{
    char buf[2048];
    const char *p = proc_stat_fields(path, buf, sizeof buf); /* field 3 */
    if (!p)
        return false;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p)
            return false;
        p++;
    }
    char *end;
    errno = 0;
    *ticks = strtoull(p, &end, 10);
    return end != p && (*end == ' ' || *end == '\n' || !*end) && !errno;
}

char proc_thread_state(uint32_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%u/stat", (unsigned)tid);
    const char *fields = proc_stat_fields(path, buf, sizeof buf);
    return fields ? fields[0] : 0;
}

int proc_state_running(char state)
{
    if (state == 0)
        return -1;
    return state == 'R';
}
