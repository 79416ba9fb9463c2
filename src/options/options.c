/* options.c — the option parser: reads `name=value,...` against the table
 * (options_table.c), one value parser per kind, starting from the table's
 * defaults parsed by those same parsers; records which options were named
 * (refusing repeats), then hands over to the cross-option rules
 * (options_rules.c). Also the join of -agentpath options with
 * JVMPROF_OPTIONS, and the value parsers the CLI shares. */
#include "options_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool options_parse_uint(const char *text, unsigned long min, unsigned long max, unsigned long *out)
{
    if (!isdigit((unsigned char)*text)) /* strtoul would take " 5", "-5", "+5" */
        return false;
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool options_parse_fraction(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if ((!isdigit((unsigned char)*text) && *text != '.') || errno || *end || !(v >= 0.0 && v <= 1.0))
        return false;
    *out = v;
    return true;
}

/* A time in ns, min..max, with its unit: ns, us, ms, s, m (minutes) or h. */
static bool options_parse_duration(const char *text, unsigned long min, unsigned long max, uint64_t *out)
{
    static const struct { const char *unit; uint64_t ns; } units[] = {
        { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "m", 60000000000 },
        { "h", 3600000000000 },
    };
    if (!isdigit((unsigned char)*text))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].unit) != 0)
            continue;
        if (errno || v > max / units[i].ns || v * units[i].ns < min)
            return false;
        *out = (uint64_t)v * units[i].ns;
        return true;
    }
    return false;
}

/* Bytes min..max, with a k, m or g suffix (KiB, MiB, GiB). */
static bool options_parse_size(const char *text, unsigned long min, unsigned long max, uint64_t *out)
{
    if (!isdigit((unsigned char)*text))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift)
        end++;
    if (errno || *end || v > (max >> shift) || (v << shift) < min)
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

