/* jp_log.h — messages to stderr with a "jvmprof: " prefix. Never to stdout:
 * the profiled program's stdout stays byte-identical. Never call these from a
 * signal handler. Warnings are rate-limited per call site by the caller's
 * static counter (JP_LOG_ONCE). */
#ifndef JP_LOG_H
#define JP_LOG_H

#include <stdio.h>

typedef enum jp_log_level { JP_LOG_QUIET = 0, JP_LOG_ERROR, JP_LOG_INFO, JP_LOG_DEBUG } jp_log_level;

void jp_log_set_level(jp_log_level level);
jp_log_level jp_log_get_level(void);
void jp_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jp_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jp_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While set (not NULL), every error and info message goes to f instead of
 * stderr, whatever the level (an attach command's answer gathers them). */
void jp_log_tee(FILE *f);

#endif
