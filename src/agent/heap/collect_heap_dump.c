/* collect_heap_dump.c — the heap=dump collector (heap=dump, and heap=all's
 * dump) and its row for collectors.c: at each report its report hook writes
 * a heap dump (heap_dump.h) as file=, named like heap=dump's dumps (outputs.h:
 * file= numbered over the JVM's life) — alone (heap=dump), or after the
 * report that file='s output kept in memory, in one file (heap=all). It
 * needs nothing before: a dump takes its own JVMTI environment when it runs. */
#include <stdio.h>
#include <string.h>

#include "../../common/jp_log.h"
#include "../core/collector.h"
#include "../core/collectors.h"
#include "../core/outputs.h"
#include "heap_dump.h"
#include "heap_dump_sites.h"

static bool hdc_wanted(const agent_options *o) { return o->heap_dump; }

static jp_status hdc_report(jp_session *session, JNIEnv *jni, jp_report *r)
{
    const output *file = &r->outs[0];
    if (file->format) { /* heap=all: file='s line says so (also of a report that jvmprof dump sent elsewhere) */
        size_t used = strlen(r->line_also);
        snprintf(r->line_also + used, sizeof r->line_also - used, "; and a heap dump");
        if (!file->heap_dump_after)
            return JP_OK; /* jvmprof dump PID FILE: that report alone */
    } else {
        r->collector_file = true; /* heap=dump alone: the dump is the report */
    }
    char err[1024];
    /* heap=all: the sampled objects alive now (the report drained the events; here the model may be read) */
    heap_dump_sites sites;
    heap_dump_sites_init(&sites);
    collectors_dump_sites(jni, &sites);
    heap_dump_sites_seal(&sites);
    jp_status st = heap_dump_write_after(jni, session->opts, r->path, &sites, file->format ? r->kept.data : NULL,
                                         r->kept.len, err, sizeof err);
    heap_dump_sites_free(&sites);
    if (st != JP_OK)
        jp_log_error("heap dump failed: %s", err[0] ? err : jp_status_name(st));
    return st;
}

const collector heap_dump_collector = {
    .name = "heap=dump",
    .wanted = hdc_wanted,
    .report = hdc_report,
};
