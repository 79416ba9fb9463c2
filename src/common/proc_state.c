/* proc_state.c — a thread's state as the kernel tells it (proc_state.h). */
#include "proc_state.h"

#include <fcntl.h>
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
