/* SPDX-License-Identifier: MIT */
/* pg_regions.h - engine-internal: 8-connected components of a set of pixels
 * given row by row as horizontal runs, with union-find over runs (memory is
 * proportional to the number of runs, never to the image), and the densest
 * square window of those pixels.
 * Never: visible outside broker/engine.
 */
#ifndef PG_REGIONS_H
#define PG_REGIONS_H

#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

typedef struct {
    uint32_t x0, x1, y; /* inclusive run [x0, x1] on row y */
    uint32_t parent;
} pg_run;

typedef struct {
    pg_run *runs;
    uint32_t len, cap;
    uint32_t prev_lo, prev_hi; /* runs of the previous row */
    uint32_t cur_lo;           /* first run of the current row */
    uint32_t cur_y;
    int oom;
} pg_regions;

typedef struct {
    pg_img_rect box;
    uint64_t pixels;
} pg_region_info;

void pg_regions_init(pg_regions *g);
void pg_regions_fini(pg_regions *g);
/* Rows must be visited in increasing y and runs in increasing x within a row. */
void pg_regions_begin_row(pg_regions *g, uint32_t y);
void pg_regions_add_run(pg_regions *g, uint32_t x0, uint32_t x1);
void pg_regions_end_row(pg_regions *g);

/* The largest number of run pixels inside any n x n window of the w x h
 * area the runs came from (1 <= n <= min(w, h)); 0 without runs. Memory: w
 * counters. Call before pg_regions_finish. */
pg_err pg_regions_max_window(const pg_regions *g, uint32_t w, uint32_t h, uint32_t n, uint64_t *out, pg_error *e);

/* The max_out largest components, largest first (ties: top, then left);
 * *count = all components, *bounds_out = union box (only if count > 0). */
pg_err pg_regions_finish(pg_regions *g, pg_region_info *out, size_t max_out, size_t *n_out, uint64_t *count,
                         pg_img_rect *bounds_out, pg_error *e);

#endif
