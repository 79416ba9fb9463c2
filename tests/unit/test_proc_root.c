/* test_proc_root.c — paths resolved inside another root (src/cli/proc_root.c,
 * compiled in here: the CLI's modules are not among the pure ones the unit
 * tests link). A directory under /tmp stands for a container's root, with an
 * absolute link "tmp" -> "/data" and a link "up" -> "../../..": resolved with
 * openat2 they stay inside it; the fallback walk refuses them. */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/proc_root.c"

static char dir[64];
static int root = -1;

static bool same_file(int fd, const char *path)
{
    struct stat a, b;
    return fd >= 0 && fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void test_in_root(void)
{
    char data[128], file[128];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(file, sizeof file, "%s/data/f", dir);
    int fd = proc_root_openat(root, "/tmp", O_PATH | O_DIRECTORY, 0);
    CHECK(same_file(fd, data)); /* the container's /data, not ours */
    if (fd >= 0)
        close(fd);
    fd = proc_root_openat(root, "up/data/f", O_RDONLY, 0);
    CHECK(same_file(fd, file)); /* ".." at the root stays at the root */
    if (fd >= 0)
        close(fd);
    fd = proc_root_openat(root, "tmp/f", O_RDONLY | O_NOFOLLOW, 0);
    CHECK(same_file(fd, file));
    if (fd >= 0)
        close(fd);
    fd = proc_root_openat(root, "data/link", O_RDONLY | O_NOFOLLOW, 0);
    CHECK(fd < 0 && errno == ELOOP); /* the last component, not followed */
    if (fd >= 0)
        close(fd);
}

static void test_walk(void)
{
    char file[128];
    snprintf(file, sizeof file, "%s/data/f", dir);
    int fd = proc_root_walk(root, "/data//f", O_RDONLY, 0);
    CHECK(same_file(fd, file));
    if (fd >= 0)
        close(fd);
    fd = proc_root_walk(root, "/tmp", O_PATH | O_DIRECTORY, 0);
    CHECK(fd < 0 && errno == ELOOP); /* the last component too: "/data" would be resolved from our root */
    fd = proc_root_walk(root, "tmp/f", O_RDONLY, 0);
    CHECK(fd < 0 && errno == ELOOP); /* a link on the way is refused, never followed */
    fd = proc_root_walk(root, "up/data/f", O_RDONLY, 0);
    CHECK(fd < 0 && errno == ELOOP);
    fd = proc_root_walk(root, "data/../data/f", O_RDONLY, 0);
    CHECK(fd < 0 && errno == EINVAL);
    fd = proc_root_walk(root, "data/link", O_RDONLY | O_NOFOLLOW, 0);
    CHECK(fd < 0 && errno == ELOOP);
    fd = proc_root_walk(root, "data/new", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    char made[128];
    snprintf(made, sizeof made, "%s/data/new", dir);
    CHECK(access(made, F_OK) == 0);
    unlink(made);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_proc_root.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    char p[128];
    snprintf(p, sizeof p, "%s/data", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/data/f", dir);
    close(open(p, O_WRONLY | O_CREAT, 0600));
    snprintf(p, sizeof p, "%s/data/link", dir);
    CHECK(symlink("/etc/passwd", p) == 0);
    snprintf(p, sizeof p, "%s/tmp", dir);
    CHECK(symlink("/data", p) == 0);
    snprintf(p, sizeof p, "%s/up", dir);
    CHECK(symlink("../../..", p) == 0);
    root = open(dir, O_PATH | O_DIRECTORY);
    RUN(test_in_root);
    RUN(test_walk);
    close(root);
    const char *names[] = { "data/link", "data/f", "data", "tmp", "up" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (remove(p) != 0)
            fprintf(stderr, "warning: cannot remove %s\n", p);
    }
    rmdir(dir);
    return DONE();
}
