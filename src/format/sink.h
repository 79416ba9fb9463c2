/* sink.h — where writers put bytes: a file written under a temporary name and
 * renamed into place only when complete (sink_commit), or a memory buffer.
 * Errors are sticky: after the first failure writes are dropped and commit
 * returns the failure, removing the temporary file, so a full disk or a dead
 * path never leaves a half-written file under the final name. A test hook
 * injects faults (fail after N bytes with a given errno, short writes). */
#ifndef SINK_H
#define SINK_H

#include <stddef.h>
#include <stdint.h>

#include "../common/buf.h"
#include "../common/jp_error.h"

typedef struct sink sink;

/* sink_open_file's flags: SINK_PRIVATE creates the file 0600 instead of 0644
 * (heap dumps: the program's data). A file replaced keeps its own mode. */
enum { SINK_PRIVATE = 1 };

/* Opens a file sink for path: a fresh temporary beside it (out_file.h), or
 * path itself when it is a device, a FIFO or a symbolic link. On failure
 * returns NULL and fills errbuf with a one-line reason about path. */
sink *sink_open_file(const char *path, unsigned flags, char *errbuf, size_t errlen);
/* The same, always to a temporary beside path, which sink_commit leaves in
 * place, complete, under the name put in tmp_name (the caller reads and
 * removes it). For an intermediate file, such as the binary dump an ASCII one
 * is made from. */
sink *sink_open_temp(const char *path, unsigned flags, char *tmp_name, size_t tmp_len, char *errbuf,
                     size_t errlen);
/* Appends to a caller-owned buffer. */
sink *sink_open_memory(buf *out);

void sink_write(sink *s, const void *p, size_t n);
void sink_printf(sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sink_u1(sink *s, uint8_t v);
void sink_u2(sink *s, uint16_t v);
void sink_u4(sink *s, uint32_t v);
void sink_u8(sink *s, uint64_t v);
/* Overwrites 4 bytes already written at byte offset `at` (big-endian), for
 * a length known only after its body was streamed (HEAP DUMP SEGMENT). */
void sink_patch_u4(sink *s, uint64_t at, uint32_t v);
jp_status sink_status(const sink *s);
uint64_t sink_bytes(const sink *s);

/* Flushes, closes and renames into place; frees the sink. On failure the
 * temporary file is removed, errbuf says why, and the final file is untouched. */
jp_status sink_commit(sink *s, char *errbuf, size_t errlen);
/* Drops everything written; frees the sink. */
void sink_abort(sink *s);

/* Test hook: after `after_bytes` bytes have reached the file, the next
 * write fails with errno `err` (0 = never). If `short_writes`, every write(2)
 * is cut to at most 7 bytes to exercise the short-write loop. */
void sink_inject_fault(sink *s, uint64_t after_bytes, int err, int short_writes);

/* Checks that path can be written: what is there may be written over or
 * into (out_file_check) and a temporary can be created beside it (created
 * and removed). Returns JP_OK or fills errbuf. */
jp_status sink_check_writable(const char *path, char *errbuf, size_t errlen);

#endif
