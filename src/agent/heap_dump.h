/* heap_dump.h — heap=dump: writes the live heap as an HPROF binary heap dump
 * (format=b, for MAT and VisualVM) or HPROF's ASCII HEAP DUMP (format=a),
 * from JVMTI's FollowReferences walk. Nothing is enabled before a dump:
 * each dump takes a JVMTI environment of its own for the object tags and
 * disposes of it afterwards, so the program runs at full speed until then.
 * Dumps are serialized; any thread may ask for one. */
#ifndef HEAP_DUMP_H
#define HEAP_DUMP_H

#include <jni.h>
#include <stddef.h>

#include "../common/jp_error.h"

/* Writes a dump to `path`, or when path is NULL to file= with %n replaced by
 * the dump's sequence number (1, 2, ...; without %n the first dump is file=
 * itself and the later ones file=.N). On failure errbuf holds one line. */
jp_status heap_dump_write(JNIEnv *jni, const char *path, char *errbuf, size_t errlen);

#endif
