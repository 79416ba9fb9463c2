/* attach_commands.c — see attach_commands.h. Each answer's last line is
 * "ok" or "error: WHY"; the lines before it say what was done. */
#include "attach_commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../common/out_file.h"
#include "../../options/options.h"
#include "../heap/heap_dump.h"
#include "../core/outputs.h"
#include "../core/profiler.h"
#include "../core/session.h"

#define ATC_WAIT_MS 60000

/* What the session writes, after what ("report written to"): its outputs (report, flame graph,
 * collapsed stacks, heap dump) and its trace file. */
static void atc_report_line(FILE *out, const char *what, const agent_options *o)
{
    if (!o)
        return;
    output outs[OUTPUTS_MAX];
    size_t n = outputs_of(o, outs);
    for (size_t i = 0; i < n; i++)
        if (outs[i].format || o->heap_dump)
            fprintf(out, "%s %s%s\n", what, outs[i].path, outs[i].format ? "" : " (heap dump)");
    if (o->trace)
        fprintf(out, "%s %s (trace)\n", what, o->tracefile);
}

static bool atc_start(JNIEnv *jni, const char *options, FILE *out, char *err, size_t cap)
{
    /* quiet in the program's stderr unless asked: the command prints what matters */
    char text[2100];
    snprintf(text, sizeof text, "%s%s%s", options, strstr(options, "verbose=") ? "" : options[0] ? "," : "",
             strstr(options, "verbose=") ? "" : "verbose=n");
    if (session_start(jni, text, err, cap) != JP_OK)
        return false;
    fprintf(out, "started: %s\n", options[0] ? options : "(the defaults)");
    return true;
}

static bool atc_stop(JNIEnv *jni, FILE *out, char *err, size_t cap)
{
    const agent_options *o = session_options(); /* a session's options stay allocated (session.c) */
    if (!session_stop(jni, err, cap))
        return false;
    fprintf(out, "stopped\n");
    atc_report_line(out, "written:", o);
    return true;
}

static bool atc_status(FILE *out, char *err, size_t cap)
{
    char options[1024];
    double seconds;
    if (!session_describe(options, sizeof options, &seconds)) {
        fprintf(out, "jvmprof %s loaded; no profiling session runs\n", JP_VERSION);
        return true;
    }
    fprintf(out, "jvmprof %s: a session runs since %.1f s: %s\n", JP_VERSION, seconds,
            options[0] ? options : "(the defaults)");
    atc_report_line(out, "output:", session_options());
    fflush(out);
    if (!profiler_describe_and_wait(out, ATC_WAIT_MS)) {
        snprintf(err, cap, "the agent thread did not answer");
        return false;
    }
    return true;
}

/* A dump's window, after its file on a line of its own: "last=MS" or "from=MS,to=MS" (ms since the
 * session's start; to=0: now). False (err set) when it is not of that form or no recording runs. */
static bool atc_window(const char *text, profiler_window *w, char *err, size_t cap)
{
    unsigned long long a = 0, b = 0;
    char end = 0;
    *w = (profiler_window){ .set = true };
    if (sscanf(text, "last=%llu%c", &a, &end) == 1 && a > 0)
        w->last_ms = a;
    else if (sscanf(text, "from=%llu,to=%llu%c", &a, &b, &end) == 2 && (b == 0 || b > a)) {
        w->from_ms = a;
        w->to_ms = b;
    } else {
        snprintf(err, cap, "dump: a window is last=MS or from=MS,to=MS with to after from, not '%.64s'", text);
        return false;
    }
    const agent_options *o = session_options();
    if (!o || !o->record) {
        snprintf(err, cap, "dump --last/--from/--to cuts the recording of record=y, and this session has none "
                 "(start one with record=y)");
        return false;
    }
    return true;
}

static bool atc_dump(const char *arg, FILE *out, char *err, size_t cap)
{
    if (!session_running()) {
        snprintf(err, cap, "no profiling session runs (start one: jvmprof start PID OPTIONS)");
        return false;
    }
    char file[4096];
    snprintf(file, sizeof file, "%s", arg);
    char *nl = strchr(file, '\n');
    profiler_window window = { 0 };
    if (nl) {
        *nl = '\0';
        if (!atc_window(nl + 1, &window, err, cap))
            return false;
    }
    out_target target;
    char why[1024];
    if (file[0] && out_file_check(file, &target, why, sizeof why) != JP_OK) {
        snprintf(err, cap, "%.900s: %s", file, out_file_reason(why, file));
        return false;
    }
    if (!profiler_dump_and_wait(file[0] ? file : NULL, window.set ? &window : NULL, ATC_WAIT_MS)) {
        snprintf(err, cap, "the report was not written (the agent thread is not running or did not finish "
                 "within %d s)", ATC_WAIT_MS / 1000);
        return false;
    }
    if (file[0])
        fprintf(out, "written: %s\n", file);
    else
        atc_report_line(out, "written:", session_options());
    return true;
}

