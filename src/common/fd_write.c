/* fd_write.c — see fd_write.h. */
#include "fd_write.h"

#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

static bool fdw_all(int fd, const uint8_t *p, size_t n, bool sock)
{
    while (n) {
        ssize_t k = sock ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

bool fd_write_all(int fd, const void *p, size_t n) { return fdw_all(fd, p, n, false); }

bool fd_send_all(int socket_fd, const void *p, size_t n) { return fdw_all(socket_fd, p, n, true); }
