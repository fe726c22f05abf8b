/* SPDX-License-Identifier: MIT */
/* pg_fft (engine-internal): every 2,3,5-smooth length up to 400 against a
 * double-precision naive DFT, forward and inverse, several lanes. */
#include <math.h>
#include <stdlib.h>

#include "pg_fft.h"
#include "pg_test.h"
#include "test_engine_util.h"

static double fft_error(uint32_t n, size_t L, int inverse) {
    pg_fft_plan p;
    if (pg_fft_plan_init(&p, n, NULL)) return 1e9;
    size_t sz = (size_t)n * L;
    float *re = malloc(sz * 4), *im = malloc(sz * 4), *sr = malloc(sz * 4), *si = malloc(sz * 4);
    double *xr = malloc(sz * 8), *xi = malloc(sz * 8);
    uint32_t seed = n * 7 + 1;
    for (size_t i = 0; i < sz; i++) {
        re[i] = (float)((int)(tu_rand(&seed) % 2001) - 1000) / 1000.0f;
        im[i] = (float)((int)(tu_rand(&seed) % 2001) - 1000) / 1000.0f;
        xr[i] = re[i];
        xi[i] = im[i];
    }
    if (inverse) pg_fft_vec(&p, im, re, sr, si, L); /* inverse = swapped forward */
    else pg_fft_vec(&p, re, im, sr, si, L);
    double worst = 0, sign = inverse ? 1 : -1;
    for (size_t v = 0; v < L; v++)
        for (uint32_t k = 0; k < n; k++) {
            double ar = 0, ai = 0;
            for (uint32_t t = 0; t < n; t++) {
                double a = sign * 2 * 3.14159265358979323846 * (double)((uint64_t)k * t % n) / n;
                ar += xr[t * L + v] * cos(a) - xi[t * L + v] * sin(a);
                ai += xr[t * L + v] * sin(a) + xi[t * L + v] * cos(a);
            }
            double d = fabs(ar - re[k * L + v]) + fabs(ai - im[k * L + v]);
            if (d / sqrt((double)n) > worst) worst = d / sqrt((double)n);
        }
    free(re), free(im), free(sr), free(si), free(xr), free(xi);
    pg_fft_plan_fini(&p);
    return worst;
}

PG_TEST(fft_matches_naive_dft_for_smooth_lengths) {
    int tested = 0;
    for (uint32_t n = 1; n <= 400; n++) {
        if (pg_fft_good_size(n, 0) != n && n != 1) continue;
        double f = fft_error(n, 3, 0), i = fft_error(n, 2, 1);
        if (f > 1e-5 || i > 1e-5) fprintf(stderr, "n=%u forward %g inverse %g\n", n, f, i);
        CHECK(f < 1e-5 && i < 1e-5);
        tested++;
    }
    CHECK(tested > 50);
}

PG_TEST(fft_good_size_and_bad_lengths) {
    CHECK_EQ_INT(pg_fft_good_size(1921, 0), 1944);
    CHECK_EQ_INT(pg_fft_good_size(1080, 1), 1080);
    CHECK_EQ_INT(pg_fft_good_size(7, 0), 8);
    CHECK_EQ_INT(pg_fft_good_size(15, 1), 16);
    pg_fft_plan p;
    CHECK_EQ_INT(pg_fft_plan_init(&p, 14, NULL), PG_E_USAGE);
}
