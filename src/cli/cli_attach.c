/* cli_attach.c — jvmprof list | start | stop | dump | reset | status |
 * heapdump | collect: the agent in a running JVM, through HotSpot's attach
 * mechanism (hotspot_attach.h). Each command loads libjvmprof.so into the
 * JVM (the library loads once; later loads only run Agent_OnAttach) with a
 * request that names a file this command made, where the agent writes its
 * answer (src/agent/remote/attach_commands.c): the lines to print, then "ok" or
 * "error: WHY". A JVM that cannot open our library (a container, a chroot)
 * gets a copy of it and of jvmprof.jar in its /tmp. Everything in that /tmp
 * is reached from a descriptor of it opened inside the JVM's root
 * (hotspot_tmp_open), never by a path through /proc/PID/root. */
#include "cli_commands.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/attach_protocol.h"
#include "../options/options.h"
#include "cli_common.h"
#include "hotspot_attach.h"
#include "proc_root.h"

#define CA_TIMEOUT_MS 10000

/* libjvmprof.so beside this command (build/), or in ../lib/jvmprof/ (make install). */
static bool ca_agent_path(char *out, size_t cap)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *dir = dirname(exe);
    const char *tries[] = { "%s/libjvmprof.so", "%s/../lib/jvmprof/libjvmprof.so" };
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        char path[4200];
        snprintf(path, sizeof path, tries[i], dir);
        char *real = realpath(path, NULL);
        if (real && access(real, R_OK) == 0 && strlen(real) < cap) {
            snprintf(out, cap, "%s", real);
            free(real);
            return true;
        }
        free(real);
    }
    return false;
}

/* name with a random suffix: prefix and 12 hexadecimal digits */
static void ca_random_name(const char *prefix, char *out, size_t cap)
{
    static unsigned long long counter;
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = (unsigned long long)ts.tv_nsec * 2654435761u ^ (unsigned long long)getpid() << 32;
    }
    snprintf(out, cap, "%s%012llx", prefix, (r ^ ++counter) & 0xffffffffffffull);
}

/* A new file in dir (never one that was there, never through a link), opened with flags; -1 (errno). */
static int ca_create(int dir, const char *prefix, char *name, size_t cap, int flags, mode_t mode)
{
    for (int i = 0; i < 100; i++) {
        ca_random_name(prefix, name, cap);
        int fd = openat(dir, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* Whether name in dir holds the bytes of the file from. */
static bool ca_same_bytes(const char *from, int dir, const char *name)
{
    int a = open(from, O_RDONLY | O_CLOEXEC), b = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sa, sb;
    bool same = a >= 0 && b >= 0 && fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_size == sb.st_size;
    static char ca[65536], cb[65536];
    for (ssize_t ra, rb; same && (ra = read(a, ca, sizeof ca)) != 0;) {
        rb = read(b, cb, sizeof cb);
        same = ra > 0 && rb == ra && !memcmp(ca, cb, (size_t)ra);
    }
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    return same;
}

/* A copy of the file from as name in dir (our directory in the JVM's /tmp): kept when a file of ours with
 * those bytes is there, else written anew and renamed over it. What is there and is not a file of ours
 * (a link, another user's file) is left alone: false, errno EEXIST. */
static bool ca_copy(const char *from, int dir, const char *name)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
            errno = EEXIST;
            return false;
        }
        if (ca_same_bytes(from, dir, name))
            return true;
    } else if (errno != ENOENT) {
        return false;
    }
    char tmp[300], prefix[280];
    snprintf(prefix, sizeof prefix, ".%s.", name);
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = in >= 0 ? ca_create(dir, prefix, tmp, sizeof tmp, O_WRONLY, 0700) : -1;
    bool ok = in >= 0 && out >= 0;
    static char chunk[65536];
    for (ssize_t r; ok && (r = read(in, chunk, sizeof chunk)) != 0;)
        ok = r > 0 && write(out, chunk, (size_t)r) == r;
    int saved = errno;
    if (in >= 0)
        close(in);
    if (out >= 0) {
        ok = fchmod(out, 0755) == 0 && close(out) == 0 && ok;
        saved = ok ? saved : errno;
        ok = ok && renameat(dir, tmp, dir, name) == 0;
        saved = ok ? saved : errno;
        if (!ok)
            unlinkat(dir, tmp, 0);
    }
    errno = saved;
    return ok;
}

