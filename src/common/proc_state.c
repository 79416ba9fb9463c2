/* proc_state.c — a thread's state as the kernel tells it (proc_state.h). */
#include "proc_state.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

char proc_thread_state(uint32_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%u/stat", (unsigned)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* "TID (COMM) S ...": COMM may hold spaces and parentheses, so the state follows the last ')' */
    const char *close_paren = strrchr(buf, ')');
    if (!close_paren || close_paren[1] != ' ' || !close_paren[2])
        return 0;
    return close_paren[2];
}

int proc_state_running(char state)
{
    if (state == 0)
        return -1;
    return state == 'R';
}
