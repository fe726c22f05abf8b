/* SPDX-License-Identifier: MIT */
/* pg_kmeans: byte-identical results across runs, well-separated clusters
 * recovered with their weights, weights equal to repeated points, fewer
 * distinct points than k, and bad input refused. */
#include <math.h>

#include "pg_kmeans.h"
#include "pg_test.h"
#include "test_engine_util.h"

/* Six tight blobs in a Lab-like space, sizes 10..60 points. */
static size_t blobs(double *p, uint32_t seed) {
    static const double c[6][3] = {{90, 0, 0}, {20, 10, -40}, {55, 60, 40}, {70, -50, 50}, {40, 0, 0}, {60, 30, -60}};
    size_t n = 0;
    for (int b = 0; b < 6; b++)
        for (int i = 0; i < 10 * (b + 1); i++, n++)
            for (int d = 0; d < 3; d++) p[3 * n + d] = c[b][d] + ((double)(tu_rand(&seed) % 2001) - 1000) / 1000.0;
    return n;
}

PG_TEST(kmeans_is_byte_identical_across_runs) {
    static double p[3 * 210];
    size_t n = blobs(p, 9);
    pg_km_opts o;
    pg_km_opts_init(&o);
    pg_km_result a, b;
    uint8_t la[210], lb[210];
    REQUIRE(pg_kmeans(p, NULL, n, &o, &a, la, NULL) == PG_OK);
    REQUIRE(pg_kmeans(p, NULL, n, &o, &b, lb, NULL) == PG_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(memcmp(la, lb, n) == 0);
}

PG_TEST(separated_blobs_are_found_largest_first) {
    static double p[3 * 210];
    size_t n = blobs(p, 3);
    pg_km_opts o;
    pg_km_opts_init(&o);
    pg_km_result r;
    uint8_t lab[210];
    REQUIRE(pg_kmeans(p, NULL, n, &o, &r, lab, NULL) == PG_OK);
    REQUIRE(r.k == 6);
    for (unsigned j = 0; j < 6; j++) CHECK(r.weight[j] == 10.0 * (6 - j)); /* blob 5 has 60 points ... */
    CHECK(fabs(r.centre[0][0] - 60) < 0.5 && fabs(r.centre[0][2] + 60) < 0.5);
    size_t i0 = 0; /* every point of a blob in one cluster */
    for (int b = 0; b < 6; b++) {
        for (int i = 1; i < 10 * (b + 1); i++) CHECK(lab[i0 + (size_t)i] == lab[i0]);
        i0 += (size_t)(10 * (b + 1));
    }
}

PG_TEST(weights_count_like_repeated_points) {
    double p[3 * 4] = {0, 0, 0, 1, 0, 0, 10, 0, 0, 11, 0, 0}, w[4] = {3, 1, 1, 1};
    double rep[3 * 6] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 10, 0, 0, 11, 0, 0};
    pg_km_opts o;
    pg_km_opts_init(&o);
    o.k = 2;
    pg_km_result a, b;
    REQUIRE(pg_kmeans(p, w, 4, &o, &a, NULL, NULL) == PG_OK);
    REQUIRE(pg_kmeans(rep, NULL, 6, &o, &b, NULL, NULL) == PG_OK);
    REQUIRE(a.k == 2 && b.k == 2);
    for (unsigned j = 0; j < 2; j++) {
        CHECK(a.weight[j] == b.weight[j]);
        CHECK(fabs(a.centre[j][0] - b.centre[j][0]) < 1e-12);
    }
    CHECK(fabs(a.centre[0][0] - 0.25) < 1e-12); /* (3*0 + 1) / 4 */
}

PG_TEST(fewer_distinct_points_than_k_give_fewer_clusters) {
    double p[3 * 5] = {1, 2, 3, 1, 2, 3, 7, 7, 7, 1, 2, 3, 7, 7, 7};
    pg_km_opts o;
    pg_km_opts_init(&o);
    pg_km_result r;
    REQUIRE(pg_kmeans(p, NULL, 5, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.k, 2);
    CHECK(r.weight[0] == 3 && r.weight[1] == 2);
    CHECK(r.inertia == 0);
}

PG_TEST(bad_k_weights_and_points_are_refused) {
    double p[6] = {0, 0, 0, 1, 1, 1}, w[2] = {1, -1}, z[2] = {0, 0};
    pg_km_opts o;
    pg_km_opts_init(&o);
    pg_km_result r;
    pg_error e;
    CHECK_EQ_INT(pg_kmeans(p, w, 2, &o, &r, NULL, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_kmeans(p, z, 2, &o, &r, NULL, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_kmeans(p, NULL, 0, &o, &r, NULL, &e), PG_E_USAGE);
    o.k = PG_KM_MAX_K + 1;
    CHECK_EQ_INT(pg_kmeans(p, NULL, 2, &o, &r, NULL, &e), PG_E_USAGE);
    o.k = 2;
    p[4] = NAN;
    CHECK_EQ_INT(pg_kmeans(p, NULL, 2, &o, &r, NULL, &e), PG_E_USAGE);
}
