/* heap_histogram.h — a class histogram (instances and shallow bytes per class)
 * of an HPROF binary heap dump, ours or HotSpot's (jcmd GC.heap_dump).
 *
 * Shallow bytes, one definition used everywhere:
 *   instance        16 (object header) + the field bytes as dumped, rounded up to 8
 *   array           20 (header + 4-byte length) + elements as dumped (object
 *                   elements at the file's id size), rounded up to 8
 * The dump does not say whether the JVM compressed its pointers, so these are
 * the sizes of an uncompressed 64-bit layout, not the JVM's exact numbers. */
#ifndef JP_HEAP_HISTOGRAM_H
#define JP_HEAP_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof_read.h" /* heap_shallow: the shallow-size rule the histogram uses */


typedef struct heap_class_row {
    char *name; /* Java style: java.lang.String, int[], java.lang.Object[][] */
    uint64_t instances, bytes;
} heap_class_row;

typedef struct heap_histogram {
    char version[8]; /* "1.0.1" or "1.0.2" */
    unsigned idsize; /* 4 or 8 */
    uint64_t instances, bytes;
    uint64_t class_dumps, gc_roots;
    size_t nrows; /* classes with at least one instance */
    heap_class_row *rows; /* sorted: bytes, then instances descending, then name */
} heap_histogram;

/* Walks the HPROF file in data[0..len) (a memory map is fine: it is read once,
 * front to back, and nothing of it is kept). Returns false with a one-line
 * reason naming the record and its byte offset in errbuf; h is then empty. */
bool heap_histogram_read(const void *data, size_t len, heap_histogram *h, char *errbuf, size_t errlen);
void heap_histogram_free(heap_histogram *h);

#endif
