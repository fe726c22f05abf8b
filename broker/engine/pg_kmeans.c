/* SPDX-License-Identifier: MIT */
/* Weighted k-means++ and Lloyd iterations (see pg_kmeans.h). */
#include "pg_kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const double *p, *w;
    size_t n;
    unsigned k;
    double c[PG_KM_MAX_K][3];
    uint8_t *lab;  /* current labels */
    double *d2;    /* squared distance to the own centre */
    uint64_t rng;
} km;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits (exact). */
static double uniform(uint64_t *s) { return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0); }

static double wt(const km *m, size_t i) { return m->w ? m->w[i] : 1.0; }

static double dist2(const double *a, const double *b) {
    double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return x * x + y * y + z * z;
}

/* Index drawn with probability proportional to mass[i] (total > 0). */
static size_t draw(km *m, const double *mass, double total) {
    double target = uniform(&m->rng) * total, acc = 0;
    size_t last = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (mass[i] <= 0) continue;
        acc += mass[i];
        last = i;
        if (acc > target) return i;
    }
    return last; /* rounding left target above the sum */
}

/* k-means++: fills m->c; m->k may shrink when points run out. */
static void seed_centres(km *m, unsigned k, double *mass) {
    double total = 0;
    for (size_t i = 0; i < m->n; i++) total += mass[i] = wt(m, i);
    size_t first = draw(m, mass, total);
    memcpy(m->c[0], m->p + 3 * first, sizeof m->c[0]);
    for (size_t i = 0; i < m->n; i++) m->d2[i] = dist2(m->p + 3 * i, m->c[0]);
    m->k = 1;
    while (m->k < k) {
        total = 0;
        for (size_t i = 0; i < m->n; i++) total += mass[i] = wt(m, i) * m->d2[i];
        if (!(total > 0)) break; /* every point sits on a centre */
        size_t pick = draw(m, mass, total);
        memcpy(m->c[m->k], m->p + 3 * pick, sizeof m->c[0]);
        for (size_t i = 0; i < m->n; i++) {
            double d = dist2(m->p + 3 * i, m->c[m->k]);
            if (d < m->d2[i]) m->d2[i] = d;
        }
        m->k++;
    }
}

/* Assign every point to its nearest centre; returns how many changed. */
static size_t assign(km *m, int first) {
    size_t changed = 0;
    for (size_t i = 0; i < m->n; i++) {
        const double *p = m->p + 3 * i;
        double best = dist2(p, m->c[0]);
        uint8_t bj = 0;
        for (unsigned j = 1; j < m->k; j++) {
            double d = dist2(p, m->c[j]);
            if (d < best) best = d, bj = (uint8_t)j;
        }
        if (first || bj != m->lab[i]) changed++;
        m->lab[i] = bj;
        m->d2[i] = best;
    }
    return changed;
}

/* Centres to the weighted means; an empty cluster takes the farthest point.
 * Returns 1 when an empty cluster was refilled (labels must be redone). */
static int update(km *m) {
    double s[PG_KM_MAX_K][4];
    memset(s, 0, sizeof s);
    for (size_t i = 0; i < m->n; i++) {
        double w = wt(m, i);
        double *t = s[m->lab[i]];
        t[0] += w * m->p[3 * i], t[1] += w * m->p[3 * i + 1], t[2] += w * m->p[3 * i + 2], t[3] += w;
    }
    int refilled = 0;
    for (unsigned j = 0; j < m->k; j++) {
        if (s[j][3] > 0) {
            for (int d = 0; d < 3; d++) m->c[j][d] = s[j][d] / s[j][3];
            continue;
        }
        size_t far = 0;
        for (size_t i = 1; i < m->n; i++)
            if (m->d2[i] > m->d2[far]) far = i;
        memcpy(m->c[j], m->p + 3 * far, sizeof m->c[0]);
        m->d2[far] = 0;
        refilled = 1;
    }
    return refilled;
}

static double inertia(const km *m) {
    double t = 0;
    for (size_t i = 0; i < m->n; i++) t += wt(m, i) * m->d2[i];
    return t;
}

/* One seeding plus Lloyd; returns the rounds used. */
static unsigned run_once(km *m, const pg_km_opts *o, double *mass) {
    seed_centres(m, o->k, mass);
    unsigned it = 0;
    assign(m, 1);
    while (it < o->max_iter) {
        it++;
        int refilled = update(m);
        if (assign(m, 0) == 0 && !refilled) break;
    }
    return it;
}

