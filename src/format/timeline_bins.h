/* timeline_bins.h — samples with their times cut into time slices of one
 * width, by key (a flame graph's node): the page's timeline embeds, for each
 * key, the slices it had samples in with their counts, ascending. The width
 * is a round one (1, 2 or 5 times a power of ten milliseconds, 10 ms at the
 * least) so that a span holds at most the slices asked for; the slices start
 * at the origin (the profile's start) plus a whole number of widths. Pure C. */
#ifndef TIMELINE_BINS_H
#define TIMELINE_BINS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct timeline_cell {
    uint32_t key, slice;
    uint64_t count;
} timeline_cell;

typedef struct timeline_bins {
    uint64_t from_ns;         /* the first slice's start (ns, the clock of the samples) */
    uint64_t slice_ns;        /* the width of each */
    uint32_t nslices;
    timeline_cell *cells;     /* after timeline_bins_finish: one per (key, slice) with samples, by key then slice */
    uint32_t ncells, cap;
    uint64_t dropped;         /* samples outside [from, from + nslices * width), or not kept for lack of memory */
    bool oom;
} timeline_bins;

/* The round width that cuts span_ns into at most max_slices slices (at least 10 ms). */
uint64_t timeline_slice_ns(uint64_t span_ns, uint32_t max_slices);
/* Slices covering first_ns .. last_ns (the first and last samples' times, inclusive), aligned on origin_ns
 * (slices start at origin + k * width; a first_ns before the origin starts them at first_ns). */
void timeline_bins_init(timeline_bins *b, uint64_t origin_ns, uint64_t first_ns, uint64_t last_ns,
                        uint32_t max_slices);
/* Adds count samples of key taken at time_ns. */
void timeline_bins_add(timeline_bins *b, uint64_t time_ns, uint32_t key, uint64_t count);
/* Sorts the cells by key then slice and merges those of one (key, slice); false when out of memory. */
bool timeline_bins_finish(timeline_bins *b);
void timeline_bins_free(timeline_bins *b);

#endif