static bool atc_reset(FILE *out, char *err, size_t cap)
{
    if (!session_running() || !profiler_reset_and_wait(ATC_WAIT_MS)) {
        snprintf(err, cap, "%s", session_running() ? "the agent thread did not answer"
                                                   : "no profiling session runs");
        return false;
    }
    fprintf(out, "what was collected so far is discarded; the next report holds what comes from now on\n");
    return true;
}

static bool atc_heapdump(JNIEnv *jni, const char *file, FILE *out, char *err, size_t cap)
{
    if (!file[0]) {
        snprintf(err, cap, "heapdump: no file given");
        return false;
    }
    char why[1024];
    if (session_heap_dump(jni, file, why, sizeof why) != JP_OK) {
        snprintf(err, cap, "%s", out_file_reason(why, file));
        return false;
    }
    fprintf(out, "heap dump written to %s\n", file);
    return true;
}

/* refuse: the request is answered with "error: refuse" and not run */
static jint atc_run(JNIEnv *jni, const char *request, const char *refuse)
{
    char err[1100] = "";
    size_t magic = strlen(ATTACH_REQUEST_MAGIC);
    if (strncmp(request ? request : "", ATTACH_REQUEST_MAGIC "\n", magic + 1) != 0) {
        /* jcmd PID JVMTI.agent_load libjvmprof.so OPTIONS: a session with those options */
        if (refuse)
            fprintf(stderr, "jvmprof: not started: %s\n", refuse);
        else if (session_start(jni, request ? request : "", err, sizeof err) != JP_OK)
            fprintf(stderr, "jvmprof: not started: %s\n", err);
        return JNI_OK;
    }
    char command[32] = "", path[4096] = "", arg[2048] = "";
    const char *p = request + magic + 1, *nl = strchr(p, '\n');
    if (nl && (size_t)(nl - p) < sizeof command) {
        memcpy(command, p, (size_t)(nl - p));
        p = nl + 1;
        nl = strchr(p, '\n');
        if (nl && (size_t)(nl - p) < sizeof path) {
            memcpy(path, p, (size_t)(nl - p));
            snprintf(arg, sizeof arg, "%s", nl + 1);
        }
    }
    /* the answer's file, made by the command (as this JVM's user): opened, never created */
    int fd = path[0] == '/' ? open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC) : -1;
    FILE *out = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!out) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "jvmprof: an attach request without a file for its answer (%s): ignored\n",
                path[0] ? strerror(errno) : "none named");
        return JNI_OK;
    }
    bool ok;
    if (refuse) {
        snprintf(err, sizeof err, "%s", refuse);
        ok = false;
    } else if (!strcmp(command, "start"))
        ok = atc_start(jni, arg, out, err, sizeof err);
    else if (!strcmp(command, "stop"))
        ok = atc_stop(jni, out, err, sizeof err);
    else if (!strcmp(command, "dump"))
        ok = atc_dump(arg, out, err, sizeof err);
    else if (!strcmp(command, "reset"))
        ok = atc_reset(out, err, sizeof err);
    else if (!strcmp(command, "status"))
        ok = atc_status(out, err, sizeof err);
    else if (!strcmp(command, "heapdump"))
        ok = atc_heapdump(jni, arg, out, err, sizeof err);
    else {
        snprintf(err, sizeof err, "unknown command '%s' (this agent is jvmprof %s)", command, JP_VERSION);
        ok = false;
    }
    if (ok)
        fprintf(out, "ok\n");
    else
        fprintf(out, "error: %s\n", err);
    fclose(out);
    return JNI_OK;
}

jint attach_command(JNIEnv *jni, const char *request)
{
    return atc_run(jni, request, NULL);
}

jint attach_refuse(const char *request, const char *why)
{
    return atc_run(NULL, request, why);
}
