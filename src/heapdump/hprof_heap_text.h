/* hprof_heap_text.h — converts an HPROF binary heap dump ("JAVA PROFILE
 * 1.0.1"/"1.0.2", 4- or 8-byte ids, HEAP DUMP or HEAP DUMP SEGMENTs; ours from
 * hprof_heap.c or HotSpot's from jcmd GC.heap_dump) to the old HPROF agent's
 * ASCII heap dump section: HEAP DUMP BEGIN, one ROOT/CLS/OBJ/ARR entry per
 * sub-record in file order, HEAP DUMP END. Used for heap=dump,format=a (the
 * agent dumps to a temporary binary file, then converts it) and by the CLI.
 *
 * Two passes over the input, both front to back: the first checks every
 * length and collects strings, class names and CLASS DUMP layouts (memory for
 * strings and classes only, never per object); the second writes the text.
 * Every INSTANCE DUMP is checked against its class layout in the first pass,
 * so a malformed input fails before anything is written. */
#ifndef HPROF_HEAP_TEXT_H
#define HPROF_HEAP_TEXT_H

#include <stddef.h>

#include "../common/jp_error.h"
#include "../format/sink.h"

/* Writes HPROF's ASCII heap dump of the binary dump data[0..len) to s (a
 * memory map is fine). On a malformed input returns JP_ERR_FORMAT with a
 * one-line reason (record name and byte offset) in errbuf, having written
 * nothing; never reads out of bounds. JP_ERR_NOMEM when out of memory; the
 * sink's status when writing failed. */
jp_status hprof_heap_text_write(const void *data, size_t len, sink *s, char *errbuf, size_t errlen);

#endif
