/* SPDX-License-Identifier: MIT */
/* pg_fft.h - engine-internal: mixed-radix (2, 3, 4, 5) complex FFT in single
 * precision over "vectors": the transform runs along the slow axis of an
 * n x L block (element t, lane v at re[t*L + v]) for all L lanes at once, so
 * every butterfly is a contiguous loop the compiler vectorises. Stockham
 * autosort: natural order in and out, no bit reversal.
 * Forward is unnormalised, X[k] = sum_t x[t] exp(-2 pi i k t / n); the
 * inverse (times n) is the forward transform with re and im swapped.
 * Never: visible outside broker/engine; allocates after the plan.
 */
#ifndef PG_FFT_H
#define PG_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_FFT_MAX_STAGES 48

typedef struct {
    uint32_t n;
    int stages;
    uint8_t radix[PG_FFT_MAX_STAGES];
    size_t tw_off[PG_FFT_MAX_STAGES]; /* twiddles of each stage: (radix-1) per j */
    float *tw_re, *tw_im;
} pg_fft_plan;

/* Smallest m >= n whose only prime factors are 2, 3 and 5 (and even if
 * even_only). */
uint32_t pg_fft_good_size(uint32_t n, int even_only);

/* n must be >= 1 and 2,3,5-smooth (PG_E_USAGE otherwise). */
pg_err pg_fft_plan_init(pg_fft_plan *p, uint32_t n, pg_error *e);
void pg_fft_plan_fini(pg_fft_plan *p);

/* In-place forward transform of n vectors of L lanes; sr/si are scratch of
 * the same size (n*L floats each). */
void pg_fft_vec(const pg_fft_plan *p, float *re, float *im, float *sr, float *si, size_t L);

#endif
