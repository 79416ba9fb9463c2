/* rewrite_cost.c — the class-file rewriter's cost per class, for make bench:
 * reads every .class file under a directory into memory, then rewrites all
 * of them ROUNDS times in a tight loop (only cf_rewrite is timed) and prints
 * the median µs per class, for the injection cpu=times uses (entry/exit
 * calls in the methods its default rules pick) and for everything (entry,
 * exit and array calls in every method). */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "classfile/classfile.h"

typedef struct blob { unsigned char *b; size_t n; } blob;
static blob *blobs;
static size_t nblobs, capblobs;

static void add_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *b = n > 0 ? malloc((size_t)n) : NULL;
    if (b && fread(b, 1, (size_t)n, f) == (size_t)n) {
        if (nblobs == capblobs) {
            capblobs = capblobs ? capblobs * 2 : 4096;
            blobs = realloc(blobs, capblobs * sizeof *blobs);
        }
        blobs[nblobs++] = (blob){ b, (size_t)n };
    } else {
        free(b);
    }
    fclose(f);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        size_t l = strlen(p);
        if (S_ISDIR(st.st_mode))
            walk(p);
        else if (l > 6 && strcmp(p + l - 6, ".class") == 0)
            add_file(p);
    }
    closedir(d);
}

/* the agent's default rules (bci_method_wanted with tiny=12), minus the class filters */
static uint32_t select_default(void *ctx, const cf_method_view *m)
{
    (void)ctx;
    if (!m->loops && (m->code_length <= 12 || (!m->calls && m->code_length <= 32)))
        return 0;
    return m->index + 1u;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double run(const cf_inject_spec *spec, int rounds, unsigned long *failures)
{
    double us[64];
    for (int r = 0; r < rounds; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (size_t i = 0; i < nblobs; i++) {
            cf_result res;
            if (cf_rewrite(blobs[i].b, blobs[i].n, spec, &res) != JP_OK)
                (*failures)++;
            free(res.bytes);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        us[r] = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / (double)nblobs;
    }
    qsort(us, (size_t)rounds, sizeof us[0], cmp_d);
    return us[rounds / 2];
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: rewrite_cost DIR [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1 || rounds > 64)
        rounds = 5;
    walk(argv[1]);
    if (!nblobs) {
        fprintf(stderr, "rewrite_cost: no .class files under %s\n", argv[1]);
        return 1;
    }
    unsigned long fail = 0;
    cf_inject_spec times = { "jvmprof/Tracker", CF_INJECT_CALLS, select_default, NULL };
    cf_inject_spec all = { "jvmprof/Tracker", CF_INJECT_CALLS | CF_INJECT_NEWARRAY, NULL, NULL };
    double t = run(&times, rounds, &fail), a = run(&all, rounds, &fail);
    printf("rewrite cost: %zu classes, median of %d rounds: %.1f us/class (cpu=times rules), %.1f us/class "
           "(every method, entry/exit/array calls); %lu failures\n", nblobs, rounds, t, a, fail);
    return fail ? 1 : 0;
}
