/* recording_window.h — a window of a recording (record=y) as a model of its
 * own: each event kept between two times replayed into a fresh model (its
 * trace's and stack's frames, classes and names copied from the session's
 * model, its counts from the events), so every writer draws it unchanged. */
#ifndef RECORDING_WINDOW_H
#define RECORDING_WINDOW_H

#include <stdint.h>

#include "model.h"

/* The events of src->recording with from_ns <= time < to_ns (wall clock, ns
 * since the epoch) in a new model, with the window and how far back the
 * recording reaches in its window_* and recorded_from_ms fields. NULL when
 * src has no recording or memory ran out. */
model *recording_window(const model *src, uint64_t from_ns, uint64_t to_ns);

#endif
