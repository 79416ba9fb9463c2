/* harness.h — the unit-test harness: one header, no registration magic.
 * A test file is a program whose main() calls RUN(fn) for each test function
 * and ends with `return DONE();`. CHECK* record a failure and go on; ASSERT
 * records it and returns from the test function (use it where going on would
 * crash). Failures print file:line and the values; DONE() prints
 * "test_<name>: N checks, M failed" and returns 1 if anything failed or if no
 * check ran at all (a test that checks nothing is a broken test). A test
 * function that runs no check gets a warning. */
#ifndef HARNESS_H
#define HARNESS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long th_checks, th_failed;
static const char *th_current = "?";

static inline bool th_check(bool ok, const char *file, int line, const char *what)
{
    th_checks++;
    if (!ok) {
        th_failed++;
        fprintf(stderr, "%s:%d: [%s] check failed: %s\n", file, line, th_current, what);
    }
    return ok;
}

static inline bool th_check_int(intmax_t a, intmax_t b, const char *file, int line, const char *ea, const char *eb)
{
    if (th_check(a == b, file, line, "CHECK_EQ_INT"))
        return true;
    fprintf(stderr, "    %s == %jd (0x%jx)\n    %s == %jd (0x%jx)\n", ea, a, (uintmax_t)a, eb, b, (uintmax_t)b);
    return false;
}

static inline bool th_check_str(const char *a, const char *b, const char *file, int line, const char *ea,
                                const char *eb)
{
    bool ok = (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
    if (th_check(ok, file, line, "CHECK_EQ_STR"))
        return true;
    fprintf(stderr, "    %s == %s%s%s\n    %s == %s%s%s\n", ea, a ? "\"" : "", a ? a : "NULL", a ? "\"" : "",
            eb, b ? "\"" : "", b ? b : "NULL", b ? "\"" : "");
    return false;
}

/* Prints up to 16 bytes of each side around the first difference. */
static inline bool th_check_mem(const void *a, size_t alen, const void *b, size_t blen, const char *file, int line,
                                const char *ea, const char *eb)
{
    const unsigned char *x = a, *y = b;
    size_t n = alen < blen ? alen : blen, i = 0;
    while (i < n && x[i] == y[i])
        i++;
    if (th_check(i == n && alen == blen, file, line, "CHECK_EQ_MEM"))
        return true;
    fprintf(stderr, "    lengths %zu (%s) and %zu (%s), first difference at offset %zu\n", alen, ea, blen, eb, i);
    size_t from = i >= 8 ? i - 8 : 0;
    const unsigned char *side[2] = { x, y };
    size_t lens[2] = { alen, blen };
    for (int k = 0; k < 2; k++) {
        fprintf(stderr, "    %s @%zu:", k ? eb : ea, from);
        for (size_t j = from; j < from + 16 && j < lens[k]; j++)
            fprintf(stderr, " %02x", side[k][j]);
        fprintf(stderr, "\n");
    }
    return false;
}

/* Each evaluates to true when the check passed. */
#define CHECK(c) th_check((c) ? true : false, __FILE__, __LINE__, #c)
#define CHECK_EQ_INT(a, b) th_check_int((intmax_t)(a), (intmax_t)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_STR(a, b) th_check_str((a), (b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_MEM(a, alen, b, blen) th_check_mem((a), (alen), (b), (blen), __FILE__, __LINE__, #a, #b)
/* Stops the current test function (which must return void) when c is false. */
#define ASSERT(c)                                                                                                 \
    do {                                                                                                          \
        if (!CHECK(c))                                                                                            \
            return;                                                                                               \
    } while (0)

static inline void th_run(void (*fn)(void), const char *name)
{
    unsigned long checks = th_checks, failed = th_failed;
    th_current = name;
    fn();
    if (th_checks == checks)
        fprintf(stderr, "warning: %s ran no checks\n", name);
    else if (th_failed != failed)
        fprintf(stderr, "FAIL %s: %lu of %lu checks failed\n", name, th_failed - failed, th_checks - checks);
    th_current = "?";
}
#define RUN(fn) th_run(fn, #fn)

static inline int th_done(const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    int n = (int)strcspn(base, ".");
    printf("%.*s: %lu checks, %lu failed\n", n, base, th_checks, th_failed);
    if (th_checks == 0)
        fprintf(stderr, "%.*s: no checks ran\n", n, base);
    return th_failed || th_checks == 0 ? 1 : 0;
}
#define DONE() th_done(__FILE__)

/* Reads a whole file into malloc'ed memory (NUL-terminated for convenience);
 * NULL if it cannot be read. */
static inline void *th_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *data = malloc(cap);
    size_t k;
    while (data && (k = fread(data + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            char *d = realloc(data, cap * 2);
            if (!d) {
                free(data);
                data = NULL;
                break;
            }
            data = d;
            cap *= 2;
        }
    }
    fclose(f);
    if (data) {
        data[n] = '\0';
        *len = n;
    }
    return data;
}

static inline bool th_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

#endif
