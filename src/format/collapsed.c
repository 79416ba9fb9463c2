/* collapsed.c — the collapsed-stack format that flamegraph.pl and speedscope
 * read: one line per distinct stack, "root;...;leaf count", frames named
 * "pkg.Class.method" plus async-profiler's kind suffixes (native C/C++ frames
 * the bare symbol, kernel frames the symbol with "_[k]"), and the frame names
 * flame_html.c shows too. Different stacks can give the same line (methods that
 * differ only in signature, or in line in traces): lines are sorted by text
 * and identical lines merged, so the output is deterministic. The stacks come
 * from stack_walk.c. */
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (f.kind == COLLAPSED_KIND_CLASS) {
        const model_class *c = model_class_get(m, (class_id){ f.ref });
        if (c && (s = model_string_get(m, c->name, &len), len > 0))
            collapsed_put_clean(out, s, len);
        else
            buf_put(out, "<unknown class>", 15);
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
    if (f.kind == FRAME_KIND_CPP || f.kind == FRAME_KIND_KERNEL || (c && c->code != MODEL_CODE_JAVA)) {
        s = model_string_get(m, me->name, &len);
        collapsed_put_clean(out, s, len);
        return;
    }
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
    case FRAME_KIND_KERNEL: return "_[k]";
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

/* The lines being built: their text in one buffer. */
typedef struct collapsed_lines {
    const model *m;
    collapsed_line *lines;
    uint32_t n;
    buf text;
} collapsed_lines;

static jp_status collapsed_add(const collapsed_frame *fr, uint32_t k, uint64_t count, void *ctx)
{
    collapsed_lines *cl = ctx;
    cl->lines[cl->n] = (collapsed_line){ cl->text.len, NULL, count };
    for (uint32_t i = 0; i < k; i++) {
        if (i)
            buf_put(&cl->text, ";", 1);
        collapsed_frame_name(cl->m, fr[i], &cl->text);
        if (fr[i].kind <= FRAME_KIND_KERNEL)
            buf_printf(&cl->text, "%s", collapsed_kind_suffix(fr[i].kind));
    }
    buf_put(&cl->text, "", 1);
    cl->n++;
    return cl->text.failed ? JP_ERR_NOMEM : JP_OK;
}

static jp_status collapsed_write(const model *m, const report_opts *o, sink *s)
{
    (void)o;
    collapsed_lines cl = { m, calloc((size_t)model_stack_count(m) + 1, sizeof *cl.lines), 0, { 0 } };
    buf_init(&cl.text);
    jp_status st = cl.lines ? stack_walk(m, collapsed_add, &cl) : JP_ERR_NOMEM;
    collapsed_line *lines = cl.lines;
    uint32_t nlines = cl.n;
    buf text = cl.text;
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
    free(lines);
    buf_free(&text);
    return st;
}

static void collapsed_summary(const model *m, char *out, size_t len)
{
    snprintf(out, len, "%u collapsed stacks", model_stack_count(m));
}

const jp_format_ops collapsed_format = { "collapsed", "collapsed=", "collapsed stacks",
                                         FMT_CPU_SAMPLES | FMT_WALL_SAMPLES, collapsed_write, collapsed_summary };