static void options_accepted_names(char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < OPTIONS_ID_COUNT && used < len; i++) {
        if (options_defs[i].kind == OPTIONS_KIND_LATER)
            continue;
        int n = snprintf(out + used, len - used, "%s%s", used ? ", " : "", options_defs[i].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Levenshtein distance between a (alen bytes) and b (blen), at most 63 each; 99 beyond. */
static unsigned options_distance(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen > 63 || blen > 63)
        return 99;
    unsigned row[64];
    for (size_t j = 0; j <= blen; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= alen; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= blen; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[blen];
}

/* The word of `words` (separated by '|' or ", ") nearest to what (len
 * bytes), when a typo away (at most 2 edits, fewer than the word's length):
 * " (did you mean X?)" in out, else "". */
static void options_suggest(const char *what, size_t len, const char *words, char *out, size_t outlen)
{
    out[0] = '\0';
    unsigned best = 3;
    for (const char *w = words; *w;) {
        size_t n = strcspn(w, "|, ");
        unsigned d = options_distance(what, len, w, n);
        if (n > 0 && d > 0 && d < best && d < n) {
            best = d;
            snprintf(out, outlen, " (did you mean %.*s?)", (int)n, w);
        }
        w += n;
        w += strspn(w, "|, ");
    }
}

static jp_status options_bad(char *err, size_t errlen, const options_def *d, const char *value)
{
    char hint[96] = "";
    if (d->kind != OPTIONS_KIND_UINT && d->kind != OPTIONS_KIND_DOUBLE && d->kind != OPTIONS_KIND_PERCENT)
        options_suggest(value, strlen(value), d->values, hint, sizeof hint);
    snprintf(err, errlen, "%s=%s: bad value%s; expected %s%s", d->name, value, hint, d->values,
             d->kind == OPTIONS_KIND_UINT ? " (an integer)" : d->kind == OPTIONS_KIND_DOUBLE ? " (a number)" : "");
    return JP_ERR_ARG;
}

static jp_status options_expand_file(const char *name, const char *value, long pid, char *out, size_t outlen,
                                     char *err, size_t errlen)
{
    size_t used = 0;
    for (const char *p = value; *p; p++) {
        char piece[32];
        const char *add = piece;
        if (p[0] == '%' && p[1] == 'p') {
            snprintf(piece, sizeof piece, "%ld", pid);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            strcpy(piece, "%");
            p++;
        } else {
            piece[0] = *p;
            piece[1] = '\0';
        }
        size_t n = strlen(add);
        if (used + n + 1 > outlen) {
            snprintf(err, errlen, "%s=: path too long (at most %zu bytes)", name, outlen - 1);
            return JP_ERR_ARG;
        }
        memcpy(out + used, add, n);
        used += n;
    }
    out[used] = '\0';
    return JP_OK;
}

static jp_status options_set_prefixes(const options_def *d, const char *value, char *dst, char *err, size_t errlen)
{
    size_t n = strlen(value);
    if (n == 0 || n >= d->size) {
        snprintf(err, errlen, "%s=%s: expected %s=%s (class-name prefixes such as com.example.:org.foo.Bar, "
                 "separated by ':', at most %zu characters)", d->name, value, d->name, d->values, d->size - 1);
        return JP_ERR_ARG;
    }
    for (size_t i = 0; i < n; i++) {
        char c = value[i];
        bool empty_item = c == ':' && (i == 0 || value[i - 1] == ':' || i + 1 == n);

        if (empty_item) {
            snprintf(err, errlen, "%s=%s: empty prefix at position %zu; expected %s=%s (class-name prefixes "
                     "separated by ':', such as com.example.:org.foo.Bar)", d->name, value, i + 1, d->name,
                     d->values);
            return JP_ERR_ARG;
        }
        if (!(isalnum((unsigned char)c) || c == '.' || c == '/' || c == '_' || c == '$' ||
                            c == ':' || (unsigned char)c >= 0x80)) {
            snprintf(err, errlen, "%s=%s: '%c' at position %zu is not allowed; expected %s=%s (class-name "
                     "prefixes such as com.example.:org.foo.Bar)", d->name, value, c, i + 1, d->name, d->values);
            return JP_ERR_ARG;
        }
        dst[i] = c == '/' ? '.' : c;
    }
    dst[n] = '\0';
    return JP_OK;
}

/* trace=: the event classes, '+'-separated; trigger=: the words of the row's choices, the same way. */
static jp_status options_set_events(const options_def *d, const char *value, unsigned *dst, char *err,
                                    size_t errlen)
{
    static const options_choice trace_words[] = {
        { "exec", OPTIONS_TRACE_ENTRY | OPTIONS_TRACE_EXIT, NULL }, { "exec:light", OPTIONS_TRACE_ENTRY, NULL },
        { "mem", OPTIONS_TRACE_GC | OPTIONS_TRACE_FREE, NULL },    { "mem:light", OPTIONS_TRACE_GC, NULL },
        { "alloc", OPTIONS_TRACE_ALLOC, NULL },                    { "thread", OPTIONS_TRACE_THREAD, NULL },
        { "class", OPTIONS_TRACE_CLASS, NULL },                    { "monitor", OPTIONS_TRACE_MONITOR, NULL },
        { "user", OPTIONS_TRACE_USER, NULL },                      { "probe", OPTIONS_TRACE_PROBE, NULL },
        { "all", OPTIONS_TRACE_ALL, NULL },                        { NULL, 0, NULL },
    };
    const options_choice *words = d->choices ? d->choices : trace_words;
    const char *noun = d->choices ? "trigger" : "event class";
    const char *example = d->choices ? "trigger=oom+quit" : "trace=exec+thread+user";
    unsigned bits = 0;
    if (!*value) {
        snprintf(err, errlen, "%s=: expected %s=%s", d->name, d->name, d->values);
        return JP_ERR_ARG;
    }
    for (const char *p = value; *p;) {
        size_t n = strcspn(p, "+");
        const options_choice *w = words;
        while (w->text && !(strlen(w->text) == n && strncmp(p, w->text, n) == 0))
            w++;
        if (!w->text) {
            char hint[96];
            options_suggest(p, n, d->values, hint, sizeof hint);
            snprintf(err, errlen, "%s=%s: '%.*s' is no %s%s; expected %s, joined by '+' (%s)", d->name, value,
                     (int)(n < 40 ? n : 40), p, noun, hint, d->values, example);
            return JP_ERR_ARG;
        }
        bits |= (unsigned)w->value;
        p += n;
        if (*p == '+' && !p[1]) {
            snprintf(err, errlen, "%s=%s: nothing after the last '+'; expected %s=%s", d->name, value, d->name,
                     d->values);
            return JP_ERR_ARG;
        }
        p += *p == '+';
    }
    *dst = bits;
    return JP_OK;
}

/* An ENUM value into its field (a char or an enum) or through the row's store. */
static void options_store_choice(agent_options *o, const options_def *d, int value)
{
    if (d->store) {
        d->store(o, value);
        return;
    }
    char *field = (char *)o + d->at - 1;
    if (d->size == 1) {
        char c = (char)value;
        memcpy(field, &c, 1);
    } else {
        memcpy(field, &value, sizeof value);
    }
}

/* net=: HOST:PORT, HOST a name or an address ([...] for IPv6), PORT 1..65535. */
static jp_status options_set_endpoint(const options_def *d, const char *value, char *dst, char *err, size_t errlen)
{
    const char *colon = strrchr(value, ':');
    size_t hlen = colon ? (size_t)(colon - value) : 0;
    unsigned long port = 0;
    bool ok = colon && hlen > 0 && hlen < OPTIONS_NET_MAX - 7 && options_parse_uint(colon + 1, 1, 65535, &port);
    bool v6 = ok && value[0] == '[';
    for (size_t i = 0; ok && i < hlen; i++) {
        char c = value[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
             (v6 && (c == ':' || c == '[' || c == ']' || c == '%'));
    }
    if (ok && v6)
        ok = hlen > 2 && value[hlen - 1] == ']';
    if (!ok) {
        snprintf(err, errlen, "%s=%s: expected %s=HOST:PORT (a host name or address, [ADDRESS] for IPv6, and a port "
                 "1-65535), e.g. net=127.0.0.1:9999", d->name, value, d->name);
        return JP_ERR_ARG;
    }
    snprintf(dst, OPTIONS_NET_MAX, "%s", value);
    return JP_OK;
}

/* Parses `value` as option d and stores it: the user's text and the
 * table's defaults both come here. */
static jp_status options_set(agent_options *o, const options_def *d, const char *value, long pid, char *err,
                             size_t errlen)
{
    char *field = (char *)o + d->at - 1; /* meaningless when d->at == 0 (LATER, heap=) */
    switch (d->kind) {
    case OPTIONS_KIND_LATER:
        snprintf(err, errlen, "%s=%s: not available in this version of jvmprof (%s); available now: cpu=samples, "
                 "cpu=times, wall=<ms>, monitor=y, heap=dump", d->name, value, d->what);
        return JP_ERR_ARG;
    case OPTIONS_KIND_WORD:
        *(bool *)field = true;
        return JP_OK;
    case OPTIONS_KIND_BOOL:
        if (strcmp(value, "y") != 0 && strcmp(value, "n") != 0)
            return options_bad(err, errlen, d, value);
        *(bool *)field = value[0] == 'y';
        return JP_OK;
    case OPTIONS_KIND_UINT: {
        unsigned long v;
        if (!options_parse_uint(value, d->min, d->max, &v))
            return options_bad(err, errlen, d, value);
        *(unsigned *)field = (unsigned)v;
        return JP_OK;
    }
    case OPTIONS_KIND_PERCENT: {
        char digits[24];
        size_t n = strlen(value);
        unsigned long v;
        if (n > 0 && value[n - 1] == '%')
            n--;
        if (n >= sizeof digits)
            return options_bad(err, errlen, d, value);
        memcpy(digits, value, n);
        digits[n] = '\0';
        if (!options_parse_uint(digits, d->min, d->max, &v))
            return options_bad(err, errlen, d, value);
        *(unsigned *)field = (unsigned)v;
        return JP_OK;
    }
    case OPTIONS_KIND_DOUBLE:
        if (!options_parse_fraction(value, (double *)field))
            return options_bad(err, errlen, d, value);
        return JP_OK;
    case OPTIONS_KIND_SIZE:
        if (!options_parse_size(value, d->min, d->max, (uint64_t *)field))
            return options_bad(err, errlen, d, value);
        return JP_OK;
    case OPTIONS_KIND_DURATION:
        if (!options_parse_duration(value, d->min, d->max, (uint64_t *)field))
            return options_bad(err, errlen, d, value);
        return JP_OK;
    case OPTIONS_KIND_ENUM:
        for (const options_choice *c = d->choices; c->text; c++) {
            if (strcmp(value, c->text) != 0)
                continue;
            if (c->refused) {
                snprintf(err, errlen, "%s=%s: %s", d->name, value, c->refused);
                return JP_ERR_ARG;
            }
            options_store_choice(o, d, c->value);
            return JP_OK;
        }
        return options_bad(err, errlen, d, value);
    case OPTIONS_KIND_PREFIXES:
        return options_set_prefixes(d, value, field, err, errlen);
    case OPTIONS_KIND_EVENTS:
        return options_set_events(d, value, (unsigned *)field, err, errlen);
    case OPTIONS_KIND_ENDPOINT:
        return options_set_endpoint(d, value, field, err, errlen);
    case OPTIONS_KIND_NAME: {
        size_t n = strlen(value);
        bool ok = n > 0 && n < d->size;
        for (size_t i = 0; ok && i < n; i++)
            ok = (value[i] >= 'a' && value[i] <= 'z') || (value[i] >= 'A' && value[i] <= 'Z') ||
                 (value[i] >= '0' && value[i] <= '9') || strchr("_:.-", value[i]) != NULL;
        if (!ok)
            return options_bad(err, errlen, d, value);
        memcpy(field, value, n + 1);
        return JP_OK;
    }
    case OPTIONS_KIND_PATH:
        if (!*value) {
            snprintf(err, errlen, "%s=: empty file name; expected %s=<path>", d->name, d->name);
            return JP_ERR_ARG;
        }
        return options_expand_file(d->name, value, pid, field, d->size, err, errlen);
    }
    return JP_ERR_ARG;
}

/* Every field to its default: zero, then each row's default text. */
static jp_status options_defaults(agent_options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < OPTIONS_ID_COUNT; i++) {
        if (!options_defs[i].deflt)
            continue;
        jp_status st = options_set(o, &options_defs[i], options_defs[i].deflt, 0, err, errlen);
        if (st != JP_OK)
            return st;
    }
    return JP_OK;
}

/* Where each option was given in the text (NULL = not given): what an option
 * given twice quotes; agent_options.given records the same, as bits. */
typedef struct options_seen {
    const char *at[OPTIONS_ID_COUNT];
    size_t len[OPTIONS_ID_COUNT];
} options_seen;

/* One `name=value` item, `len` bytes at p (not NUL-terminated). */
static jp_status options_item(agent_options *o, options_seen *seen, const char *p, size_t len, long pid, char *err,
                              size_t errlen)
{
    char item[OPTIONS_PATH_MAX + 64];
    if (len >= sizeof item) {
        size_t name = strcspn(p, "=,");
        snprintf(err, errlen, "%.*s: option too long (%zu bytes; at most %zu)", (int)(name < 32 ? name : 32), p,
                 len, sizeof item - 1);
        return JP_ERR_ARG;
    }
    memcpy(item, p, len);
    item[len] = '\0';
    char *eq = strchr(item, '=');
    const options_def *d = options_find(item, eq ? (size_t)(eq - item) : len);
    if (!d) {
        char names[512], hint[96];
        options_accepted_names(names, sizeof names);
        options_suggest(item, eq ? (size_t)(eq - item) : len, names, hint, sizeof hint);
        snprintf(err, errlen, "unknown option '%s'%s; accepted: %s (see help)", item, hint, names);
        return JP_ERR_ARG;
    }
    if (d->kind == OPTIONS_KIND_WORD && eq) {
        snprintf(err, errlen, "%s: %s takes no value; write just %s", item, d->name, d->name);
        return JP_ERR_ARG;
    }
    if (!eq && d->kind != OPTIONS_KIND_LATER && d->kind != OPTIONS_KIND_WORD) {
        snprintf(err, errlen, "%s: missing value; expected %s=%s", item, d->name, d->values);
        return JP_ERR_ARG;
    }
    /* the last would win without a word; heap= adds up (heap=sites,heap=dump = heap=all) */
    size_t k = (size_t)(d - options_defs);
    if (seen->at[k] && !(d->flags & OPTIONS_REPEATS)) {
        int first = (int)(seen->len[k] < 200 ? seen->len[k] : 200), again = (int)(len < 200 ? len : 200);
        snprintf(err, errlen, "%s= given twice (%.*s, then %.*s); give each option once (the -agentpath "
                 "options and JVMPROF_OPTIONS are read as one list)", d->name, first, seen->at[k], again, p);
        return JP_ERR_ARG;
    }
    seen->at[k] = p;
    seen->len[k] = len;
    o->given |= (uint64_t)1 << k;
    return options_set(o, d, eq ? eq + 1 : "", pid, err, errlen);
}

static jp_status options_parse_list(const char *text, long pid, agent_options *o, char *err, size_t errlen)
{
    options_seen seen;
    memset(&seen, 0, sizeof seen);
    err[0] = '\0';
    jp_status st = options_defaults(o, err, errlen);
    if (st != JP_OK)
        return st;

    const char *p = text ? text : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0) {
            st = options_item(o, &seen, p, len, pid, err, errlen);
            if (st != JP_OK)
                return st;
        }
        if (!end)
            break;
        p = end + 1;
    }
    o->dumper_named = options_given(o, OPTIONS_ID_DUMPER);
    return options_rules_apply(o, err, errlen);
}

