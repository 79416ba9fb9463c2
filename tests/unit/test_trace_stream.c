/* test_trace_stream.c — the hand-over of trace events to a file
 * (src/trace/trace_stream.c): four threads emitting at once while a writer
 * writes, every event back in each thread's order, with the metadata before
 * it; a size limit; a full disk (/dev/full); and a process killed with -9
 * in the middle, whose file reads to its last complete chunk. */
#include "../../src/trace/trace_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

enum { THREADS = 4, EVENTS = 100000 };

static char path[64];

static int open_temp(void)
{
    snprintf(path, sizeof path, "/tmp/test_trace_stream.%d", (int)getpid());
    return open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
}

/* The file mapped; *len its size. */
static uint8_t *map_file(size_t *len)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    *len = (size_t)st.st_size;
    void *p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* The file written, mapped, checked against the stream's count of bytes, and a reader on it. */
static uint8_t *open_written(const trace_stream_stats *st, size_t *len, trace_reader *r)
{
    uint8_t *data = map_file(len);
    if (!CHECK(data != NULL))
        return NULL;
    CHECK_EQ_INT(*len, st->bytes);
    if (!CHECK(trace_reader_open(r, data, *len) == JP_OK)) {
        munmap(data, *len);
        return NULL;
    }
    return data;
}

typedef struct producer_arg {
    trace_stream *s;
    uint32_t thread;
} producer_arg;

static atomic_int producers_left;

static void *producer(void *v)
{
    producer_arg *a = v;
    char name[16];
    int n = snprintf(name, sizeof name, "worker-%u", a->thread);
    trace_stream_meta(a->s, TRACE_EV_STRING, (uint64_t[]){ 100 + a->thread }, name, (size_t)n);
    trace_stream_meta(a->s, TRACE_EV_THREAD, (uint64_t[]){ a->thread, 100 + a->thread, 0, 5, 0 }, NULL, 0);
    trace_producer p;
    trace_producer_init(&p, a->s, a->thread);
    for (uint64_t i = 0; i < EVENTS; i++)
        trace_emit(&p, TRACE_EV_ALLOC, 1000 * i + a->thread, (uint64_t[]){ i, i % 50, a->thread, 0 }, NULL, 0);
    trace_producer_flush(&p);
    atomic_fetch_sub(&producers_left, 1);
    return NULL;
}

static void test_threads(void)
{
    int fd = open_temp();
    ASSERT(fd >= 0);
    trace_stream *s = trace_stream_open(fd, 0, 42, 4096);
    ASSERT(s != NULL);
    pthread_t t[THREADS];
    producer_arg args[THREADS];
    atomic_store(&producers_left, THREADS);
    for (uint32_t i = 0; i < THREADS; i++) {
        args[i] = (producer_arg){ s, i + 1 };
        ASSERT(pthread_create(&t[i], NULL, producer, &args[i]) == 0);
    }
    while (atomic_load(&producers_left) > 0) /* the writer, while they run */
        trace_stream_write(s);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    trace_stream_stats st;
    trace_stream_close(s, &st);
    close(fd);
    CHECK_EQ_INT(st.events, THREADS * EVENTS + 2 * THREADS);
    CHECK_EQ_INT(st.dropped_events, 0);
    CHECK(!st.full && st.write_errno == 0);

    size_t len = 0;
    trace_reader r;
    uint8_t *data = open_written(&st, &len, &r);
    ASSERT(data != NULL);
    CHECK_EQ_INT(r.start_wall_ns, 42);
    uint64_t next[THREADS + 1] = { 0 };
    bool named[THREADS + 1] = { false };
    uint64_t bad_order = 0, unnamed = 0, n = 0;
    trace_event e;
    while (trace_reader_next(&r, &e)) {
        n++;
        if (e.type == TRACE_EV_THREAD && e.f[0] >= 1 && e.f[0] <= THREADS)
            named[e.f[0]] = true;
        if (e.type != TRACE_EV_ALLOC)
            continue;
        if (e.thread < 1 || e.thread > THREADS || e.f[2] != e.thread) {
            bad_order++;
            continue;
        }
        if (!named[e.thread])
            unnamed++;
        if (e.f[0] != next[e.thread] || e.time_ns != 1000 * e.f[0] + e.thread || e.f[1] != e.f[0] % 50)
            bad_order++;
        next[e.thread] = e.f[0] + 1;
    }
    CHECK(!r.stopped);
    CHECK_EQ_INT(n, THREADS * EVENTS + 2 * THREADS);
    CHECK_EQ_INT(bad_order, 0);
    CHECK_EQ_INT(unnamed, 0); /* each thread's metadata came before its events */
    for (int i = 1; i <= THREADS; i++)
        CHECK_EQ_INT(next[i], EVENTS);
    munmap(data, len);
    unlink(path);
}

