/* cli_report.c — jvmprof report FILE [--cutoff X] [-o OUT]: the HPROF ASCII
 * report of an HPROF binary file (format=b), written by the same writer as
 * the agent's format=a. */
#include "cli_commands.h"

#include "../common/file_map.h"
#include "../format/format.h"
#include "../model/model.h"
#include "cli_common.h"

int cli_report(int argc, char **argv)
{
    cli_args a;
    int rc = cli_parse("report", "FILE [--cutoff X] [-o OUT]", CLI_OPT_CUTOFF | CLI_OPT_OUT, argc, argv, &a);
    if (rc)
        return rc;
    size_t len = 0;
    const void *data = cli_map_file(a.in, &len);
    if (!data)
        return 1;
    char err[512];
    report_opts ro;
    model *m = hprof_bin_read(data, len, &ro, err, sizeof err);
    file_unmap(data, len);
    if (!m) {
        cli_error("%s: %s", a.in, err);
        return 1;
    }
    ro.cutoff = a.cutoff;
    rc = cli_write(m, &hprof_txt_format, &ro, a.out);
    model_free(m);
    return rc;
}
