/* test_sink.c — the output sinks (src/format/sink.c): a file appears under its
 * final name only on commit, abort leaves nothing, and injected faults (a
 * full disk or an I/O error after N bytes, short writes) never leave a
 * partial file under the final name nor a temporary file behind. Works in a
 * fresh directory under /tmp, removed at the end. */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/out_file.h"
#include "format/sink.h"

static char dir[64];
static char errbuf[512];

static void path_in_dir(char *out, size_t len, const char *name) { snprintf(out, len, "%s/%s", dir, name); }

/* The temporary this process made for path ("<path>.jvmprof-<pid>-<hex>.tmp"),
 * found in the test directory; "" when there is none. */
static void tmp_name(char *out, size_t len, const char *path)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.jvmprof-%ld-", base, (long)getpid());
    snprintf(out, len, "%s/<none>", dir);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n > 4 && strcmp(e->d_name + n - 4, ".tmp") == 0)
            snprintf(out, len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Number of entries in the test directory (to catch stray temp files). */
static int dir_entries(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void empty_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
}

static bool one_line(const char *s) { return s[0] != '\0' && strchr(s, '\n') == NULL; }

/* A deterministic payload of n bytes: more than one sink buffer (256 KiB)
 * when n is large, so flushes happen during the writes. */
static unsigned char *payload(size_t n)
{
    unsigned char *p = malloc(n ? n : 1);
    for (size_t i = 0; p && i < n; i++)
        p[i] = (unsigned char)((i * 131u + (i >> 9)) & 0xff);
    return p;
}

/* Writes data through every entry point of the sink, in uneven pieces. */
static void write_pieces(sink *s, const unsigned char *data, size_t n)
{
    size_t off = 0, piece = 1;
    while (off < n) {
        size_t k = n - off < piece ? n - off : piece;
        sink_write(s, data + off, k);
        off += k;
        piece = piece * 3 + 1;
        if (piece > 100000)
            piece = 5;
    }
}

static bool file_equals(const char *path, const void *data, size_t n)
{
    size_t len = 0;
    char *got = th_read_file(path, &len);
    bool ok = got && CHECK_EQ_MEM(got, len, data, n);
    free(got);
    return ok;
}

static void test_commit_publishes(void)
{
    char path[256], tmp[300];
    path_in_dir(path, sizeof path, "out.txt");
    tmp_name(tmp, sizeof tmp, path);
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_printf(s, "JAVA PROFILE %d.%d.%d\n", 1, 0, 1);
    sink_u1(s, 0x01);
    sink_u2(s, 0x0203);
    sink_u4(s, 0x04050607u);
    sink_u8(s, 0x08090a0b0c0d0e0fULL);
    CHECK_EQ_INT(sink_status(s), JP_OK);
    CHECK_EQ_INT(sink_bytes(s), 19 + 15);
    /* before commit only the temporary name exists */
    tmp_name(tmp, sizeof tmp, path);
    CHECK(exists(tmp));
    CHECK(!exists(path));
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    CHECK(!exists(tmp));
    static const unsigned char want[] = "JAVA PROFILE 1.0.1\n\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"
                                        "\x0e\x0f";
    file_equals(path, want, sizeof want - 1);
    CHECK_EQ_INT(dir_entries(), 1);

    /* committing again over an existing file replaces it */
    s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_write(s, "new", 3);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    file_equals(path, "new", 3);

    /* an empty file is still a file */
    s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    file_equals(path, "", 0);
    CHECK_EQ_INT(dir_entries(), 1);
    empty_dir();
}

static void test_big_output(void)
{
    char path[256];
    path_in_dir(path, sizeof path, "big.hprof");
    size_t n = 3 * 256 * 1024 + 12345;
    unsigned char *data = payload(n);
    ASSERT(data != NULL);
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    write_pieces(s, data, n);
    /* a printf longer than sink_printf's stack buffer */
    char *line = malloc(5001);
    ASSERT(line != NULL);
    memset(line, 'z', 5000);
    line[5000] = '\0';
    sink_printf(s, "%s!", line);
    CHECK_EQ_INT(sink_bytes(s), n + 5001);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    size_t len = 0;
    unsigned char *got = th_read_file(path, &len);
    ASSERT(got != NULL);
    CHECK_EQ_INT(len, n + 5001);
    CHECK_EQ_MEM(got, n, data, n);
    CHECK(len == n + 5001 && got[n] == 'z' && got[n + 4999] == 'z' && got[n + 5000] == '!');
    free(got);
    free(line);
    free(data);
    empty_dir();
}

static void test_abort(void)
{
    char path[256], tmp[300];
    path_in_dir(path, sizeof path, "aborted.txt");
    tmp_name(tmp, sizeof tmp, path);
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    unsigned char *data = payload(600000);
    ASSERT(data != NULL);
    write_pieces(s, data, 600000); /* some of it already flushed to the temp file */
    tmp_name(tmp, sizeof tmp, path);
    CHECK(exists(tmp));
    sink_abort(s);
    CHECK(!exists(tmp));
    CHECK(!exists(path));
    CHECK_EQ_INT(dir_entries(), 0);

    /* abort leaves an existing final file alone */
    CHECK(th_write_file(path, "keep me", 7));
    s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    write_pieces(s, data, 600000);
    sink_abort(s);
    file_equals(path, "keep me", 7);
    CHECK_EQ_INT(dir_entries(), 1);
    free(data);
    empty_dir();
}

/* Fails after `after` bytes with errno err while writing n bytes, with or
 * without short writes; the commit must fail with `want`, leaving no file
 * under the final name (or the old one untouched) and no temp file. */
static void fault_case(size_t n, uint64_t after, int err, int short_writes, jp_status want, bool old_file)
{
    char path[256], tmp[300];
    path_in_dir(path, sizeof path, "faulty.hprof");
    tmp_name(tmp, sizeof tmp, path);
    if (old_file)
        CHECK(th_write_file(path, "previous run", 12));
    unsigned char *data = payload(n);
    ASSERT(data != NULL);
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_inject_fault(s, after, err, short_writes);
    write_pieces(s, data, n);
    if (after + 256 * 1024 <= n) /* a flush has hit the fault already: the error is sticky */
        CHECK_EQ_INT(sink_status(s), want);
    struct stat st;
    if (exists(tmp) && stat(tmp, &st) == 0) /* never more than `after` bytes reached the file */
        CHECK((uint64_t)st.st_size <= after);
    errbuf[0] = '\0';
    jp_status got = sink_commit(s, errbuf, sizeof errbuf);
    if (!CHECK_EQ_INT(got, want))
        fprintf(stderr, "    n=%zu after=%llu errno=%d short=%d\n", n, (unsigned long long)after, err, short_writes);
    CHECK(!exists(tmp));
    if (want == JP_OK) {
        file_equals(path, data, n);
    } else {
        CHECK(one_line(errbuf));
        CHECK(strstr(errbuf, path) != NULL);
        CHECK(strstr(errbuf, strerror(err)) != NULL);
        if (old_file)
            file_equals(path, "previous run", 12);
        else
            CHECK(!exists(path));
    }
    CHECK_EQ_INT(dir_entries(), old_file || want == JP_OK ? 1 : 0);
    free(data);
    empty_dir();
}

static void test_faults(void)
{
    size_t n = 700000; /* between two and three sink buffers */
    static const uint64_t afters[] = { 0, 1, 7, 100, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 600000, 699999 };
    for (size_t i = 0; i < sizeof afters / sizeof afters[0]; i++) {
        fault_case(n, afters[i], ENOSPC, 0, JP_ERR_NOSPC, false);
        fault_case(n, afters[i], EIO, 0, JP_ERR_IO, false);
    }
    fault_case(n, 1000, EDQUOT, 0, JP_ERR_NOSPC, false);
    fault_case(n, 1000, ENOSPC, 1, JP_ERR_NOSPC, false);
    fault_case(n, 300000, EIO, 1, JP_ERR_IO, false);
    /* an existing final file stays untouched when the new one cannot be written */
    fault_case(n, 0, ENOSPC, 0, JP_ERR_NOSPC, true);
    fault_case(n, 300000, ENOSPC, 0, JP_ERR_NOSPC, true);
    fault_case(n, 300000, EIO, 1, JP_ERR_IO, true);
    /* a fault beyond the end never fires */
    fault_case(n, n, ENOSPC, 0, JP_OK, false);
    fault_case(n, n + 1, EIO, 0, JP_OK, true);
    fault_case(100, 100, ENOSPC, 1, JP_OK, false);
    /* a fault at the very last byte fires */
    fault_case(n, n - 1, ENOSPC, 1, JP_ERR_NOSPC, false);
}

/* Short writes alone: every write(2) takes at most 7 bytes, the output must
 * still be complete and correct. */
static void test_short_writes(void)
{
    char path[256];
    path_in_dir(path, sizeof path, "short.txt");
    size_t n = 300000;
    unsigned char *data = payload(n);
    ASSERT(data != NULL);
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_inject_fault(s, 0, 0, 1);
    write_pieces(s, data, n);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    file_equals(path, data, n);
    free(data);
    empty_dir();
}

static void test_sticky_error(void)
{
    char path[256];
    path_in_dir(path, sizeof path, "sticky.txt");
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_inject_fault(s, 10, EIO, 0);
    unsigned char *data = payload(256 * 1024);
    ASSERT(data != NULL);
    sink_write(s, data, 256 * 1024); /* fills the buffer: flush fails after 10 bytes */
    CHECK_EQ_INT(sink_status(s), JP_ERR_IO);
    uint64_t bytes = sink_bytes(s);
    sink_write(s, "more", 4); /* dropped */
    sink_printf(s, "%d", 5);
    sink_u8(s, 1);
    CHECK_EQ_INT(sink_bytes(s), bytes);
    CHECK_EQ_INT(sink_status(s), JP_ERR_IO);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_ERR_IO);
    CHECK(!exists(path));
    CHECK_EQ_INT(dir_entries(), 0);
    free(data);
}

