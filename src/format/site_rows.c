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

uint32_t site_rows(const model *m, double cutoff, site_row *rows, site_totals *total)
{
    uint32_t n = 0;
    *total = (site_totals){ 0 };
    for (uint32_t i = 1; i <= model_site_count(m); i++) {
        const model_site *si = model_site_get(m, (site_id){ i });
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
