/* tracker.h — the one bridge between the injected bytecode and the agent:
 * the jvmprof.Tracker class (java/jvmprof/Tracker.java) and its methods that
 * instrumented code calls (the rewriter's spec), and the table of the natives
 * behind them with the module that implements each (times.c: method entry
 * and exit; collect_alloc_exact.c: allocations). Agent_OnLoad hands both to bci.c,
 * which registers the natives when instrumentation starts; so bci.c depends
 * on none of the modules the natives belong to. */
#ifndef TRACKER_H
#define TRACKER_H

#include <jni.h>

#include "../../classfile/classfile.h"

extern const cf_tracker tracker_spec;
extern const JNINativeMethod tracker_natives[];
extern const int tracker_native_count;

#endif