static void test_unwritable(void)
{
    char path[256], file[256];
    /* a directory that does not exist */
    path_in_dir(path, sizeof path, "no/such/dir/out.txt");
    errbuf[0] = '\0';
    CHECK(sink_open_file(path, 0, errbuf, sizeof errbuf) == NULL);
    CHECK(one_line(errbuf));
    CHECK(strstr(errbuf, "no/such/dir/out.txt") != NULL);
    CHECK(strstr(errbuf, "no/such/dir does not exist") != NULL);
    errbuf[0] = '\0';
    CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_ERR_IO);
    CHECK(one_line(errbuf));

    /* a "directory" that is a regular file */
    path_in_dir(file, sizeof file, "plain");
    CHECK(th_write_file(file, "x", 1));
    path_in_dir(path, sizeof path, "plain/out.txt");
    errbuf[0] = '\0';
    CHECK(sink_open_file(path, 0, errbuf, sizeof errbuf) == NULL);
    CHECK(one_line(errbuf));
    CHECK(strstr(errbuf, "not a directory") != NULL);
    CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_ERR_IO);

    /* the final name is a directory: refused at once, by open and by the check */
    path_in_dir(path, sizeof path, "adir");
    CHECK(mkdir(path, 0755) == 0);
    errbuf[0] = '\0';
    CHECK(sink_open_file(path, 0, errbuf, sizeof errbuf) == NULL);
    CHECK(one_line(errbuf));
    CHECK(strstr(errbuf, "adir: is a directory") != NULL);
    CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_ERR_IO);
    CHECK(strstr(errbuf, "is a directory") != NULL);
    /* ... and so is a name ending in '/' */
    strcat(path, "/");
    CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_ERR_IO);
    CHECK(strstr(errbuf, "ends in '/'") != NULL);
    CHECK_EQ_INT(dir_entries(), 2);
    path[strlen(path) - 1] = '\0';
    rmdir(path);

    /* a directory where only root may write: skipped when we are root */
    if (geteuid() != 0) {
        char ro[200];
        path_in_dir(ro, sizeof ro, "ro");
        CHECK(mkdir(ro, 0555) == 0);
        snprintf(path, sizeof path, "%s/out.txt", ro);
        CHECK(sink_open_file(path, 0, errbuf, sizeof errbuf) == NULL);
        CHECK(one_line(errbuf));
        CHECK(strstr(errbuf, strerror(EACCES)) != NULL);
        CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_ERR_IO);
        rmdir(ro);
    }
    empty_dir();
}

