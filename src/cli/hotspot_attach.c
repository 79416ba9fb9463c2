/* hotspot_attach.c — see hotspot_attach.h. The protocol (HotSpot's
 * LinuxAttachListener, JDK 8 to 21): the request is "1" (its version), the
 * command ("load"), then exactly three arguments (the library, "true" for an
 * absolute path, the options), each NUL-terminated; the answer is a status
 * line ("0": done) and the command's output ("return code: N" for load).
 * Everything is reached through /proc/PID, so a JVM in a container (its own
 * PID and mount namespaces) is found under the pid and the /tmp it sees,
 * resolved inside its root (proc_root.h); what is found there is checked
 * to be the JVM's before it is used. */
#include "hotspot_attach.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../common/fd_write.h"
#include "../common/proc_state.h"
#include "proc_root.h"

char *hotspot_read_fd(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (ssize_t r; buf; n += (size_t)r) {
        if (n == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) {
            r = 0;
            continue;
        }
        if (r <= 0) {
            if (r < 0) {
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

char *hotspot_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = hotspot_read_fd(fd, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return buf;
}

/* The last number on the status line that starts with key ("NSpid:"), or -1. */
static long ha_status_field(const char *status, const char *key, int which)
{
    const char *p = strstr(status, key);
    if (!p)
        return -1;
    p += strlen(key);
    long v = -1;
    for (int i = 0;; i++) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p)
            break;
        v = x;
        p = end;
        if (i == which)
            break;
    }
    return v;
}

static bool ha_has(const char *path, const char *needle)
{
    char *s = hotspot_read_file(path, NULL);
    bool yes = s && strstr(s, needle);
    free(s);
    return yes;
}

/* The main class or jar of a java command line (NUL-separated arguments). */
static void ha_main(const char *cmd, size_t len, char *out, size_t cap)
{
    static const char *const with_value[] = { "-cp", "-classpath", "--class-path", "-p", "--module-path",
                                              "--add-opens", "--add-exports", "--add-modules", "--add-reads",
                                              "--patch-module", "--upgrade-module-path", "--limit-modules" };
    snprintf(out, cap, "?");
    const char *p = cmd, *end = cmd + len;
    p += strlen(p) + 1; /* the program */
    while (p < end) {
        const char *next = p + strlen(p) + 1;
        if (!strcmp(p, "-jar") || !strcmp(p, "-m") || !strcmp(p, "--module")) {
            if (next < end)
                snprintf(out, cap, "%s", next);
            return;
        }
        bool skip = false;
        for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
            skip |= !strcmp(p, with_value[i]);
        if (skip)
            next += next < end ? strlen(next) + 1 : 0;
        else if (p[0] != '-') {
            snprintf(out, cap, "%s", p);
            return;
        }
        p = next;
    }
}

jp_status hotspot_target_find(pid_t pid, hotspot_target *t, char *why, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->pid = pid;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    char *status = pid > 0 ? hotspot_read_file(path, NULL) : NULL;
    if (!status) {
        snprintf(why, cap, "no process %ld", (long)pid);
        return JP_ERR_ARG;
    }
    t->uid = (uid_t)ha_status_field(status, "Uid:", 1);
    t->gid = (gid_t)ha_status_field(status, "Gid:", 1);
    long ns = ha_status_field(status, "NSpid:", 99);
    t->nspid = ns > 0 ? (pid_t)ns : pid;
    const char *sig = strstr(status, "SigCgt:");
    unsigned long long caught = sig ? strtoull(sig + 7, NULL, 16) : 0;
    free(status);
    char a[128] = "", b[128] = "";
    snprintf(path, sizeof path, "/proc/%ld/ns/mnt", (long)pid);
    ssize_t na = readlink(path, a, sizeof a - 1), nb = readlink("/proc/self/ns/mnt", b, sizeof b - 1);
    t->own_mounts = na > 0 && nb > 0 && strcmp(a, b) != 0;
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
    char *maps = hotspot_read_file(path, NULL);
    if (!maps) {
        snprintf(why, cap, "process %ld cannot be inspected (%s)", (long)pid, strerror(errno));
        return JP_ERR_ARG;
    }
    bool jvm = strstr(maps, "/libjvm.so") != NULL;
    t->jvmprof = strstr(maps, "/libjvmprof.so") != NULL;
    free(maps);
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    char *cmd = hotspot_read_file(path, &len);
    if (cmd && len)
        ha_main(cmd, len, t->main, sizeof t->main);
    else
        snprintf(t->main, sizeof t->main, "?");
    bool disabled = false;
    for (const char *p = cmd; cmd && p < cmd + len; p += strlen(p) + 1)
        disabled |= !strcmp(p, "-XX:+DisableAttachMechanism");
    free(cmd);
    if (!jvm) {
        snprintf(why, cap, "process %ld is not a Java VM (no libjvm.so in it)", (long)pid);
        return JP_ERR_ARG;
    }
    if (disabled) {
        snprintf(why, cap, "the JVM of process %ld was started with -XX:+DisableAttachMechanism: it accepts no "
                 "attach request (start it with -agentpath:libjvmprof.so=... instead)", (long)pid);
        return JP_ERR_ARG;
    }
    if (!(caught & (1ull << (SIGQUIT - 1)))) {
        snprintf(why, cap, "the JVM of process %ld does not handle SIGQUIT (still starting up, or run with -Xrs): "
                 "it cannot be asked to attach", (long)pid);
        return JP_ERR_ARG;
    }
    return JP_OK;
}

bool hotspot_target_ours(const hotspot_target *t, char *why, size_t cap)
{
    if (t->uid == geteuid())
        return true;
    char pidpath[64];
    snprintf(pidpath, sizeof pidpath, "/proc/%ld", (long)t->pid);
    snprintf(why, cap, "the JVM of process %ld runs as user %lu, not as you (%lu): a JVM accepts attach requests "
             "only from its own user, and what the agent writes would belong to it; run jvmprof as that user "
             "(sudo -u '#%lu' jvmprof ...)", (long)t->pid, (unsigned long)t->uid, (unsigned long)geteuid(),
             (unsigned long)t->uid);
    return false;
}

static void ha_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int hotspot_tmp_open(const hotspot_target *t, char *why, size_t cap)
{
    int root = proc_root_open(t->pid);
    int tmp = root >= 0 ? proc_root_openat(root, "/tmp", O_PATH | O_DIRECTORY, 0) : -1;
    if (tmp < 0)
        snprintf(why, cap, "cannot open the /tmp of process %ld (%s): %s", (long)t->pid,
                 root < 0 ? "its root directory" : "its /tmp, inside its root", strerror(errno));
    if (root >= 0)
        close(root);
    return tmp;
}

/* When process pid started, in seconds since the epoch (to within a second: the boot time is in whole
 * seconds), or -1 if /proc does not say. */
static double ha_process_start(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    unsigned long long ticks = 0, btime = 0;
    if (!proc_start_ticks(path, &ticks))
        return -1;
    FILE *st = fopen("/proc/stat", "re");
    if (!st)
        return -1;
    while (fgets(line, sizeof line, st) && sscanf(line, "btime %llu", &btime) != 1)
        ;
    fclose(st);
    long hz = sysconf(_SC_CLK_TCK);
    return btime && hz > 0 ? (double)btime + (double)ticks / (double)hz : -1;
}

/* The JVM's attach socket, name in tmp: 1 (*fd: an O_PATH descriptor of it) when it is there and made as
 * its JVM makes it, HotSpot's client's checks (its owner and group the JVM's, no access for others: made
 * by the JVM's user, to be used by that user); 0 when it is not there (yet), or only one older than the
 * process is (left by an earlier JVM with the same pid, killed: the JVM removes it as it starts, and
 * makes its own after); -1 with why. */
static int ha_socket_open(const hotspot_target *t, int tmp, const char *name, int *fd, char *why, size_t cap)
{
    *fd = openat(tmp, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0 && errno == ENOENT)
        return 0;
    struct stat st;
    const char *wrong = NULL;
    char owner[160] = "";
    if (*fd < 0 || fstat(*fd, &st) != 0)
        wrong = strerror(errno);
    else if (!S_ISSOCK(st.st_mode))
        wrong = S_ISLNK(st.st_mode) ? "is a symbolic link, not a socket" : "is not a socket";
    else if (st.st_uid != t->uid || st.st_gid != t->gid) {
        snprintf(owner, sizeof owner, "belongs to user %lu, group %lu, not to the JVM's (user %lu, group %lu)",
                 (unsigned long)st.st_uid, (unsigned long)st.st_gid, (unsigned long)t->uid, (unsigned long)t->gid);
        wrong = owner;
    } else if (st.st_mode & 077) {
        snprintf(owner, sizeof owner, "is open to other users (mode %04o; a JVM makes its socket 0600)",
                 (unsigned)(st.st_mode & 07777));
        wrong = owner;
    }
    if (!wrong) {
        double started = ha_process_start(t->pid);
        if (started > 0 && (double)st.st_mtim.tv_sec + 2 < started) { /* stale: 2 s for the boot time's rounding */
            close(*fd);
            *fd = -1;
            return 0;
        }
        return 1;
    }
    snprintf(why, cap, "the attach socket of process %ld, /tmp/%s in its file system, %s: not used (another "
             "process made it; remove it to attach)", (long)t->pid, name, wrong);
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    return -1;
}

/* The trigger, name in dir: made afresh, never through a link (1: ours, to remove); 0: one of the JVM's
 * user's is there already; -1 (errno; EEXIST: something else is there). */
static int ha_trigger_make(const hotspot_target *t, int dir, const char *name)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return 1;
    }
    struct stat st;
    if (errno == EEXIST && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == t->uid)
        return 0;
    return -1;
}

