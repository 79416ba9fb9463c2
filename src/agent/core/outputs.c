/* outputs.c — see outputs.h. */
#include "outputs.h"

size_t outputs_of(const agent_options *o, output out[OUTPUTS_MAX])
{
    size_t n = 0;
    bool profile = o->cpu != OPTIONS_CPU_OFF || o->monitor || o->wall_ms || o->heap_sites;
    bool dump_alone = (o->heap_dump && !o->heap_sites) || !profile; /* or trace= alone: no report either */
    const jp_format_ops *report = o->format == 'b' ? &hprof_bin_format : &hprof_txt_format;
    out[n++] = (output){ "file", dump_alone ? NULL : report, o->file, o->heap_dump && !dump_alone };
    if (o->flame[0])
        out[n++] = (output){ "flame", &flame_html_format, o->flame, false };
    if (o->collapsed[0])
        out[n++] = (output){ "collapsed", &collapsed_format, o->collapsed, false };
    if (o->pprof[0] && !dump_alone)
        out[n++] = (output){ "pprof", &pprof_format, o->pprof, false };
    if (o->jfr[0] && !dump_alone)
        out[n++] = (output){ "jfr", &jfr_format, o->jfr, false };
    return n;
}
