/* formats.c — the list of the output formats (format.h), in the order
 * messages name them ("use format=a, flame= or collapsed="). */
#include "format.h"

#include <stdio.h>

void hprof_summary(const model *m, char *out, size_t len)
{
    /* what the report holds, each count named for what it counts; none that it does not hold */
    int n = snprintf(out, len, "%llu traces", (unsigned long long)model_trace_count(m));
    size_t used = n > 0 && (size_t)n < len ? (size_t)n : len;
    if (m->total_samples && used < len)
        used += (size_t)snprintf(out + used, len - used, ", %llu %s samples", (unsigned long long)m->total_samples,
                                 m->wall ? "wall" : "CPU");
    if (m->total_time_ns && used < len)
        used += (size_t)snprintf(out + used, len - used, ", %llu ms of cpu=times",
                                 (unsigned long long)(m->total_time_ns / 1000000u));
    if (model_monitor_count(m) && used < len)
        used += (size_t)snprintf(out + used, len - used, ", %u monitor rows", model_monitor_count(m));
    if (model_site_count(m) && used < len)
        snprintf(out + used, len - used, ", %u allocation sites", model_site_count(m));
}

const jp_format_ops *const jp_formats[] = { &hprof_txt_format, &hprof_bin_format, &flame_html_format,
                                            &collapsed_format, &pprof_format, &jfr_format };
const size_t jp_format_count = sizeof jp_formats / sizeof jp_formats[0];
