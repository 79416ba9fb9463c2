/* hotspot_attach.h — a client of HotSpot's dynamic attach mechanism on
 * Linux, as jcmd uses it: a running JVM found by pid (also in another PID or
 * mount namespace: a container), woken with an .attach_pid file and SIGQUIT,
 * and asked over its UNIX socket (/tmp/.java_pid<pid> as the JVM sees its
 * /tmp) to load an agent library with options, which runs the library's
 * Agent_OnAttach. */
#ifndef HOTSPOT_ATTACH_H
#define HOTSPOT_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "../common/jp_error.h"

typedef struct hotspot_target {
    pid_t pid;                  /* as we see it */
    pid_t nspid;                /* as it sees itself (its own PID namespace) */
    uid_t uid;                  /* its effective user */
    gid_t gid;
    bool own_mounts;            /* its mount namespace is not ours */
    char main[256];             /* its main class or jar, from its command line ("?" if unknown) */
    bool jvmprof;               /* libjvmprof.so is loaded in it */
} hotspot_target;

/* The JVM of pid: JP_ERR_ARG with why ("no process 123", "process 123 is not
 * a Java VM", "... started with -XX:+DisableAttachMechanism") otherwise. */
jp_status hotspot_target_find(pid_t pid, hotspot_target *t, char *why, size_t cap);

/* Whether we may attach to it: the same user (the JVM accepts attach
 * requests only from its own user); false with why. */
bool hotspot_target_ours(const hotspot_target *t, char *why, size_t cap);

/* The JVM's /tmp, as it sees it: an O_PATH descriptor of it, found inside
 * its root (proc_root.h: a link planted in a container leads nowhere out of
 * it); -1 with why. */
int hotspot_tmp_open(const hotspot_target *t, char *why, size_t cap);

/* Loads the agent at lib (a path the target can open) with options, waiting
 * up to timeout_ms for the JVM to answer; tmp is hotspot_tmp_open's. Its
 * socket (/tmp/.java_pid<pid>) is used only if it is the JVM's own: of the
 * JVM's user and group, open to no other user (what HotSpot's own client
 * checks), and listened on by the JVM's process (SO_PEERCRED); the trigger
 * file is made afresh (O_EXCL, never through a link). *agent_rc: what
 * Agent_OnAttach returned. JP_ERR_IO with why when the JVM did not answer
 * or refused, or its socket is not its own. */
jp_status hotspot_attach_load(const hotspot_target *t, int tmp, const char *lib, const char *options,
                              int timeout_ms, int *agent_rc, char *why, size_t cap);

/* A whole file, read (also a /proc file, which cannot be mapped), malloc'ed and NUL-terminated, its
 * length in *len (len may be NULL); NULL if it cannot be read. hotspot_read_fd: the rest of an open one. */
char *hotspot_read_file(const char *path, size_t *len);
char *hotspot_read_fd(int fd, size_t *len);

/* Every process of this machine that is a JVM (its pids, as we see them),
 * into pids (cap at most); the count. */
size_t hotspot_list(pid_t *pids, size_t cap);

#endif
