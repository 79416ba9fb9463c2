/* hprof_heap_fixup.h — makes an HPROF binary heap dump self-contained: every
 * reference to an object or class that the dump does not hold is set to null,
 * in place. HotSpot's own dumper (jcmd GC.heap_dump, HotSpotDiagnosticMXBean)
 * leaves out the objects class data sharing archived (about 800 on JDK 17)
 * but writes the references to them; readers then meet ids they cannot
 * resolve. heap=dump,dumper=hotspot runs this on HotSpot's file.
 *
 * Memory: the reader's strings and classes, and the set of defined ids as
 * whichever is smaller: one bit per possible id between the lowest and the
 * highest at their spacing (HotSpot's ids are addresses: 1/64 of the heap's
 * address range for 8-byte aligned objects), or a sorted array of 8 bytes
 * per object and class (jvmprof's dumper=jvmti dumps, whose ids are sparse
 * numbers up to 2^63). So at most min(range / spacing / 8, 8 x objects)
 * bytes, whatever ids the file holds. */
#ifndef HPROF_HEAP_FIXUP_H
#define HPROF_HEAP_FIXUP_H

#include <stddef.h>
#include <stdint.h>

#include "../common/jp_error.h"

typedef struct hprof_fixup_stats {
    uint64_t objects;      /* objects and classes the dump defines */
    uint64_t references;   /* non-null references checked: fields, statics, constant pool entries, array
                            * elements, super/loader/signers/domain, GC roots */
    uint64_t nulled;       /* ... of them set to null: they named nothing in the dump */
    uint64_t roots_nulled; /* ... GC roots among them */
} hprof_fixup_stats;

/* Nulls the dangling references of the dump data[0..len) in place (data
 * writable, e.g. a shared writable map of the file). Checks the whole file
 * (hprof_heap_scan.c) before it changes a byte: on a malformed input returns
 * JP_ERR_FORMAT with a one-line reason in errbuf and leaves data as it was.
 * JP_ERR_NOMEM when out of memory. */
jp_status hprof_heap_fixup(uint8_t *data, size_t len, hprof_fixup_stats *stats, char *errbuf, size_t errlen);

#endif