/* Whether the JVM opens our file at path itself (that path in its root is this very file). */
static bool ca_sees(const hotspot_target *t, const char *path)
{
    struct stat ours, theirs;
    int root = proc_root_open(t->pid);
    int fd = root >= 0 ? proc_root_openat(root, path, O_PATH, 0) : -1;
    bool same = fd >= 0 && stat(path, &ours) == 0 && fstat(fd, &theirs) == 0 && ours.st_dev == theirs.st_dev &&
                ours.st_ino == theirs.st_ino;
    if (fd >= 0)
        close(fd);
    if (root >= 0)
        close(root);
    return same;
}

/* Our directory in the JVM's /tmp (tmp): made, or one there already that is a directory of ours that
 * others cannot write in (never one reached through a link); -1 with why. */
static int ca_agent_dir(const hotspot_target *t, int tmp, const char *name, char *why, size_t wcap)
{
    if (mkdirat(tmp, name, 0755) != 0 && errno != EEXIST) {
        snprintf(why, wcap, "cannot make /tmp/%s in the file system of process %ld: %s", name, (long)t->pid,
                 strerror(errno));
        return -1;
    }
    int dir = openat(tmp, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    char wrong[160] = "";
    if (dir < 0)
        snprintf(wrong, sizeof wrong, "%s", errno == ELOOP || errno == ENOTDIR ? "is not a directory (a symbolic "
                 "link, or a file)" : strerror(errno));
    else if (fstat(dir, &st) != 0)
        snprintf(wrong, sizeof wrong, "%s", strerror(errno));
    else if (st.st_uid != geteuid())
        snprintf(wrong, sizeof wrong, "belongs to user %lu, not to you (%lu)", (unsigned long)st.st_uid,
                 (unsigned long)geteuid());
    else if (st.st_mode & 022)
        snprintf(wrong, sizeof wrong, "can be written by other users (mode %04o)", (unsigned)(st.st_mode & 07777));
    if (!wrong[0])
        return dir;
    snprintf(why, wcap, "/tmp/%s in the file system of process %ld %s: not used for the agent's copy (remove it to "
             "attach)", name, (long)t->pid, wrong);
    if (dir >= 0)
        close(dir);
    return -1;
}

/* The library's path as the target sees it: ours, or a copy in its /tmp (tmp), with the jar. */
static bool ca_library_for(const hotspot_target *t, int tmp, const char *lib, char *out, size_t cap, char *why,
                           size_t wcap)
{
    if (t->jvmprof) { /* the copy it has loaded (another would be a second agent): its path, as it sees it */
        char maps[64], root[4096];
        snprintf(maps, sizeof maps, "/proc/%ld/root", (long)t->pid);
        ssize_t rn = readlink(maps, root, sizeof root - 1);
        root[rn > 0 ? rn : 0] = '\0';
        /* maps names files from our root: those of a JVM in a chroot with the chroot's path in front */
        size_t rlen = !strcmp(root, "/") ? 0 : strlen(root);
        snprintf(maps, sizeof maps, "/proc/%ld/maps", (long)t->pid);
        FILE *f = fopen(maps, "r");
        char line[4400];
        bool found = false;
        while (f && !found && fgets(line, sizeof line, f)) {
            char *path = strchr(line, '/');
            size_t n = path ? strcspn(path, "\n") : 0;
            if (n > 14 && !strncmp(path + n - 14, "/libjvmprof.so", 14) && n < cap) {
                if (rlen && n > rlen && !strncmp(path, root, rlen) && path[rlen] == '/') {
                    path += rlen;
                    n -= rlen;
                }
                snprintf(out, cap, "%.*s", (int)n, path);
                found = true;
            }
        }
        if (f)
            fclose(f);
        if (found)
            return true;
    }
    if (ca_sees(t, lib)) {
        snprintf(out, cap, "%s", lib);
        return true;
    }
    char name[64], jar[4200];
    snprintf(name, sizeof name, "jvmprof-%s-%lu", JP_VERSION, (unsigned long)t->uid);
    int dir = ca_agent_dir(t, tmp, name, why, wcap);
    if (dir < 0)
        return false;
    snprintf(jar, sizeof jar, "%s", lib);
    snprintf(strrchr(jar, '/') + 1, sizeof jar - (size_t)(strrchr(jar, '/') + 1 - jar), "jvmprof.jar");
    const char *failed = !ca_copy(lib, dir, "libjvmprof.so") ? "libjvmprof.so"
                         : !ca_copy(jar, dir, "jvmprof.jar") ? "jvmprof.jar" : NULL;
    int saved = errno;
    close(dir);
    if (failed) {
        snprintf(why, wcap, "cannot copy the agent into the file system of process %ld (/tmp/%s/%s): %s",
                 (long)t->pid, name, failed, saved == EEXIST ? "something that is not a file of yours is there: "
                 "not replaced (remove it to attach)" : strerror(saved));
        return false;
    }
    snprintf(out, cap, "/tmp/%s/libjvmprof.so", name);
    return true;
}

/* A file named on our command line, as the JVM must see it: relative to our directory when it sees our files. */
static void ca_file(const hotspot_target *t, const char *name, char *out, size_t cap)
{
    char cwd[2048];
    if (name[0] != '/' && !t->own_mounts && getcwd(cwd, sizeof cwd))
        snprintf(out, cap, "%s/%s", cwd, name);
    else
        snprintf(out, cap, "%s", name);
}

/* The agent's options with the value of each file option (the option table's paths: file=, flame=,
 * tracefile=, pprof=, plugin= ...) as ca_file makes it. */
static void ca_absolute(const hotspot_target *t, const char *options, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *p = options; *p;) {
        size_t len = strcspn(p, ","), klen = strcspn(p, "=,");
        bool path = false;
        for (size_t k = 0; k < OPTIONS_ID_COUNT && klen < len; k++)
            path |= options_defs[k].kind == OPTIONS_KIND_PATH && strlen(options_defs[k].name) == klen &&
                    !strncmp(p, options_defs[k].name, klen);
        char value[4200];
        snprintf(value, sizeof value, "%.*s", (int)(len - (path ? klen + 1 : len)), p + (path ? klen + 1 : len));
        char file[4400];
        if (path && value[0])
            ca_file(t, value, file, sizeof file);
        int w = path && value[0] ? snprintf(out + n, cap - n, "%s%.*s=%s", n ? "," : "", (int)klen, p, file)
                                 : snprintf(out + n, cap - n, "%s%.*s", n ? "," : "", (int)len, p);
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
        p += len;
        if (*p == ',')
            p++;
    }
}