static void test_limit(void)
{
    int fd = open_temp();
    ASSERT(fd >= 0);
    trace_stream *s = trace_stream_open(fd, 10000, 0, 1024);
    ASSERT(s != NULL);
    trace_producer p;
    trace_producer_init(&p, s, 9);
    uint64_t taken = 0;
    for (uint64_t i = 0; i < 20000; i++) {
        taken += trace_emit(&p, TRACE_EV_ENTER_AT, i, (uint64_t[]){ 7, 1 }, NULL, 0);
        if (i % 500 == 0)
            trace_stream_write(s);
    }
    trace_producer_flush(&p);
    trace_stream_stats st;
    trace_stream_close(s, &st);
    close(fd);
    CHECK(st.full);
    CHECK(st.bytes <= 10000 && st.bytes > 10000 - 1024);
    CHECK_EQ_INT(st.events + st.dropped_events, 20000);
    CHECK(taken < 20000 && taken >= st.events);
    size_t len = 0;
    trace_reader r;
    uint8_t *data = open_written(&st, &len, &r);
    ASSERT(data != NULL);
    trace_event e;
    uint64_t n = 0;
    while (trace_reader_next(&r, &e))
        CHECK(e.time_ns == n++);
    CHECK(!r.stopped); /* the limit falls between whole chunks */
    CHECK_EQ_INT(n, st.events);
    munmap(data, len);
    unlink(path);
}

static void test_full_disk(void)
{
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0) {
        CHECK(true);
        fprintf(stderr, "    no /dev/full here: skipped\n");
        return;
    }
    errno = 0;
    CHECK(trace_stream_open(fd, 0, 0, 4096) == NULL);
    CHECK_EQ_INT(errno, ENOSPC);
    close(fd);
    /* a disk that fills after the header: the stream stops taking and says why */
    int pipefd[2];
    ASSERT(pipe(pipefd) == 0);
    trace_stream *s = trace_stream_open(pipefd[1], 0, 0, 512);
    ASSERT(s != NULL);
    close(pipefd[0]); /* the reader goes away: writes fail with EPIPE */
    signal(SIGPIPE, SIG_IGN);
    trace_producer p;
    trace_producer_init(&p, s, 1);
    for (uint64_t i = 0; i < 1000; i++)
        trace_emit(&p, TRACE_EV_ENTER_AT, i, (uint64_t[]){ 1, 1 }, NULL, 0);
    trace_producer_flush(&p);
    trace_stream_write(s);
    CHECK(!trace_stream_taking(s));
    CHECK(!trace_emit(&p, TRACE_EV_EXIT, 5000, NULL, NULL, 0));
    trace_stream_stats st;
    trace_stream_close(s, &st);
    close(pipefd[1]);
    CHECK_EQ_INT(st.write_errno, EPIPE);
    CHECK_EQ_INT(st.events, 0);
    CHECK_EQ_INT(st.dropped_events, 1001);
}

/* A child writes events as fast as it can; killed with -9, it leaves a file
 * whose complete chunks hold events 0, 1, 2 ... in order. */
static void test_killed(void)
{
    int fd = open_temp();
    ASSERT(fd >= 0);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        trace_stream *s = trace_stream_open(fd, 0, 0, 8192);
        if (!s)
            _exit(2);
        trace_producer p;
        trace_producer_init(&p, s, 3);
        for (uint64_t i = 0;; i++) {
            trace_emit(&p, TRACE_EV_ENTER, i, (uint64_t[]){ i }, NULL, 0);
            if (i % 1000 == 0)
                trace_stream_write(s);
        }
    }
    usleep(100 * 1000);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    close(fd);
    size_t len = 0;
    uint8_t *data = map_file(&len);
    ASSERT(data != NULL);
    trace_reader r;
    ASSERT(trace_reader_open(&r, data, len) == JP_OK);
    trace_event e;
    uint64_t n = 0, wrong = 0;
    while (trace_reader_next(&r, &e))
        wrong += e.f[0] != n++ || e.time_ns != e.f[0];
    CHECK(n > 1000);
    CHECK_EQ_INT(wrong, 0);
    if (r.stopped)
        CHECK(strstr(r.why, "stopped at offset") != NULL);
    fprintf(stderr, "    killed after %llu events in %llu chunks, %zu bytes%s%s\n", (unsigned long long)n,
            (unsigned long long)r.chunks, len, r.stopped ? "; " : "", r.stopped ? r.why : "");
    munmap(data, len);
    unlink(path);
}

int main(void)
{
    RUN(test_threads);
    RUN(test_limit);
    RUN(test_full_disk);
    RUN(test_killed);
    return DONE();
}
