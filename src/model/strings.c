/* strings.c — the interned string table: every name the writers print
 * (class, method, signature, source file, thread and group names). Stored
 * with a trailing NUL so callers can use them as C strings. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

str_id model_string(model *m, const char *s, size_t len)
{
    /* key = bytes + NUL, so intern_key() is directly a C string */
    char stackbuf[256];
    char *tmp = stackbuf;
    if (len >= UINT32_MAX - 1)
        return (str_id){ 0 };
    if (len + 1 > sizeof stackbuf) {
        tmp = malloc(len + 1); /* rare: long names */
        if (!tmp) {
            m->oom = true;
            return (str_id){ 0 };
        }
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    uint32_t id = intern_put(&m->strings, tmp, (uint32_t)len + 1, NULL);
    if (tmp != stackbuf)
        free(tmp);
    if (!id)
        m->oom = true;
    return (str_id){ id };
}

str_id model_cstring(model *m, const char *s) { return model_string(m, s, strlen(s)); }

const char *model_string_get(const model *m, str_id id, size_t *len)
{
    if (id.v == 0 || id.v > intern_count(&m->strings)) {
        if (len)
            *len = 0;
        return "";
    }
    uint32_t n;
    const char *s = intern_key(&m->strings, id.v, &n);
    if (len)
        *len = n - 1;
    return s;
}