static pg_err check(const double *pts, const double *w, size_t n, const pg_km_opts *o, pg_error *e) {
    if (o->k < 1 || o->k > PG_KM_MAX_K || o->n_init < 1)
        return pg_error_set(e, PG_E_USAGE, NULL, "k-means needs 1 <= k <= %d and n_init >= 1", PG_KM_MAX_K);
    if (n == 0 || n > PG_KM_MAX_POINTS)
        return pg_error_set(e, PG_E_USAGE, NULL, "k-means of %zu points (1..%zu)", n, PG_KM_MAX_POINTS);
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && !(isfinite(w[i]) && w[i] >= 0)) return pg_error_set(e, PG_E_USAGE, NULL, "k-means weight %zu is invalid", i);
        if (!isfinite(pts[3 * i]) || !isfinite(pts[3 * i + 1]) || !isfinite(pts[3 * i + 2]))
            return pg_error_set(e, PG_E_USAGE, NULL, "k-means point %zu is not finite", i);
        total += w ? w[i] : 1.0;
    }
    if (!(total > 0)) return pg_error_set(e, PG_E_USAGE, NULL, "k-means weights are all zero");
    return PG_OK;
}

static int cluster_before(const pg_km_result *r, unsigned a, unsigned b) {
    if (r->weight[a] != r->weight[b]) return r->weight[a] > r->weight[b];
    for (int d = 0; d < 3; d++)
        if (r->centre[a][d] != r->centre[b][d]) return r->centre[a][d] < r->centre[b][d];
    return a < b;
}

/* Fill r from the kept run (centres, weights) in output order; remap labels. */
static void finish(const km *best, const uint8_t *best_lab, pg_km_result *r, uint8_t *labels) {
    pg_km_result raw = *r;
    raw.k = best->k;
    memset(raw.weight, 0, sizeof raw.weight);
    for (size_t i = 0; i < best->n; i++) raw.weight[best_lab[i]] += best->w ? best->w[i] : 1.0;
    memcpy(raw.centre, best->c, sizeof raw.centre);
    unsigned order[PG_KM_MAX_K];
    for (unsigned j = 0; j < raw.k; j++) order[j] = j;
    for (unsigned i = 1; i < raw.k; i++) /* insertion sort: k is tiny */
        for (unsigned j = i; j > 0 && cluster_before(&raw, order[j], order[j - 1]); j--) {
            unsigned t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint8_t rank[PG_KM_MAX_K];
    for (unsigned j = 0; j < raw.k; j++) {
        rank[order[j]] = (uint8_t)j;
        memcpy(r->centre[j], raw.centre[order[j]], sizeof r->centre[0]);
        r->weight[j] = raw.weight[order[j]];
    }
    r->k = raw.k;
    if (labels)
        for (size_t i = 0; i < best->n; i++) labels[i] = rank[best_lab[i]];
}

void pg_km_opts_init(pg_km_opts *o) { *o = (pg_km_opts){6, PG_KM_DEFAULT_SEED, 4, 100}; }

pg_err pg_kmeans(const double *pts, const double *w, size_t n, const pg_km_opts *o, pg_km_result *r,
                 uint8_t *labels, pg_error *e) {
    memset(r, 0, sizeof *r);
    pg_err rc = check(pts, w, n, o, e);
    if (rc) return rc;
    km m = {.p = pts, .w = w, .n = n};
    uint8_t *best_lab = malloc(n);
    double *mass = malloc(sizeof *mass * n);
    m.lab = malloc(n);
    m.d2 = malloc(sizeof *m.d2 * n);
    if (!best_lab || !mass || !m.lab || !m.d2) {
        free(best_lab), free(mass), free(m.lab), free(m.d2);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for k-means of %zu points", n);
    }
    km best = m;
    double best_inertia = INFINITY;
    for (unsigned run = 0; run < o->n_init; run++) {
        m.rng = o->seed + run;
        unsigned it = run_once(&m, o, mass);
        double in = inertia(&m);
        if (in < best_inertia) {
            best_inertia = in, best = m, r->iterations = it, r->run = run;
            memcpy(best_lab, m.lab, n);
        }
    }
    finish(&best, best_lab, r, labels);
    r->inertia = best_inertia;
    free(best_lab), free(mass), free(m.lab), free(m.d2);
    return PG_OK;
}
