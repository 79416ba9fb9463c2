/* deny.c — `deny SYSCALL[,SYSCALL...] COMMAND...` runs COMMAND with the named
 * system calls refused (EPERM) by a seccomp filter, as a container's profile
 * may refuse them: the agent must fall back, not fail. Known names:
 * process_vm_readv, perf_event_open. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct { const char *name; long nr; } known[] = {
    { "process_vm_readv", SYS_process_vm_readv },
    { "perf_event_open", SYS_perf_event_open },
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: deny SYSCALL[,SYSCALL...] COMMAND [ARG...]\n");
        return 2;
    }
    struct sock_filter f[2 + 2 * 8];
    unsigned n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    char list[256];
    snprintf(list, sizeof list, "%s", argv[1]);
    for (char *save, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        unsigned k = 0;
        while (k < sizeof known / sizeof known[0] && strcmp(known[k].name, name) != 0)
            k++;
        if (k == sizeof known / sizeof known[0] || n + 3 > sizeof f / sizeof f[0]) {
            fprintf(stderr, "deny: unknown system call '%s' (known: process_vm_readv, perf_event_open)\n", name);
            return 2;
        }
        f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)known[k].nr, 0, 1);
        f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    }
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = { (unsigned short)n, f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
        perror("deny");
        return 2;
    }
    execvp(argv[2], argv + 2);
    perror("execvp");
    return 2;
}
