/* probe_args.h — a probe firing's argument values as the trace file holds
 * them (the text of a `probe` event, docs/trace-format.md), by the probe's
 * kinds: a letter per parameter, as the Java side gives them: Z B C S I J
 * (integers: zigzag LEB128 of the value), F (LEB128 of the float's 32 bits),
 * D (of the double's 64 bits), s (a String: LEB128 of its length + 1, 0 for
 * null, then its UTF-8 bytes), o (another object: nothing; its value is 0).
 * Pure C: the agent encodes, the reader and the plugin path decode. */
#ifndef PROBE_ARGS_H
#define PROBE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_ARGS_MAX 12u          /* parameters of a probe at most */

/* One argument, decoded. */
typedef struct probe_arg {
    char kind;                      /* the probe's letter for it */
    int64_t i;                      /* Z B C S I J: the value; F, D: the bits */
    double d;                       /* F, D: the value */
    const char *s;                  /* s: the bytes (NULL: a null String); not NUL-terminated */
    size_t len;
} probe_arg;

/* Whether kinds is a valid kinds string (letters above, PROBE_ARGS_MAX at most). */
bool probe_kinds_valid(const char *kinds);

/* Encodes values (values[i] for the non-strings; strs[i]/lens[i] for kind
 * s, strs[i] NULL for null) into out: the bytes written, or 0 if cap is too
 * small (cap of PROBE_ARGS_MAX * 10 + the strings' lengths + 60 always
 * suffices). */
size_t probe_args_encode(const char *kinds, const int64_t *values, const char *const *strs, const size_t *lens,
                         uint8_t *out, size_t cap);

/* Decodes len bytes into args (strlen(kinds) of them; strings point into
 * data). false if the bytes do not match the kinds. */
bool probe_args_decode(const char *kinds, const uint8_t *data, size_t len, probe_arg *args);

/* Appends an argument as text to out (cap bytes, NUL-terminated): 42, -1,
 * true, 'c' as a number, 1.5, "a \"quoted\" string", null, or "object" for
 * o. Returns the length it would have had (snprintf's convention). */
int probe_arg_format(const probe_arg *a, char *out, size_t cap);

#endif
