/* format.h — the output formats, each one ops table over a pure function of
 * (model, report options, sink). Writers never call JVMTI and never open
 * files: the agent and the CLI both hand them a sink. Also the HPROF serial
 * number bases (user-visible numbers are computed at write time from ids). */
#ifndef FORMAT_H
#define FORMAT_H

#include <stdbool.h>

#include "../common/jp_error.h"
#include "../model/model.h"
#include "sink.h"

enum {
    HPROF_SERIAL_CLASS = 100000,
    HPROF_SERIAL_THREAD = 200000,
    HPROF_SERIAL_TRACE = 300000,
    HPROF_SERIAL_FRAME = 500000,
};

typedef struct report_opts {
    double cutoff;        /* rows whose share is below this fraction are not printed */
    bool cpu_samples;     /* write the CPU SAMPLES section */
    bool monitor;         /* write the MONITOR TIME section */
    bool cpu_times;       /* write the CPU TIME (ms) section (ASCII only, as in HPROF) */
} report_opts;

typedef struct jp_format_ops {
    const char *name;
    jp_status (*write)(const model *m, const report_opts *o, sink *s);
} jp_format_ops;

extern const jp_format_ops hprof_txt_format;   /* format=a: java.hprof.txt */
extern const jp_format_ops hprof_bin_format;   /* format=b: java.hprof, JAVA PROFILE 1.0.2 */

/* hprof_bin_read.c: parses an HPROF binary file into a fresh model. Fills
 * *o with what the file holds (cpu_samples when it had a CPU SAMPLES record).
 * On error returns NULL and fills errbuf with a one-line reason. */
model *hprof_bin_read(const void *data, size_t len, report_opts *o, char *errbuf, size_t errlen);

#endif
