/* heap_leaks_html.c — the leak report page (heap_leaks_html.h): its text
 * parts written here, the dominator tree embedded as a flat preorder list
 * (label, retained, shallow, depth, count) that leaks_page/script.js draws.
 * The tree is walked with an explicit stack: nothing recurses on depth. */
#include "heap_leaks_html.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hlp_head (the style and an error catcher) and hlp_script (the drawing code), each NUL-terminated */
#include "leaks_page.h"

/* t as HTML text: a newline kept (the paths' lines), other control characters as '?' */
static void hlp_html(sink *s, const char *t)
{
    for (; *t; t++) {
        unsigned char ch = (unsigned char)*t;
        if (ch == '<')
            sink_write(s, "&lt;", 4);
        else if (ch == '>')
            sink_write(s, "&gt;", 4);
        else if (ch == '&')
            sink_write(s, "&amp;", 5);
        else if (ch == '"')
            sink_write(s, "&quot;", 6);
        else if ((ch < 0x20 && ch != '\n') || ch == 0x7f)
            sink_write(s, "?", 1);
        else
            sink_write(s, t, 1);
    }
}

/* a JSON string; "</" written "<\/" so that no name ends the script element */
static void hlp_json(sink *s, const char *t)
{
    char prev = 0;
    sink_write(s, "\"", 1);
    for (; *t; prev = *t++) {
        unsigned char ch = (unsigned char)*t;
        if (ch == '"' || ch == '\\')
            sink_printf(s, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            sink_printf(s, "\\u%04x", ch);
        else if (ch == '/' && prev == '<')
            sink_write(s, "\\/", 2);
        else
            sink_write(s, t, 1);
    }
    sink_write(s, "\"", 1);
}

/* object i's label: its class, "class NAME" for a class object */
static void hlp_label(const heap_graph *g, uint32_t i, char *out, size_t len)
{
    const char *name;
    if (heap_graph_is_class(g, i, &name))
        snprintf(out, len, "class %s", name);
    else
        snprintf(out, len, "%s", heap_graph_class_name(g, g->cls[i]));
}

static double hlp_share(const heap_leaks *l, uint64_t bytes)
{
    return l->heap ? 100.0 * (double)bytes / (double)l->heap : 0.0;
}

/* ---- the tree ---- */

typedef struct hlp_tree {
    sink *s;
    const heap_leaks_page *p;
    uint32_t *label_of;  /* [class index]: label index + 1 */
    uint32_t nlabels;
    uint32_t nodes;      /* emitted */
    uint32_t *node_of;   /* [suspect k * 2 + 0/1]: the node of suspect k's object and of its point, or UINT32_MAX */
    bool first;
} hlp_tree;

static void hlp_emit(hlp_tree *t, int label, uint64_t retained, uint64_t shallow, uint32_t depth, uint64_t count)
{
    sink_printf(t->s, "%s%d,%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu64, t->first ? "" : ",", label, retained,
                shallow, depth, count);
    t->first = false;
    t->nodes++;
}

/* the label index of object i, its label written to labels when new */
static int hlp_label_index(hlp_tree *t, buf *labels, uint32_t i)
{
    const heap_graph *g = t->p->g;
    char name[1100];
    const char *cname;
    if (!heap_graph_is_class(g, i, &cname)) {
        uint32_t ci = g->cls[i];
        if (ci < g->nclasses && t->label_of[ci])
            return (int)t->label_of[ci] - 1;
        if (ci < g->nclasses)
            t->label_of[ci] = t->nlabels + 1;
    }
    hlp_label(g, i, name, sizeof name);
    sink *ls = sink_open_memory(labels);
    if (ls) {
        if (t->nlabels)
            sink_write(ls, ",", 1);
        hlp_json(ls, name);
        sink_abort(ls);
    } else {
        labels->failed = true;
    }
    return (int)t->nlabels++;
}

typedef struct hlp_frame {
    uint32_t obj;  /* children-list index (c->n: the super root) */
    uint32_t next; /* its next child to visit, an offset in c->list */
} hlp_frame;

/* The preorder list of the drawn tree into s ("nodes"), its labels into labels, the ids into ids. */
static bool hlp_tree_write(hlp_tree *t, buf *labels, buf *ids)
{
    const heap_leaks_page *p = t->p;
    const heap_dom_children *c = p->c;
    const heap_dominators *dm = p->dm;
    uint64_t min = (uint64_t)((double)p->l->heap * HEAP_LEAKS_HTML_MIN);
    if (min < 1)
        min = 1;
    hlp_frame *st = malloc(((size_t)HEAP_LEAKS_HTML_DEPTH + 2) * sizeof *st);
    sink *is = sink_open_memory(ids);
    if (!st || !is) {
        free(st);
        if (is)
            sink_abort(is);
        return false;
    }
    uint32_t sp = 0;
    st[sp++] = (hlp_frame){ c->n, c->at[c->n] };
    hlp_emit(t, -2, dm->reachable_bytes, 0, 0, 1);
    sink_write(is, "\"\"", 2);
    while (sp) {
        hlp_frame *f = &st[sp - 1];
        uint32_t end = c->at[f->obj + 1];
        bool deep = sp > HEAP_LEAKS_HTML_DEPTH || t->nodes >= HEAP_LEAKS_HTML_NODES;
        if (f->next < end && !deep && dm->retained[c->list[f->next]] >= min) {
            uint32_t x = c->list[f->next++];
            for (size_t k = 0; k < p->l->n; k++) {
                const heap_leak_suspect *s = &p->l->s[k];
                if (s->kind == HEAP_LEAK_OBJECT && s->obj == x)
                    t->node_of[2 * k] = t->nodes;
                if (s->kind == HEAP_LEAK_OBJECT && s->point.obj == x)
                    t->node_of[2 * k + 1] = t->nodes;
                if (s->kind == HEAP_LEAK_CLASS && s->holder == x)
                    t->node_of[2 * k + 1] = t->nodes;
            }
            hlp_emit(t, hlp_label_index(t, labels, x), dm->retained[x], heap_graph_shallow_of(p->g, x), sp, 1);
            sink_printf(is, ",\"0x%" PRIx64 "\"", p->g->ids[x]);
            st[sp++] = (hlp_frame){ x, c->at[x] };
            continue;
        }
        if (f->next < end) { /* the rest, smaller (or too deep, or too many): one node */
            uint64_t bytes = 0, sh = 0;
            for (uint32_t k = f->next; k < end; k++) {
                bytes += dm->retained[c->list[k]];
                sh += heap_graph_shallow_of(p->g, c->list[k]);
            }
            hlp_emit(t, -1, bytes, sh, sp, end - f->next);
            sink_write(is, ",\"\"", 3);
        }
        sp--;
    }
    free(st);
    jp_status st_ids = sink_status(is);
    sink_abort(is);
    return st_ids == JP_OK && !ids->failed && !labels->failed;
}

/* ---- the text parts ---- */

static void hlp_named(sink *s, const heap_graph *g, uint32_t i)
{
    char name[1100];
    if (i == HEAP_GRAPH_NONE) {
        sink_printf(s, "the GC roots");
        return;
    }
    hlp_label(g, i, name, sizeof name);
    sink_printf(s, "<b>");
    hlp_html(s, name);
    sink_printf(s, "</b> 0x%" PRIx64, g->ids[i]);
}

static void hlp_suspects(sink *s, const heap_leaks_page *p, const uint32_t *node_of)
{
    const heap_graph *g = p->g;
    const heap_leaks *l = p->l;
    sink_printf(s, "<h2>Leak suspects</h2>\n<div id=\"suspects\">\n");
    if (!l->n)
        sink_printf(s, "<p id=\"nosuspect\">No suspect: no object, and no class, retains more than %g%% of the heap.</p>\n",
                    l->threshold);
    for (size_t k = 0; k < l->n; k++) {
        const heap_leak_suspect *x = &l->s[k];
        sink_printf(s, "<div class=\"suspect\" data-kind=\"%s\"><span class=\"what\">Suspect %zu: ",
                    x->kind == HEAP_LEAK_OBJECT ? "object" : "class", k + 1);
        if (x->kind == HEAP_LEAK_OBJECT) {
            hlp_named(s, g, x->obj);
            sink_printf(s, " retains %" PRIu64 " bytes, %.2f%% of the heap</span>", x->retained,
                        hlp_share(l, x->retained));
            if (node_of[2 * k] != UINT32_MAX)
                sink_printf(s, "<button type=\"button\" data-node=\"%" PRIu32 "\">show in the tree</button>",
                            node_of[2 * k]);
            const heap_leak_point *pt = &x->point;
            sink_printf(s, "<div class=\"more\">Accumulation point: ");
            hlp_named(s, g, pt->obj);
            sink_printf(s, " (%s), retains %" PRIu64 " bytes", pt->steps ? "below the suspect" : "the suspect itself",
                        p->dm->retained[pt->obj]);
            if (pt->children) {
                sink_printf(s, ": %" PRIu32 " objects it dominates retain %" PRIu64 " bytes, %" PRIu32 " of them <b>",
                            pt->children, pt->children_retained, pt->top_cls_children);
                hlp_html(s, heap_graph_class_name(g, pt->top_cls));
                sink_printf(s, "</b> (%" PRIu64 " bytes, %.2f%% of the heap)", pt->top_cls_retained,
                            hlp_share(l, pt->top_cls_retained));
            } else {
                sink_printf(s, "; it dominates no other object");
            }
            if (node_of[2 * k + 1] != UINT32_MAX && pt->steps)
                sink_printf(s, "<button type=\"button\" data-node=\"%" PRIu32 "\">show in the tree</button>",
                            node_of[2 * k + 1]);
            sink_printf(s, "</div>\n");
        } else {
            sink_printf(s, "%" PRIu64 " instances of <b>", x->instances);
            hlp_html(s, heap_graph_class_name(g, x->cls));
            sink_printf(s, "</b> retain %" PRIu64 " bytes, %.2f%% of the heap</span>", x->retained,
                        hlp_share(l, x->retained));
            if (x->holder == HEAP_GRAPH_NONE) {
                sink_printf(s, "<div class=\"more\">No object holds them: they hang below the GC roots");
            } else {
                sink_printf(s, "<div class=\"more\">%" PRIu64 " of them (%" PRIu64 " bytes) %s ", x->held,
                            x->held_bytes, x->holder_levels > 1 ? "lie below" : "are held by");
                hlp_named(s, g, x->holder);
            }
            if (x->holder_levels > 1)
                sink_printf(s, ", %" PRIu32 " levels of the dominator tree up", x->holder_levels);
            if (node_of[2 * k + 1] != UINT32_MAX)
                sink_printf(s, "<button type=\"button\" data-node=\"%" PRIu32 "\">show in the tree</button>",
                            node_of[2 * k + 1]);
            sink_printf(s, "</div>\n");
        }
        size_t same = 0; /* an earlier suspect whose path leads to the same object */
        for (size_t j = 0; j < k && !same; j++)
            if (heap_leak_target(&l->s[j]) == heap_leak_target(x))
                same = j + 1;
        if (p->paths && p->paths[k] && same) {
            sink_printf(s, "<div class=\"more\">Path from a GC root: as suspect %zu's.</div>\n", same);
        } else if (p->paths && p->paths[k]) {
            sink_printf(s, "<div class=\"more\">Path from a GC root:</div><div class=\"path\">");
            hlp_html(s, p->paths[k]);
            sink_printf(s, "</div>\n");
        }
        sink_printf(s, "</div>\n");
    }
    sink_printf(s, "</div>\n");
}

static void hlp_classes(sink *s, const heap_leaks_page *p)
{
    size_t n = p->top && p->top < p->nrows ? (size_t)p->top : p->nrows;
    sink_printf(s, "<h2>Classes by retained size</h2>\n<p>A class retains what its instances retain, an instance "
                   "inside another's retained set counted once.</p>\n<table id=\"classes\">\n<tr><th>rank</th>"
                   "<th>instances</th><th>shallow</th><th>retained</th><th>heap</th><th>class</th></tr>\n");
    for (size_t k = 0; k < n; k++) {
        const heap_class_retained *r = &p->rows[k];
        sink_printf(s,
                    "<tr><td>%zu</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.2f%%</td><td>",
                    k + 1, r->instances, r->shallow, r->retained, hlp_share(p->l, r->retained));
        hlp_html(s, heap_graph_class_name(p->g, r->cls));
        sink_printf(s, "</td></tr>\n");
    }
    sink_printf(s, "</table>\n");
    if (n < p->nrows)
        sink_printf(s, "<p>%zu more classes (jvmprof heap FILE --leaks --html --top 0 shows all).</p>\n", p->nrows - n);
}

jp_status heap_leaks_html_write(sink *s, const heap_leaks_page *p)
{
    const heap_graph *g = p->g;
    const heap_leaks *l = p->l;
    hlp_tree t = { .s = s, .p = p, .first = true };
    buf labels, ids;
    buf_init(&labels);
    buf_init(&ids);
    t.label_of = calloc(g->nclasses ? g->nclasses : 1, sizeof *t.label_of);
    t.node_of = malloc((l->n ? l->n : 1) * 2 * sizeof *t.node_of);
    jp_status st = JP_ERR_NOMEM;
    if (!t.label_of || !t.node_of)
        goto out;
    for (size_t k = 0; k < 2 * l->n; k++)
        t.node_of[k] = UINT32_MAX;

    sink_write(s, hlp_head, sizeof hlp_head - 1);
    sink_printf(s, "<title>Leak suspects: ");
    hlp_html(s, p->path);
    sink_printf(s, "</title>\n</head>\n<body>\n<div id=\"errors\"></div>\n<h1 id=\"title\">Leak suspects: ");
    hlp_html(s, p->path);
    sink_printf(s,
                "</h1>\n<div id=\"sub\">%" PRIu64 " reachable objects, %" PRIu64 " bytes (the heap below); suspects: "
                "what retains more than %g%% of it. %s</div>\n",
                p->dm->reachable, l->heap, l->threshold,
                g->flags & HEAP_GRAPH_IGNORE_WEAK
                    ? "Rule: --ignore-weak, the referents of weak, soft, phantom and final references retain nothing."
                    : "Rule: every reference retains, referents of weak, soft, phantom and final references too.");
    /* the tree first into memory: the suspects' buttons name its nodes */
    buf nodes;
    buf_init(&nodes);
    sink *ns = sink_open_memory(&nodes);
    if (!ns) {
        buf_free(&nodes);
        goto out;
    }
    t.s = ns;
    bool ok = hlp_tree_write(&t, &labels, &ids) && sink_status(ns) == JP_OK;
    sink_abort(ns);
    if (!ok || nodes.failed) {
        buf_free(&nodes);
        goto out;
    }
    hlp_suspects(s, p, t.node_of);
    sink_printf(s, "<h2>Dominator tree</h2>\n<p>Each object is as wide as what it retains, the objects it "
                   "dominates below it; objects retaining less than %g%% of the heap are drawn together, one "
                   "node per parent. Click to zoom in; Reset or Esc to zoom out.</p>\n",
                100.0 * HEAP_LEAKS_HTML_MIN);
    sink_printf(s, "<div id=\"bar\"><button id=\"reset\" type=\"button\">Reset zoom</button></div>\n"
                   "<div id=\"status\"> </div>\n<div id=\"tree\"></div>\n");
    hlp_classes(s, p);
    sink_printf(s, "<script>\nvar D = {\"heap\": %" PRIu64 ",\n\"labels\": [", l->heap);
    sink_write(s, labels.data, labels.len);
    sink_printf(s, "],\n\"nodes\": [");
    sink_write(s, nodes.data, nodes.len);
    sink_printf(s, "],\n\"ids\": [");
    sink_write(s, ids.data, ids.len);
    sink_printf(s, "],\n\"suspectNodes\": [");
    bool first = true;
    for (size_t k = 0; k < 2 * l->n; k++)
        if (t.node_of[k] != UINT32_MAX) {
            sink_printf(s, "%s%" PRIu32, first ? "" : ",", t.node_of[k]);
            first = false;
        }
    sink_printf(s, "]};\n</script>\n<script>\n");
    sink_write(s, hlp_script, sizeof hlp_script - 1);
    sink_printf(s, "</script>\n</body>\n</html>\n");
    buf_free(&nodes);
    st = sink_status(s);
out:
    buf_free(&labels);
    buf_free(&ids);
    free(t.label_of);
    free(t.node_of);
    return st;
}