bool options_given(const agent_options *o, options_id id) { return (o->given >> id) & 1u; }

bool options_async_sampling(const agent_options *o)
{
    return o->wall_ms > 0 || (o->cpu == OPTIONS_CPU_SAMPLES && o->sampler == OPTIONS_SAMPLER_ASYNC);
}

bool options_event_is_cpu(const agent_options *o) { return !o->event[0] || strcmp(o->event, "cpu") == 0; }

bool options_alloc_exact(const agent_options *o) { return o->heap_sites && o->alloc_interval == 0; }

bool options_alloc_bci(const agent_options *o) { return options_alloc_exact(o) && o->alloc_hook == 'b'; }

bool options_alloc_counted(const agent_options *o) { return o->heap_sites && o->alloc_count == 'c' && o->alloc_interval; }

jp_status options_parse(const char *text, long pid, agent_options *o, char *err, size_t errlen)
{
    jp_status st = options_parse_list(text, pid, o, err, errlen);
    /* the message quotes what the user wrote: keep it on one line */
    for (char *c = err; st != JP_OK && errlen > 0 && *c; c++)
        if (iscntrl((unsigned char)*c))
            *c = '?';
    return st;
}

char *options_join(const char *agentpath, const char *env)
{
    const char *a = agentpath ? agentpath : "", *b = env ? env : "";
    size_t n = strlen(a) + strlen(b) + 2;
    char *all = malloc(n);
    if (all)
        snprintf(all, n, "%s%s%s", a, a[0] && b[0] ? "," : "", b);
    return all;
}
