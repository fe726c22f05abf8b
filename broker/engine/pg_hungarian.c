/* SPDX-License-Identifier: MIT */
/* Hungarian method with row/column potentials: rows are added one at a time
 * and each is routed to a free column along the cheapest alternating path in
 * the reduced costs (Dijkstra-like, dense). Works on n <= m; a taller matrix
 * is transposed first. */
#include "pg_hungarian.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    const double *a; /* n x m, n <= m */
    size_t n, m;
    double *u, *v, *minv; /* potentials (n+1, m+1) and slack (m+1) */
    size_t *p, *way;      /* p[j]: row on column j (1-based, 0 free) */
    char *used;
} hung;

/* Route row i (1-based) into the matching. */
static void add_row(hung *h, size_t i) {
    size_t m = h->m, j0 = 0;
    h->p[0] = i;
    for (size_t j = 0; j <= m; j++) h->minv[j] = INFINITY, h->used[j] = 0;
    do {
        h->used[j0] = 1;
        size_t i0 = h->p[j0], j1 = 0;
        double delta = INFINITY;
        for (size_t j = 1; j <= m; j++) {
            if (h->used[j]) continue;
            double cur = h->a[(i0 - 1) * m + (j - 1)] - h->u[i0] - h->v[j];
            if (cur < h->minv[j]) h->minv[j] = cur, h->way[j] = j0;
            if (h->minv[j] < delta) delta = h->minv[j], j1 = j;
        }
        for (size_t j = 0; j <= m; j++) {
            if (h->used[j]) h->u[h->p[j]] += delta, h->v[j] -= delta;
            else h->minv[j] -= delta;
        }
        j0 = j1;
    } while (h->p[j0] != 0);
    do { /* flip the path */
        size_t j1 = h->way[j0];
        h->p[j0] = h->p[j1];
        j0 = j1;
    } while (j0);
}

static pg_err check(const double *cost, size_t n, size_t m, pg_error *e) {
    if (n == 0 || m == 0 || n > PG_HUNG_MAX || m > PG_HUNG_MAX)
        return pg_error_set(e, PG_E_USAGE, NULL, "assignment of %zux%zu is outside 1..%d", n, m, PG_HUNG_MAX);
    for (size_t k = 0; k < n * m; k++)
        if (!isfinite(cost[k])) return pg_error_set(e, PG_E_USAGE, NULL, "assignment cost %zu is not finite", k);
    return PG_OK;
}

pg_err pg_hungarian(const double *cost, size_t n, size_t m, int *row_to_col, double *total, pg_error *e) {
    *total = 0;
    pg_err rc = check(cost, n, m, e);
    if (rc) return rc;
    int tall = n > m;
    size_t rn = tall ? m : n, rm = tall ? n : m;
    double *t = tall ? malloc(sizeof *t * n * m) : NULL;
    if (tall && t)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < m; j++) t[j * n + i] = cost[i * m + j];
    hung h = {tall ? t : cost, rn, rm, calloc(rn + 1, sizeof(double)), calloc(rm + 1, sizeof(double)),
              calloc(rm + 1, sizeof(double)), calloc(rm + 1, sizeof(size_t)), calloc(rm + 1, sizeof(size_t)),
              calloc(rm + 1, 1)};
    if ((tall && !t) || !h.u || !h.v || !h.minv || !h.p || !h.way || !h.used)
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a %zux%zu assignment", n, m);
    for (size_t i = 1; !rc && i <= rn; i++) add_row(&h, i);
    for (size_t i = 0; !rc && i < n; i++) row_to_col[i] = -1;
    for (size_t j = 1; !rc && j <= rm; j++) {
        if (!h.p[j]) continue;
        size_t r = tall ? j - 1 : h.p[j] - 1, c = tall ? h.p[j] - 1 : j - 1;
        row_to_col[r] = (int)c;
    }
    for (size_t i = 0; !rc && i < n; i++)
        if (row_to_col[i] >= 0) *total += cost[i * m + (size_t)row_to_col[i]];
    free(t), free(h.u), free(h.v), free(h.minv), free(h.p), free(h.way), free(h.used);
    return rc;
}
