/* formats.c — the list of the output formats (format.h), in the order
 * messages name them ("use format=a, flame= or collapsed="). */
#include "format.h"

#include <stdio.h>

void hprof_summary(const model *m, char *out, size_t len)
{
    snprintf(out, len, "%llu CPU samples in %llu traces, %u monitor entries", (unsigned long long)m->total_samples,
             (unsigned long long)model_trace_count(m), model_monitor_count(m));
}

const jp_format_ops *const jp_formats[] = { &hprof_txt_format, &hprof_bin_format, &flame_html_format,
                                            &collapsed_format };
const size_t jp_format_count = sizeof jp_formats / sizeof jp_formats[0];
