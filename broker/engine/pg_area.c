/* SPDX-License-Identifier: MIT */
#include "pg_area.h"

#include <stdlib.h>

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

pg_err pg_area_map_build(pg_area_map *m, uint32_t n_in, uint32_t n_out, pg_error *e) {
    m->span = NULL;
    m->w = NULL;
    m->n_in = n_in;
    m->n_out = n_out;
    if (n_in == 0 || n_out == 0) return pg_error_set(e, PG_E_USAGE, NULL, "resample from %u to %u samples", n_in, n_out);
    /* Each destination touches at most n_in/n_out + 2 sources. */
    size_t cap = (size_t)n_in + 2 * (size_t)n_out;
    m->span = malloc(sizeof *m->span * n_out);
    m->w = malloc(sizeof *m->w * cap);
    if (!m->span || !m->w) {
        pg_area_map_free(m);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for resampling weights");
    }
    uint32_t woff = 0;
    for (uint32_t j = 0; j < n_out; j++) {
        uint64_t lo = (uint64_t)j * n_in, hi = (uint64_t)(j + 1) * n_in;
        uint32_t first = (uint32_t)(lo / n_out);
        uint32_t last = (uint32_t)((hi - 1) / n_out);
        m->span[j] = (pg_area_span){first, last - first + 1, woff};
        for (uint32_t i = first; i <= last; i++) {
            uint64_t a = max_u64(lo, (uint64_t)i * n_out), b = min_u64(hi, (uint64_t)(i + 1) * n_out);
            m->w[woff++] = (uint32_t)(b - a);
        }
    }
    return PG_OK;
}

void pg_area_map_free(pg_area_map *m) {
    free(m->span);
    free(m->w);
    m->span = NULL;
    m->w = NULL;
}
