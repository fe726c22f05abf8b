/* SPDX-License-Identifier: MIT */
/* pg_dmath: the portable elementary functions stay within a few ulp of the
 * C library over the domains the colour and design scores use, and keep
 * their special values. (Bit-identity across compilers follows from using
 * only IEEE basic operations; the cross-build check is in the report.) */
#include <float.h>
#include <math.h>

#include "pg_dmath.h"
#include "pg_test.h"

/* Largest error in units of DBL_EPSILON relative to max(|want|, floor). */
static double err(double got, double want, double floor) {
    double m = fabs(want) > floor ? fabs(want) : floor;
    return fabs(got - want) / m / DBL_EPSILON;
}

PG_TEST(exp_and_log_are_within_two_ulp_of_libm) {
    double we = 0, wl = 0;
    for (int i = 0; i <= 200000; i++) {
        double x = -700.0 + i * 0.007;
        double e = err(pg_dm_exp(x), exp(x), 0);
        if (e > we) we = e;
    }
    for (int i = 1; i <= 200000; i++) {
        double x = i * 0.0137 + 1e-9 * i, y = ldexp(1.0 + i * 1e-6, i % 200 - 100);
        double l1 = err(pg_dm_log(x), log(x), 1), l2 = err(pg_dm_log(y), log(y), 1);
        if (l1 > wl) wl = l1;
        if (l2 > wl) wl = l2;
    }
    CHECK(we <= 2.0);
    CHECK(wl <= 2.0);
}

PG_TEST(sin_cos_atan2_are_within_three_ulp_of_libm_in_absolute_terms) {
    double ws = 0, wc = 0, wa = 0;
    for (int i = -100000; i <= 100000; i++) {
        double x = i * 0.0007; /* +-70 rad: hue angles and beyond */
        double s = err(pg_dm_sin(x), sin(x), 1), c = err(pg_dm_cos(x), cos(x), 1);
        if (s > ws) ws = s;
        if (c > wc) wc = c;
    }
    for (int i = -300; i <= 300; i++)
        for (int j = -300; j <= 300; j++) {
            double y = i * 0.37, x = j * 0.29;
            double a = err(pg_dm_atan2(y, x), atan2(y, x), 1);
            if (a > wa) wa = a;
        }
    CHECK(ws <= 3.0);
    CHECK(wc <= 3.0);
    CHECK(wa <= 3.0);
}

PG_TEST(cbrt_and_pow_are_close_to_libm) {
    double wc = 0, wp = 0;
    for (int i = -100000; i <= 100000; i++) {
        double x = i * 0.37 + (i % 7) * 1e-3;
        double c = err(pg_dm_cbrt(x), cbrt(x), 1e-300);
        if (c > wc) wc = c;
    }
    for (int i = 1; i <= 100000; i++) { /* the sRGB transfer: x^2.4 on (0, 1] */
        double x = i * 1e-5, p = err(pg_dm_pow(x, 2.4), pow(x, 2.4), 0);
        if (p > wp) wp = p;
    }
    CHECK(wc <= 3.0);
    CHECK(wp <= 32.0); /* y*log(x) carries log's error times |y log x| <= 28 */
}

PG_TEST(special_values_follow_the_c_library) {
    CHECK(pg_dm_exp(0) == 1.0);
    CHECK(pg_dm_exp(1000) == INFINITY);
    CHECK(pg_dm_exp(-1000) == 0.0);
    CHECK(pg_dm_log(1) == 0.0);
    CHECK(pg_dm_log(0) == -INFINITY);
    CHECK(isnan(pg_dm_log(-1)));
    CHECK(pg_dm_cbrt(-27) == -3.0);
    CHECK(pg_dm_cbrt(0) == 0.0);
    CHECK(pg_dm_atan2(0, 0) == 0.0);
    CHECK(pg_dm_atan2(0, -1) == PG_DM_PI);
    CHECK(pg_dm_atan2(1, 0) == PG_DM_PI / 2);
    CHECK(pg_dm_sin(0) == 0.0 && pg_dm_cos(0) == 1.0);
    CHECK(isnan(pg_dm_sin(1e7)));
    CHECK(pg_dm_pow(2, 10) == 1024.0);
}
