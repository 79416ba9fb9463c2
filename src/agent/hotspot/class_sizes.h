/* class_sizes.h — the instance size of a class: what `new` allocates for
 * one of its objects, read from HotSpot's own class data (its Klass's layout
 * helper, found through vmstructs), so that no instance is needed; and a
 * cache of sizes by class signature for the agent thread, filled from the
 * loaded classes when a class is known only by name. */
#ifndef CLASS_SIZES_H
#define CLASS_SIZES_H

#include <jni.h>
#include <stdbool.h>

/* Once, on a Java thread, before any other call: the offsets, and the small
 * array whose critical section holds the collector off during a read. False
 * when HotSpot does not describe them (sizes are then unknown). */
bool class_sizes_init(JNIEnv *jni);
/* The instance size in bytes of class c (a local or global reference), or -1
 * (an array class, an interface, or not known). Any Java thread. */
long class_sizes_of(JNIEnv *jni, jclass c);

/* Agent thread: the size of the class with JVM signature sig ("Lpkg/Name;"),
 * -1 not known; -2 when not asked before: class_sizes_resolve finds it. */
long class_sizes_by_name(const char *sig);
/* Agent thread: the sizes asked for by name and not known yet, found among
 * the loaded classes (one GetLoadedClasses); a name not loaded stays -1. */
void class_sizes_resolve(JNIEnv *jni);

#endif