/* Sends one request: 1 after saying why it could not be sent or answered, else 0 with the agent's answer
 * (malloc'ed) in *text. */
static int ca_send(const hotspot_target *t, const char *command, const char *arg, char **text_out)
{
    char lib[4096], target_lib[4096], why[1200];
    if (!ca_agent_path(lib, sizeof lib)) {
        cli_error("cannot find libjvmprof.so beside the jvmprof command (or in ../lib/jvmprof/)");
        return 1;
    }
    int tmp = hotspot_tmp_open(t, why, sizeof why);
    if (tmp < 0) {
        cli_error("%s", why);
        return 1;
    }
    if (!ca_library_for(t, tmp, lib, target_lib, sizeof target_lib, why, sizeof why)) {
        close(tmp);
        cli_error("%s", why);
        return 1;
    }
    /* the answer's file, in the JVM's /tmp; removed through the descriptor of that /tmp, which outlives
     * the JVM (a path through /proc/PID/root does not) */
    char answer[64], inside[80];
    int fd = ca_create(tmp, ".jvmprof-answer-", answer, sizeof answer, O_RDWR, 0600);
    if (fd < 0) {
        cli_error("cannot make a file for the agent's answer in the /tmp of process %ld: %s", (long)t->pid,
                  strerror(errno));
        close(tmp);
        return 1;
    }
    snprintf(inside, sizeof inside, "/tmp/%s", answer);
    size_t len = strlen(ATTACH_REQUEST_MAGIC) + strlen(command) + strlen(inside) + strlen(arg) + 8;
    char *request = malloc(len);
    int rc = -1;
    jp_status st = JP_ERR_NOMEM;
    if (request) {
        snprintf(request, len, "%s\n%s\n%s\n%s", ATTACH_REQUEST_MAGIC, command, inside, arg);
        st = hotspot_attach_load(t, tmp, target_lib, request, CA_TIMEOUT_MS, &rc, why, sizeof why);
        free(request);
    } else {
        snprintf(why, sizeof why, "out of memory");
    }
    size_t n = 0;
    char *text = st == JP_OK ? hotspot_read_fd(fd, &n) : NULL;
    close(fd);
    unlinkat(tmp, answer, 0);
    close(tmp);
    if (st != JP_OK && strstr(why, "only permitted in the live phase")) {
        /* JDK 21+ refuses to load an agent before VM init itself (17 loaded it, and the agent answered
         * so): the same answer, asked again */
        free(text);
        *text_out = strdup("error: " ATTACH_STARTING "\n");
        if (*text_out)
            return 0;
    }
    if (st != JP_OK) {
        cli_error("%s", why);
        return 1;
    }
    if (rc != 0 || !text || !n) {
        cli_error("the agent could not start in the JVM of process %ld (Agent_OnAttach returned %d; the JVM's "
                  "stderr says why)", (long)t->pid, rc);
        free(text);
        return 1;
    }
    *text_out = text;
    return 0;
}