static void test_check_writable(void)
{
    char path[256];
    path_in_dir(path, sizeof path, "probe.txt");
    CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_OK);
    CHECK_EQ_INT(dir_entries(), 0); /* leaves nothing behind */
    /* an existing file is not touched by the check */
    CHECK(th_write_file(path, "old", 3));
    CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_OK);
    file_equals(path, "old", 3);
    CHECK_EQ_INT(dir_entries(), 1);
    empty_dir();
}


static mode_t mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_mode & 07777 : 0;
}

/* New files are 0644, or 0600 with SINK_PRIVATE, whatever the umask allows;
 * a file replaced keeps its own mode. */
static void test_modes(void)
{
    mode_t old = umask(022);
    char path[256];
    path_in_dir(path, sizeof path, "public.txt");
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    CHECK_EQ_INT(mode_of(path), 0644);
    path_in_dir(path, sizeof path, "private.hprof");
    s = sink_open_file(path, SINK_PRIVATE, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    CHECK_EQ_INT(mode_of(path), 0600);
    /* replacing: a 0600 report stays 0600, a 0640 dump stays 0640 */
    path_in_dir(path, sizeof path, "mine.txt");
    CHECK(th_write_file(path, "old", 3));
    CHECK(chmod(path, 0600) == 0);
    s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_write(s, "new", 3);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    file_equals(path, "new", 3);
    CHECK_EQ_INT(mode_of(path), 0600);
    CHECK(chmod(path, 0640) == 0);
    s = sink_open_file(path, SINK_PRIVATE, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    CHECK_EQ_INT(mode_of(path), 0640);
    umask(old);
    empty_dir();
}

/* A symbolic link is written through, never replaced; one to nothing is refused. */
static void test_symlink_target(void)
{
    char path[256], target[256];
    path_in_dir(target, sizeof target, "target.txt");
    path_in_dir(path, sizeof path, "link.txt");
    CHECK(th_write_file(target, "old contents, longer", 20));
    CHECK(symlink("target.txt", path) == 0);
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_write(s, "new", 3);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    file_equals(target, "new", 3);
    CHECK_EQ_INT(dir_entries(), 2);
    unlink(target);
    errbuf[0] = '\0';
    CHECK(sink_open_file(path, 0, errbuf, sizeof errbuf) == NULL);
    CHECK(one_line(errbuf));
    CHECK(strstr(errbuf, "symbolic link") != NULL);
    struct stat gone;
    CHECK(stat(target, &gone) != 0); /* the dangling link did not create its target */
    empty_dir();
}

/* A FIFO is written into: refused at once without a reader (no hang), and
 * with one the reader gets the bytes; the FIFO stays a FIFO. A character
 * device (a private copy of /dev/null, when we may make one) stays a device. */
static void test_fifo_and_device(void)
{
    char path[256];
    path_in_dir(path, sizeof path, "pipe");
    CHECK(mkfifo(path, 0600) == 0);
    CHECK_EQ_INT(sink_check_writable(path, errbuf, sizeof errbuf), JP_OK);
    errbuf[0] = '\0';
    CHECK(sink_open_file(path, 0, errbuf, sizeof errbuf) == NULL);
    CHECK(strstr(errbuf, "no process is reading") != NULL);
    int rfd = open(path, O_RDONLY | O_NONBLOCK);
    ASSERT(rfd >= 0);
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    sink_write(s, "through the pipe", 16);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    char got[32] = { 0 };
    CHECK_EQ_INT(read(rfd, got, sizeof got), 16);
    CHECK(memcmp(got, "through the pipe", 16) == 0);
    close(rfd);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
    CHECK_EQ_INT(dir_entries(), 1);
    if (geteuid() == 0) {
        path_in_dir(path, sizeof path, "null");
        CHECK(mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0);
        s = sink_open_file(path, SINK_PRIVATE, errbuf, sizeof errbuf);
        ASSERT(s != NULL);
        sink_write(s, "gone", 4);
        CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
        CHECK(lstat(path, &st) == 0 && S_ISCHR(st.st_mode));
        path_in_dir(path, sizeof path, "full");
        CHECK(mknod(path, S_IFCHR | 0666, makedev(1, 7)) == 0);
        s = sink_open_file(path, 0, errbuf, sizeof errbuf);
        ASSERT(s != NULL);
        sink_write(s, "no room", 7);
        CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_ERR_NOSPC);
        CHECK(lstat(path, &st) == 0 && S_ISCHR(st.st_mode));
        CHECK_EQ_INT(dir_entries(), 3);
    }
    empty_dir();
}

/* The temporary of a process that is gone is removed by the next write to the
 * same path; a live process's, another path's and other names stay. */
static void test_stale_temporaries(void)
{
    pid_t child = fork();
    ASSERT(child >= 0);
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0); /* now a pid with no process */
    char path[256], dead[400], live[400], other[400], odd[400];
    path_in_dir(path, sizeof path, "dump.hprof");
    snprintf(dead, sizeof dead, "%s.jvmprof-%ld-0123456789abcdef.tmp.hprof", path, (long)child);
    snprintf(live, sizeof live, "%s.jvmprof-%ld-0123456789abcdef.tmp", path, (long)getppid());
    snprintf(other, sizeof other, "%s/x%s", dir, strrchr(dead, '/') + 1);
    snprintf(odd, sizeof odd, "%s.jvmprof-%ld-0123456789abcdef.tmp.keep", path, (long)child);
    CHECK(th_write_file(dead, "x", 1));
    CHECK(th_write_file(live, "x", 1));
    CHECK(th_write_file(other, "x", 1));
    CHECK(th_write_file(odd, "x", 1));
    sink *s = sink_open_file(path, 0, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    CHECK(!exists(dead));
    CHECK(exists(live) && exists(other) && exists(odd) && exists(path));
    CHECK_EQ_INT(dir_entries(), 4);
    empty_dir();
}

/* sink_open_temp: commit leaves the file complete under the temporary name it gave. */
static void test_open_temp(void)
{
    char path[256], tmp[OUT_FILE_NAME_MAX];
    path_in_dir(path, sizeof path, "bin.hprof");
    sink *s = sink_open_temp(path, SINK_PRIVATE, tmp, sizeof tmp, errbuf, sizeof errbuf);
    ASSERT(s != NULL);
    CHECK(strncmp(tmp, path, strlen(path)) == 0 && strstr(tmp, ".jvmprof-") != NULL);
    sink_write(s, "abc", 3);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    file_equals(tmp, "abc", 3);
    CHECK(!exists(path));
    CHECK_EQ_INT(mode_of(tmp), 0600);
    empty_dir();
}

static void test_memory_sink(void)
{
    buf out;
    buf_init(&out);
    buf_put(&out, "pre:", 4); /* appends to what the buffer holds */
    sink *s = sink_open_memory(&out);
    ASSERT(s != NULL);
    sink_printf(s, "%s %u|", "abc", 7u);
    sink_u1(s, 0xAB);
    sink_u2(s, 0xCDEF);
    sink_u4(s, 0x01020304u);
    sink_u8(s, 0x1122334455667788ULL);
    sink_write(s, "", 0);
    CHECK_EQ_INT(sink_bytes(s), 6 + 15);
    CHECK_EQ_INT(sink_status(s), JP_OK);
    CHECK_EQ_INT(sink_commit(s, errbuf, sizeof errbuf), JP_OK);
    static const unsigned char want[] = "pre:abc 7|\xAB\xCD\xEF\x01\x02\x03\x04\x11\x22\x33\x44\x55\x66\x77\x88";
    CHECK_EQ_MEM(out.data, out.len, want, sizeof want - 1);
    buf_free(&out);

    buf_init(&out);
    s = sink_open_memory(&out);
    ASSERT(s != NULL);
    sink_write(s, "gone?", 5);
    sink_abort(s); /* the caller owns the buffer: it keeps what was written */
    CHECK_EQ_MEM(out.data, out.len, "gone?", 5);
    buf_free(&out);
}

int main(void)
{
    strcpy(dir, "/tmp/jvmprof-test-sink-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_commit_publishes);
    RUN(test_big_output);
    RUN(test_abort);
    RUN(test_faults);
    RUN(test_short_writes);
    RUN(test_sticky_error);
    RUN(test_unwritable);
    RUN(test_check_writable);
    RUN(test_modes);
    RUN(test_symlink_target);
    RUN(test_fifo_and_device);
    RUN(test_stale_temporaries);
    RUN(test_open_temp);
    RUN(test_memory_sink);
    empty_dir();
    if (rmdir(dir) != 0)
        fprintf(stderr, "warning: cannot remove %s: %s\n", dir, strerror(errno));
    return DONE();
}
