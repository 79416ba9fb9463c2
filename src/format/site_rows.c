/* site_rows.c — the allocation sites a report shows (heap=sites), in the
 * order both HPROF formats use; see format.h. */
#include <stdlib.h>

#include "format.h"

static int site_rows_cmp(const void *a, const void *b)
{
    const site_row *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    if (x->alloc_bytes != y->alloc_bytes)
        return x->alloc_bytes > y->alloc_bytes ? -1 : 1;
    return x->site < y->site ? -1 : (x->site > y->site);
}

static uint32_t site_rows_of(const model *m, bool counted, double cutoff, site_row *rows, site_totals *total)
{
    uint32_t n = 0;
    *total = (site_totals){ 0 };
    for (uint32_t i = 1; i <= model_site_count(m); i++) {
        const model_site *si = model_site_get(m, (site_id){ i });
        if (si->counted != counted)
            continue;
        rows[n++] = (site_row){ i, si->live_bytes, si->alloc_bytes };
        total->live_bytes += si->live_bytes;
        total->alloc_bytes += si->alloc_bytes;
        total->live_objs += si->live_objs;
        total->alloc_objs += si->alloc_objs;
    }
    qsort(rows, n, sizeof *rows, site_rows_cmp);
    /* a site stays if its share of the live bytes or of the allocated bytes reaches the cutoff */
    uint32_t keep = 0;
    for (uint32_t i = 0; i < n; i++) {
        double ls = total->live_bytes > 0 ? rows[i].live_bytes / total->live_bytes : 0;
        double as = total->alloc_bytes > 0 ? rows[i].alloc_bytes / total->alloc_bytes : 0;
        if (ls >= cutoff || as >= cutoff)
            rows[keep++] = rows[i];
    }
    return keep;
}

uint32_t site_rows(const model *m, double cutoff, site_row *rows, site_totals *total)
{
    /* alloc_count=site: the counted sites; their sampled callers are listed under them, not as rows */
    return site_rows_of(m, m->sites_counted, cutoff, rows, total);
}

uint32_t site_rows_sampled(const model *m, double cutoff, site_row *rows, site_totals *total)
{
    return site_rows_of(m, false, cutoff, rows, total);
}

static int site_rows_callers_cmp(const void *a, const void *b)
{
    const site_caller *x = a, *y = b;
    if (x->share != y->share)
        return x->share > y->share ? -1 : 1;
    return x->site.v < y->site.v ? -1 : (x->site.v > y->site.v);
}

site_callers *site_callers_of(const model *m, const site_row *rows, uint32_t n, double cutoff)
{
    uint32_t *of = model_sites_callers(m);
    uint32_t ns = model_site_count(m);
    uint32_t *row_of = of ? calloc((size_t)ns + 1, sizeof *row_of) : NULL; /* counted site -> row + 1 */
    site_callers *c = row_of ? calloc(n, sizeof *c) : NULL;
    double *total = c ? calloc(n, sizeof *total) : NULL;
    if (!total) {
        free(of);
        free(row_of);
        free(c);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        row_of[rows[i].site] = i + 1;
    for (uint32_t k = 1; k <= ns; k++)
        if (of[k] && row_of[of[k]]) {
            c[row_of[of[k]] - 1].n++;
            total[row_of[of[k]] - 1] += model_site_get(m, (site_id){ k })->alloc_bytes;
        }
    bool oom = false;
    for (uint32_t i = 0; i < n; i++) {
        c[i].at = c[i].n ? calloc(c[i].n, sizeof *c[i].at) : NULL;
        oom |= c[i].n && !c[i].at;
        c[i].n = 0;
    }
    for (uint32_t k = 1; !oom && k <= ns; k++)
        if (of[k] && row_of[of[k]]) {
            uint32_t r = row_of[of[k]] - 1;
            double b = model_site_get(m, (site_id){ k })->alloc_bytes;
            c[r].at[c[r].n++] = (site_caller){ { k }, total[r] > 0 ? 100.0 * b / total[r] : 0 };
        }
    for (uint32_t i = 0; i < n; i++) {
        if (!c[i].at)
            continue;
        qsort(c[i].at, c[i].n, sizeof *c[i].at, site_rows_callers_cmp);
        uint32_t keep = 0;
        while (keep < c[i].n && c[i].at[keep].share >= 100.0 * cutoff)
            keep++;
        c[i].n = keep;
    }
    free(of);
    free(row_of);
    free(total);
    if (oom) {
        site_callers_free(c, n);
        return NULL;
    }
    return c;
}

void site_callers_free(site_callers *c, uint32_t n)
{
    for (uint32_t i = 0; c && i < n; i++)
        free(c[i].at);
    free(c);
}
