/* SPDX-License-Identifier: MIT */
/* pg_hungarian: the assignment is one to one and its total equals the
 * brute-force minimum over all assignments, on random square and
 * rectangular matrices (real and tied integer costs); bad input is refused. */
#include <math.h>

#include "pg_hungarian.h"
#include "pg_test.h"
#include "test_engine_util.h"

/* Minimum total over every injective map of the smaller side into the larger. */
static double brute(const double *c, size_t n, size_t m, size_t row, unsigned used, double acc, double best) {
    if (row == n) return acc < best ? acc : best;
    for (size_t j = 0; j < m; j++) {
        if (used >> j & 1) continue;
        best = brute(c, n, m, row + 1, used | 1u << j, acc + c[row * m + j], best);
    }
    return best;
}

static double brute_min(const double *c, size_t n, size_t m) {
    if (n <= m) return brute(c, n, m, 0, 0, 0, INFINITY);
    double t[64];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) t[j * n + i] = c[i * m + j];
    return brute(t, m, n, 0, 0, 0, INFINITY);
}

static int one_to_one(const int *r2c, size_t n, size_t m, size_t *assigned) {
    unsigned seen = 0;
    *assigned = 0;
    for (size_t i = 0; i < n; i++) {
        if (r2c[i] < 0) continue;
        if (r2c[i] >= (int)m || (seen >> r2c[i] & 1)) return 0;
        seen |= 1u << r2c[i];
        (*assigned)++;
    }
    return 1;
}

static void run_cases(int *pg_failed_, int integer) {
    uint32_t seed = integer ? 77 : 12345;
    int cases = 0;
    for (size_t n = 1; n <= 7; n++)
        for (size_t m = 1; m <= 7; m++)
            for (int rep = 0; rep < 6; rep++) {
                double c[64];
                for (size_t k = 0; k < n * m; k++)
                    c[k] = integer ? (double)(tu_rand(&seed) % 4) : (tu_rand(&seed) % 100000) / 997.0;
                int r2c[8];
                double total;
                REQUIRE(pg_hungarian(c, n, m, r2c, &total, NULL) == PG_OK);
                size_t assigned;
                CHECK(one_to_one(r2c, n, m, &assigned));
                CHECK_EQ_INT(assigned, n < m ? n : m);
                double sum = 0;
                for (size_t i = 0; i < n; i++)
                    if (r2c[i] >= 0) sum += c[i * m + (size_t)r2c[i]];
                CHECK(fabs(sum - total) < 1e-9);
                CHECK(fabs(total - brute_min(c, n, m)) < 1e-9);
                cases++;
            }
    CHECK_EQ_INT(cases, 7 * 7 * 6);
}

PG_TEST(assignment_is_optimal_against_brute_force_on_real_costs) { run_cases(pg_failed_, 0); }

PG_TEST(assignment_is_optimal_against_brute_force_on_tied_integer_costs) { run_cases(pg_failed_, 1); }

PG_TEST(a_known_matrix_gets_the_known_pairing) {
    /* Rows prefer the same column; only the anti-diagonal is cheap overall. */
    double c[9] = {4, 1, 3, 2, 0, 5, 3, 2, 2};
    int r2c[3];
    double total;
    REQUIRE(pg_hungarian(c, 3, 3, r2c, &total, NULL) == PG_OK);
    CHECK(total == 5.0); /* 1 + 2 + 2 (0-1, 1-0, 2-2) */
    CHECK_EQ_INT(r2c[0], 1);
    CHECK_EQ_INT(r2c[1], 0);
    CHECK_EQ_INT(r2c[2], 2);
}

PG_TEST(empty_oversized_and_non_finite_matrices_are_refused) {
    double c[4] = {1, 2, NAN, 4};
    int r2c[2];
    double total;
    pg_error e;
    CHECK_EQ_INT(pg_hungarian(c, 0, 2, r2c, &total, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_hungarian(c, 2, PG_HUNG_MAX + 1, r2c, &total, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_hungarian(c, 2, 2, r2c, &total, &e), PG_E_USAGE);
}