/* Wakes the JVM's attach listener: an .attach_pid file in its working directory or else in its /tmp, then
 * SIGQUIT; waits for its socket (*sock) as ha_socket_open. */
static jp_status ha_wake(const hotspot_target *t, int tmp, const char *sock_name, int timeout_ms, int *sock,
                         char *why, size_t cap)
{
    char cwd_path[64], name[64], tried[400];
    snprintf(cwd_path, sizeof cwd_path, "/proc/%ld/cwd", (long)t->pid);
    snprintf(name, sizeof name, ".attach_pid%ld", (long)t->nspid);
    int cwd = open(cwd_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int dir = cwd, made = cwd >= 0 ? ha_trigger_make(t, cwd, name) : -1;
    snprintf(tried, sizeof tried, "%s in its working directory: %s", name,
             made < 0 && errno == EEXIST ? "something else is there (a link, another user's file)" : strerror(errno));
    if (made < 0) {
        dir = tmp;
        made = ha_trigger_make(t, tmp, name);
    }
    if (made < 0) {
        snprintf(why, cap, "cannot ask the JVM of process %ld to attach: %s; /tmp/%s: %s", (long)t->pid, tried, name,
                 errno == EEXIST ? "something else is there (a link, another user's file)" : strerror(errno));
        if (cwd >= 0)
            close(cwd);
        return JP_ERR_IO;
    }
    jp_status st = JP_OK;
    if (kill(t->pid, SIGQUIT) != 0) {
        snprintf(why, cap, "cannot signal process %ld: %s", (long)t->pid, strerror(errno));
        st = JP_ERR_IO;
    }
    int found = 0;
    for (long waited = 0; st == JP_OK && !found; waited += 20) {
        found = ha_socket_open(t, tmp, sock_name, sock, why, cap);
        if (found < 0)
            st = JP_ERR_IO;
        else if (!found && kill(t->pid, 0) != 0 && errno == ESRCH) {
            snprintf(why, cap, "process %ld ended before it opened its attach socket", (long)t->pid);
            st = JP_ERR_IO;
        } else if (!found && waited >= timeout_ms) {
            snprintf(why, cap, "the JVM of process %ld did not open its attach socket (/tmp/%s in its file system) "
                     "within %d ms", (long)t->pid, sock_name, timeout_ms);
            st = JP_ERR_IO;
        } else if (!found)
            ha_sleep_ms(20);
    }
    if (made == 1)
        unlinkat(dir, name, 0);
    if (cwd >= 0)
        close(cwd);
    return st;
}

jp_status hotspot_attach_load(const hotspot_target *t, int tmp, const char *lib, const char *options,
                              int timeout_ms, int *agent_rc, char *why, size_t cap)
{
    char sock_name[64];
    snprintf(sock_name, sizeof sock_name, ".java_pid%ld", (long)t->nspid);
    int sock = -1, found = ha_socket_open(t, tmp, sock_name, &sock, why, cap);
    if (found < 0)
        return JP_ERR_IO;
    if (!found && ha_wake(t, tmp, sock_name, timeout_ms, &sock, why, cap) != JP_OK)
        return JP_ERR_IO;
    /* connected through the descriptor checked, so that what is checked is what is connected to */
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d", sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        snprintf(why, cap, "cannot connect to the JVM of process %ld (/tmp/%s in its file system): %s", (long)t->pid,
                 sock_name, strerror(errno));
        if (fd >= 0)
            close(fd);
        close(sock);
        return JP_ERR_IO;
    }
    close(sock);
    /* and the process listening is the JVM itself, not another of its user's */
    struct ucred peer = { 0 };
    socklen_t peer_len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) != 0 || peer.pid != t->pid ||
        peer.uid != t->uid) {
        snprintf(why, cap, "the attach socket of process %ld, /tmp/%s in its file system, is served by process %ld "
                 "(user %lu), not by the JVM: not used", (long)t->pid, sock_name, (long)peer.pid,
                 (unsigned long)peer.uid);
        close(fd);
        return JP_ERR_IO;
    }
    /* the answer comes when Agent_OnAttach returns: a start that re-instruments 20,000 classes takes
     * seconds, a wedged JVM forever; 5 minutes at most */
    struct timeval tv = { 300, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    /* "1" load LIB true OPTIONS, each with its NUL */
    const char *parts[] = { "1", "load", lib, "true", options ? options : "" };
    bool sent = true;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && sent; i++)
        sent = fd_send_all(fd, parts[i], strlen(parts[i]) + 1);
    char reply[4096];
    size_t n = 0;
    for (ssize_t r; sent && n < sizeof reply - 1; n += (size_t)r) {
        r = read(fd, reply + n, sizeof reply - 1 - n);
        if (r < 0 && errno == EINTR) {
            r = 0;
            continue;
        }
        if (r <= 0) {
            if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                close(fd);
                snprintf(why, cap, "the JVM of process %ld did not answer within 5 minutes", (long)t->pid);
                return JP_ERR_IO;
            }
            break;
        }
    }
    close(fd);
    reply[n] = '\0';
    if (!sent || n == 0) {
        snprintf(why, cap, "the JVM of process %ld closed the attach connection without an answer", (long)t->pid);
        return JP_ERR_IO;
    }
    char *end;
    long status = strtol(reply, &end, 10);
    const char *rc = strstr(reply, "return code: ");
    if (status != 0 || !rc) {
        char *nl;
        const char *text = *end == '\n' ? end + 1 : end;
        while ((nl = strchr(text, '\n')) && nl[1] == '\0')
            *nl = '\0';
        snprintf(why, cap, "the JVM of process %ld refused to load %s: %s", (long)t->pid, lib,
                 *text ? text : "no reason given");
        for (char *q = why; *q; q++)
            if (*q == '\n')
                *q = ' ';
        return JP_ERR_IO;
    }
    *agent_rc = atoi(rc + 13);
    return JP_OK;
}

size_t hotspot_list(pid_t *pids, size_t cap)
{
    DIR *d = opendir("/proc");
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < cap) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid())
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/maps", pid);
        if (ha_has(path, "/libjvm.so"))
            pids[n++] = (pid_t)pid;
    }
    if (d)
        closedir(d);
    return n;
}
