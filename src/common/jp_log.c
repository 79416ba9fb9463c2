/* jp_log.c — stderr logging for the agent and the CLI, and the jp_error idiom.
 * One fprintf per message so lines from different threads do not interleave. */
#include "jp_log.h"
#include "jp_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static jp_log_level jp_log_level_now = JP_LOG_ERROR;
static FILE *_Atomic jp_log_tee_to;

void jp_log_tee(FILE *f) { jp_log_tee_to = f; }

void jp_log_set_level(jp_log_level level) { jp_log_level_now = level; }
jp_log_level jp_log_get_level(void) { return jp_log_level_now; }

static void jp_log_v(jp_log_level level, const char *fmt, va_list ap)
{
    FILE *tee = level <= JP_LOG_INFO ? jp_log_tee_to : NULL;
    if (level > jp_log_level_now && !tee)
        return;
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    if (tee)
        fprintf(tee, "%s\n", line);
    else
        fprintf(stderr, "jvmprof: %s\n", line);
}

void jp_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jp_log_v(JP_LOG_ERROR, fmt, ap);
    va_end(ap);
}

void jp_log_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jp_log_v(JP_LOG_INFO, fmt, ap);
    va_end(ap);
}

void jp_log_debug(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jp_log_v(JP_LOG_DEBUG, fmt, ap);
    va_end(ap);
}

jp_status jp_error(jp_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jp_log_v(JP_LOG_ERROR, fmt, ap);
    va_end(ap);
    return st;
}

const char *jp_status_name(jp_status st)
{
    switch (st) {
    case JP_OK: return "ok";
    case JP_ERR_NOMEM: return "out of memory";
    case JP_ERR_IO: return "I/O error";
    case JP_ERR_NOSPC: return "no space left on device";
    case JP_ERR_FORMAT: return "malformed input";
    case JP_ERR_JVMTI: return "JVMTI error";
    case JP_ERR_ARG: return "bad argument";
    }
    return "unknown status";
}

#ifdef JP_DEBUG
void jp_assert_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "jvmprof: assertion failed: %s (%s:%d)\n", cond, file, line);
    abort();
}
#endif
