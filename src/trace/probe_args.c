/* probe_args.c — a probe firing's argument values in the trace file's
 * encoding (probe_args.h): encoding, decoding, and one value as text. */
#include "probe_args.h"

#include <stdio.h>
#include <string.h>

static size_t pa_put(uint8_t *out, size_t at, size_t cap, uint64_t v)
{
    do {
        if (at >= cap)
            return 0;
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        out[at++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return at;
}

static bool pa_get(const uint8_t *p, size_t len, size_t *at, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*at >= len)
            return false;
        uint8_t b = p[(*at)++];
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

bool probe_kinds_valid(const char *kinds)
{
    size_t n = strlen(kinds);
    return n <= PROBE_ARGS_MAX && strspn(kinds, "ZBCSIJFDso") == n;
}

size_t probe_args_encode(const char *kinds, const int64_t *values, const char *const *strs, const size_t *lens,
                         uint8_t *out, size_t cap)
{
    size_t at = 0;
    for (size_t i = 0; kinds[i]; i++) {
        char k = kinds[i];
        uint64_t v = (uint64_t)values[i];
        if (k == 'o')
            continue;
        if (k == 's') {
            if (!strs || !strs[i]) {
                at = pa_put(out, at, cap, 0);
            } else {
                at = pa_put(out, at, cap, (uint64_t)lens[i] + 1);
                if (at == 0 || cap - at < lens[i])
                    return 0;
                memcpy(out + at, strs[i], lens[i]);
                at += lens[i];
            }
        } else if (k == 'F') {
            at = pa_put(out, at, cap, v & 0xffffffffu);
        } else if (k == 'D') {
            at = pa_put(out, at, cap, v);
        } else {
            at = pa_put(out, at, cap, (v << 1) ^ (uint64_t)(values[i] >> 63));
        }
        if (at == 0)
            return 0;
    }
    return at;
}

bool probe_args_decode(const char *kinds, const uint8_t *data, size_t len, probe_arg *args)
{
    size_t at = 0;
    for (size_t i = 0; kinds[i]; i++) {
        probe_arg *a = &args[i];
        memset(a, 0, sizeof *a);
        a->kind = kinds[i];
        uint64_t v = 0;
        if (a->kind == 'o')
            continue;
        if (!pa_get(data, len, &at, &v))
            return false;
        if (a->kind == 's') {
            if (v == 0)
                continue;
            if (v - 1 > len - at)
                return false;
            a->s = (const char *)data + at;
            a->len = (size_t)(v - 1);
            at += a->len;
        } else if (a->kind == 'F') {
            uint32_t bits = (uint32_t)v;
            float f;
            memcpy(&f, &bits, sizeof f);
            a->i = bits;
            a->d = f;
        } else if (a->kind == 'D') {
            double d;
            memcpy(&d, &v, sizeof d);
            a->i = (int64_t)v;
            a->d = d;
        } else {
            a->i = (int64_t)((v >> 1) ^ (~(v & 1) + 1));
        }
    }
    return at == len;
}

int probe_arg_format(const probe_arg *a, char *out, size_t cap)
{
    switch (a->kind) {
    case 'Z':
        return snprintf(out, cap, "%s", a->i ? "true" : "false");
    case 'F':
    case 'D':
        return snprintf(out, cap, "%.17g", a->d);
    case 'o':
        return snprintf(out, cap, "object");
    case 's': {
        if (!a->s)
            return snprintf(out, cap, "null");
        size_t n = 0;
        int total = 0;
        char esc[8];
        for (size_t i = 0; i <= a->len + 1; i++) {
            const char *piece;
            size_t plen;
            if (i == 0 || i == a->len + 1) {
                piece = "\"";
                plen = 1;
            } else {
                unsigned char c = (unsigned char)a->s[i - 1];
                if (c == '"' || c == '\\') {
                    esc[0] = '\\';
                    esc[1] = (char)c;
                    plen = 2;
                } else if (c < 0x20) {
                    plen = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
                } else {
                    esc[0] = (char)c;
                    plen = 1;
                }
                piece = esc;
            }
            for (size_t j = 0; j < plen; j++, total++)
                if (cap && n + 1 < cap)
                    out[n++] = piece[j];
        }
        if (cap)
            out[n] = '\0';
        return total;
    }
    default:
        return snprintf(out, cap, "%lld", (long long)a->i);
    }
}