#define CA_STARTING_MS 10000 /* how long a JVM still starting up is asked again */

static long long ca_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends one request (again, every 50 ms for CA_STARTING_MS, while the JVM answers that it is still
 * starting up) and prints the answer (or, with answer_out, hands it over, malloc'ed, without printing it);
 * the exit code. */
static int ca_request(const hotspot_target *t, const char *command, const char *arg, bool quiet_ok,
                      char **answer_out)
{
    char *text = NULL;
    struct timespec pause = { 0, 50 * 1000000L };
    for (long long until = ca_now_ms() + CA_STARTING_MS;;) {
        if (ca_send(t, command, arg, &text) != 0)
            return 1;
        if (strcmp(text, "error: " ATTACH_STARTING "\n") != 0 || ca_now_ms() >= until)
            break;
        free(text);
        nanosleep(&pause, NULL);
    }
    if (answer_out) {
        *answer_out = text;
        return strstr(text, "\nok\n") || !strncmp(text, "ok\n", 3) ? 0 : 1;
    }
    int code = 1;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strcmp(line, "ok"))
            code = 0;
        else if (!strncmp(line, "error: ", 7))
            cli_error("%s (process %ld)", line + 7, (long)t->pid);
        else if (!quiet_ok)
            printf("%s\n", line);
    }
    free(text);
    return code;
}

/* The target of "COMMAND PID ...", checked; false after saying why. */
static bool ca_target(const char *command, int argc, char **argv, hotspot_target *t)
{
    if (argc < 1) {
        cli_error("%s: expected a process id: jvmprof %s PID%s", command, command,
                  !strcmp(command, "start") ? " OPTIONS" : !strcmp(command, "heapdump") ? " FILE" : "");
        return false;
    }
    char *end;
    long pid = strtol(argv[0], &end, 10);
    char why[1024];
    if (*end || pid <= 0) {
        cli_error("%s: '%s' is not a process id", command, argv[0]);
        return false;
    }
    if (hotspot_target_find((pid_t)pid, t, why, sizeof why) != JP_OK || !hotspot_target_ours(t, why, sizeof why)) {
        cli_error("%s", why);
        return false;
    }
    return true;
}

/* status, stop, dump and reset on a JVM whose memory maps hold no libjvmprof.so: answered here, without
 * loading the agent into it (which would change the JVM that was only asked) */
static int ca_not_loaded(const hotspot_target *t, const char *command)
{
    if (!strcmp(command, "status")) {
        printf("jvmprof is not loaded in process %ld; no profiling session runs (jvmprof start %ld OPTIONS starts "
               "one)\n",
               (long)t->pid, (long)t->pid);
        return 0;
    }
    cli_error("%s: no profiling session runs in process %ld: jvmprof is not loaded there (jvmprof start %ld OPTIONS "
              "starts one)",
              command, (long)t->pid, (long)t->pid);
    return 1;
}

