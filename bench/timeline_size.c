/* timeline_size.c — what the flame graph's timeline costs at a full default
 * recording, for make bench (bench/timeline.sh): a model with record=y's ring
 * holding one million CPU samples over ten minutes (one every 0.6 ms), each
 * of one of 2000 distinct stacks of 12 frames (seeded pseudo-random), written
 * as a flame page (with its timeline) and as a format=b file (with its
 * SAMPLE TIMES) into memory, each timed (median of ROUNDS, default 5), and
 * written once to OUT_DIR/timeline.html and OUT_DIR/timeline.hprof; then the
 * page again without the times (OUT_DIR/no-timeline.html), for comparison.
 * Usage: timeline_size OUT_DIR [ROUNDS]. Prints one line per output. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "format/format.h"
#include "model/recording.h"

enum { TLS_STACKS = 2000, TLS_DEPTH = 12, TLS_SAMPLES = 1000000 };

static double tls_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int tls_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Writes m with f into memory `rounds` times: the median seconds, the bytes, and the last output to path. */
static int tls_write(const model *m, const jp_format_ops *f, int rounds, const char *path)
{
    report_opts o = { 0.0001, true, false };
    double t[64];
    size_t len = 0;
    for (int r = 0; r < rounds; r++) {
        buf out;
        buf_init(&out);
        sink *s = sink_open_memory(&out);
        char err[128];
        double t0 = tls_now();
        if (!s || f->write(m, &o, s) != JP_OK || sink_commit(s, err, sizeof err) != JP_OK) {
            fprintf(stderr, "timeline_size: %s: write failed\n", f->name);
            return 1;
        }
        t[r] = tls_now() - t0;
        len = out.len;
        if (r == rounds - 1) {
            FILE *fp = fopen(path, "wb");
            if (!fp || fwrite(out.data, 1, out.len, fp) != out.len || fclose(fp) != 0) {
                fprintf(stderr, "timeline_size: cannot write %s\n", path);
                return 1;
            }
        }
        buf_free(&out);
    }
    qsort(t, (size_t)rounds, sizeof t[0], tls_cmp);
    printf("%s %zu bytes %.3f s\n", f->name, len, t[rounds / 2]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: timeline_size OUT_DIR [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (rounds < 1 || rounds > 64)
        rounds = 5;
    model *m = model_new();
    if (!m || !(m->recording = recording_new(32u << 20, UINT64_C(600000000000))))
        return 1;
    m->start_time_ms = UINT64_C(1700000000000);
    m->dump_time_ms = m->start_time_ms + 600000;
    m->interval_us = 600;
    class_id c = model_class_intern(m, model_cstring(m, "demo.App"), model_cstring(m, "App.java"));
    static uint32_t stacks[TLS_STACKS];
    static trace_id traces[TLS_STACKS];
    for (uint32_t i = 0; i < TLS_STACKS; i++) {
        uint32_t packed[TLS_DEPTH];
        frame_id frames[TLS_DEPTH];
        for (uint32_t k = 0; k < TLS_DEPTH; k++) { /* callers shared by many stacks, leaves by few */
            char name[32];
            snprintf(name, sizeof name, "m%u_%u", k, (i >> (k / 2)) % 97);
            method_id me = model_method_intern(m, c, model_cstring(m, name), model_cstring(m, "()V"));
            packed[TLS_DEPTH - 1 - k] = stack_frame_pack(me, FRAME_KIND_JIT);
            frames[TLS_DEPTH - 1 - k] = model_frame_intern(m, me, (int32_t)k + 1);
        }
        stacks[i] = model_stack_intern(m, 1, SAMPLE_RUNNING, packed, TLS_DEPTH).v;
        traces[i] = model_trace_intern(m, 1, frames, TLS_DEPTH);
    }
    srand(1);
    for (uint64_t j = 0; j < TLS_SAMPLES; j++) {
        uint32_t i = (uint32_t)rand() % TLS_STACKS;
        recording_event e = { m->start_time_ms * 1000000u + j * 600000u, 0, 1, traces[i].v, stacks[i], 1,
                              RECORDING_CPU, SAMPLE_RUNNING };
        if (!recording_add(m->recording, &e))
            return 1;
        model_stack_add(m, (stack_id){ stacks[i] }, 1);
        model_trace_add_samples(m, traces[i], 1);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/timeline.html", argv[1]);
    if (tls_write(m, &flame_html_format, rounds, path))
        return 1;
    snprintf(path, sizeof path, "%s/timeline.hprof", argv[1]);
    if (tls_write(m, &hprof_bin_format, rounds, path))
        return 1;
    /* the same page without the times: what the timeline adds */
    recording *r = m->recording;
    m->recording = NULL;
    snprintf(path, sizeof path, "%s/no-timeline.html", argv[1]);
    printf("without the timeline: ");
    if (tls_write(m, &flame_html_format, rounds, path))
        return 1;
    m->recording = r;
    model_free(m);
    return 0;
}
