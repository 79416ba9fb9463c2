/* heap_dump.h — heap=dump: writes the live heap as an HPROF binary heap dump
 * (format=b, for MAT and VisualVM) or HPROF's ASCII HEAP DUMP (format=a),
 * from JVMTI's FollowReferences walk (or, with dumper=hotspot, from HotSpot's
 * own dumper: heap_dump_hotspot.h). Nothing is enabled before a dump:
 * each dump takes a JVMTI environment of its own for the object tags and
 * disposes of it afterwards, so the program runs at full speed until then.
 * Dumps are serialized; any thread may ask for one. Dumps are written 0600
 * (they hold the program's data), through out_file.h's rules. */
#ifndef HEAP_DUMP_H
#define HEAP_DUMP_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../format/sink.h"
#include "../../options/options.h"

struct heap_dump_sites;

/* Writes a dump to `path` (Control.dumpHeap, jvmprof heapdump, a report's
 * file=), taken as o says (dumper=, verbose=; heap=dump with format=a: as
 * HPROF's ASCII HEAP DUMP, else binary). On failure errbuf holds one line.
 * sites (heap_dump_sites.h; NULL or not given: none): heap=sites' live
 * sampled objects, which then carry their allocation trace's serial, with
 * FRAME and TRACE records for those traces; the dump is then taken by
 * jvmprof's own walk unless dumper=hotspot was named (HotSpot's dumper
 * writes ids that are addresses, which no tag can be joined to), which
 * says in one line that its objects carry no trace. */
jp_status heap_dump_write(JNIEnv *jni, const agent_options *o, const char *path, const struct heap_dump_sites *sites,
                          char *errbuf, size_t errlen);
/* heap=all: the same, as HPROF's ASCII HEAP DUMP after `prefix` (the report)
 * in one file (the dump taken as a binary one in a temporary file, removed
 * after); prefix NULL: heap_dump_write. */
jp_status heap_dump_write_after(JNIEnv *jni, const agent_options *o, const char *path,
                                const struct heap_dump_sites *sites, const void *prefix, size_t prefix_len,
                                char *errbuf, size_t errlen);
/* The name of dump number seq (1, 2, ...) for file= f: %n replaced by seq;
 * without %n, f itself for the first dump and f.N (N = seq - 1) after. */
void heap_dump_name(const char *f, unsigned seq, char *out, size_t len);
/* A report's dump (heap=dump, heap=all): the name the next one gets in file=
 * f, numbered over the JVM's life (as above; it counts as that dump). */
void heap_dump_next_path(const char *f, char *out, size_t len);

#endif
