/* heap_dump_hotspot.h — heap=dump,dumper=hotspot: the dump is written by
 * HotSpot's own dumper (HotSpotDiagnosticMXBean.dumpHeap, what `jcmd
 * GC.heap_dump` runs: live objects, after a full GC), to a temporary name;
 * then hprof_heap_fixup nulls the references to the objects it left out
 * (class data sharing's archived objects); heap_dump.c then gives the file
 * its name.
 * With verbose=y a dump that takes more than a second prints the objects
 * written so far, once a second, read back from the file. */
#ifndef HEAP_DUMP_HOTSPOT_H
#define HEAP_DUMP_HOTSPOT_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/jp_error.h"
#include "../../options/options.h"

/* Writes the dump (o: dumper=, verbose=), checked and mended, to a fresh temporary beside `base`
 * ("<base>.jvmprof-<pid>-<random>.tmp.hprof", 0600: HotSpot creates it
 * exclusively) and puts its name in tmp; the caller gives it its final name
 * (`shown` names it in messages) and then logs the lines put in said. On failure errbuf holds one line and no
 * file is left; JP_ERR_JVMTI means this JVM has no HotSpot dumper (nothing
 * was tried). */
jp_status heap_dump_hotspot(JNIEnv *jni, const agent_options *o, const char *base, const char *shown, char *tmp,
                            size_t tmplen, char *said, size_t saidlen, char *errbuf, size_t errlen);

/* What a dump says once its file has its name and all its bytes (verbose=y:
 * "heap dump: wrote PATH ..."), not before: the caller logs it then (the
 * name may still fail, a device that refuses the bytes). heap_dump_said
 * appends one line to said (lines separated by '\n'). */
#define HEAP_DUMP_SAID_MAX 2048
void heap_dump_said(char *said, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Runtime.totalMemory() - freeMemory(): the heap in use, for progress lines
 * (0 when it cannot be read). */
uint64_t heap_dump_heap_in_use(JNIEnv *jni);

#endif