/* Whether a session runs in process PID, read from /proc only: the agent thread, named "jvmprof", runs
 * exactly while a session does (profiler.c). */
static bool ca_profiling(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char comm_path[600], comm[32] = "";
        snprintf(comm_path, sizeof comm_path, "%s/%s/comm", path, e->d_name);
        FILE *f = fopen(comm_path, "re");
        if (!f)
            continue;
        found = fgets(comm, sizeof comm, f) && !strcmp(comm, "jvmprof\n");
        fclose(f);
    }
    closedir(d);
    return found;
}

/* jvmprof dump PID [--last D | --from T [--to T]] [FILE]: the request's argument, FILE (absolute, or "" for
 * the session's file=) then, for a window, a line "last=MS" or "from=MS,to=MS". 0, or the exit code of a
 * usage error. */
static int ca_dump_arg(const hotspot_target *t, int argc, char **argv, char *arg, size_t cap)
{
    unsigned long long last = 0, from = 0, to = 0;
    bool has_last = false, has_from = false, has_to = false;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool is_last = !strcmp(a, "--last"), is_from = !strcmp(a, "--from"), is_to = !strcmp(a, "--to");
        if (is_last || is_from || is_to) {
            unsigned long long v;
            if (i + 1 >= argc || !cli_duration_ms(argv[i + 1], &v)) {
                cli_error("dump: %s takes a time: a number with ms, s, m or h (a bare number is seconds), not '%s'",
                          a, i + 1 < argc ? argv[i + 1] : "");
                return 2;
            }
            i++;
            if (is_last)
                has_last = true, last = v;
            else if (is_from)
                has_from = true, from = v;
            else
                has_to = true, to = v;
        } else if (a[0] == '-' && a[1]) {
            cli_error("dump: unknown option '%s' (accepted: --last D, --from T, --to T)", a);
            return 2;
        } else if (file) {
            cli_error("dump: expected jvmprof dump PID [--last D | --from T --to T] [FILE]");
            return 2;
        } else
            file = a;
    }
    if (has_last && (has_from || has_to)) {
        cli_error("dump: --last D is the last D before now; --from/--to are times since the session's start: give one "
                  "or the other");
        return 2;
    }
    if (has_last && last == 0) {
        cli_error("dump: --last takes a time above 0");
        return 2;
    }
    if (has_to && to <= from) {
        cli_error("dump: --to must come after --from");
        return 2;
    }
    char abs[4200] = "";
    if (file)
        ca_file(t, file, abs, sizeof abs);
    if (has_last)
        snprintf(arg, cap, "%s\nlast=%llu", abs, last);
    else if (has_from || has_to)
        snprintf(arg, cap, "%s\nfrom=%llu,to=%llu", abs, from, has_to ? to : 0);
    else
        snprintf(arg, cap, "%s", abs);
    return 0;
}

int cli_attach(const char *command, int argc, char **argv)
{
    hotspot_target t;
    if (!ca_target(command, argc, argv, &t))
        return 2 - (argc >= 1); /* no pid: usage (2); a bad target: 1 */
    if (!strcmp(command, "start")) {
        if (argc != 2) {
            cli_error("start: expected jvmprof start PID OPTIONS (the agent's options, as in -agentpath:...=OPTIONS)");
            return 2;
        }
        char options[4096];
        ca_absolute(&t, argv[1], options, sizeof options);
        return ca_request(&t, "start", options, false, NULL);
    }
    if (!strcmp(command, "dump") && argc >= 2) { /* to FILE instead of the session's file=, or a window */
        char arg[4300];
        int rc = ca_dump_arg(&t, argc, argv, arg, sizeof arg);
        if (rc)
            return rc;
        if (!t.jvmprof)
            return ca_not_loaded(&t, command);
        return ca_request(&t, "dump", arg, false, NULL);
    }
    if (!strcmp(command, "heapdump")) {
        if (argc != 2) {
            cli_error("heapdump: expected jvmprof heapdump PID FILE");
            return 2;
        }
        char abs[4200];
        ca_file(&t, argv[1], abs, sizeof abs);
        return ca_request(&t, "heapdump", abs, false, NULL);
    }
    if (argc != 1) {
        cli_error("%s: expected jvmprof %s PID%s", command, command, !strcmp(command, "dump") ? " [--last D | --from T --to T] [FILE]" : "");
        return 2;
    }
    if (!t.jvmprof) /* a question or a stop changes nothing in a JVM without jvmprof: nothing to load for it */
        return ca_not_loaded(&t, command);
    return ca_request(&t, command, "", false, NULL);
}

