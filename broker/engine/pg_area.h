/* SPDX-License-Identifier: MIT */
/* pg_area.h - engine-internal: exact area-coverage weights for resampling.
 *
 * Maps n_in source samples onto n_out destination samples on a common integer
 * grid: source i covers [i*n_out, (i+1)*n_out), destination j covers
 * [j*n_in, (j+1)*n_in). The weight of i in j is the length of the overlap, so
 * the weights of every destination sum to exactly n_in and averaging stays in
 * integers (no rounding until the caller divides once).
 * Never: visible outside broker/engine.
 */
#ifndef PG_AREA_H
#define PG_AREA_H

#include <stdint.h>

#include "pg_error.h"

typedef struct {
    uint32_t first; /* first source index */
    uint32_t count; /* number of source indices */
    uint32_t woff;  /* offset of this destination's weights in pg_area_map.w */
} pg_area_span;

typedef struct {
    pg_area_span *span; /* n_out entries */
    uint32_t *w;        /* weights, span[j].count of them from span[j].woff */
    uint32_t n_in, n_out;
} pg_area_map;

pg_err pg_area_map_build(pg_area_map *m, uint32_t n_in, uint32_t n_out, pg_error *e);
void pg_area_map_free(pg_area_map *m);

#endif
