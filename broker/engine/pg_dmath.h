/* SPDX-License-Identifier: MIT */
/* pg_dmath.h - engine-internal: the elementary functions the design and
 * colour scores need (exp, log, pow, cbrt, sin, cos, atan2), built only from
 * IEEE-754 double additions, multiplications, divisions and exact scaling by
 * powers of two.
 *
 * Why: glibc, the mingw-w64 C runtime and compiler builtins each round the
 * last bit of exp/atan2/cos differently, and a score that passes through a
 * k-means, a threshold or a hue branch can amplify one ulp into a visible
 * difference. These functions give the same bits on every compiler and C
 * library that follows IEEE-754 round-to-nearest without contraction (the
 * engine builds with -ffp-contract=off and never with -ffast-math), so the
 * comparison output is byte-identical across gcc, clang and mingw builds.
 * Accuracy: within a few ulp of the true value on the domains below (checked
 * against the C library by test_engine_dmath).
 * Domains: exp any double (overflow -> HUGE_VAL, underflow -> 0); log and
 * pow(x, y) for x > 0 (else NaN; log(0) = -HUGE_VAL); sin/cos for
 * |x| <= 1e6 (else NaN); cbrt and atan2 everywhere (atan2(0, 0) = 0).
 * Never: visible outside broker/engine; no state, no errno.
 */
#ifndef PG_DMATH_H
#define PG_DMATH_H

#define PG_DM_PI 3.14159265358979323846

double pg_dm_exp(double x);
double pg_dm_log(double x);
double pg_dm_pow(double x, double y);
double pg_dm_cbrt(double x);
double pg_dm_sin(double x);
double pg_dm_cos(double x);
double pg_dm_atan2(double y, double x);

#endif
