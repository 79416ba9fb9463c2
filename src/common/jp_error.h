/* jp_error.h — the status codes every pure module returns, the error idiom
 * (`return jp_error(JP_ERR_IO, "...")`) and JP_ASSERT, which is compiled in for
 * debug and test builds (JP_DEBUG) and checks nothing in release builds: real
 * input bounds are always checked in code, never only in asserts. */
#ifndef JP_ERROR_H
#define JP_ERROR_H

typedef enum jp_status {
    JP_OK = 0,
    JP_ERR_NOMEM,
    JP_ERR_IO,
    JP_ERR_NOSPC,
    JP_ERR_FORMAT,
    JP_ERR_JVMTI,
    JP_ERR_ARG,
} jp_status;

const char *jp_status_name(jp_status st);

/* Logs "jvmprof: <message>" at error level and returns st. */
jp_status jp_error(jp_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef JP_DEBUG
void jp_assert_fail(const char *cond, const char *file, int line) __attribute__((noreturn));
#define JP_ASSERT(c) ((c) ? (void)0 : jp_assert_fail(#c, __FILE__, __LINE__))
#else
#define JP_ASSERT(c) ((void)0)
#endif

#endif
