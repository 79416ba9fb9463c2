/* collapsed.c — the collapsed-stack format that flamegraph.pl and speedscope
 * read: one line per distinct stack, "root;...;leaf count", frames named
 * "pkg.Class.method" plus async-profiler's kind suffixes. Also the shared
 * view of a stack as a flame graph shows it (collapsed_frames), used by
 * flame_html.c too. Different stacks can give the same line (methods that
 * differ only in signature, or in line in traces): lines are sorted by text
 * and identical lines merged, so the output is deterministic. */
#include "format.h"

#include <stdlib.h>
#include <string.h>

uint32_t collapsed_frames(const model *m, const model_stack *st, collapsed_frame *out)
{
    uint32_t n = 0;
    if (st->thread)
        out[n++] = (collapsed_frame){ COLLAPSED_KIND_THREAD, st->thread };
    for (uint32_t i = st->nframes; i-- > 0;)
        out[n++] = (collapsed_frame){ stack_frame_kind(st->frames[i]), stack_frame_method(st->frames[i]).v };
    if (m->wall)
        out[n++] = (collapsed_frame){ COLLAPSED_KIND_STATE, (uint32_t)st->state };
    if (n == 0)
        out[n++] = (collapsed_frame){ FRAME_KIND_UNKNOWN, 0 };
    return n;
}

/* Appends s with the characters that would break a line apart replaced. */
static void collapsed_put_clean(buf *out, const char *s, size_t len)
{
    size_t start = out->len;
    buf_put(out, s, len);
    if (out->failed)
        return;
    for (size_t i = start; i < out->len; i++)
        if (out->data[i] == ';' || out->data[i] == '\n' || out->data[i] == '\r')
            out->data[i] = '_';
}

void collapsed_frame_name(const model *m, collapsed_frame f, buf *out)
{
    size_t len;
    const char *s;
    if (f.kind == COLLAPSED_KIND_THREAD) {
        const model_thread *t = model_thread_get(m, f.ref);
        if (t && (s = model_string_get(m, t->name, &len), len > 0)) {
            buf_put(out, "[", 1);
            collapsed_put_clean(out, s, len);
            buf_put(out, "]", 1);
        } else {
            buf_printf(out, "[thread %u]", f.ref);
        }
        return;
    }
    if (f.kind == COLLAPSED_KIND_STATE) {
        buf_printf(out, "[%s]", f.ref < SAMPLE_STATES ? sample_state_names[f.ref] : "unknown state");
        return;
    }
    if (f.ref == 0) {
        buf_put(out, "<empty>", 7);
        return;
    }
    const model_method *me = model_method_get(m, (method_id){ f.ref });
    if (!me) {
        buf_put(out, "<unknown method>", 16);
        return;
    }
    const model_class *c = model_class_get(m, me->cls);
    if (!c) {
        buf_put(out, "<unknown class>.", 16);
    } else {
        s = model_string_get(m, c->name, &len);
        if (len > 0) {
            collapsed_put_clean(out, s, len);
            buf_put(out, ".", 1);
        }
    }
    s = model_string_get(m, me->name, &len);
    collapsed_put_clean(out, s, len);
}

const char *collapsed_kind_suffix(uint32_t kind)
{
    switch (kind) {
    case FRAME_KIND_JIT: return "_[j]";
    case FRAME_KIND_INLINED: return "_[i]";
    case FRAME_KIND_INTERPRETED: return "_[0]";
    case FRAME_KIND_NATIVE: return "_[n]";
    default: return "";
    }
}

typedef struct collapsed_line {
    size_t off;           /* into the text buffer; NUL-terminated there */
    const char *text;     /* set once the buffer stops growing */
    uint64_t count;
} collapsed_line;

static int collapsed_line_cmp(const void *a, const void *b)
{
    return strcmp(((const collapsed_line *)a)->text, ((const collapsed_line *)b)->text);
}

static jp_status collapsed_write(const model *m, const report_opts *o, sink *s)
{
    (void)o;
    uint32_t n = model_stack_count(m), nlines = 0, fcap = 0;
    collapsed_line *lines = calloc((size_t)n + 1, sizeof *lines);
    collapsed_frame *fr = NULL;
    buf text;
    buf_init(&text);
    jp_status st = lines ? JP_OK : JP_ERR_NOMEM;
    for (uint32_t id = 1; id <= n && st == JP_OK; id++) {
        uint64_t count = model_stack_samples(m, (stack_id){ id });
        if (count == 0)
            continue;
        model_stack ms = model_stack_get(m, (stack_id){ id });
        if (ms.nframes + 2 > fcap) {
            fcap = ms.nframes + 2;
            collapsed_frame *nf = realloc(fr, (size_t)fcap * sizeof *fr);
            if (!nf) {
                st = JP_ERR_NOMEM;
                break;
            }
            fr = nf;
        }
        uint32_t k = collapsed_frames(m, &ms, fr);
        lines[nlines] = (collapsed_line){ text.len, NULL, count };
        for (uint32_t i = 0; i < k; i++) {
            if (i)
                buf_put(&text, ";", 1);
            collapsed_frame_name(m, fr[i], &text);
            if (fr[i].kind < COLLAPSED_KIND_THREAD)
                buf_printf(&text, "%s", collapsed_kind_suffix(fr[i].kind));
        }
        buf_put(&text, "", 1);
        if (text.failed)
            st = JP_ERR_NOMEM;
        nlines++;
    }
    if (st == JP_OK) {
        for (uint32_t i = 0; i < nlines; i++)
            lines[i].text = (const char *)text.data + lines[i].off;
        qsort(lines, nlines, sizeof *lines, collapsed_line_cmp);
        for (uint32_t i = 0; i < nlines;) {
            uint64_t count = lines[i].count;
            uint32_t j = i + 1;
            while (j < nlines && strcmp(lines[j].text, lines[i].text) == 0)
                count += lines[j++].count;
            sink_write(s, lines[i].text, strlen(lines[i].text));
            sink_printf(s, " %llu\n", (unsigned long long)count);
            i = j;
        }
        st = sink_status(s);
    }
    free(fr);
    free(lines);
    buf_free(&text);
    return st;
}

const jp_format_ops collapsed_format = { "collapsed", collapsed_write };
