/* fd_write.h — all of a buffer written to a file descriptor, across short
 * writes and EINTR; to a socket with MSG_NOSIGNAL, so that a peer gone is
 * an error (EPIPE) and never a SIGPIPE in the process. */
#ifndef FD_WRITE_H
#define FD_WRITE_H

#include <stdbool.h>
#include <stddef.h>

/* false on an error (errno says which): part of the buffer may have been written. */
bool fd_write_all(int fd, const void *p, size_t n);
bool fd_send_all(int socket_fd, const void *p, size_t n);

#endif
