/* collect_alloc_sampled.h — heap=sites: allocation sites from JVMTI's allocation
 * sampling (SampledObjectAlloc, one allocation every alloc_interval bytes on
 * average), with each sampled object tagged so that its ObjectFree moves
 * its estimate from live to dead, and the count and time of garbage
 * collections. The callbacks run on the program's threads (allocation) and
 * in JVMTI's restricted modes (ObjectFree, GC start/finish: preallocated
 * memory and atomics only); the agent thread aggregates into the model. */
#ifndef COLLECT_ALLOC_SAMPLED_H
#define COLLECT_ALLOC_SAMPLED_H

#include <jni.h>
#include <jvmti.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"
#include "../core/eventq.h"

#endif
