/* cli_convert.c — jvmprof convert FILE --pprof OUT: an HPROF binary report
 * (the agent's format=b) or collapsed stacks (ours, async-profiler's,
 * flamegraph.pl input) as a pprof profile (src/format/pprof.c), the same
 * writer the agent's pprof= uses. */
#include "cli_commands.h"

#include <stdbool.h>
#include <string.h>

#include "../common/file_map.h"
#include "../format/format.h"
#include "../model/model.h"
#include "cli_common.h"

int cli_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    const jp_format_ops *fmt = &pprof_format;
    for (int i = 0; i < argc; i++) {
        if ((!strcmp(argv[i], "--pprof") || !strcmp(argv[i], "--jfr")) && i + 1 < argc) {
            fmt = !strcmp(argv[i], "--jfr") ? &jfr_format : &pprof_format;
            out = argv[++i];
        }
        else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else {
            cli_error("convert: unexpected '%s': expected jvmprof convert FILE --pprof OUT (FILE: an HPROF binary "
                      "report, format=b, or collapsed stacks)", argv[i]);
            return 2;
        }
    }
    if (!in || !out) {
        cli_error("convert: expected jvmprof convert FILE --pprof OUT (FILE: an HPROF binary report, format=b, or "
                  "collapsed stacks)");
        return 2;
    }
    size_t len = 0;
    const void *data = cli_map_file(in, &len);
    if (!data)
        return 1;
    char err[512];
    report_opts ro;
    memset(&ro, 0, sizeof ro);
    bool hprof = len >= 18 && memcmp(data, "JAVA PROFILE 1.0.", 17) == 0;
    model *m = hprof ? hprof_bin_read(data, len, &ro, err, sizeof err) : collapsed_read(data, len, err, sizeof err);
    file_unmap(data, len);
    if (!m) {
        cli_error("%s: %s", in, err);
        return 1;
    }
    if (fmt == &jfr_format && !model_trace_count(m)) {
        cli_error("%s: collapsed stacks have no traces to make a JFR file of (convert an HPROF binary report)", in);
        model_free(m);
        return 1;
    }
    int rc = cli_write(m, fmt, &ro, out);
    model_free(m);
    return rc;
}