int cli_collect(int argc, char **argv)
{
    hotspot_target t;
    if (!ca_target("collect", argc, argv, &t))
        return 2 - (argc >= 1);
    long seconds = -1;
    const char *options = "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-d") && i + 1 < argc) {
            char *end;
            seconds = strtol(argv[++i], &end, 10);
            if (*end || seconds <= 0) {
                cli_error("collect: -d %s: expected a number of seconds, at least 1", argv[i]);
                return 2;
            }
        } else if (!options[0] && argv[i][0] != '-') {
            options = argv[i];
        } else {
            cli_error("collect: unexpected '%s': expected jvmprof collect PID -d SECONDS [OPTIONS]", argv[i]);
            return 2;
        }
    }
    if (seconds < 0) {
        cli_error("collect: how long? jvmprof collect PID -d SECONDS [OPTIONS]");
        return 2;
    }
    char given[4096], options_abs[4096];
    if (!strstr(options, "file=") && !strstr(options, "flame=") && !strstr(options, "collapsed="))
        snprintf(given, sizeof given, "%s%sfile=jvmprof-%ld.txt,flame=jvmprof-%ld.html", options,
                 options[0] ? "," : "", (long)t.pid, (long)t.pid);
    else
        snprintf(given, sizeof given, "%s", options);
    ca_absolute(&t, given, options_abs, sizeof options_abs);
    int rc = ca_request(&t, "start", options_abs, true, NULL);
    if (rc != 0)
        return rc;
    bool tty = isatty(2);
    if (!tty)
        fprintf(stderr, "jvmprof: collecting from process %ld for %ld s\n", (long)t.pid, seconds);
    for (long s = 0; s < seconds; s++) {
        if (tty)
            fprintf(stderr, "\rjvmprof: collecting from process %ld: %ld of %ld s", (long)t.pid, s, seconds);
        sleep(1);
        if (kill(t.pid, 0) != 0) {
            if (tty)
                fprintf(stderr, "\n");
            cli_error("process %ld ended while collecting (its report is written at its exit)", (long)t.pid);
            return 1;
        }
    }
    fprintf(stderr, tty ? "\rjvmprof: collected from process %ld for %ld s        \n"
                        : "jvmprof: collected from process %ld for %ld s\n", (long)t.pid, seconds);
    return ca_request(&t, "stop", "", false, NULL);
}

int cli_list(int argc, char **argv)
{
    (void)argv;
    if (argc != 0) {
        cli_error("list: takes no arguments");
        return 2;
    }
    pid_t pids[4096];
    size_t n = hotspot_list(pids, sizeof pids / sizeof pids[0]);
    printf("%-8s %-10s %s\n", "PID", "JVMPROF", "MAIN");
    for (size_t i = 0; i < n; i++) {
        hotspot_target t;
        char why[1024];
        jp_status st = hotspot_target_find(pids[i], &t, why, sizeof why);
        if (st != JP_OK && !t.main[0])
            continue;
        /* from /proc alone: listing attaches to nothing and changes nothing */
        const char *state = !t.jvmprof ? "no" : ca_profiling(t.pid) ? "profiling" : "loaded";
        printf("%-8ld %-10s %s%s%s\n", (long)pids[i], t.uid != geteuid() ? "?" : state, t.main,
               t.uid != geteuid() ? "  (another user's)" : "", st != JP_OK && t.uid == geteuid() ? "  (cannot attach)" : "");
    }
    return 0;
}
