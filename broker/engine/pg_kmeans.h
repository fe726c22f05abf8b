/* SPDX-License-Identifier: MIT */
/* pg_kmeans.h - deterministic weighted k-means on 3-D points (the design
 * comparison runs it on CIELAB colours).
 *
 * Does: n_init runs of k-means++ seeding followed by Lloyd iterations, and
 * keeps the run with the lowest inertia (sum of weight * squared distance;
 * the first run wins a tie). Seeding draws from a splitmix64 generator
 * started from opts.seed (run r uses seed + r), with probability
 * proportional to weight (first centre) and then to weight * D^2, exactly as
 * k-means++ does. Lloyd: each point goes to the nearest centre (ties: the
 * lower index), each centre moves to the weighted mean of its points; it
 * stops when no point changes cluster or after max_iter rounds. A cluster
 * left empty takes the point farthest from its centre (ties: lower index).
 * Fewer clusters than asked when there are fewer distinct points.
 * Output order: clusters by total weight, largest first (ties: lower L, then
 * a, then b), so the same input always lists the same palette.
 * Deterministic: fixed seed, fixed iteration order, IEEE basic operations
 * only - the same bits on every compiler (no -ffast-math).
 * Errors: PG_E_USAGE for k outside 1..PG_KM_MAX_K, n of 0 or above
 * PG_KM_MAX_POINTS, a negative or non-finite weight, or all weights 0.
 * Never: keeps state; memory is O(n) for the call only.
 * Ownership: pts (n x 3), w (n; NULL = all 1) and labels (n; NULL = not
 * wanted; the cluster of each point in output order) are the caller's.
 */
#ifndef PG_KMEANS_H
#define PG_KMEANS_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_KM_MAX_K 16
#define PG_KM_MAX_POINTS ((size_t)1 << 24)

typedef struct {
    unsigned k;        /* clusters wanted; default 6 */
    uint64_t seed;     /* default PG_KM_DEFAULT_SEED */
    unsigned n_init;   /* independent seedings; default 4 */
    unsigned max_iter; /* Lloyd rounds per seeding; default 100 */
} pg_km_opts;

#define PG_KM_DEFAULT_SEED 0x5eed0f0c0105ull

typedef struct {
    unsigned k; /* clusters found */
    double centre[PG_KM_MAX_K][3];
    double weight[PG_KM_MAX_K]; /* total weight of each cluster's points */
    double inertia;
    unsigned iterations; /* Lloyd rounds of the kept run */
    unsigned run;        /* which seeding was kept */
} pg_km_result;

void pg_km_opts_init(pg_km_opts *o);

pg_err pg_kmeans(const double *pts, const double *w, size_t n, const pg_km_opts *o, pg_km_result *r,
                 uint8_t *labels, pg_error *e);

#endif
