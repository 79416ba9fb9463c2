/* main.c — the jvmprof command: reads the files the agent writes and prints
 * reports. It reuses the model and the writers, so a format is produced by one
 * piece of code whether the agent or this command writes it.
 *   jvmprof report FILE [--cutoff X] [-o OUT]   HPROF binary -> HPROF ASCII report
 *   jvmprof options                             the agent's options (its help)
 *   jvmprof version | --help */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../agent/options.h"
#include "../format/format.h"

static void cli_usage(FILE *out)
{
    fprintf(out,
            "usage: jvmprof <command> [arguments]\n"
            "\n"
            "commands:\n"
            "  report FILE [--cutoff X] [-o OUT]   print the HPROF ASCII report of an HPROF binary file\n"
            "                                      (written by the agent with format=b); OUT defaults to stdout\n"
            "  options                             the agent's options, values and defaults\n"
            "  version                             print the version\n"
            "  help, --help                        this text\n"
            "\n"
            "The agent itself is loaded by the JVM:\n"
            "  java -agentpath:/path/to/libjvmprof.so=cpu=samples,file=out.txt MyMain\n");
}

static unsigned char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "jvmprof: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "jvmprof: %s: not a regular file\n", path);
        fclose(f);
        return NULL;
    }
    unsigned char *data = malloc((size_t)st.st_size + 1);
    if (!data) {
        fprintf(stderr, "jvmprof: %s: out of memory (%lld bytes)\n", path, (long long)st.st_size);
        fclose(f);
        return NULL;
    }
    size_t n = fread(data, 1, (size_t)st.st_size, f);
    fclose(f);
    if (n != (size_t)st.st_size) {
        fprintf(stderr, "jvmprof: cannot read %s\n", path);
        free(data);
        return NULL;
    }
    *len = n;
    return data;
}

static int cli_report(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    double cutoff = 0.0001;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--cutoff") == 0 && i + 1 < argc) {
            char *end;
            cutoff = strtod(argv[++i], &end);
            if (*end || !(cutoff >= 0 && cutoff <= 1)) {
                fprintf(stderr, "jvmprof: --cutoff %s: expected a number 0..1\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "jvmprof: report: unknown argument %s; expected FILE [--cutoff X] [-o OUT]\n", argv[i]);
            return 2;
        } else if (!in) {
            in = argv[i];
        } else {
            fprintf(stderr, "jvmprof: report: one input file only (got %s and %s)\n", in, argv[i]);
            return 2;
        }
    }
    if (!in) {
        fprintf(stderr, "jvmprof: report: missing FILE; usage: jvmprof report FILE [--cutoff X] [-o OUT]\n");
        return 2;
    }
    size_t len = 0;
    unsigned char *data = cli_read_file(in, &len);
    if (!data)
        return 1;
    char err[512];
    report_opts ro;
    model *m = hprof_bin_read(data, len, &ro, err, sizeof err);
    free(data);
    if (!m) {
        fprintf(stderr, "jvmprof: %s: %s\n", in, err);
        return 1;
    }
    ro.cutoff = cutoff;
    buf mem;
    buf_init(&mem);
    sink *s = out ? sink_open_file(out, err, sizeof err) : sink_open_memory(&mem);
    if (!s) {
        fprintf(stderr, "jvmprof: %s\n", out ? err : "out of memory");
        model_free(m);
        return 1;
    }
    jp_status st = hprof_txt_format.write(m, &ro, s);
    if (st != JP_OK) {
        sink_abort(s);
        fprintf(stderr, "jvmprof: cannot write the report: %s\n", jp_status_name(st));
        model_free(m);
        buf_free(&mem);
        return 1;
    }
    st = sink_commit(s, err, sizeof err);
    model_free(m);
    if (st != JP_OK) {
        fprintf(stderr, "jvmprof: %s\n", err);
        buf_free(&mem);
        return 1;
    }
    int rc = 0;
    if (!out && mem.len && fwrite(mem.data, 1, mem.len, stdout) != mem.len)
        rc = 1;
    buf_free(&mem);
    if (fflush(stdout) != 0)
        rc = 1;
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("jvmprof %s\n", JP_VERSION);
        return 0;
    }
    if (strcmp(cmd, "options") == 0) {
        options_print_help(stdout);
        return 0;
    }
    if (strcmp(cmd, "report") == 0)
        return cli_report(argc - 2, argv + 2);
    fprintf(stderr, "jvmprof: unknown command '%s'; expected report, options, version or help\n", cmd);
    return 2;
}
