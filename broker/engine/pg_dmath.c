/* SPDX-License-Identifier: MIT */
/* Elementary functions from IEEE basic operations only (see pg_dmath.h):
 * Cody-Waite range reduction with a split constant, then a Taylor or atanh
 * series long enough that its truncation is below half an ulp. */
#include "pg_dmath.h"

#include <stdint.h>
#include <string.h>

/* ln 2 and pi/2 split so that k * HI is exact for |k| < 2^20. */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10
#define PIO2_HI 1.57079632673412561417e+00
#define PIO2_LO 6.07710050650619224932e-11
#define INV_LN2 1.44269504088896338700e+00
#define TWO_OVER_PI 6.36619772367581382433e-01

static double from_bits(uint64_t u) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t to_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* 2^k for -1022 <= k <= 1023, exactly. */
static double pow2(int k) { return from_bits((uint64_t)(k + 1023) << 52); }

/* x * 2^k; exact unless the result is subnormal. */
static double scale2(double x, int k) {
    while (k > 1023) x *= pow2(1023), k -= 1023;
    while (k < -1022) x *= pow2(-1022), k += 1022;
    return x * pow2(k);
}

/* Nearest integer of v (halves away from zero), for |v| < 2^31. */
static int nearest(double v) { return (int)(v < 0 ? v - 0.5 : v + 0.5); }

double pg_dm_exp(double x) {
    if (x != x) return x;
    if (x > 709.782712893384) return from_bits(0x7ff0000000000000ull);
    if (x < -745.1332191019412) return 0.0;
    int k = nearest(x * INV_LN2);
    double r = (x - k * LN2_HI) - k * LN2_LO; /* |r| <= 0.347 */
    /* Taylor to r^16/16!: the remainder is below 1e-19 relative. */
    double p = 1.0;
    for (int n = 16; n >= 1; n--) p = 1.0 + p * r / n;
    return scale2(p, k);
}

double pg_dm_log(double x) {
    if (x != x || x < 0) return from_bits(0x7ff8000000000000ull);
    if (x == 0) return -from_bits(0x7ff0000000000000ull);
    uint64_t u = to_bits(x);
    if (u >= 0x7ff0000000000000ull) return x; /* +inf */
    int e = 0;
    if ((u >> 52) == 0) { /* subnormal: normalise first */
        x *= pow2(54);
        e = -54;
        u = to_bits(x);
    }
    e += (int)(u >> 52) - 1023;
    double m = from_bits((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull); /* [1, 2) */
    if (m > 1.41421356237309504880) m *= 0.5, e++;
    double f = m - 1.0; /* exact (Sterbenz) */
    double s = f / (2.0 + f), z = s * s; /* |s| <= 0.1716, log(m) = 2 atanh(s) */
    double p = 0.0;
    for (int n = 23; n >= 3; n -= 2) p = (1.0 / n + p) * z;
    double lm = 2.0 * s + 2.0 * s * p;
    return e * LN2_HI + (e * LN2_LO + lm);
}

double pg_dm_pow(double x, double y) {
    if (y == 0) return 1.0;
    if (x == 1) return 1.0;
    if (x == 0) return y > 0 ? 0.0 : from_bits(0x7ff0000000000000ull);
    return pg_dm_exp(y * pg_dm_log(x));
}

double pg_dm_cbrt(double x) {
    if (x == 0 || x != x) return x;
    double a = x < 0 ? -x : x;
    if (to_bits(a) >= 0x7ff0000000000000ull) return x;
    double y = pg_dm_exp(pg_dm_log(a) / 3.0);
    y -= (y * y * y - a) / (3.0 * y * y); /* one Newton step removes the exp/log error */
    return x < 0 ? -y : y;
}

/* sin and cos of r, |r| <= pi/4 (+ a little), by Taylor series. */
static double sin_poly(double r) {
    double z = r * r, p = 0.0;
    for (int n = 19; n >= 3; n -= 2) p = (1.0 - p) * z / ((double)n * (n - 1));
    return r - r * p;
}

static double cos_poly(double r) {
    double z = r * r, p = 0.0;
    for (int n = 20; n >= 2; n -= 2) p = (1.0 - p) * z / ((double)n * (n - 1));
    return 1.0 - p;
}

/* x = k*pi/2 + r; returns r and the quadrant k mod 4. */
static double reduce(double x, int *quadrant) {
    int k = nearest(x * TWO_OVER_PI);
    *quadrant = k & 3;
    return (x - k * PIO2_HI) - k * PIO2_LO;
}

double pg_dm_sin(double x) {
    if (!(x >= -1e6 && x <= 1e6)) return from_bits(0x7ff8000000000000ull);
    int q;
    double r = reduce(x, &q);
    switch (q) {
    case 0: return sin_poly(r);
    case 1: return cos_poly(r);
    case 2: return -sin_poly(r);
    default: return -cos_poly(r);
    }
}

double pg_dm_cos(double x) {
    if (!(x >= -1e6 && x <= 1e6)) return from_bits(0x7ff8000000000000ull);
    int q;
    double r = reduce(x, &q);
    switch (q) {
    case 0: return cos_poly(r);
    case 1: return -sin_poly(r);
    case 2: return -cos_poly(r);
    default: return sin_poly(r);
    }
}

/* atan(t) for |t| <= tan(pi/8): odd series, 26 terms. */
static double atan_poly(double t) {
    double z = t * t, p = 0.0;
    for (int n = 51; n >= 3; n -= 2) p = (1.0 / n - p) * z;
    return t - t * p;
}

/* atan(a) for a >= 0. */
static double atan_pos(double a) {
    int invert = a > 1.0;
    if (invert) a = 1.0 / a;
    double r;
    if (a > 0.41421356237309504880) r = PG_DM_PI / 4 + atan_poly((a - 1.0) / (a + 1.0));
    else r = atan_poly(a);
    return invert ? PG_DM_PI / 2 - r : r;
}

double pg_dm_atan2(double y, double x) {
    if (x != x || y != y) return x + y;
    if (x == 0) return y > 0 ? PG_DM_PI / 2 : y < 0 ? -PG_DM_PI / 2 : 0.0;
    double ay = y < 0 ? -y : y, ax = x < 0 ? -x : x;
    double t = atan_pos(ay / ax); /* ay/ax may overflow to inf: atan_pos(inf) = pi/2 */
    if (x < 0) t = PG_DM_PI - t;
    return y < 0 ? -t : t;
}
