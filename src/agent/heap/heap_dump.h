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

/* Writes a dump to `path`, or when path is NULL to file= with %n replaced by
 * the dump's sequence number (1, 2, ...; without %n the first dump is file=
 * itself and the later ones file=.N). On failure errbuf holds one line. */
jp_status heap_dump_write(JNIEnv *jni, const char *path, char *errbuf, size_t errlen);
/* The name of dump number seq (1, 2, ...) for file= f: %n replaced by seq;
 * without %n, f itself for the first dump and f.N (N = seq - 1) after. */
void heap_dump_name(const char *f, unsigned seq, char *out, size_t len);
/* heap=all (format=a): the name the next dump would get (as above, and it
 * counts as that dump). */
void heap_dump_next_path(char *out, size_t len);
/* heap=all: writes to path `prefix` (the report), then a dump as HPROF's
 * ASCII HEAP DUMP (taken as a binary one in a temporary file, removed after). */
jp_status heap_dump_write_text_after(JNIEnv *jni, const char *path, const void *prefix, size_t prefix_len,
                                     char *errbuf, size_t errlen);

#endif
