/* alloc_sites.h — heap=sites: allocation sites from JVMTI's allocation
 * sampling (SampledObjectAlloc, one allocation every alloc_interval bytes on
 * average), with each sampled object tagged so that its ObjectFree moves
 * its estimate from live to dead, and the count and time of garbage
 * collections. The callbacks run on the program's threads (allocation) and
 * in JVMTI's restricted modes (ObjectFree, GC start/finish: preallocated
 * memory and atomics only); the agent thread aggregates into the model. */
#ifndef ALLOC_SITES_H
#define ALLOC_SITES_H

#include <jni.h>
#include <jvmti.h>

#include "../../common/jp_error.h"
#include "../../model/model.h"
#include "../core/eventq.h"

#endif
